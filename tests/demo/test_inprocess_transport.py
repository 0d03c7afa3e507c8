"""InProcessTransport streams what an ASGI app sends, as it sends it, and stops it when closed."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from demo_wire import TRANSFER, Run, body, parse_sse, resolved
from httpx_sse import aconnect_sse

from agui_notebook.demo import InProcessTransport, demo_transport

BASE = "http://agui-demo.invalid/"


class SteppedApp:
    """An ASGI app that sends one chunk, then waits for the test's go-ahead before the next."""

    def __init__(self) -> None:
        self.go_on = asyncio.Event()
        self.cancelled = False
        self.finished = False
        self.scope: dict[str, Any] = {}
        self.request_body = b""
        self.after_close: dict[str, Any] | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.scope = scope
        self.request_body = (await receive())["body"]
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        await send({"type": "http.response.body", "body": b"data: 1\n\n", "more_body": True})
        try:
            await self.go_on.wait()
            await send({"type": "http.response.body", "body": b"data: 2\n\n", "more_body": False})
            self.finished = True
        except asyncio.CancelledError:
            self.cancelled = True
            raise


@pytest.fixture
def app() -> SteppedApp:
    return SteppedApp()


@pytest.fixture
async def client(app: SteppedApp) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=InProcessTransport(app), base_url=BASE) as client:
        yield client


async def test_the_first_chunk_arrives_while_the_app_is_still_running(
    app: SteppedApp, client: httpx.AsyncClient
) -> None:
    async with client.stream("POST", "/", content=b"hello") as response:
        chunks = response.aiter_raw()
        assert await asyncio.wait_for(chunks.__anext__(), 10) == b"data: 1\n\n"
        assert not app.finished
        app.go_on.set()
        assert [c async for c in chunks] == [b"data: 2\n\n"]
    assert app.finished and not app.cancelled


async def test_closing_the_response_cancels_the_app_promptly(
    app: SteppedApp, client: httpx.AsyncClient
) -> None:
    started = time.monotonic()
    async with client.stream("POST", "/") as response:
        await response.aiter_raw().__anext__()
    assert app.cancelled and not app.finished
    assert (
        time.monotonic() - started < 10
    )  # the app would wait forever; generous for a loaded machine


async def test_the_request_reaches_the_app(app: SteppedApp, client: httpx.AsyncClient) -> None:
    app.go_on.set()
    response = await client.post("/run?x=1", content=b'{"a": 1}', headers={"X-Test": "yes"})
    assert response.status_code == 200
    assert response.text == "data: 1\n\ndata: 2\n\n"
    assert app.request_body == b'{"a": 1}'
    assert app.scope["method"] == "POST"
    assert app.scope["path"] == "/run"
    assert app.scope["query_string"] == b"x=1"
    assert (b"x-test", b"yes") in app.scope["headers"]


async def test_an_error_before_the_response_is_raised_by_send() -> None:
    async def broken(scope: Any, receive: Any, send: Any) -> None:
        raise ValueError("boom before start")

    async with httpx.AsyncClient(transport=InProcessTransport(broken), base_url=BASE) as client:
        with pytest.raises(ValueError, match="boom before start"):
            await client.post("/")


async def test_an_error_mid_stream_is_raised_while_reading() -> None:
    async def breaks_later(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"partial", "more_body": True})
        raise ValueError("boom mid-stream")

    transport = InProcessTransport(breaks_later)
    async with (
        httpx.AsyncClient(transport=transport, base_url=BASE) as client,
        client.stream("POST", "/") as response,
    ):
        chunks = response.aiter_raw()
        assert await chunks.__anext__() == b"partial"
        with pytest.raises(ValueError, match="boom mid-stream"):
            await chunks.__anext__()


async def test_an_app_that_never_responds_is_an_error() -> None:
    async def silent(scope: Any, receive: Any, send: Any) -> None:
        return None

    async with httpx.AsyncClient(transport=InProcessTransport(silent), base_url=BASE) as client:
        with pytest.raises(RuntimeError, match="without a response"):
            await client.post("/")


async def test_the_read_timeout_applies(app: SteppedApp) -> None:
    transport = InProcessTransport(app)
    async with (
        httpx.AsyncClient(transport=transport, base_url=BASE, timeout=0.2) as client,
        client.stream("POST", "/") as response,
    ):
        with pytest.raises(httpx.ReadTimeout):
            async for _ in response.aiter_raw():
                pass
    assert app.cancelled


async def test_the_demo_streams_event_by_event_in_process() -> None:
    transport, _app = demo_transport(text_delay=0.2)
    async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
        started = time.monotonic()
        async with aconnect_sse(client, "POST", "/", json=body("t", "tell me a long story")) as es:
            events = es.aiter_sse()
            first = json.loads((await events.__anext__()).data)
            first_after = time.monotonic() - started
        # The story takes > 80 s at this pace, so a buffered stream could not answer within
        # these bounds (generous: a loaded 2-core CI machine); closing the stream stopped the run.
        assert first["type"] == "RUN_STARTED"
        assert first_after < 10
        assert time.monotonic() - started < 15


async def test_a_full_approve_round_trip_in_process() -> None:
    transport, app = demo_transport(text_delay=0)
    async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
        first = Run(parse_sse((await client.post("/", json=body("t", TRANSFER))).content))
        (interrupt,) = first.interrupts
        second = await client.post(
            "/",
            json=body("t", resume=[resolved(interrupt["id"], {"approved": True})], run_id="run-2"),
        )
    assert Run(parse_sse(second.content)).text.startswith("Transferred 500.00 USD")
    assert [e["tool"] for e in app.executions] == ["transfer_money"]
    assert app.requests[1]["body"]["resume"] == [resolved(interrupt["id"], {"approved": True})]
