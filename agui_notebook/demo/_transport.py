"""An httpx transport that runs an ASGI app in-process and streams its response as it is sent.

httpx's own ``ASGITransport`` collects the whole body before returning, so a client reading SSE
through it sees nothing until the run ends, and cannot stop a run early. Here the app runs as a
task next to the caller: every ``http.response.body`` chunk goes through a queue into the
response's byte stream the moment the app sends it. Closing the response tells the app the client
disconnected and cancels its task; an exception in the app reaches whoever reads the response.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import Any

import httpx

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[MutableMapping[str, Any], Receive, Send], Awaitable[None]]

_END = object()  # the app sent its last body chunk, or returned


class InProcessTransport(httpx.AsyncBaseTransport):
    """``httpx.AsyncClient(transport=InProcessTransport(app), base_url=...)``: no socket involved.

    Honours the request's read timeout (``httpx.ReadTimeout`` when the app stays silent longer).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        chunks: asyncio.Queue[object] = asyncio.Queue()
        started: asyncio.Future[tuple[int, list[tuple[bytes, bytes]]]] = (
            asyncio.get_running_loop().create_future()
        )
        disconnected = asyncio.Event()
        request_sent = False

        async def receive() -> Message:
            nonlocal request_sent
            if not request_sent:
                request_sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await disconnected.wait()
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            if disconnected.is_set():
                raise OSError("the in-process client closed the response")
            if message["type"] == "http.response.start":
                started.set_result((message["status"], list(message.get("headers", []))))
            elif message["type"] == "http.response.body":
                if message.get("body"):
                    chunks.put_nowait(bytes(message["body"]))
                if not message.get("more_body", False):
                    chunks.put_nowait(_END)

        async def run_app() -> None:
            try:
                await self.app(_scope(request), receive, send)
            except BaseException as error:
                if not started.done():
                    started.set_exception(error)
                else:
                    chunks.put_nowait(error)
                if isinstance(error, Exception):
                    return  # handed over to the reader; re-raising would only log it twice
                raise
            finally:
                if not started.done():
                    started.set_exception(RuntimeError("the ASGI app returned without a response"))
                chunks.put_nowait(_END)

        task = asyncio.ensure_future(run_app())
        try:
            status, headers = await asyncio.shield(started)
        except BaseException:
            disconnected.set()
            await _cancel(task)
            raise
        timeout = request.extensions.get("timeout", {}).get("read")
        stream = _QueueStream(chunks, task, disconnected, timeout)
        return httpx.Response(status, headers=headers, stream=stream, request=request)


class _QueueStream(httpx.AsyncByteStream):
    def __init__(
        self,
        chunks: asyncio.Queue[object],
        task: asyncio.Future[None],
        disconnected: asyncio.Event,
        read_timeout: float | None,
    ) -> None:
        self._chunks, self._task = chunks, task
        self._disconnected, self._read_timeout = disconnected, read_timeout

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            try:
                item = await asyncio.wait_for(self._chunks.get(), self._read_timeout)
            except asyncio.TimeoutError as error:
                raise httpx.ReadTimeout("the in-process app sent nothing in time") from error
            if item is _END:
                return
            if isinstance(item, BaseException):
                raise item
            assert isinstance(item, bytes)
            yield item

    async def aclose(self) -> None:
        self._disconnected.set()
        await _cancel(self._task)


async def _cancel(task: asyncio.Future[None]) -> None:
    """Cancel the app and wait until it has stopped, without swallowing our own cancellation."""
    if not task.done():
        task.cancel()
    await asyncio.wait([task])
    if not task.cancelled():
        task.exception()  # already handed to the reader; mark it retrieved


def _scope(request: httpx.Request) -> dict[str, Any]:
    url = request.url
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": url.scheme,
        "path": url.path,
        "raw_path": url.raw_path.split(b"?")[0],
        "query_string": url.query,
        "root_path": "",
        "headers": [(k.lower(), v) for k, v in request.headers.raw],
        "client": ("127.0.0.1", 0),
        "server": (url.host, url.port or (443 if url.scheme == "https" else 80)),
    }
