"""Agent(url, transport=...): the transport is chosen by the URL or by name, or given; the run
loop consumes event texts from any transport (here one that carries no bytes at all)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from agui_notebook import Agent, TruncatedRunError
from agui_notebook._protocol.secrets import EMPTY, Scrubber
from agui_notebook._transports.base import StreamCut
from agui_notebook._transports.http import HTTPTransport


def _texts(thread_id: str, run_id: str, words: list[str]) -> list[str]:
    events: list[dict[str, Any]] = [
        {"type": "RUN_STARTED", "threadId": thread_id, "runId": run_id},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        *({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": w} for w in words),
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "RUN_FINISHED", "threadId": thread_id, "runId": run_id},
    ]
    return [json.dumps(e) for e in events]


class _Batches:
    """An event stream of given batches; ``cut`` makes finish() report a cut stream."""

    def __init__(self, batches: list[list[str]], *, cut: bool = False) -> None:
        self._batches = iter(batches)
        self._cut = cut
        self.bytes_received = 0
        self.in_message = cut

    def __aiter__(self) -> _Batches:
        return self

    async def __anext__(self) -> list[str]:
        try:
            batch = next(self._batches)
        except StopIteration:
            raise StopAsyncIteration from None
        self.bytes_received += sum(len(t) for t in batch)
        return batch

    def finish(self) -> list[str]:
        if self._cut:
            raise StreamCut("half a frame")
        return []


class InMemoryTransport:
    """Events as texts, no framing: what a WebSocket or any other carrier hands the loop."""

    def __init__(self, *, cut: bool = False) -> None:
        self.scrubber: Scrubber = EMPTY
        self.bodies: list[dict[str, Any]] = []
        self.cut = cut

    def known_scrubber(self) -> Scrubber:
        return self.scrubber

    async def aclose(self) -> None:
        pass

    @asynccontextmanager
    async def open(
        self, body: bytes, *, forwarded_props: Any = None, max_event_bytes: int
    ) -> AsyncIterator[_Batches]:
        request = json.loads(body)
        self.bodies.append(request)
        texts = _texts(request["threadId"], request["runId"], ["Hel", "lo"])
        if self.cut:
            texts = texts[:-1]
        # One batch per "network read", with an empty one standing for a keepalive.
        yield _Batches([texts[:2], [], texts[2:]], cut=self.cut)


def test_the_url_scheme_picks_http_sse() -> None:
    assert isinstance(Agent("http://127.0.0.1:1/", store=None).transport, HTTPTransport)
    assert isinstance(Agent("https://example.invalid/", store=None).transport, HTTPTransport)


@pytest.mark.parametrize("name", ["http", "HTTP", "sse", "http+sse"])
def test_a_name_picks_a_transport(name: str) -> None:
    agent = Agent("http://127.0.0.1:1/", transport=name, store=None)
    assert isinstance(agent.transport, HTTPTransport)


def test_an_unknown_name_or_scheme_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"unknown transport 'carrier-pigeon' \(known: .*http"):
        Agent("http://127.0.0.1:1/", transport="carrier-pigeon", store=None)
    with pytest.raises(ValueError, match="no transport for ftp URLs"):
        Agent("ftp://127.0.0.1:1/", store=None)


def test_headers_go_to_a_given_transport_not_the_agent() -> None:
    with pytest.raises(ValueError, match="give them to it instead"):
        Agent("http://x.invalid/", transport=InMemoryTransport(), headers={"A": "b"}, store=None)


async def test_the_run_loop_consumes_event_texts_from_any_transport() -> None:
    carrier = InMemoryTransport()
    agent = Agent("memory://agent", transport=carrier, store=None)
    assert agent.transport is carrier
    thread = agent.thread()
    result = await thread.run("hi")
    assert (result.outcome, result.text) == ("success", "Hello")
    assert carrier.bodies[0]["threadId"] == thread.id
    assert [m.content for m in thread.messages] == ["hi", "Hello"]


async def test_a_cut_stream_is_truncated_and_leaves_the_thread_as_it_was() -> None:
    agent = Agent("memory://agent", transport=InMemoryTransport(cut=True), store=None)
    thread = agent.thread()
    with pytest.raises(TruncatedRunError, match=r"the stream was cut \(half a frame\)"):
        await thread.run("hi")
    assert thread.messages == []
    assert thread.runs[-1].status == "truncated"


def test_ws_urls_and_the_websocket_name_pick_the_websocket_transport() -> None:
    from agui_notebook._transports.websocket import WebSocketTransport

    for url in ("ws://127.0.0.1:1/agent", "wss://example.invalid/agent"):
        transport = Agent(url, store=None).transport
        assert isinstance(transport, WebSocketTransport)
        assert transport.url == url
    for name in ("websocket", "ws", "WebSocket"):
        transport = Agent("https://example.invalid/a/b?x=1", transport=name, store=None).transport
        assert isinstance(transport, WebSocketTransport)
        assert transport.url == "wss://example.invalid/a/b?x=1"  # same host and path
    assert Agent("http://h.invalid:8/", transport="ws", store=None).transport.url == (
        "ws://h.invalid:8/"
    )


def test_the_websocket_transport_refuses_an_http_client() -> None:
    import httpx

    with pytest.raises(ValueError, match="pass headers="):
        Agent("ws://h.invalid/", http_client=httpx.AsyncClient(), store=None)


def test_the_websocket_transport_knows_its_handshake_credentials_without_storing_them() -> None:
    agent = Agent("ws://h.invalid/", headers={"Authorization": "Bearer sk-live-abcdef123456"})
    assert "sk-live-abcdef123456" not in repr(agent)
    assert "sk-live-abcdef123456" not in repr(agent.transport.scrubber)
    assert agent.transport.known_scrubber().text("token sk-live-abcdef123456") == "token <redacted>"
