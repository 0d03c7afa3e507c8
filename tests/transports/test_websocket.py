"""The WebSocket transport over real sockets on 127.0.0.1.

The built-in demo (uvicorn, its WebSocket route) for the approval flow and the handshake's
headers; a relay in front of it that drops one connection mid-run; and small hostile servers
(``websockets``' own server, so a test can send exactly the frames, close codes or a bare TCP
drop it needs) for the bad input the issue lists.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve

from agui_notebook import (
    Agent,
    ConnectError,
    HTTPStatusError,
    ProtocolError,
    RunError,
    StreamTimeout,
    TruncatedRunError,
    WebSocketClosed,
    approve,
    edit,
    reject,
)
from agui_notebook.demo import DemoApp, create_app, start_in_thread

TRANSFER = "transfer $50 to alice"
SECRET = "sk-live-0123456789abcdef"


@pytest.fixture(scope="module")
def demo() -> Iterator[tuple[str, DemoApp]]:
    app = create_app(text_delay=0)
    url, stop = start_in_thread(app=app)
    try:
        yield url.replace("http://", "ws://"), app
    finally:
        stop()


# ------------------------------------------------------------------------ the real demo agent


@pytest.mark.parametrize(
    ("decision", "outcome_text"),
    [(approve(), "Transferred 50.00"), (reject("no"), ""), (edit(amount=20), "Transferred 20.00")],
    ids=["approve", "reject", "edit"],
)
async def test_an_approval_over_websocket_resumes_once(
    demo: tuple[str, DemoApp], decision: Any, outcome_text: str
) -> None:
    url, app = demo
    agent = Agent(url, store=None)
    thread = agent.thread()
    first = await thread.run(TRANSFER)
    assert first.outcome == "interrupt"
    (pending,) = first.interrupts
    assert pending.tool_name == "transfer_money"
    assert pending.arguments is not None and pending.arguments["amount"] == 50.0
    before = len([e for e in app.executions if e["thread_id"] == thread.id])
    result = await thread.resume(decision)
    assert result.outcome == "success"
    assert outcome_text in result.text
    assert thread.pending == []
    ran = [e for e in app.executions if e["thread_id"] == thread.id]
    assert len(ran) - before == (0 if decision.kind == "reject" else 1)
    mine = [r for r in app.requests if (r["body"] or {}).get("threadId") == thread.id]
    assert [r["method"] for r in mine] == ["WEBSOCKET", "WEBSOCKET"]  # one connection per run
    assert mine[1]["body"]["resume"][0]["interruptId"] == pending.id


async def test_an_http_url_with_transport_websocket_reaches_the_same_agent(
    demo: tuple[str, DemoApp],
) -> None:
    url, app = demo
    agent = Agent(url.replace("ws://", "http://"), transport="websocket", store=None)
    result = await agent.thread().run("hello")
    assert result.outcome == "success" and result.text
    assert app.requests[-1]["method"] == "WEBSOCKET"


async def test_headers_go_on_the_handshake_and_are_never_shown(
    demo: tuple[str, DemoApp],
) -> None:
    url, app = demo
    agent = Agent(url, store=None, headers={"X-Trace": "t-1", "Authorization": f"Bearer {SECRET}"})
    result = await agent.thread().run("hello")
    assert result.outcome == "success"
    seen = app.requests[-1]["headers"]
    assert seen["x-trace"] == "t-1"  # sent on the handshake (the demo drops credential headers)
    assert SECRET not in repr(agent) and SECRET not in repr(result)
    assert agent.transport.scrubber.text(SECRET) == "<redacted>"


# ----------------------------------------------------------------- servers written for a test

Handler = Callable[[ServerConnection], Awaitable[None]]


@asynccontextmanager
async def server(handler: Handler) -> AsyncIterator[str]:
    async with serve(handler, "127.0.0.1", 0) as srv:
        port = next(iter(srv.sockets)).getsockname()[1]
        yield f"ws://127.0.0.1:{port}/"


def events(thread_id: str, run_id: str, *, finish: bool = True) -> list[str]:
    out: list[dict[str, Any]] = [
        {"type": "RUN_STARTED", "threadId": thread_id, "runId": run_id},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hel"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "lo"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
    ]
    if finish:
        out.append({"type": "RUN_FINISHED", "threadId": thread_id, "runId": run_id})
    return [json.dumps(e) for e in out]


def scripted(frames: Callable[[dict[str, Any]], list[str | bytes]], end: Any = 1000) -> Handler:
    """Read the RunAgentInput, send ``frames(input)``, then close with ``end`` (a code, a
    ``(code, reason)``, or "drop": the TCP connection cut without a close frame)."""

    async def handler(ws: ServerConnection) -> None:
        request = json.loads(await ws.recv())
        for frame in frames(request):
            await ws.send(frame)
        if end == "drop":
            await asyncio.sleep(0.05)
            assert ws.transport is not None
            ws.transport.abort()
            return
        code, reason = end if isinstance(end, tuple) else (end, "")
        await ws.close(code, reason)

    return handler


def sse(texts: list[str]) -> str:
    return "".join(f"data: {t}\n\n" for t in texts)


@pytest.mark.parametrize(
    "framing",
    [
        lambda r: events(r["threadId"], r["runId"]),  # bare JSON, one per frame
        lambda r: [sse([t]) for t in events(r["threadId"], r["runId"])],  # AgentCore's
        lambda r: [sse(events(r["threadId"], r["runId"]))],  # all in one frame
        lambda r: [
            *events(r["threadId"], r["runId"])[:3],
            sse(events(r["threadId"], r["runId"])[3:]),
        ],
    ],
    ids=["bare", "sse-per-frame", "sse-one-frame", "mixed"],
)
async def test_both_framings_are_accepted(framing: Callable[[dict[str, Any]], list[str]]) -> None:
    async with server(scripted(framing)) as url:  # type: ignore[arg-type]
        result = await Agent(url, store=None).thread().run("hi")
    assert (result.outcome, result.text) == ("success", "Hello")


async def test_a_binary_frame_is_a_protocol_error_and_leaves_the_thread() -> None:
    def frames(r: dict[str, Any]) -> list[str | bytes]:
        return [events(r["threadId"], r["runId"])[0], b"\x00\x01binary"]

    async with server(scripted(frames)) as url:
        thread = Agent(url, store=None).thread()
        with pytest.raises(ProtocolError, match="binary frame"):
            await thread.run("hi")
    assert thread.messages == [] and thread.runs[-1].status == "failed"


async def test_text_that_is_not_utf8_or_a_frame_too_large_is_a_protocol_error() -> None:
    async def not_utf8(ws: ServerConnection) -> None:
        request = json.loads(await ws.recv())
        await ws.send(events(request["threadId"], request["runId"])[0])
        await ws.send(b'{"type":"\xff\xfe"}', text=True)  # a text frame, not UTF-8
        await asyncio.sleep(1)

    async with server(not_utf8) as url:
        thread = Agent(url, store=None).thread()
        with pytest.raises(ProtocolError, match=r"close 1007"):
            await thread.run("hi")
    assert thread.messages == []

    def huge(r: dict[str, Any]) -> list[str | bytes]:
        return [events(r["threadId"], r["runId"])[0], '{"pad": "' + "x" * 3_000_000 + '"}']

    async with server(scripted(huge)) as url:
        with pytest.raises(ProtocolError, match=r"close 1009"):
            await Agent(url, store=None, max_event_bytes=1_000_000).thread().run("hi")


async def test_half_a_json_event_is_a_protocol_error() -> None:
    def frames(r: dict[str, Any]) -> list[str | bytes]:
        return [events(r["threadId"], r["runId"])[0], '{"type":"TEXT_MESSAGE_START","mess']

    async with server(scripted(frames)) as url:
        thread = Agent(url, store=None).thread()
        with pytest.raises(ProtocolError):
            await thread.run("hi")
    assert thread.messages == []


async def test_half_an_sse_event_at_the_end_is_a_truncated_run() -> None:
    def frames(r: dict[str, Any]) -> list[str | bytes]:
        first, second = events(r["threadId"], r["runId"])[:2]
        return [sse([first]), "data: " + second[:10]]

    async with server(scripted(frames)) as url:
        thread = Agent(url, store=None).thread()
        with pytest.raises(TruncatedRunError, match="inside an event"):
            await thread.run("hi")
    assert thread.messages == []


async def test_an_event_after_run_finished_is_a_typed_error_and_the_run_is_kept_on_record() -> None:
    def frames(r: dict[str, Any]) -> list[str | bytes]:
        late = json.dumps({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "!"})
        return [*events(r["threadId"], r["runId"]), late]

    async with server(scripted(frames)) as url:
        thread = Agent(url, store=None).thread()
        with pytest.raises(ProtocolError, match="after RUN_FINISHED"):
            await thread.run("hi")
    # The run loop's rule for every transport: the thread is as before, nothing of what was
    # delivered is lost (it is on the run's record), and the message can be sent again.
    assert thread.messages == []
    assert [m.content for m in thread.runs[-1].delivered] == ["Hello"]


async def test_an_error_close_mid_run_is_websocket_closed_with_the_reason_scrubbed() -> None:
    def frames(r: dict[str, Any]) -> list[str | bytes]:
        return events(r["threadId"], r["runId"], finish=False)

    async with server(scripted(frames, end=(1011, f"boom {SECRET}"))) as url:
        agent = Agent(url, store=None, headers={"Authorization": f"Bearer {SECRET}"})
        thread = agent.thread()
        with pytest.raises(WebSocketClosed) as caught:
            await thread.run("hi")
    assert caught.value.code == 1011
    assert SECRET not in str(caught.value) and "boom" in str(caught.value)
    assert thread.messages == []


async def test_an_error_close_after_run_finished_keeps_the_run_with_a_warning() -> None:
    def frames(r: dict[str, Any]) -> list[str | bytes]:
        return events(r["threadId"], r["runId"])

    async with server(scripted(frames, end=(1011, "late"))) as url:
        result = await Agent(url, store=None).thread().run("hi")
    assert result.text == "Hello"
    assert any("1011" in w for w in result.warnings)


async def test_a_normal_close_before_run_finished_is_a_truncated_run() -> None:
    def frames(r: dict[str, Any]) -> list[str | bytes]:
        return events(r["threadId"], r["runId"], finish=False)

    async with server(scripted(frames, end=1000)) as url:
        with pytest.raises(TruncatedRunError, match="between events"):
            await Agent(url, store=None).thread().run("hi")


async def test_a_drop_before_any_frame_is_websocket_closed_1006() -> None:
    # AWS Bedrock AgentCore refuses an invalid input with a close reason too long for a close
    # frame: the client sees the socket drop before any event.
    async with server(scripted(lambda r: [], end="drop")) as url:
        with pytest.raises(WebSocketClosed, match="1006") as caught:
            await Agent(url, store=None).thread().run("hi")
    assert caught.value.code == 1006


async def test_credentials_reach_the_handshake_and_only_the_handshake() -> None:
    seen: list[tuple[str | None, str]] = []

    async def handler(ws: ServerConnection) -> None:
        assert ws.request is not None
        text = await ws.recv()
        assert isinstance(text, str)
        seen.append((ws.request.headers.get("Authorization"), text))
        request = json.loads(text)
        for frame in events(request["threadId"], request["runId"]):
            await ws.send(frame)
        await ws.close()

    async with server(handler) as url:
        agent = Agent(url, store=None, headers={"Authorization": f"Bearer {SECRET}"})
        await agent.thread().run("hi")
    ((authorization, body),) = seen
    assert authorization == f"Bearer {SECRET}"
    assert SECRET not in body  # not in the RunAgentInput frame


async def test_a_refused_handshake_and_a_refused_port_are_typed() -> None:
    async def refuse(ws: ServerConnection) -> None:
        raise AssertionError("never reached")

    async def process_request(conn: ServerConnection, request: Any) -> Any:
        return conn.respond(403, f"no entry for {SECRET}\n")

    async with serve(refuse, "127.0.0.1", 0, process_request=process_request) as srv:
        port = next(iter(srv.sockets)).getsockname()[1]
        agent = Agent(f"ws://127.0.0.1:{port}/", store=None, headers={"X-Api-Key": SECRET})
        with pytest.raises(HTTPStatusError) as caught:
            await agent.thread().run("hi")
    assert caught.value.status_code == 403 and SECRET not in str(caught.value)
    with pytest.raises(ConnectError):
        await Agent(f"ws://127.0.0.1:{port}/", store=None).thread().run("hi")


# ------------------------------------------------------- a drop mid-run, in front of the demo


def relay_to(upstream: str, drop_on: int) -> tuple[Handler, list[int]]:
    """A relay in front of the demo that cuts connection ``drop_on`` (1-based) after two
    frames, without a close frame."""
    count = [0]

    async def relay(ws: ServerConnection) -> None:
        count[0] += 1
        drop = count[0] == drop_on
        async with connect(upstream) as up:
            await up.send(await ws.recv())
            relayed = 0
            async for frame in up:
                await ws.send(frame)
                relayed += 1
                if drop and relayed == 2:
                    assert ws.transport is not None
                    ws.transport.abort()
                    return
        await ws.close()

    return relay, count


async def test_a_drop_mid_run_leaves_the_thread_as_it_was_and_a_retry_works(
    demo: tuple[str, DemoApp],
) -> None:
    upstream, app = demo
    relay, count = relay_to(upstream, drop_on=1)
    async with server(relay) as url:
        thread = Agent(url, store=None).thread()
        with pytest.raises(TruncatedRunError) as caught:
            await thread.run("hello")
        assert caught.value.dropped and thread.messages == [] and thread.runs[-1].delivered == []
        again = await thread.run("hello")  # the same message, sent again
        assert again.outcome == "success" and [m.role for m in thread.messages] == [
            "user",
            "assistant",
        ]
        first = await thread.run(TRANSFER)
        assert first.outcome == "interrupt"
        done = await thread.resume(approve())
    assert done.outcome == "success" and "Transferred 50.00" in done.text
    assert len([e for e in app.executions if e["thread_id"] == thread.id]) == 1
    assert count[0] == 4


async def test_a_drop_mid_resume_keeps_the_interrupt_pending_and_it_is_applied_once(
    demo: tuple[str, DemoApp],
) -> None:
    upstream, app = demo
    relay, count = relay_to(upstream, drop_on=2)  # the resume
    async with server(relay) as url:
        thread = Agent(url, store=None).thread()
        first = await thread.run(TRANSFER)
        with pytest.raises(TruncatedRunError) as caught:
            await thread.resume(approve())
        assert caught.value.dropped and caught.value.maybe_applied
        assert [p.id for p in thread.pending] == [first.interrupts[0].id]
        # The same decision again: the demo recognises the resume and does not run it twice.
        with pytest.raises(RunError, match="RESUME_ALREADY_APPLIED"):
            await thread.resume(approve())
    assert len([e for e in app.executions if e["thread_id"] == thread.id]) == 1
    assert count[0] == 3


async def test_a_silent_server_is_a_stream_timeout_and_a_busy_consumer_is_not() -> None:
    async def silent(ws: ServerConnection) -> None:
        request = json.loads(await ws.recv())
        await ws.send(events(request["threadId"], request["runId"])[0])
        await asyncio.sleep(3)

    async with server(silent) as url:
        thread = Agent(url, store=None, timeout=0.3).thread()
        with pytest.raises(StreamTimeout):
            await thread.run("hi")
    assert thread.messages == []

    async with server(scripted(lambda r: events(r["threadId"], r["runId"]))) as url:
        agent = Agent(url, store=None, timeout=0.3)
        async with agent.thread().stream("hi") as run:
            async for _ in run:
                await asyncio.sleep(0.1)  # 0.6 s in all: slower than the timeout, not silent
        assert run.result is not None and run.result.text == "Hello"
