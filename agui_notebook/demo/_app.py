"""The demo agent as a plain ASGI app: POST a RunAgentInput to ``/``, read the run as SSE.

No web framework, so ``Agent.demo()`` (in-process) needs nothing beyond the package's own
dependencies. The HTTP side (spec: transports/http-sse):

- ``POST /`` with a JSON ``RunAgentInput`` -> ``200 text/event-stream``, one ``data:`` frame per
  event, and a ``: keepalive`` comment whenever the stream has been silent for
  ``keepalive_interval`` seconds. Keys may be camelCase or snake_case; ``tools``, ``context`` and
  ``forwardedProps`` may be left out (only threadId, runId and messages are required in 1.0).
- A body that is not a valid RunAgentInput -> ``422 {"error": ..., "detail": [...]}``.
- Another path -> 404; another method -> 405; a body over ``max_body_bytes`` -> 413.
- Errors about the run itself (unknown interrupt, wrong thread...) are RUN_ERROR events in a 200
  stream, as AG-UI servers do.
- ``GET /capabilities`` -> the demo's AG-UI capabilities document (JSON).

The WebSocket side (docs/transports.md): a WebSocket on ``/``; the client sends the RunAgentInput
as one text frame, the server sends one bare JSON event per text frame and closes with 1000 when
the run ends (one run per connection). An invalid RunAgentInput closes with 1003 and a short
reason; another path is refused at the handshake (HTTP 403).

Every request is recorded in ``app.requests`` (credential headers dropped), every tool the agent ran
in ``app.executions``, so tests can assert what the server saw and did.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, MutableMapping
from datetime import datetime, timezone
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput
from pydantic import ValidationError

from .._protocol.wire import RunAgentInput as RunAgentInput11
from ._emit import Pause, Step
from ._options import DemoOptions
from ._scenarios import DemoAgent

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

CREDENTIAL_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "x-api-key", "api-key"}
)
SSE_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),  # proxies must not buffer a live stream
]
KEEPALIVE = b": keepalive\n\n"
#: What the demo declares at ``GET /capabilities`` (AG-UI's agent capabilities, camelCase).
CAPABILITIES: dict[str, Any] = {
    "identity": {
        "name": "agui-notebook demo",
        "type": "agui-notebook-demo",
        "description": "A scripted, LLM-free banking assistant",
    },
    "transport": {"streaming": True, "websocket": True},
    "tools": {"supported": True, "clientProvided": False},
    "state": {"snapshots": True, "deltas": True},
    "reasoning": {"supported": True, "streaming": True},
    "humanInTheLoop": {"supported": True, "approvals": True, "interrupts": True,
                       "approveWithEdits": True},
}  # fmt: skip


class DemoApp:
    """The ASGI application. ``create_app(**options)`` builds one; each has its own threads."""

    def __init__(self, options: DemoOptions | None = None) -> None:
        self.options = options or DemoOptions()
        self.agent = DemoAgent(self.options)
        self.requests: list[dict[str, Any]] = []
        """``{"method", "path", "headers", "body"}`` per request; ``body`` is the parsed JSON."""

    @property
    def executions(self) -> list[dict[str, Any]]:
        """Every tool the demo ran, in order: ``{"tool", "arguments", "thread_id"}``."""
        return self.agent.executions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
            return
        if scope["type"] != "http":
            return
        body, too_large = await _read_body(receive, self.options.max_body_bytes)
        record: dict[str, Any] = {
            "method": scope["method"],
            "path": scope["path"],
            "headers": _safe_headers(scope),
            "body": _json_or_none(body),
        }
        self.requests.append(record)
        if scope["path"] == "/capabilities" and scope["method"] == "GET":
            await _send_json(send, 200, CAPABILITIES)
            return
        if scope["path"] not in ("/", ""):
            await _send_json(send, 404, {"error": f"no AG-UI endpoint at {scope['path']}; use /"})
            return
        if scope["method"] != "POST":
            await _send_json(
                send, 405, {"error": "use POST with a RunAgentInput"}, [(b"allow", b"POST")]
            )
            return
        if too_large:
            await _send_json(send, 413, {"error": "request body too large"})
            return
        run_input = await _parse_run_input(body, send)
        if run_input is None:
            return
        steps = self.agent.run(run_input, now=datetime.now(timezone.utc))
        await _stream(steps, receive, send, self.options.keepalive_interval)

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        """One run per connection: the first text frame is the RunAgentInput."""
        if (await receive())["type"] != "websocket.connect":
            return
        if scope["path"] not in ("/", ""):
            await send({"type": "websocket.close", "code": 1008})  # before accept: HTTP 403
            return
        await send({"type": "websocket.accept"})
        message = await receive()
        if message["type"] != "websocket.receive":
            return  # the client left before sending anything
        text = message.get("text")
        body = text.encode("utf-8") if text is not None else message.get("bytes") or b""
        self.requests.append(
            {
                "method": "WEBSOCKET",
                "path": scope["path"],
                "headers": _safe_headers(scope),
                "body": _json_or_none(body),
            }
        )
        parsed = run_input_or_error(body)
        if isinstance(parsed, dict):
            reason = str(parsed["error"]).encode("utf-8")[:120].decode("utf-8", "ignore")
            await send({"type": "websocket.close", "code": 1003, "reason": reason})
            return
        steps = self.agent.run(parsed, now=datetime.now(timezone.utc))
        writer = asyncio.ensure_future(_write_frames(steps, send))
        watcher = asyncio.ensure_future(_wait_for_ws_disconnect(receive))
        try:
            await asyncio.wait({writer, watcher}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (writer, watcher):
                task.cancel()
            await asyncio.gather(writer, watcher, return_exceptions=True)
        if watcher.done() and not watcher.cancelled():
            return  # the client left; the rest of the run is dropped
        error = writer.exception() if not writer.cancelled() else None
        if error is not None:
            await send({"type": "websocket.close", "code": 1011, "reason": "internal error"})
            raise error
        await send({"type": "websocket.close", "code": 1000})


async def _parse_run_input(body: bytes, send: Send) -> RunAgentInput | None:
    """The request's RunAgentInput, or None after answering 422."""
    parsed = run_input_or_error(body)
    if isinstance(parsed, dict):
        await _send_json(send, 422, parsed)
        return None
    return parsed


