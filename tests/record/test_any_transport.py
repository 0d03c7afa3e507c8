"""Recording and replay at the transport seam: any transport records, any recording replays.

A WebSocket run on the demo (uvicorn on 127.0.0.1) is recorded and replayed with no server; so
is the capabilities request, over either transport; a transport of one's own (no HTTP, no
socket) records its breaks and its refusals; and a recording of format version 1 (written when
recording wrapped httpx) still fails where it failed.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from agui_notebook import (
    Agent,
    ConnectError,
    HTTPStatusError,
    ProtocolError,
    RunResult,
    StreamTimeout,
    TransportError,
    TruncatedRunError,
    WebSocketClosed,
    approve,
    reject,
)
from agui_notebook._protocol.events import type_of
from agui_notebook._protocol.secrets import EMPTY, Scrubber
from agui_notebook._record.file import error_fields, rebuild_error
from agui_notebook._transports.base import ConnectionDropped, StreamCut
from agui_notebook.demo import start_in_thread
from agui_notebook.record import RecordingTransport, ReplayMismatch, ReplayTransport, record

TRANSFER = "Transfer $500 from 1234567890 to 0987654321"
SECRET = "sk-SECRET-WS-4242"
#: Written by the recorder that wrapped httpx (format version 1, agui_notebook at f8b9fee): a 401
#: echoing the token, a stream dropped after RUN_STARTED, a capabilities document, a refusal.
V1_FAILURES = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "v1_failures.jsonl"


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def demo() -> Iterator[tuple[str, Callable[[], None]]]:
    url, stop = start_in_thread(text_delay=0)
    try:
        yield url, stop
    finally:
        stop()


def same_run(replayed: RunResult, live: RunResult) -> None:
    """The same run, but for the ids the client made up."""
    assert replayed.outcome == live.outcome
    assert [type_of(e) for e in replayed.events] == [type_of(e) for e in live.events]
    assert [m.model_dump() for m in replayed.messages] == [m.model_dump() for m in live.messages]
    assert replayed.state == live.state
    assert [(i.tool_name, i.arguments) for i in replayed.interrupts] == [
        (i.tool_name, i.arguments) for i in live.interrupts
    ]


# -- WebSocket --------------------------------------------------------------------------------


async def test_a_websocket_run_is_recorded_and_replayed_offline(
    demo: tuple[str, Callable[[], None]], tmp_path: Path
) -> None:
    url, stop = demo
    ws_url = url.replace("http://", "ws://", 1)
    path = tmp_path / "ws.jsonl"
    agent = Agent(ws_url, headers={"Authorization": f"Bearer {SECRET}"}, store=None)
    async with record(agent, path) as recorded:
        assert isinstance(recorded.transport, RecordingTransport)
        thread = recorded.thread()
        first = await thread.run(TRANSFER)
        second = await thread.resume(approve())
    assert (first.outcome, second.outcome) == ("interrupt", "success")
    assert "Transferred 500.00 USD" in second.text
    assert SECRET.encode() not in path.read_bytes()
    assert lines(path)[0]["url"] == ws_url
    stop()  # no server from here on

    transport = ReplayTransport(path)
    replayed = transport.agent().thread()
    again = await replayed.run(TRANSFER)
    same_run(again, first)
    resumed = await replayed.resume(approve())
    same_run(resumed, second)
    transport.assert_complete()
    # A different decision is still caught, as over HTTP.
    other = ReplayTransport(path).agent().thread()
    await other.run(TRANSFER)
    with pytest.raises(ReplayMismatch, match=r"\$\.resume\[0\]\.payload\.approved: recorded true"):
        await other.resume(reject("no"))


@pytest.mark.parametrize("scheme", ["http", "ws"])
async def test_the_capabilities_request_is_recorded_and_replayed(
    demo: tuple[str, Callable[[], None]], tmp_path: Path, scheme: str
) -> None:
    url, stop = demo
    path = tmp_path / "capabilities.jsonl"
    recorded = record(Agent(url.replace("http", scheme, 1), store=None), path)
    declared = await recorded.capabilities()
    live = await recorded.thread().run("What is my balance?")
    await recorded.aclose()
    stop()
    assert declared is not None and declared.human_in_the_loop is not None
    assert [o.get("op") for o in lines(path) if o["kind"] == "request"] == ["capabilities", "run"]

    transport = ReplayTransport(path)
    agent = transport.agent()
    assert await agent.capabilities() == declared
    same_run(await agent.thread().run("What is my balance?"), live)
    transport.assert_complete()
    # Asked out of order: a mismatch that says what was recorded.
    with pytest.raises(ReplayMismatch, match="request 1: request: recorded a capabilities"):
        await ReplayTransport(path).agent().thread().run("What is my balance?")


# -- a transport of one's own -------------------------------------------------------------------


class Refused(Exception):
    """A transport's own error, of a class the recording does not know."""


Script = Callable[[dict[str, Any]], "list[list[str]] | Exception"]


