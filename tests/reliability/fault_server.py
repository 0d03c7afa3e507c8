"""A tiny fault-injecting AG-UI server on 127.0.0.1, written on raw asyncio streams.

HTTP/1.1 is written by hand so every byte and every close is under the test's control: a stream
can end cleanly (close-delimited body), drop (a chunked body closed before its last chunk, which
httpx reports as RemoteProtocolError), or be reset (SO_LINGER 0, an RST).

Each request pops the next scripted fault (``server.script(fault, ...)``); with nothing scripted
the server *behaves*: a message run ends on one tool-call approval interrupt, a resume run ends
in success. Every request is logged (``server.log``) with its JSON body, the fault that served it
and what was sent (``sent`` bytes, ``last_complete`` event type).

    server = FaultServer.start()
    server.script(Status(503, '{"error": "overloaded"}'))
    ... Agent(server.url) ...

A resume's resolved entries are applied once per interrupt id (``server.applications``): a
repeated resume is answered but not applied again, as a server that deduplicates would.
    server.stop()
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import json
import socket
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]
KEEPALIVE = b": keepalive\n\n"
SSE = "text/event-stream"


# -- the requests and what the server did ---------------------------------------------------------


@dataclass
class Served:
    """One request as the server saw it and how it was answered."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    fault: str = "behave"
    status: int = 200
    sent: int = 0  # body bytes written (SSE bytes, before chunk framing)
    last_complete: str | None = None  # type of the last complete event sent
    bad_byte_at: int | None = None  # InvalidUtf8: offset of the first invalid byte
    completed: bool = False  # the response reached its intended end
    #: Interrupt ids this request's resume applied (empty: none, or all applied before).
    applied: list[str] = field(default_factory=list)
    server: FaultServer | None = field(default=None, repr=False)

    @property
    def resume(self) -> list[JSON] | None:
        return self.body.get("resume") if isinstance(self.body, dict) else None


# -- the behaving agent ---------------------------------------------------------------------------

_ids = itertools.count(1)


def frame(event: JSON | bytes) -> bytes:
    if isinstance(event, bytes):
        return event
    return b"data: " + json.dumps(event, separators=(",", ":")).encode() + b"\n\n"