def run_input_or_error(body: bytes) -> RunAgentInput | dict[str, Any]:
    """The body as a RunAgentInput, or the error document that says why it is not one."""
    try:
        data = json.loads(body)
    except ValueError as error:
        return {
            "error": "the request body is not valid JSON",
            "detail": [{"loc": [], "msg": str(error), "type": "json_invalid"}],
        }
    if not isinstance(data, dict):
        return {
            "error": "the request body must be a JSON object (a RunAgentInput)",
            "detail": [{"loc": [], "msg": "expected an object", "type": "object_type"}],
        }
    # ag-ui-protocol 0.1.x requires these three; the 1.0 schema makes them optional.
    for key, snake, default in (
        ("tools", "tools", []),
        ("context", "context", []),
        ("forwardedProps", "forwarded_props", {}),
    ):
        if key not in data and snake not in data:
            data[key] = default
    try:
        # 1.1 messages (content parts on tool messages, encryptedValueType) on either
        # ag-ui-protocol line: the client's own extension of the package models.
        return RunAgentInput11.model_validate(data)
    except ValidationError as error:
        detail = [
            {"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]}
            for e in error.errors(include_url=False)
        ]
        return {"error": "the request body is not a valid RunAgentInput", "detail": detail}


async def _stream(steps: list[Step], receive: Receive, send: Send, keepalive: float) -> None:
    """Send the run as SSE; stop early (cancelling the run) when the client goes away."""
    await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
    writer = asyncio.ensure_future(_write_steps(steps, send, keepalive))
    watcher = asyncio.ensure_future(_wait_for_disconnect(receive))
    try:
        await asyncio.wait({writer, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (writer, watcher):
            task.cancel()
        await asyncio.gather(writer, watcher, return_exceptions=True)
    client_left = watcher.done() and not watcher.cancelled()
    if client_left:
        return  # nobody to tell; the rest of the run is dropped
    error = writer.exception() if not writer.cancelled() else None
    if error is not None:
        raise error
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _write_steps(steps: list[Step], send: Send, keepalive: float) -> None:
    last_sent = time.monotonic()
    for step in steps:
        if isinstance(step, Pause):
            # Sleep in slices so a long silence is broken by keepalive comments.
            deadline = time.monotonic() + step.seconds
            while (remaining := deadline - time.monotonic()) > 0:
                until_keepalive = last_sent + keepalive - time.monotonic()
                await asyncio.sleep(max(0.0, min(remaining, until_keepalive)))
                if time.monotonic() - last_sent >= keepalive:
                    await send({"type": "http.response.body", "body": KEEPALIVE, "more_body": True})
                    last_sent = time.monotonic()
            continue
        await send({"type": "http.response.body", "body": sse_frame(step), "more_body": True})
        last_sent = time.monotonic()


async def _write_frames(steps: list[Step], send: Send) -> None:
    for step in steps:
        if isinstance(step, Pause):
            await asyncio.sleep(step.seconds)  # WebSocket pings keep the connection alive
            continue
        await send({"type": "websocket.send", "text": event_json(step)})


async def _wait_for_ws_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "websocket.disconnect":
        pass


def event_json(event: BaseEvent) -> str:
    """One event's JSON, stamped at send time (ms since the epoch)."""
    if event.timestamp is None:
        event = event.model_copy(update={"timestamp": int(time.time() * 1000)})
    return event.model_dump_json(by_alias=True, exclude_none=True)


def sse_frame(event: BaseEvent) -> bytes:
    """One ``data:`` frame. The timestamp is stamped at send time (ms since the epoch)."""
    return b"data: " + event_json(event).encode("utf-8") + b"\n\n"


async def _wait_for_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _read_body(receive: Receive, limit: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size, more = 0, True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size <= limit:
            chunks.append(chunk)
        more = message.get("more_body", False)
    return b"".join(chunks), size > limit


async def _send_json(
    send: Send, status: int, body: dict[str, Any], extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    payload = json.dumps(body).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                *(extra or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload, "more_body": False})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def _safe_headers(scope: Scope) -> dict[str, str]:
    headers: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").lower()
        if name not in CREDENTIAL_HEADERS:
            headers[name] = raw_value.decode("latin-1")
    return headers


def _json_or_none(body: bytes) -> Any:
    try:
        return json.loads(body) if body else None
    except ValueError:
        return None
