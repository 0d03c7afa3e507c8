"""Shared plumbing for the third-party test servers: recording, and running them with uvicorn.

In-process servers (``msaf_server``, ``pydantic_ai_server``) run in a thread with
:func:`serve_in_thread`. Out-of-process servers (``tests/servers/<framework>/server.py``, each in
its own venv, see ``tests/servers/external.py``) load this file by path and run with
:func:`serve_external`; it needs only uvicorn, so it stays importable from any of those venvs.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import uvicorn

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Any]
Send = Callable[[Message], Any]


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    status: int | None = None

    @property
    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return None


@dataclass
class Recorder:
    """What a server saw: HTTP requests (in arrival order) and tool executions ``(name, args)``."""

    requests: list[RecordedRequest] = field(default_factory=list)
    executions: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def clear(self) -> None:
        self.requests.clear()
        self.executions.clear()

    def as_json(self) -> dict[str, Any]:
        return {
            "requests": [
                {"method": r.method, "path": r.path, "status": r.status, "body": r.json}
                for r in self.requests
                if not r.path.startswith("/_test")
            ],
            "executions": [[name, args] for name, args in self.executions],
        }


class RecordingMiddleware:
    """Pure ASGI middleware (safe with streaming responses) that records each HTTP request."""

    def __init__(self, app: Any, recorder: Recorder) -> None:
        self.app = app
        self.recorder = recorder

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        record = RecordedRequest(
            method=scope["method"],
            path=scope["path"],
            headers={k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]},
            body=b"",
        )
        if not record.path.startswith("/_test"):
            self.recorder.requests.append(record)

        async def recording_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                record.body += message.get("body", b"")
            return message

        async def recording_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                record.status = message["status"]
            await send(message)

        await self.app(scope, recording_receive, recording_send)


@dataclass
class ServerHandle:
    """A running test server. ``url`` ends with ``/`` (the AG-UI endpoint)."""

    url: str
    recorder: Recorder
    _server: uvicorn.Server
    _thread: threading.Thread

    @property
    def requests(self) -> list[RecordedRequest]:
        return self.recorder.requests

    @property
    def executions(self) -> list[tuple[str, dict[str, Any]]]:
        return self.recorder.executions

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)

    def __enter__(self) -> ServerHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class TestRoutes:
    """Pure ASGI wrapper: ``/_test/*`` answered here, every other request recorded and passed on.

    ``GET /_test/ready`` -> ``{"ready": true}`` (the harness polls it), ``GET /_test/log`` ->
    :meth:`Recorder.as_json`, ``POST /_test/clear`` -> empties the recorder.
    """

    def __init__(self, app: Any, recorder: Recorder) -> None:
        self.app = RecordingMiddleware(app, recorder)
        self.recorder = recorder

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not path.startswith("/_test/"):
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        if method == "GET" and path == "/_test/ready":
            await _send_json(send, 200, {"ready": True})
        elif method == "GET" and path == "/_test/log":
            await _send_json(send, 200, self.recorder.as_json())
        elif method == "POST" and path == "/_test/clear":
            self.recorder.clear()
            await _send_json(send, 200, {"cleared": True})
        else:
            await _send_json(send, 404, {"error": f"no test route {method} {path}"})


async def _send_json(send: Send, status: int, body: Any) -> None:
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def serve_external(app: Any, recorder: Recorder, port: int, *, ws: str = "none") -> None:
    """Run ``app`` (with the ``/_test`` routes) on 127.0.0.1:``port`` until the process is ended.
    ``ws="auto"`` serves WebSockets too (with the venv's websockets or wsproto)."""
    uvicorn.run(
        TestRoutes(app, recorder),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        timeout_graceful_shutdown=1,
        ws=ws,
    )


def serve_in_thread(app: Any, recorder: Recorder) -> ServerHandle:
    """Run ``app`` with uvicorn on 127.0.0.1, a free port, in a daemon thread with its own loop."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="off",
        timeout_graceful_shutdown=1,
        ws="none",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name=f"test-server-{port}", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("test server failed to start")
        if time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError("test server did not start within 15 s")
        time.sleep(0.01)
    return ServerHandle(
        url=f"http://127.0.0.1:{port}/", recorder=recorder, _server=server, _thread=thread
    )
