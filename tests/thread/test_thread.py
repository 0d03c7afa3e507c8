"""Thread and Agent over a scripted server: requests, resume, commit, errors, abort."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import httpx
import pytest
from ag_ui.core import UserMessage

from agui_notebook import (
    AGUIError,
    ExpiredInterrupt,
    HTTPStatusError,
    NothingPending,
    ProtocolError,
    RunAborted,
    RunError,
    ThreadBusy,
    TruncatedRunError,
    UnansweredInterrupts,
    UnknownInterrupt,
    approve,
    cancel,
    edit,
    reject,
)
from agui_notebook._protocol.events import type_of
from tests.thread._streams import (
    ChunkStream,
    ScriptedServer,
    approval_run,
    ev,
    every,
    interrupt,
    interrupted,
    messages_snapshot,
    ok_run,
    run_error,
    run_finished,
    run_started,
    sse,
    sse_response,
    state_delta,
    state_snapshot,
    text_content,
    text_message,
    text_start,
    tool_args,
    tool_end,
    tool_start,
)

IT1 = interrupt("i1", toolCallId="c1")
IT2 = interrupt("i2", toolCallId="c2")


def dumped(messages: list[Any]) -> list[dict[str, Any]]:
    return [m.model_dump(by_alias=True, exclude_none=True) for m in messages]


def view(thread: Any) -> tuple[Any, ...]:
    """Everything a failed request must leave untouched."""
    return (
        json.dumps(dumped(thread.messages)),
        json.dumps(thread.state),
        [(p.id, p.tool_name, p.arguments) for p in thread.pending],
        sorted(thread.tool_calls),
        thread.committed.last_run_id,
    )


def nulls(value: Any, path: str = "") -> list[str]:
    if value is None:
        return [path or "(root)"]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in nulls(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in nulls(v, f"{path}[{i}]")]
    return []


async def wait_until(predicate: Callable[[], bool], timeout: float = 3.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.005)


async def interrupted_thread(
    *interrupts: dict[str, Any], server: ScriptedServer | None = None
) -> tuple[Any, ScriptedServer]:
    server = server or ScriptedServer()
    server.replies.insert(0, approval_run(*(interrupts or (IT1,))))
    thread = server.agent().thread()
    result = await thread.run("Transfer $500 to bob")
    assert result.outcome == "interrupt"
    return thread, server


# -- the request ----------------------------------------------------------------------------


async def test_first_request_is_camel_case_with_unset_fields_left_out() -> None:
    server = ScriptedServer(ok_run())
    thread = server.agent().thread()
    await thread.run("hi")
    body = server.bodies[0]
    assert set(body) == {
        "threadId",
        "runId",
        "messages",
        "tools",
        "context",
        "forwardedProps",
        "protocolVersion",
    }
    assert body["threadId"] == thread.id
    assert body["protocolVersion"] == "1.1"
    assert body["forwardedProps"] == {} and body["tools"] == [] and body["context"] == []
    [message] = body["messages"]
    assert (
        set(message) == {"id", "role", "content"}
        and message["role"] == "user"
        and message["content"] == "hi"
    )
    assert nulls(body) == []


async def test_request_headers() -> None:
    server = ScriptedServer(ok_run())
    await server.agent(headers={"X-Key": "k"}).thread().run("hi")
    request = server.requests[0]
    assert request.method == "POST"
    assert request.headers["accept"] == "text/event-stream"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["x-key"] == "k"


async def test_second_run_names_its_parent_and_sends_history() -> None:
    server = ScriptedServer(
        ok_run(run_id="server-r1", mid="a1"), ok_run(run_id="server-r2", mid="a2")
    )
    thread = server.agent().thread()
    await thread.run("one")
    await thread.run("two")
    first, second = server.bodies
    assert second["threadId"] == first["threadId"] == thread.id
    assert second["runId"] != first["runId"]
    assert second["parentRunId"] == "server-r1"
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]
    assert second["messages"][1] == {"id": "a1", "role": "assistant", "content": "Done."}


async def test_send_history_false_sends_only_new_messages() -> None:
    server = ScriptedServer(ok_run(), ok_run())
    thread = server.agent(send_history=False).thread()
    await thread.run("one")
    await thread.run("two")
    assert [m["content"] for m in server.bodies[1]["messages"]] == ["two"]


async def test_committed_state_is_sent_with_nulls_inside_kept() -> None:
    server = ScriptedServer(
        sse(run_started(), state_snapshot({"a": None, "b": [1, None]}), run_finished()), ok_run()
    )
    thread = server.agent().thread()
    await thread.run("one")
    await thread.run("two")
    assert server.bodies[1]["state"] == {"a": None, "b": [1, None]}


async def test_resume_request_shape() -> None:
    thread, server = await interrupted_thread(IT1)
    server.add(ok_run(run_id="r2"))
    await thread.resume(edit(amount=250))
    first, body = server.bodies
    assert body["threadId"] == thread.id
    assert body["runId"] not in (first["runId"], "r1")
    assert body["parentRunId"] == "r1"
    assert body["resume"] == [
        {
            "interruptId": "i1",
            "status": "resolved",
            "payload": {"approved": True, "editedArgs": {"amount": 250, "to": "bob"}},
        }
    ]
    assert body["protocolVersion"] == "1.1"
    # A stateless server needs the assistant message carrying the pending tool call.
    assistant = next(m for m in body["messages"] if m["role"] == "assistant")
    assert [c["id"] for c in assistant["toolCalls"]] == ["c1"]
    assert nulls(body) == []


# -- results --------------------------------------------------------------------------------


async def test_interrupt_result_and_pending() -> None:
    server = ScriptedServer(approval_run(IT1))
    thread = server.agent().thread()
    result = await thread.run("go")
    assert result.outcome == "interrupt" and result.run_id == "r1" and result.thread_id == thread.id
    [it] = result.interrupts
    assert (it.id, it.tool_name, it.arguments, it.tool_call_id) == (
        "i1",
        "transfer",
        {"amount": 500, "to": "bob"},
        "c1",
    )
    assert [p.id for p in thread.pending] == ["i1"]
    assert result.text == "Let me transfer that."
    assert all(not isinstance(m, UserMessage) for m in result.messages)
    assert (
        type_of(result.events[0]) == "RUN_STARTED" and type_of(result.events[-1]) == "RUN_FINISHED"
    )
    assert thread.runs[-1].status == "interrupt"


async def test_interleaved_tool_calls_raise_two_interrupts() -> None:
    body = sse(
        run_started(),
        text_message("a", ""),
        tool_start("c1", "transfer", "a"),
        tool_start("c2", "transfer", "a"),
        tool_args("c1", '{"amount": 1}'),
        tool_args("c2", '{"amount": 2}'),
        tool_end("c1"),
        tool_end("c2"),
        run_finished(outcome=interrupted(IT1, IT2)),
    )
    server = ScriptedServer(body)
    thread = server.agent().thread()
    await thread.run("go")
    assert [(p.id, p.arguments) for p in thread.pending] == [
        ("i1", {"amount": 1}),
        ("i2", {"amount": 2}),
    ]
    assert [c.id for c in thread.messages[-1].tool_calls] == ["c1", "c2"]


async def test_pending_tool_call_ids_and_cancelled_outcome() -> None:
    server = ScriptedServer(
        sse(run_started(), run_finished(outcome={"type": "success", "pendingToolCallIds": ["c9"]})),
        sse(run_started(run_id="r2"), run_finished(run_id="r2", outcome={"type": "cancelled"})),
    )
    thread = server.agent().thread()
    first = await thread.run("a")
    assert (first.outcome, first.pending_tool_call_ids) == ("success", ["c9"])
    second = await thread.run("b")
    assert second.outcome == "cancelled" and thread.runs[-1].status == "cancelled"


async def test_pre_1_0_stream_succeeds() -> None:
    server = ScriptedServer(sse(run_started(), text_message("a", "old"), run_finished()))
    result = await server.agent().thread().run("hi")
    assert (result.outcome, result.text, result.warnings) == ("success", "old", [])


async def test_unknown_event_dropped_with_a_warning_on_the_result() -> None:
    server = ScriptedServer(
        sse(run_started(), ev("SOMETHING_NEW", x=1), text_message("a", "hi"), run_finished())
    )
    result = await server.agent().thread().run("hi")
    assert result.outcome == "success"
    assert any("SOMETHING_NEW" in w for w in result.warnings)
    assert "SOMETHING_NEW" not in [type_of(e) for e in result.events]


async def test_unknown_outcome_type_is_a_success_with_a_warning() -> None:
    server = ScriptedServer(sse(run_started(), run_finished(outcome={"type": "deferred"})))
    result = await server.agent().thread().run("hi")
    assert result.outcome == "success"
    assert result.warnings == ["stripped RUN_FINISHED.outcome of unknown type 'deferred'"]


async def test_wire_quirks_in_one_stream_split_byte_by_byte() -> None:
    # BOM, CRLF keepalives with LF data, data: without space, multi-line data, chunks.
    pretty = json.dumps(text_content("a", "lo"), indent=1)
    raw = (
        "\ufeff: keepalive\r\n\r\n"
        + "data:"
        + json.dumps(run_started())
        + "\n\n"
        + ": keepalive\r\n\r\n"
        + "data: "
        + json.dumps(text_start("a"))
        + "\n\n"
        + "".join("data: " + line + "\n" for line in pretty.split("\n"))
        + "\n"
        + "data: "
        + json.dumps(ev("TEXT_MESSAGE_CHUNK", messageId="b", delta="chunked"))
        + "\n\n"
    ).encode()
    raw = raw.replace(
        b"data: " + json.dumps(ev("TEXT_MESSAGE_CHUNK", messageId="b", delta="chunked")).encode(),
        b"data: "
        + json.dumps(ev("TEXT_MESSAGE_END", messageId="a")).encode()
        + b"\n\ndata: "
        + json.dumps(ev("TEXT_MESSAGE_CHUNK", messageId="b", delta="chunked")).encode(),
    )
    raw += sse(run_finished())
    server = ScriptedServer(every(raw, 1))
    result = await server.agent().thread().run("hi")
    assert result.outcome == "success"
    assert [m.content for m in result.messages] == ["lo", "chunked"]


async def test_no_duplicate_messages_when_a_snapshot_restates_the_input() -> None:
    def reply(request: httpx.Request) -> httpx.Response:
        sent = json.loads(request.content)["messages"]
        return sse_response(
            sse(
                run_started(),
                messages_snapshot(*sent, {"id": "a", "role": "assistant", "content": "ok"}),
                run_finished(),
            )
        )

    server = ScriptedServer(reply, reply)
    thread = server.agent().thread()
    await thread.run("one")
    await thread.run("two")
    ids = [m.id for m in thread.messages]
    assert len(ids) == len(set(ids)) == 3
    assert [m.content for m in thread.messages] == ["one", "ok", "two"]


async def test_partial_messages_snapshot_keeps_other_messages() -> None:
    server = ScriptedServer(
        ok_run(run_id="r1", mid="a1", text="first"),
        sse(
            run_started(run_id="r2"),
            messages_snapshot({"id": "a2", "role": "assistant", "content": "second"}),
            run_finished(run_id="r2"),
        ),
    )
    thread = server.agent().thread()
    await thread.run("one")
    await thread.run("two")
    assert [m.content for m in thread.messages] == ["one", "first", "two", "second"]


async def test_failing_state_delta_keeps_prior_state_with_a_warning() -> None:
    server = ScriptedServer(
        sse(
            run_started(),
            state_snapshot({"n": 1}),
            state_delta({"op": "replace", "path": "/missing/x", "value": 2}),
            run_finished(),
        )
    )
    thread = server.agent().thread()
    result = await thread.run("hi")
    assert thread.state == {"n": 1} == result.state
    assert len(result.warnings) == 1 and "STATE_DELTA not applied" in result.warnings[0]


async def test_reissued_interrupt_is_flagged() -> None:
    thread, server = await interrupted_thread(IT1)
    server.add(sse(run_started(run_id="r2"), run_finished(run_id="r2", outcome=interrupted(IT1))))
    result = await thread.resume(reject("no"))
    assert result.interrupts[0].reissued is True
    assert any("again after it was answered" in w for w in result.warnings)


async def test_a_thread_takes_up_what_it_committed_through_its_own_methods() -> None:
    # What a store does: read `committed` after a commit, give it to a new Thread's `restore`.
    thread, server = await interrupted_thread(IT1)
    held = thread.committed
    assert (held.pending, held.last_run_id, held.answered) == (thread.pending, "r1", {})
    twin = server.agent().thread(thread.id)
    twin.restore(held, runs=thread.runs)
    assert view(twin) == view(thread) and twin.runs == thread.runs
    # It goes on as the first would: the same parent run, and a reissue recognised.
    server.add(sse(run_started(run_id="r2"), run_finished(run_id="r2", outcome=interrupted(IT1))))
    result = await twin.resume(reject("no"))
    assert server.bodies[-1]["parentRunId"] == "r1"
    assert result.interrupts[0].reissued is True
    assert set(twin.committed.answered) == {"i1"} and twin.committed.last_run_id == "r2"
    assert view(thread)[-1] == "r1" and thread.committed.answered == {}  # the first untouched


async def test_a_thread_with_a_run_in_flight_is_not_restored() -> None:
    thread = ScriptedServer(ok_run()).agent().thread()
    held = thread.committed
    async with thread.stream("hi") as run:
        with pytest.raises(ThreadBusy, match="in flight"):
            thread.restore(held)
        await run.drain()
    assert len(thread.messages) == 2
    thread.restore(held)  # between runs it may
    assert thread.messages == [] and thread.runs == []


# -- resume refusals, before any request ----------------------------------------------------


async def test_resume_refusals_send_nothing_and_change_nothing() -> None:
    thread, server = await interrupted_thread(IT1, IT2)
    before = view(thread)
    with pytest.raises(UnansweredInterrupts):
        await thread.resume({"i1": approve()})
    with pytest.raises(UnansweredInterrupts):
        await thread.resume(approve())
    with pytest.raises(UnknownInterrupt):
        await thread.resume({"i1": approve(), "i2": approve(), "i3": approve()})
    with pytest.raises(TypeError):
        await thread.stream("text", resume=approve()).__aenter__()
    assert len(server.requests) == 1
    assert view(thread) == before and not thread.busy


async def test_slips_are_named_with_their_fix_and_send_nothing() -> None:
    """Issue 18: resume("approve") used to answer "not pending on this thread: a, p, p, r, ...";
    resume(None) used to send a run with no message; run(approve()) failed inside iteration."""
    thread, server = await interrupted_thread(IT1)
    before = view(thread)
    with pytest.raises(TypeError, match=r"the string 'approve' is not a decision: use approve\(\)"):
        await thread.resume("approve")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"None is not a decision"):
        await thread.resume(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"call it: approve\(\)"):
        await thread.resume(approve)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"run\(\) sends a message.*thread.resume\(approve\(\)\)"):
        await thread.run(approve())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"run\(\) sends a message"):
        await thread.run({"i1": approve()})  # type: ignore[arg-type]
    assert len(server.requests) == 1  # only the first run went out
    assert view(thread) == before and not thread.busy


async def test_nothing_pending() -> None:
    server = ScriptedServer(ok_run())
    thread = server.agent().thread()
    with pytest.raises(NothingPending):
        await thread.resume(approve())
    assert server.requests == []


async def test_expired_interrupt_refused_unless_cancelled() -> None:
    expired = interrupt("i1", toolCallId="c1", expiresAt="2000-01-01T00:00:00Z")
    thread, server = await interrupted_thread(expired)
    assert thread.pending[0].expires_at == datetime(2000, 1, 1, tzinfo=timezone.utc)
    for decision in (approve(), reject("no"), edit(amount=1)):
        with pytest.raises(ExpiredInterrupt):
            await thread.resume(decision)
    assert len(server.requests) == 1
    server.add(sse(run_started(run_id="r2"), run_finished(run_id="r2")))
    result = await thread.resume(cancel())
    assert result.outcome == "success"
    assert server.bodies[1]["resume"] == [{"interruptId": "i1", "status": "cancelled"}]
    assert thread.pending == []


async def test_thread_busy_while_a_run_is_in_flight() -> None:
    gate = asyncio.Event()
    server = ScriptedServer(ChunkStream([ok_run()], gate=gate, gate_after=0))
    thread = server.agent().thread()
    task = asyncio.create_task(thread.run("one"))
    await wait_until(lambda: len(server.requests) == 1)
    with pytest.raises(ThreadBusy):
        thread.stream("two")
    gate.set()
    assert (await task).outcome == "success"
    assert not thread.busy


# -- transactional: a failed request leaves the thread as it was ----------------------------


async def test_http_error_on_resume_keeps_everything_and_the_decision_can_be_resent() -> None:
    thread, server = await interrupted_thread(IT1)
    before = view(thread)
    server.add(httpx.Response(503, text="overloaded"), ok_run(run_id="r2"))
    with pytest.raises(HTTPStatusError) as info:
        await thread.resume(edit(amount=250))
    assert info.value.status_code == 503 and info.value.body == "overloaded"
    assert "still pending here" in (info.value.hint or "")  # the server said no: not applied
    assert not info.value.maybe_applied
    assert view(thread) == before and not thread.busy
    assert thread.runs[-1].status == "failed" and thread.runs[-1].kind == "resume"

    result = await thread.resume(edit(amount=250))
    assert result.outcome == "success" and thread.pending == []
    failed, retried = server.bodies[1], server.bodies[2]
    assert retried["resume"] == failed["resume"]
    assert retried["parentRunId"] == failed["parentRunId"] == "r1"
    assert retried["messages"] == failed["messages"]
    assert retried["runId"] != failed["runId"]
    ids = [m.id for m in thread.messages]
    assert len(ids) == len(set(ids))


async def test_run_error_on_resume_keeps_the_thread() -> None:
    # Microsoft: resume errors come as HTTP 200, RUN_STARTED then RUN_ERROR {message, code}.
    thread, server = await interrupted_thread(IT1)
    before = view(thread)
    server.add(
        sse(
            run_started(run_id="r2"),
            state_snapshot({"x": 1}),
            text_message("z", "partial"),
            run_error("bad payload", "APPROVAL_RESUME_INVALID"),
        ),
        ok_run(run_id="r3"),
    )
    with pytest.raises(RunError) as info:
        await thread.resume(approve())
    assert (info.value.code, info.value.message, info.value.run_id) == (
        "APPROVAL_RESUME_INVALID",
        "bad payload",
        "r2",
    )
    assert view(thread) == before
    record = thread.runs[-1]
    assert record.status == "failed" and isinstance(record.error, RunError)
    assert [m.content for m in record.delivered] == ["partial"]
    assert (await thread.resume(approve())).outcome == "success"


async def test_failed_first_run_leaves_no_user_message_and_retry_has_one() -> None:
    server = ScriptedServer(httpx.Response(500, text="x"), ok_run())
    thread = server.agent().thread()
    with pytest.raises(HTTPStatusError):
        await thread.run("hello")
    assert thread.messages == [] and thread.state is None
    await thread.run("hello")
    assert [m.role for m in thread.messages] == ["user", "assistant"]


async def test_run_error_first() -> None:
    server = ScriptedServer(sse(run_error("no such agent", "NOT_FOUND")))
    thread = server.agent().thread()
    with pytest.raises(RunError, match=r"\[NOT_FOUND\] no such agent"):
        await thread.run("hi")
    assert thread.messages == [] and thread.runs[-1].status == "failed"


async def test_late_run_error_after_run_finished_fails_and_keeps_the_thread() -> None:
    thread, server = await interrupted_thread(IT1)
    before = view(thread)
    server.add(
        sse(
            run_started(run_id="r2"),
            text_message("a2", "done"),
            run_finished(run_id="r2"),
            run_error("flush failed"),
        )
    )
    with pytest.raises(RunError, match="flush failed"):
        await thread.resume(approve())
    assert view(thread) == before
    assert thread.runs[-1].status == "failed"


async def test_late_run_error_in_a_later_chunk() -> None:
    server = ScriptedServer(
        [sse(run_started(), run_finished()), b": ka\n\n", sse(run_error("late"))]
    )
    thread = server.agent().thread()
    with pytest.raises(RunError, match="late"):
        await thread.run("hi")
    assert thread.messages == []


@pytest.mark.parametrize(
    "events",
    [
        [run_started(), text_content("a", "x")],  # content before start
        [run_started(), text_start("a"), run_finished()],  # open message at RUN_FINISHED
        [run_started(), tool_start("c", "f"), run_finished()],  # open tool call
        [run_started(), ev("STEP_STARTED", stepName="s"), run_finished()],  # open step
        [run_started(), run_finished(), text_message("a", "x")],  # event after RUN_FINISHED
        [run_started(), run_started()],  # nested RUN_STARTED
        [text_message("a", "x"), run_finished()],  # no RUN_STARTED
    ],
    ids=[
        "content-before-start",
        "open-message",
        "open-tool-call",
        "open-step",
        "after-finish",
        "nested-start",
        "no-start",
    ],
)
async def test_order_violations_fail_the_run(events: list[Any]) -> None:
    thread, server = await interrupted_thread(IT1)
    before = view(thread)
    server.add(sse(*events))
    with pytest.raises(ProtocolError) as info:
        await thread.resume(approve())
    assert not isinstance(info.value, TruncatedRunError)
    assert view(thread) == before and thread.runs[-1].status == "failed"


# -- truncation -----------------------------------------------------------------------------

FULL = sse(run_started(), text_message("a", "hello"), run_finished())


def _cut_after(marker: bytes, extra: int = 0) -> bytes:
    return FULL[: FULL.index(marker) + len(marker) + extra]


@pytest.mark.parametrize(
    ("body", "where"),
    [
        (b"", "between events"),
        (_cut_after(b'"TEXT_MESSAGE_CONTENT"'), "inside an event"),
        (_cut_after(b'"TEXT_MESSAGE_END", "messageId": "a"}\n\n'), "between events"),
        (_cut_after(b'"RUN_FINISHED", "threadId": "t1", "runId": "r1"}\n'), "inside an event"),
        (FULL[:-1], "inside an event"),
    ],
    ids=["empty", "mid-event", "between-events", "after-finished-data", "last-byte"],
)
async def test_truncated_stream_is_never_a_success(body: bytes, where: str) -> None:
    thread, server = await interrupted_thread(IT1)
    before = view(thread)
    server.add(body)
    with pytest.raises(TruncatedRunError, match=where) as info:
        await thread.resume(approve())
    assert info.value.dropped is False
    assert info.value.bytes_received == len(body)
    assert view(thread) == before
    assert thread.runs[-1].status == "truncated"
    # The resume was sent and the answer broke off: it may have been applied, and a retry
    # sends the same entries.
    assert info.value.maybe_applied and "may already have applied" in str(info.value)
    assert "re-sends the same decision" in (info.value.hint or "")


async def test_truncated_error_says_where() -> None:
    server = ScriptedServer(_cut_after(b'"TEXT_MESSAGE_END", "messageId": "a"}\n\n'))
    with pytest.raises(TruncatedRunError) as info:
        await server.agent().thread().run("hi")
    assert (info.value.events_received, info.value.last_event) == (4, "TEXT_MESSAGE_END")


async def test_truncated_inside_a_multibyte_character_is_a_truncated_run() -> None:
    body = sse(run_started(), text_message("a", "é€"), run_finished())
    cut = body.index("€".encode()) + 1
    server = ScriptedServer(body[:cut])
    thread = server.agent().thread()
    with pytest.raises(TruncatedRunError):
        await thread.run("hi")
    assert thread.runs[-1].status == "truncated"


async def test_dropped_connection_is_a_truncated_run() -> None:
    thread, server = await interrupted_thread(IT1)
    before = view(thread)
    partial = sse(run_started(run_id="r2"), text_start("z"), text_content("z", "half"))
    server.add(ChunkStream([partial], error=httpx.RemoteProtocolError("peer closed connection")))
    with pytest.raises(TruncatedRunError, match="connection dropped") as info:
        await thread.resume(approve())
    assert info.value.dropped is True and info.value.last_event == "TEXT_MESSAGE_CONTENT"
    assert view(thread) == before and thread.runs[-1].status == "truncated"


async def test_failed_run_record_keeps_the_text_of_a_message_still_open() -> None:
    # "Everything the run delivered" includes a message cut off mid-stream (the common case).
    partial = sse(
        run_started(),
        text_message("a", "whole"),
        text_start("z"),
        text_content("z", "ha"),
        text_content("z", "lf"),
    )
    server = ScriptedServer(ChunkStream([partial], error=httpx.RemoteProtocolError("peer closed")))
    thread = server.agent().thread()
    with pytest.raises(TruncatedRunError):
        await thread.run("hi")
    assert [m.content for m in thread.runs[-1].delivered] == ["whole", "half"]
    assert thread.messages == []


async def test_connection_dropped_after_run_finished_is_a_success() -> None:
    server = ScriptedServer(ChunkStream([FULL], error=httpx.ReadError("reset")))
    result = await server.agent().thread().run("hi")
    assert result.outcome == "success" and result.text == "hello"


# -- stream-level protocol errors through a Thread ------------------------------------------


async def test_invalid_utf8_fails_the_run() -> None:
    server = ScriptedServer(sse(run_started()) + b"data: \xff\xfe\n\n")
    thread = server.agent().thread()
    with pytest.raises(ProtocolError, match="UTF-8"):
        await thread.run("hi")
    assert thread.runs[-1].status == "failed" and thread.messages == []


async def test_too_large_event_fails_the_run() -> None:
    big = sse(run_started(), text_message("a", "x" * 5000), run_finished())
    server = ScriptedServer(every(big, 100))
    with pytest.raises(ProtocolError, match="max_event_bytes"):
        await server.agent(max_event_bytes=1000).thread().run("hi")


async def test_deeply_nested_event_fails_with_protocol_error() -> None:
    deep = (
        b'data: {"type": "STATE_SNAPSHOT", "snapshot": ' + b"[" * 50_000 + b"]" * 50_000 + b"}\n\n"
    )
    server = ScriptedServer(sse(run_started()) + deep + sse(run_finished()))
    thread = server.agent().thread()
    with pytest.raises(ProtocolError, match="nested too deeply"):
        await thread.run("hi")
    assert thread.runs[-1].status == "failed"


async def test_malformed_known_value_fails_the_run() -> None:
    server = ScriptedServer(
        sse(run_started(), ev("TEXT_MESSAGE_START", messageId=5), run_finished())
    )
    with pytest.raises(ProtocolError, match="malformed TEXT_MESSAGE_START"):
        await server.agent().thread().run("hi")


async def test_non_sse_content_type_is_a_protocol_error() -> None:
    server = ScriptedServer(httpx.Response(200, json={"detail": "use POST /agent"}))
    thread = server.agent().thread()
    with pytest.raises(
        ProtocolError, match=r"expected an event stream.*application/json.*use POST /agent"
    ):
        await thread.run("hi")
    assert thread.runs[-1].status == "failed"


@pytest.mark.parametrize("status", [400, 401, 404, 422, 500, 502])
async def test_http_status_errors_carry_status_and_body(status: int) -> None:
    server = ScriptedServer(httpx.Response(status, text=f"server says {status}"))
    with pytest.raises(HTTPStatusError) as info:
        await server.agent().thread().run("hi")
    assert info.value.status_code == status
    assert info.value.body == f"server says {status}"
    assert f"HTTP {status}" in str(info.value)


async def test_headers_and_url_secrets_never_appear_in_errors_or_reprs() -> None:
    secret = "sk-SECRET-123"
    server = ScriptedServer(
        httpx.Response(401, text="unauthorized"),
        httpx.Response(200, text="not sse"),
        sse(run_started(), run_error("failed")),
    )
    agent = server.agent(
        url=f"http://agent.test/agui?token={secret}#{secret}",
        headers={"Authorization": f"Bearer {secret}", "X-Api-Key": secret},
    )
    thread = agent.thread()
    errors: list[AGUIError] = []
    for _ in range(3):
        with pytest.raises(AGUIError) as info:
            await thread.run("hi")
        errors.append(info.value)
    assert server.requests[0].headers["authorization"] == f"Bearer {secret}"
    texts = [
        repr(agent),
        repr(thread),
        *map(str, errors),
        *map(repr, errors),
        *map(repr, thread.runs),
    ]
    assert all(secret not in t for t in texts), [t for t in texts if secret in t]
    assert isinstance(errors[0], HTTPStatusError) and "agent.test/agui" in str(errors[0])


# -- abort ----------------------------------------------------------------------------------


def stalled_server() -> tuple[ScriptedServer, ChunkStream]:
    stream = ChunkStream(
        [sse(run_started(run_id="r2"), text_start("z"), text_content("z", "partial"))], stall=True
    )
    return ScriptedServer(stream), stream


async def test_thread_abort_from_another_task() -> None:
    thread, server = await interrupted_thread(IT1)
    before = view(thread)
    stalled, stream = stalled_server()
    server.add(stalled.replies[0])
    task = asyncio.create_task(thread.resume(approve()))
    await wait_until(lambda: len(thread.runs) == 2 and thread.runs[-1].event_count >= 3)
    await thread.abort()
    with pytest.raises(RunAborted):
        await task
    record = thread.runs[-1]
    assert record.status == "aborted" and isinstance(record.error, RunAborted)
    assert view(thread) == before and not thread.busy
    assert stream.closed


async def test_task_cancel_is_recorded_as_aborted() -> None:
    server, stream = stalled_server()
    thread = server.agent().thread()
    task = asyncio.create_task(thread.run("hi"))
    await wait_until(lambda: bool(thread.runs) and thread.runs[-1].event_count >= 3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert thread.runs[-1].status == "aborted"
    assert thread.messages == [] and not thread.busy and stream.closed


async def test_abort_from_inside_the_event_loop_stops_the_run() -> None:
    server = ScriptedServer(sse(run_started(), text_message("a", "one", "two"), run_finished()))
    thread = server.agent().thread()
    seen = []
    with pytest.raises(RunAborted):
        async with thread.stream("hi") as run:
            async for event in run:
                seen.append(type_of(event))
                if len(seen) == 2:
                    await thread.abort()
    assert len(seen) == 2
    assert thread.runs[-1].status == "aborted" and thread.messages == []


async def test_leaving_the_stream_early_is_an_abort_not_a_success() -> None:
    server = ScriptedServer(sse(run_started(), text_message("a", "one", "two"), run_finished()))
    thread = server.agent().thread()
    async with thread.stream("hi") as run:
        async for _event in run:
            break
    assert thread.runs[-1].status == "aborted"
    assert thread.messages == [] and not thread.busy
    with pytest.raises(RunAborted):
        run.result  # noqa: B018


async def test_aborted_and_truncated_are_distinct() -> None:
    server = ScriptedServer(FULL[:-1])
    thread = server.agent().thread()
    with pytest.raises(TruncatedRunError):
        await thread.run("hi")
    stalled, _ = stalled_server()
    server.add(stalled.replies[0])
    task = asyncio.create_task(thread.run("hi"))
    await wait_until(lambda: len(thread.runs) == 2 and thread.runs[-1].event_count >= 3)
    await thread.abort()
    with pytest.raises(RunAborted):
        await task
    assert [r.status for r in thread.runs] == ["truncated", "aborted"]


async def test_streaming_events_as_they_arrive() -> None:
    server = ScriptedServer(every(FULL, 9))
    thread = server.agent().thread()
    async with thread.stream("hi") as run:
        seen = [type_of(e) async for e in run]
    assert seen == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    assert run.result.text == "hello"


# -- a server that keeps the stream open after RUN_FINISHED -------------------------------------


async def test_a_stream_left_open_after_run_finished_still_completes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import agui_notebook._run_loop as run_loop

    monkeypatch.setattr(run_loop, "AFTER_FINISH_GRACE", 0.2)
    body = sse(run_started(), *text_message("a1", "Hello"), run_finished())
    stream = ChunkStream([body], stall=True)  # never closes
    server = ScriptedServer(stream)
    thread = server.agent().thread()
    result = await asyncio.wait_for(thread.run("hi"), 5)
    assert result.outcome == "success" and result.text == "Hello"
    assert any("kept the stream open" in w for w in result.warnings)
    assert stream.closed  # the client hung up instead of waiting for its read timeout