def behave_events(body: Any, *, text: str | None = None) -> list[JSON]:
    """A correct run for ``body``: an approval interrupt for a message, success for a resume."""
    body = body if isinstance(body, dict) else {}
    thread_id = body.get("threadId", "t")
    run_id = body.get("runId", "r")
    n = next(_ids)
    mid = f"msg-{n}"
    if body.get("resume"):
        decisions = [e.get("status") for e in body["resume"]]
        return [
            {"type": "RUN_STARTED", "threadId": thread_id, "runId": run_id},
            {"type": "STATE_SNAPSHOT", "snapshot": {"step": "resumed", "n": n}},
            {"type": "TEXT_MESSAGE_START", "messageId": mid, "role": "assistant"},
            {
                "type": "TEXT_MESSAGE_CONTENT",
                "messageId": mid,
                "delta": text if text is not None else f"Done ({', '.join(decisions)}).",
            },
            {"type": "TEXT_MESSAGE_END", "messageId": mid},
            {
                "type": "RUN_FINISHED",
                "threadId": thread_id,
                "runId": run_id,
                "outcome": {"type": "success"},
            },
        ]
    call = f"call-{n}"
    arguments = {"from_account": "1234567890", "to_account": "0987654321", "amount": 500.0}
    return [
        {"type": "RUN_STARTED", "threadId": thread_id, "runId": run_id},
        {"type": "STATE_SNAPSHOT", "snapshot": {"step": "asked", "n": n}},
        {"type": "TEXT_MESSAGE_START", "messageId": mid, "role": "assistant"},
        {
            "type": "TEXT_MESSAGE_CONTENT",
            "messageId": mid,
            "delta": text if text is not None else "I need your approval.",
        },
        {"type": "TEXT_MESSAGE_END", "messageId": mid},
        {
            "type": "TOOL_CALL_START",
            "toolCallId": call,
            "toolCallName": "transfer_money",
            "parentMessageId": mid,
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": json.dumps(arguments)},
        {"type": "TOOL_CALL_END", "toolCallId": call},
        {
            "type": "RUN_FINISHED",
            "threadId": thread_id,
            "runId": run_id,
            "outcome": {
                "type": "interrupt",
                "interrupts": [
                    {
                        "id": f"int-{n}",
                        "reason": "tool_call",
                        "message": "Approve the transfer?",
                        "toolCallId": call,
                        "metadata": {"toolName": "transfer_money", "arguments": arguments},
                    }
                ],
            },
        },
    ]


# -- faults ---------------------------------------------------------------------------------------


class Fault:
    """How to answer one request. Subclasses write the response on ``conn``."""

    name = "fault"

    async def serve(self, conn: _Conn, served: Served) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


class Behave(Fault):
    """A correct run (see :func:`behave_events`); ``text`` replaces the assistant text."""

    name = "behave"

    def __init__(self, text: str | None = None) -> None:
        self.text = text

    async def serve(self, conn: _Conn, served: Served) -> None:
        if served.server is not None:
            served.server.apply(served)  # a repeated resume is recognised, not applied twice
        await conn.start_chunked(200, SSE)
        events = behave_events(served.body, text=self.text)
        for event in events[:-1]:
            await conn.send_event(event, served)
        # Marked before the last event goes out: the client may act on RUN_FINISHED (and the
        # test read the log) before this thread runs again.
        served.completed = True
        await conn.send_event(events[-1], served)
        await conn.end_chunked()


@dataclass
class Status(Fault):
    """A non-2xx (or any) status with a body."""

    status: int
    body: str
    content_type: str = "application/json"
    extra_headers: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"status {self.status}"

    async def serve(self, conn: _Conn, served: Served) -> None:
        served.status = self.status
        await conn.respond(self.status, self.content_type, self.body.encode(), self.extra_headers)
        served.completed = True


@dataclass
class Cut(Fault):
    """The behaving stream, ended early.

    ``where``: "mid_event" (inside the TEXT_MESSAGE_CONTENT frame), "between_events" (right after
    the TEXT_MESSAGE_CONTENT frame), "before_final_blank" (after RUN_FINISHED's data line, before
    the blank line that dispatches it). ``how``: "eof" (a clean end of a close-delimited body),
    "drop" (a chunked body closed before its terminating chunk), "rst" (a TCP reset).
    """

    where: str
    how: str = "drop"

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"cut {self.where} ({self.how})"

    async def serve(self, conn: _Conn, served: Served) -> None:
        frames = [frame(e) for e in behave_events(served.body)]
        types = [e["type"] for e in behave_events(served.body)]
        k = types.index("TEXT_MESSAGE_CONTENT")
        before = sum(len(f) for f in frames[:k])
        if self.where == "mid_event":
            cut, last = before + len(frames[k]) // 2, types[k - 1]
        elif self.where == "between_events":
            cut, last = before + len(frames[k]), types[k]
        elif self.where == "before_final_blank":
            cut, last = sum(len(f) for f in frames) - 1, types[-2]
        else:
            raise ValueError(self.where)
        data = b"".join(frames)[:cut]
        if self.how == "eof":
            await conn.start_close_delimited(200, SSE)
            await conn.write(data)
        else:
            await conn.start_chunked(200, SSE)
            await conn.write_chunk(data)
        served.sent = len(data)
        served.last_complete = last
        if self.how == "rst":
            await asyncio.sleep(0.2)  # let the client read what was sent before the reset
            conn.reset()
        else:
            await conn.close()


@dataclass
class Stall(Fault):
    """Say nothing for ``seconds`` (or until the client leaves).

    ``headers=False``: not even the status line. Otherwise a 200 event stream, the first
    ``events`` events of the behaving run, then silence.
    """

    seconds: float = 30.0
    headers: bool = True
    events: int = 0

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"stall (headers={self.headers}, events={self.events})"

    async def serve(self, conn: _Conn, served: Served) -> None:
        if self.headers:
            await conn.start_chunked(200, SSE)
            for event in behave_events(served.body)[: self.events]:
                await conn.send_event(event, served)
        await conn.wait_for_client_to_leave(self.seconds)


@dataclass
class KeepaliveStall(Fault):
    """RUN_STARTED, then only ``: keepalive`` comments every ``interval`` s for ``seconds``."""

    seconds: float = 30.0
    interval: float = 0.1
    name = "keepalive stall"

    async def serve(self, conn: _Conn, served: Served) -> None:
        await conn.start_chunked(200, SSE)
        await conn.send_event(behave_events(served.body)[0], served)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.seconds
        while loop.time() < deadline:
            if await conn.client_left(self.interval):
                return
            await conn.write_chunk(KEEPALIVE)


@dataclass
class Huge(Fault):
    """The behaving run with one extra TEXT_MESSAGE_CONTENT of ``size`` characters."""

    size: int = 10 * 1024 * 1024
    name = "huge event"

    async def serve(self, conn: _Conn, served: Served) -> None:
        events = behave_events(served.body)
        k = [e["type"] for e in events].index("TEXT_MESSAGE_CONTENT")
        big = dict(events[k], delta="x" * self.size)
        events.insert(k + 1, big)
        await conn.start_chunked(200, SSE)
        for event in events:
            await conn.send_event(event, served)
        await conn.end_chunked()
        served.completed = True


class InvalidUtf8(Fault):
    """The behaving run whose TEXT_MESSAGE_CONTENT carries the bytes ``\\xff\\xfe``."""

    name = "invalid utf-8"

    async def serve(self, conn: _Conn, served: Served) -> None:
        events = behave_events(served.body, text="BAD<>")
        frames = [frame(e) for e in events]
        k = [e["type"] for e in events].index("TEXT_MESSAGE_CONTENT")
        frames[k] = frames[k].replace(b"BAD<>", b"BAD<\xff\xfe>")
        served.bad_byte_at = sum(len(f) for f in frames[:k]) + frames[k].index(b"\xff")
        await conn.start_chunked(200, SSE)
        for f in frames:
            await conn.send_event(f, served)
        await conn.end_chunked()
        served.completed = True


@dataclass
class Nested(Fault):
    """The behaving run with a STATE_SNAPSHOT nested ``depth`` levels deep."""

    depth: int = 100_000
    name = "nested json"

    async def serve(self, conn: _Conn, served: Served) -> None:
        events: list[Any] = behave_events(served.body)
        deep = b'data: {"type":"STATE_SNAPSHOT","snapshot":' + b"[" * self.depth
        deep += b"]" * self.depth + b"}\n\n"
        events.insert(2, deep)
        await conn.start_chunked(200, SSE)
        for event in events:
            await conn.send_event(event, served)
        await conn.end_chunked()
        served.completed = True


@dataclass
class RunErrorMidRun(Fault):
    """RUN_STARTED, part of a message, then RUN_ERROR(message, code)."""

    message: str = "the model provider failed"
    code: str = "UPSTREAM_UNAVAILABLE"
    name = "RUN_ERROR"

    async def serve(self, conn: _Conn, served: Served) -> None:
        events = behave_events(served.body)[:4]  # started, snapshot, text start, content
        events.append({"type": "RUN_ERROR", "message": self.message, "code": self.code})
        await conn.start_chunked(200, SSE)
        for event in events:
            await conn.send_event(event, served)
        await conn.end_chunked()
        served.completed = True


class ApplyThenDrop(Fault):
    """Apply the resume (as a server that acts on a decision before it answers), then close the
    connection without a reply: the client cannot know whether the decision took effect."""

    name = "apply then drop"

    async def serve(self, conn: _Conn, served: Served) -> None:
        if served.server is not None:
            served.server.apply(served)
        served.completed = True
        conn.reset()


@dataclass
class Echo(Fault):
    """A server that repeats the credentials it received, in one place (``where``):

    - "status": an HTTP ``status`` error whose JSON body quotes them;
    - "run_error": HTTP 200, RUN_STARTED then RUN_ERROR quoting them (Microsoft's server answers
      a refused resume this way);
    - "assistant": the reply's text; "split": the same, streamed ``size`` characters a delta;
    - "tool_result": a finished tool call whose result quotes them;
    - "interrupt": the interrupt's message and the tool call's arguments (a ``memo``);
    - "state": a STATE_SNAPSHOT value.

    ``template`` is the text, with ``{header-name}`` (lowercase) replaced by that request
    header's value as received.
    """

    where: str
    template: str = "invalid credentials: {authorization} and {x-api-key}"
    status: int = 401
    size: int = 3

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"echo in {self.where}"

    def text(self, served: Served) -> str:
        out = self.template
        for key, value in served.headers.items():
            out = out.replace("{" + key + "}", value)
        return out

    async def serve(self, conn: _Conn, served: Served) -> None:
        echo = self.text(served)
        if self.where == "status":
            served.status = self.status
            body = json.dumps({"error": echo, "code": "UNAUTHENTICATED"}).encode()
            await conn.respond(self.status, "application/json", body)
            served.completed = True
            return
        events = self.events(served.body, echo)
        await conn.start_chunked(200, SSE)
        for event in events:
            await conn.send_event(event, served)
        served.completed = True
        await conn.end_chunked()

    def events(self, body: Any, echo: str) -> list[JSON]:
        if self.where == "run_error":
            body = body if isinstance(body, dict) else {}
            return [
                {
                    "type": "RUN_STARTED",
                    "threadId": body.get("threadId"),
                    "runId": body.get("runId"),
                },
                {"type": "RUN_ERROR", "message": echo, "code": "APPROVAL_RESUME_INVALID"},
            ]
        if self.where in ("assistant", "split"):
            events = behave_events(body, text=echo)
            if self.where == "split":
                k = [e["type"] for e in events].index("TEXT_MESSAGE_CONTENT")
                content = events.pop(k)
                pieces = [echo[i : i + self.size] for i in range(0, len(echo), self.size)]
                events[k:k] = [dict(content, delta=piece) for piece in pieces]
            return events
        events = behave_events(body)
        types = [e["type"] for e in events]
        if self.where == "tool_result":
            mid = events[types.index("TEXT_MESSAGE_START")]["messageId"]
            call = f"lookup-{mid}"
            k = types.index("TEXT_MESSAGE_END") + 1
            events[k:k] = [
                {
                    "type": "TOOL_CALL_START",
                    "toolCallId": call,
                    "toolCallName": "lookup",
                    "parentMessageId": mid,
                },
                {"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": "{}"},
                {"type": "TOOL_CALL_END", "toolCallId": call},
                {
                    "type": "TOOL_CALL_RESULT",
                    "messageId": f"result-{mid}",
                    "toolCallId": call,
                    "content": echo,
                    "role": "tool",
                },
            ]
        elif self.where == "interrupt":
            finished = events[-1]
            interrupt = finished["outcome"]["interrupts"][0]
            interrupt["message"] = echo
            arguments = {**interrupt["metadata"]["arguments"], "memo": echo}
            interrupt["metadata"]["arguments"] = arguments
            events[types.index("TOOL_CALL_ARGS")]["delta"] = json.dumps(arguments)
        elif self.where == "state":
            events[types.index("STATE_SNAPSHOT")]["snapshot"]["note"] = echo
        else:
            raise ValueError(self.where)
        return events


# -- the HTTP side --------------------------------------------------------------------------------


class _Conn:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    async def write(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def _head(self, status: int, headers: list[tuple[str, str]]) -> None:
        lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}"]
        lines += [f"{k}: {v}" for k, v in headers]
        await self.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))

    async def respond(
        self, status: int, content_type: str, body: bytes, extra: dict[str, str] | None = None
    ) -> None:
        headers = [
            ("Content-Type", content_type),
            ("Content-Length", str(len(body))),
            ("Connection", "close"),
            *(extra or {}).items(),
        ]
        await self._head(status, headers)
        await self.write(body)
        await self.close()

    async def start_chunked(self, status: int, content_type: str) -> None:
        await self._head(
            status,
            [
                ("Content-Type", content_type),
                ("Cache-Control", "no-cache"),
                ("Transfer-Encoding", "chunked"),
                ("Connection", "close"),
            ],
        )

    async def start_close_delimited(self, status: int, content_type: str) -> None:
        await self._head(status, [("Content-Type", content_type), ("Connection", "close")])

    async def write_chunk(self, data: bytes) -> None:
        if data:
            await self.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    async def send_event(self, event: JSON | bytes, served: Served) -> None:
        data = frame(event)
        await self.write_chunk(data)
        served.sent += len(data)
        if isinstance(event, dict):
            served.last_complete = event["type"]

    async def end_chunked(self) -> None:
        await self.write(b"0\r\n\r\n")
        await self.close()

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.wait_closed()

    def reset(self) -> None:
        sock = self.writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.writer.transport.abort()

    async def client_left(self, within: float) -> bool:
        """True when the client closed its side within ``within`` seconds."""
        try:
            data = await asyncio.wait_for(self.reader.read(65536), within)
        except asyncio.TimeoutError:
            return False
        except (ConnectionError, OSError):
            return True
        return data == b""

    async def wait_for_client_to_leave(self, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while (remaining := deadline - loop.time()) > 0:
            if await self.client_left(remaining):
                break
        await self.close()


_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    422: "Unprocessable Entity",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


class FaultServer:
    """The server, on its own event loop in a daemon thread."""

    def __init__(self) -> None:
        self._faults: collections.deque[Fault] = collections.deque()
        self._lock = threading.Lock()
        self.log: list[Served] = []
        self.applied_ids: set[str] = set()
        self.default: Callable[[], Fault] = Behave
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._thread = threading.Thread(
            target=self._loop.run_forever, daemon=True, name="fault-server"
        )
        self.port = 0

    @classmethod
    def start(cls) -> FaultServer:
        server = cls()
        server._thread.start()
        asyncio.run_coroutine_threadsafe(server._listen(), server._loop).result(10)
        return server

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def stop(self) -> None:
        async def shutdown() -> None:
            if self._server is not None:
                self._server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    # -- scripting ------------------------------------------------------------------------------

    def script(self, *faults: Fault) -> None:
        """Answer the next requests with these faults, in order (then behave again)."""
        with self._lock:
            self._faults.extend(faults)

    def reset(self) -> None:
        with self._lock:
            self._faults.clear()
            self.log.clear()
            self.applied_ids.clear()

    def apply(self, served: Served) -> None:
        """Apply a resume's resolved entries once per interrupt id (a deduplicating server)."""
        with self._lock:
            for entry in served.resume or []:
                interrupt_id = entry.get("interruptId")
                if entry.get("status") == "resolved" and interrupt_id not in self.applied_ids:
                    self.applied_ids.add(interrupt_id)
                    served.applied.append(interrupt_id)

    @property
    def applications(self) -> list[str]:
        """Every interrupt id a resume applied, in order (a repeat would appear twice)."""
        return [i for s in list(self.log) for i in s.applied]

    def _next(self) -> Fault:
        with self._lock:
            return self._faults.popleft() if self._faults else self.default()

    @property
    def resumes(self) -> list[Served]:
        """Every request that carried resume entries."""
        return [s for s in list(self.log) if s.resume]

    @property
    def successful_resumes(self) -> list[Served]:
        return [s for s in self.resumes if s.fault == "behave" and s.completed]

    # -- one connection -------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        conn = _Conn(reader, writer)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    key, _, value = line.partition(":")
                    headers[key.strip().lower()] = value.strip()
            length = int(headers.get("content-length", "0"))
            raw = await reader.readexactly(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode("utf-8", "replace")
            served = Served(method, path, headers, body, server=self)
            fault = self._next()
            served.fault = fault.name
            self.log.append(served)
            await fault.serve(conn, served)
        except (asyncio.IncompleteReadError, ConnectionError, OSError, asyncio.CancelledError):
            pass
        finally:
            self._tasks.discard(task)
            if not writer.is_closing():
                writer.close()


def refused_url() -> str:
    """A loopback URL on which nothing listens (connection refused)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return f"http://127.0.0.1:{port}/"
