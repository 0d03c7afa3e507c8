"""Faults (issue 8): every way a server can fail, over real TCP on 127.0.0.1.

For each fault, in a plain run and in a resume: the exact error type, saying what happened; no
wait beyond the configured timeouts; the thread (messages, state, pending) unchanged; and the same
request (the same decision) re-sent successfully once the server behaves, with the server seeing
exactly one successful resume.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from fault_server import (
    Cut,
    Fault,
    FaultServer,
    Huge,
    InvalidUtf8,
    KeepaliveStall,
    Nested,
    RunErrorMidRun,
    Stall,
    Status,
    refused_url,
)

from agui_notebook import (
    Agent,
    ConnectError,
    HTTPStatusError,
    ProtocolError,
    RunError,
    RunRecord,
    StreamTimeout,
    Thread,
    TruncatedRunError,
    approve,
)
from agui_notebook._thread import delivered_text

pytestmark = pytest.mark.timeout(30)

TIMEOUT = 1.0  # the agents' read timeout (and idle timeout), seconds
SLACK = 2.0  # generous bound on top of the configured timeout
PHASES = ["run", "resume"]


def snapshot(thread: Thread) -> dict[str, Any]:
    return {
        "messages": [m.model_dump(mode="json") for m in thread.messages],
        "state": thread.state,
        "pending": list(thread.pending),
        "tool_calls": thread.tool_calls,
        "busy": thread.busy,
    }


async def prepared(server: FaultServer, phase: str, **agent_options: Any) -> Thread:
    """A thread with history and state; with one interrupt pending for the resume phase."""
    options = {"timeout": TIMEOUT, "idle_timeout": TIMEOUT, **agent_options}
    thread = Agent(server.url, **options).thread()
    first = await thread.run("Transfer $500 from 1234567890 to 0987654321")
    assert first.outcome == "interrupt" and len(thread.pending) == 1
    if phase == "run":
        assert (await thread.resume(approve())).outcome == "success"
        assert thread.pending == []
    return thread


async def attempt(thread: Thread, phase: str) -> Any:
    if phase == "run":
        return await thread.run("Transfer $500 again")
    return await thread.resume(approve())


async def check_fault(
    server: FaultServer,
    phase: str,
    fault: Fault,
    expected: type[BaseException],
    *,
    bound: float = SLACK,
    **agent_options: Any,
) -> tuple[BaseException, RunRecord]:
    """Run the fault, check the common guarantees, re-send; return the error and its record."""
    thread = await prepared(server, phase, **agent_options)
    before = snapshot(thread)
    runs_before = len(thread.runs)
    requests_before = len(server.log)
    server.script(fault)

    started = time.monotonic()
    with pytest.raises(expected) as info:
        await attempt(thread, phase)
    elapsed = time.monotonic() - started
    error = info.value

    assert type(error) is expected, f"{type(error).__name__}: {error}"
    assert elapsed < bound, f"{fault.name} took {elapsed:.2f} s (bound {bound} s)"
    assert snapshot(thread) == before, "a failed request changed the thread"
    assert len(thread.runs) == runs_before + 1
    record = thread.runs[-1]
    assert record.status in ("failed", "truncated") and record.error is error
    assert len(server.log) == requests_before + 1 and server.log[-1].fault == fault.name

    # The server behaves again: the same request succeeds.
    failed_request = server.log[-1].body
    result = await attempt(thread, phase)
    resent = server.log[-1].body
    assert server.log[-1].fault == "behave"
    for key in ("threadId", "parentRunId", "state"):
        assert resent.get(key) == failed_request.get(key), key
    if phase == "resume":
        assert result.outcome == "success" and thread.pending == []
        assert resent["messages"] == failed_request["messages"]
        assert resent["resume"] == failed_request["resume"]  # the same decision, re-sent
        assert len(server.successful_resumes) == 1
        assert len(server.resumes) == 2
    else:
        assert result.outcome == "interrupt" and len(thread.pending) == 1
        # The history sent again is the one before the failure (the failed run left nothing).
        assert resent["messages"][:-1] == failed_request["messages"][:-1]
    return error, record


# -- connection refused ---------------------------------------------------------------------------


async def test_connection_refused_is_a_connect_error_fast() -> None:
    thread = Agent(refused_url(), timeout=TIMEOUT).thread()
    started = time.monotonic()
    with pytest.raises(ConnectError) as info:
        await thread.run("hello")
    assert time.monotonic() - started < SLACK
    assert type(info.value) is ConnectError
    assert "cannot connect to http://127.0.0.1:" in str(info.value)
    assert thread.messages == [] and thread.pending == [] and not thread.busy
    assert thread.runs[-1].status == "failed"


@pytest.mark.parametrize("phase", PHASES)
async def test_connection_refused_on_resume_keeps_pending(
    fault_server: FaultServer, phase: str
) -> None:
    thread = await prepared(fault_server, phase)
    before = snapshot(thread)
    dead = Agent(refused_url(), timeout=TIMEOUT)
    thread.agent._transport, good = dead._transport, thread.agent._transport
    with pytest.raises(ConnectError):
        await attempt(thread, phase)
    assert snapshot(thread) == before
    thread.agent._transport = good
    result = await attempt(thread, phase)
    assert result.outcome == ("success" if phase == "resume" else "interrupt")
    if phase == "resume":
        assert len(fault_server.successful_resumes) == 1


# -- HTTP statuses --------------------------------------------------------------------------------

STATUSES = [
    (400, '{"error": "bad request", "code": "BAD_INPUT"}', "application/json"),
    (401, '{"error": "invalid API key", "code": "UNAUTHENTICATED"}', "application/json"),
    (404, "<html><body>Not Found</body></html>", "text/html"),
    (
        422,
        '{"error": "not a RunAgentInput", "detail": [{"loc": ["runId"], "msg": "missing"}]}',
        "application/json",
    ),
    (500, "Internal Server Error: Traceback (most recent call last) ...", "text/plain"),
    (503, '{"error": "overloaded", "code": "OVERLOADED", "retryAfter": 1}', "application/json"),
]


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize(
    ("status", "body", "content_type"), STATUSES, ids=[str(s[0]) for s in STATUSES]
)
async def test_http_status_is_an_http_status_error_with_its_body(
    fault_server: FaultServer, phase: str, status: int, body: str, content_type: str
) -> None:
    error, _ = await check_fault(
        fault_server, phase, Status(status, body, content_type), HTTPStatusError
    )
    assert isinstance(error, HTTPStatusError)
    assert error.status_code == status
    assert error.body == body
    assert error.url == fault_server.url
    assert str(error).startswith(f"HTTP {status} from {fault_server.url}")
    assert body[:100] in str(error)  # the server's own code/message is shown


async def test_a_large_error_body_is_bounded_in_the_message(fault_server: FaultServer) -> None:
    body = "E" * 200_000
    error, _ = await check_fault(
        fault_server, "resume", Status(500, body, "text/plain"), HTTPStatusError
    )
    assert isinstance(error, HTTPStatusError)
    assert 0 < len(error.body) <= 64 * 1024
    assert len(str(error)) < 1000


# -- not an event stream --------------------------------------------------------------------------


@pytest.mark.parametrize("phase", PHASES)
async def test_non_sse_content_type_is_a_protocol_error(
    fault_server: FaultServer, phase: str
) -> None:
    fault = Status(200, '{"answer": "I am JSON, not SSE"}', "application/json")
    error, _ = await check_fault(fault_server, phase, fault, ProtocolError)
    assert "expected an event stream" in str(error)
    assert "application/json" in str(error) and "I am JSON" in str(error)


# -- streams cut short ----------------------------------------------------------------------------

CUTS = [
    ("mid_event", "inside an event"),
    ("between_events", "between events"),
    ("before_final_blank", "inside an event"),
]


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize(("where", "said"), CUTS, ids=[c[0] for c in CUTS])
async def test_stream_ending_early_is_truncated_and_says_where(
    fault_server: FaultServer, phase: str, where: str, said: str
) -> None:
    error, _ = await check_fault(fault_server, phase, Cut(where, "eof"), TruncatedRunError)
    assert isinstance(error, TruncatedRunError)
    served = next(s for s in reversed(fault_server.log) if s.fault.startswith("cut"))
    assert error.dropped is False
    assert error.bytes_received == served.sent
    assert error.last_event == served.last_complete
    assert said in str(error) and "before RUN_FINISHED or RUN_ERROR" in str(error)


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("where", [c[0] for c in CUTS])
async def test_connection_dropped_mid_body_is_truncated_and_dropped(
    fault_server: FaultServer, phase: str, where: str
) -> None:
    error, _ = await check_fault(fault_server, phase, Cut(where, "drop"), TruncatedRunError)
    assert isinstance(error, TruncatedRunError)
    served = next(s for s in reversed(fault_server.log) if s.fault.startswith("cut"))
    assert error.dropped is True
    assert error.bytes_received == served.sent
    assert error.last_event == served.last_complete
    assert "the connection dropped" in str(error)


@pytest.mark.parametrize("phase", PHASES)
async def test_connection_reset_mid_body_is_truncated_and_dropped(
    fault_server: FaultServer, phase: str
) -> None:
    error, _ = await check_fault(
        fault_server, phase, Cut("between_events", "rst"), TruncatedRunError
    )
    assert isinstance(error, TruncatedRunError)
    assert error.dropped is True
    assert "the connection dropped" in str(error)


# -- stalls ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("phase", PHASES)
async def test_stall_before_any_byte_is_a_stream_timeout(
    fault_server: FaultServer, phase: str
) -> None:
    error, _ = await check_fault(
        fault_server, phase, Stall(30, headers=False), StreamTimeout, bound=TIMEOUT + SLACK
    )
    assert "no response from" in str(error)


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("events", [0, 2])
async def test_stall_mid_stream_is_a_stream_timeout(
    fault_server: FaultServer, phase: str, events: int
) -> None:
    error, _ = await check_fault(
        fault_server,
        phase,
        Stall(30, headers=True, events=events),
        StreamTimeout,
        bound=TIMEOUT + SLACK,
    )
    assert "within the read timeout" in str(error)


@pytest.mark.parametrize("phase", PHASES)
async def test_keepalive_only_stall_ends_at_the_idle_timeout(
    fault_server: FaultServer, phase: str
) -> None:
    # Keepalives every 0.1 s keep the read timeout (1 s) from firing; idle_timeout must.
    error, _ = await check_fault(
        fault_server,
        phase,
        KeepaliveStall(30, 0.1),
        StreamTimeout,
        bound=TIMEOUT + SLACK,
        timeout=TIMEOUT,
        idle_timeout=1.5,
    )
    assert "only keepalive comments" in str(error)


async def test_keepalives_keep_a_slow_run_alive_past_the_read_timeout(
    fault_server: FaultServer,
) -> None:
    """The converse: keepalives for 2.5 s (read timeout 1 s), then the run completes."""

    class SlowThenBehave(KeepaliveStall):
        name = "behave"

        async def serve(self, conn: Any, served: Any) -> None:
            from fault_server import behave_events

            await conn.start_chunked(200, "text/event-stream")
            events = behave_events(served.body)
            await conn.send_event(events[0], served)
            for _ in range(25):
                await conn.write_chunk(b": keepalive\n\n")
                import asyncio

                await asyncio.sleep(0.1)
            for event in events[1:]:
                await conn.send_event(event, served)
            await conn.end_chunked()
            served.completed = True

    thread = await prepared(fault_server, "resume", idle_timeout=None)
    fault_server.script(SlowThenBehave())
    result = await thread.resume(approve())
    assert result.outcome == "success"


# -- hostile content ------------------------------------------------------------------------------


@pytest.mark.timeout(60)
async def test_a_10_mb_event_arrives_by_default(fault_server: FaultServer) -> None:
    thread = await prepared(fault_server, "resume")
    fault_server.script(Huge(10 * 1024 * 1024))
    result = await thread.resume(approve())
    assert result.outcome == "success"
    assert "x" * (10 * 1024 * 1024) in result.text
    assert len(fault_server.successful_resumes) == 0  # served by "huge", not "behave"


@pytest.mark.parametrize("phase", PHASES)
async def test_a_10_mb_event_over_max_event_bytes_is_a_protocol_error(
    fault_server: FaultServer, phase: str
) -> None:
    error, _ = await check_fault(
        fault_server, phase, Huge(10 * 1024 * 1024), ProtocolError, max_event_bytes=1_000_000
    )
    assert "exceeds 1000000" in str(error)


@pytest.mark.parametrize("phase", PHASES)
async def test_invalid_utf8_is_a_protocol_error_at_its_byte(
    fault_server: FaultServer, phase: str
) -> None:
    error, _ = await check_fault(fault_server, phase, InvalidUtf8(), ProtocolError)
    served = next(s for s in reversed(fault_server.log) if s.fault == "invalid utf-8")
    assert f"not valid UTF-8 near byte {served.bad_byte_at}" in str(error)


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("depth", [100_000, 5_000])
async def test_deeply_nested_json_is_a_protocol_error(
    fault_server: FaultServer, phase: str, depth: int
) -> None:
    error, _ = await check_fault(fault_server, phase, Nested(depth), ProtocolError)
    assert "nested too deeply" in str(error)


@pytest.mark.parametrize("phase", PHASES)
async def test_run_error_mid_run_is_a_run_error_with_its_code(
    fault_server: FaultServer, phase: str
) -> None:
    error, _ = await check_fault(fault_server, phase, RunErrorMidRun(), RunError)
    assert isinstance(error, RunError)
    assert error.code == "UPSTREAM_UNAVAILABLE"
    assert error.message == "the model provider failed"
    assert str(error) == "[UPSTREAM_UNAVAILABLE] the model provider failed"


@pytest.mark.parametrize(
    ("fault", "expected"),
    [(RunErrorMidRun(), RunError), (Cut("between_events", "drop"), TruncatedRunError)],
    ids=["run_error", "cut"],
)
async def test_a_failed_run_keeps_the_text_it_delivered_on_its_record(
    fault_server: FaultServer, fault: Fault, expected: type[BaseException]
) -> None:
    """_thread.py: "What the failed run delivered stays readable on its RunRecord" -- also the
    text of a message whose TEXT_MESSAGE_END never came (the usual case when a run breaks)."""
    _, record = await check_fault(fault_server, "resume", fault, expected)
    # The failing resume streamed the start of its reply before breaking.
    assert delivered_text(record) == "Done (resolved)."


# -- a resume whose response fails, several times, then succeeds ----------------------------------

FAILURES: list[Callable[[], Fault]] = [
    lambda: Status(503, '{"error": "overloaded"}'),
    lambda: Cut("mid_event", "drop"),
    lambda: Stall(30, headers=True, events=1),
    lambda: RunErrorMidRun(),
    lambda: InvalidUtf8(),
]


async def test_a_resume_failing_in_every_way_in_a_row_then_succeeding_is_sent_once(
    fault_server: FaultServer,
) -> None:
    thread = await prepared(fault_server, "resume")
    before = snapshot(thread)
    pending_id = thread.pending[0].id
    for make in FAILURES:
        fault_server.script(make())
        with pytest.raises(
            (HTTPStatusError, TruncatedRunError, StreamTimeout, RunError, ProtocolError)
        ):
            await thread.resume(approve())
        assert snapshot(thread) == before
    result = await thread.resume(approve())
    assert result.outcome == "success"
    payloads = [s.resume for s in fault_server.resumes]
    assert len(payloads) == len(FAILURES) + 1
    assert all(p == payloads[0] for p in payloads)
    assert payloads[0][0]["interruptId"] == pending_id
    assert len(fault_server.successful_resumes) == 1
    assert [r.status for r in thread.runs[-len(FAILURES) - 1 :]] == [
        "failed",
        "truncated",
        "failed",
        "failed",
        "failed",
        "success",
    ]