class OwnTransport:
    """No HTTP, no socket: each run is scripted from the request it gets (batches of event
    texts, then a cut at the end), or refused."""

    def __init__(self, *scripts: Script) -> None:
        self.scripts = list(scripts)
        self.scrubber: Scrubber = EMPTY

    def known_scrubber(self) -> Scrubber:
        return self.scrubber

    async def aclose(self) -> None:
        pass

    @asynccontextmanager
    async def open(
        self, body: bytes, *, forwarded_props: Any = None, max_event_bytes: int
    ) -> AsyncIterator[OwnStream]:
        scripted = self.scripts.pop(0)(json.loads(body))
        if isinstance(scripted, Exception):
            raise scripted
        yield OwnStream(scripted)


class OwnStream:
    def __init__(self, batches: list[list[str]]) -> None:
        self._batches = batches
        self.bytes_received = sum(len(t) for b in batches for t in b)
        self.in_message = False

    def __aiter__(self) -> OwnStream:
        return self

    async def __anext__(self) -> list[str]:
        if not self._batches:
            raise StopAsyncIteration
        return self._batches.pop(0)

    def finish(self) -> list[str]:
        raise StreamCut("it ended inside a frame of its own")


def started(body: dict[str, Any]) -> list[list[str]]:
    return [[json.dumps({"type": "RUN_STARTED", "threadId": body["threadId"], "runId": "r1"})]]


def refused(body: dict[str, Any]) -> Exception:
    return Refused("the agent is asleep")


async def test_a_transport_of_ones_own_is_recorded_and_replayed(tmp_path: Path) -> None:
    path = tmp_path / "own.jsonl"
    transport = OwnTransport(started, refused)
    agent = Agent("own://agent/", transport=RecordingTransport(path, transport), store=None)
    thread = agent.thread()
    with pytest.raises(TruncatedRunError) as cut:
        await thread.run("hi")
    with pytest.raises(Refused):
        await thread.run("hi")
    end = next(o for o in lines(path) if o["kind"] == "end")
    assert end["error"] == "StreamCut" and end["complete"] is False

    replayed = ReplayTransport(path).agent().thread()
    with pytest.raises(TruncatedRunError) as cut_again:
        await replayed.run("hi")
    assert str(cut_again.value) == str(cut.value)
    assert "the stream was cut (it ended inside a frame of its own)" in str(cut.value)
    assert (cut_again.value.events_received, cut_again.value.last_event) == (1, "RUN_STARTED")
    # An error class the recording does not know comes back as a transport error naming it.
    with pytest.raises(TransportError, match=r"\(recorded\) Refused: the agent is asleep"):
        await replayed.run("hi")


@pytest.mark.parametrize(
    "error",
    [
        HTTPStatusError(401, '{"error": "no"}', "http://agent.test/"),
        WebSocketClosed(1011, "the agent failed", "ws://agent.test/"),
        ConnectError("cannot connect to http://agent.test/: refused"),
        StreamTimeout("no response within the timeout"),
        TransportError("request failed"),
        ProtocolError("a binary frame"),
        ProtocolError("an event over the limit", event_index=7),
        ConnectionDropped("peer closed connection"),
        StreamCut("cut inside a frame"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_a_transports_error_is_written_and_rebuilt(error: Exception) -> None:
    rebuilt = rebuild_error(json.loads(json.dumps(error_fields(error))))
    assert type(rebuilt) is type(error) and str(rebuilt) == str(error)
    assert vars(rebuilt) == vars(error)  # status, body, code, reason, url, event_index


# -- format version 1 ---------------------------------------------------------------------------


async def test_a_version_1_recording_fails_where_it_failed() -> None:
    # The errors the httpx-level replay gave for this file, to the letter.
    transport = ReplayTransport(V1_FAILURES)
    agent = transport.agent()
    thread = agent.thread()
    with pytest.raises(HTTPStatusError) as status:
        await thread.run("hi")
    assert str(status.value) == (
        'HTTP 401 from http://agent.test/: {"error":"invalid credentials: <redacted>"}'
    )
    with pytest.raises(TruncatedRunError) as dropped:
        await thread.run("hi")
    assert str(dropped.value) == (
        "the connection dropped ((recorded) the connection dropped) after 132 bytes and 1 events "
        "(last: RUN_STARTED)"
    )
    assert dropped.value.dropped
    found = await agent.capabilities()
    assert found is not None and found.declared() == {"humanInTheLoop": {"supported": True}}
    with pytest.raises(ConnectError) as refused_again:
        await thread.run("hi")
    assert (
        str(refused_again.value) == "cannot connect to http://agent.test/: (recorded) ConnectError"
    )
    transport.assert_complete()
    assert [r.status for r in thread.runs] == ["failed", "truncated", "failed"]


@pytest.mark.parametrize("kwargs", [{}, {"client": httpx.AsyncClient()}])
def test_the_old_httpx_form_says_what_replaced_it(tmp_path: Path, kwargs: dict[str, Any]) -> None:
    with pytest.raises(TypeError, match=r"record\(agent, path\)"):
        RecordingTransport(tmp_path / "r.jsonl", **kwargs)
