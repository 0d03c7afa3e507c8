"""Client-core test helpers: event builders, SSE framing, byte splitting, a scripted server.

Events are plain dicts in wire form (camelCase), so a test reads like the stream a server sends.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from agui_notebook import Agent
from agui_notebook._protocol.events import EventParser, type_of
from agui_notebook._protocol.sse import SSEDataDecoder
from agui_notebook._protocol.verify import OrderVerifier
from agui_notebook._state.reducer import RunReducer, ThreadSnapshot

URL = "http://agent.test/agui"

# -- event builders (wire dicts) ----------------------------------------------------------


def ev(type_: str, **fields: Any) -> dict[str, Any]:
    return {"type": type_, **fields}


def run_started(thread_id: str = "t1", run_id: str = "r1", **fields: Any) -> dict[str, Any]:
    return ev("RUN_STARTED", threadId=thread_id, runId=run_id, **fields)


def run_finished(
    thread_id: str = "t1", run_id: str = "r1", outcome: Any = None, **fields: Any
) -> dict[str, Any]:
    event = ev("RUN_FINISHED", threadId=thread_id, runId=run_id, **fields)
    if outcome is not None:
        event["outcome"] = outcome
    return event


def run_error(message: str = "boom", code: str | None = None) -> dict[str, Any]:
    event = ev("RUN_ERROR", message=message)
    if code is not None:
        event["code"] = code
    return event


def text_start(mid: str, role: str = "assistant") -> dict[str, Any]:
    return ev("TEXT_MESSAGE_START", messageId=mid, role=role)


def text_content(mid: str, delta: str) -> dict[str, Any]:
    return ev("TEXT_MESSAGE_CONTENT", messageId=mid, delta=delta)


def text_end(mid: str) -> dict[str, Any]:
    return ev("TEXT_MESSAGE_END", messageId=mid)


def text_message(mid: str, *deltas: str) -> list[dict[str, Any]]:
    return [text_start(mid), *(text_content(mid, d) for d in deltas), text_end(mid)]


def tool_start(tcid: str, name: str, parent: str | None = None) -> dict[str, Any]:
    event = ev("TOOL_CALL_START", toolCallId=tcid, toolCallName=name)
    if parent is not None:
        event["parentMessageId"] = parent
    return event


def tool_args(tcid: str, delta: str) -> dict[str, Any]:
    return ev("TOOL_CALL_ARGS", toolCallId=tcid, delta=delta)


def tool_end(tcid: str) -> dict[str, Any]:
    return ev("TOOL_CALL_END", toolCallId=tcid)


def tool_call(
    tcid: str, name: str, args: dict[str, Any], parent: str | None = None
) -> list[dict[str, Any]]:
    return [tool_start(tcid, name, parent), tool_args(tcid, json.dumps(args)), tool_end(tcid)]


def tool_result(mid: str, tcid: str, content: str) -> dict[str, Any]:
    return ev("TOOL_CALL_RESULT", messageId=mid, toolCallId=tcid, content=content)


def interrupt(iid: str, reason: str = "tool_call", **fields: Any) -> dict[str, Any]:
    return {"id": iid, "reason": reason, **fields}


def interrupted(*interrupts: dict[str, Any]) -> dict[str, Any]:
    return {"type": "interrupt", "interrupts": list(interrupts)}


def state_snapshot(snapshot: Any) -> dict[str, Any]:
    return ev("STATE_SNAPSHOT", snapshot=snapshot)


def state_delta(*ops: dict[str, Any]) -> dict[str, Any]:
    return ev("STATE_DELTA", delta=list(ops))


def messages_snapshot(*messages: dict[str, Any]) -> dict[str, Any]:
    return ev("MESSAGES_SNAPSHOT", messages=list(messages))


def flatten(items: Iterable[Any]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if isinstance(item, list | tuple):
            out.extend(flatten(item))
        else:
            out.append(item)
    return out


# -- SSE framing and splitting ------------------------------------------------------------


def frame(event: dict[str, Any] | str, newline: str = "\n", space: bool = True) -> str:
    data = event if isinstance(event, str) else json.dumps(event, ensure_ascii=False)
    prefix = "data: " if space else "data:"
    return "".join(prefix + line + newline for line in data.split("\n")) + newline


def sse(*events: Any, newline: str = "\n", space: bool = True) -> bytes:
    """An SSE body: each event (dict, or a list of them) one ``data:`` frame."""
    return "".join(frame(e, newline, space) for e in flatten(events)).encode()


def split_at(data: bytes, cuts: Iterable[int]) -> list[bytes]:
    """``data`` cut at the given offsets (sorted, deduplicated, clamped); no empty parts."""
    points = sorted({min(max(c, 0), len(data)) for c in cuts})
    parts, last = [], 0
    for p in [*points, len(data)]:
        if p > last:
            parts.append(data[last:p])
        last = max(last, p)
    return parts


def every(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


# -- the pure pipeline, without a Thread --------------------------------------------------


@dataclass
class Pipeline:
    events: list[Any] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    phase: str = "init"
    reducer: RunReducer | None = None


def pipeline(chunks: Sequence[bytes], *, max_event_bytes: int | None = None) -> Pipeline:
    """SSE decoder -> parser -> verifier -> reducer, as Thread wires them (no truncation check)."""
    out = Pipeline()
    decoder = (
        SSEDataDecoder(max_event_bytes=max_event_bytes)
        if max_event_bytes is not None
        else SSEDataDecoder()
    )
    parser = EventParser(out.warnings.append)
    verifier = OrderVerifier()
    reducer = RunReducer(ThreadSnapshot(), out.warnings.append)
    out.reducer = reducer

    def handle(messages: list[str]) -> None:
        for data in messages:
            for event in parser.parse(data):
                etype = type_of(event)
                verifier.check(etype, event, parser.index)
                reducer.apply(etype, event)
                out.events.append(event)
                out.types.append(etype)

    for chunk in chunks:
        handle(decoder.feed(chunk))
    handle(decoder.close())
    out.phase = verifier.phase
    return out


def parse_events(*events: Any, warnings: list[str] | None = None) -> list[Any]:
    """Run wire dicts through one EventParser; returns the parsed (expanded) events."""
    parser = EventParser((warnings if warnings is not None else []).append)
    out: list[Any] = []
    for event in flatten(events):
        out.extend(parser.parse(event if isinstance(event, str) else json.dumps(event)))
    return out


def types(events: Iterable[Any]) -> list[str]:
    return [type_of(e) for e in events]


# -- a scripted server behind httpx.MockTransport -----------------------------------------


class ChunkStream(httpx.AsyncByteStream):
    """A response body yielding ``chunks``; then optionally raising ``error`` or stalling."""

    def __init__(
        self,
        chunks: Sequence[bytes],
        *,
        error: BaseException | None = None,
        stall: bool = False,
        gate: asyncio.Event | None = None,
        gate_after: int = 0,
    ) -> None:
        self.chunks = list(chunks)
        self.error = error
        self.stall = stall
        self.gate = gate
        self.gate_after = gate_after
        self.closed = False
        self.yielded = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for i, chunk in enumerate(self.chunks):
            if self.gate is not None and i == self.gate_after:
                await self.gate.wait()
            self.yielded += 1
            yield chunk
            await asyncio.sleep(0)
        if self.error is not None:
            raise self.error
        if self.stall:
            await asyncio.Event().wait()

    async def aclose(self) -> None:
        self.closed = True


def sse_response(body: bytes | Sequence[bytes] | ChunkStream, status: int = 200) -> httpx.Response:
    if isinstance(body, bytes):
        stream = ChunkStream([body])
    elif isinstance(body, ChunkStream):
        stream = body
    else:
        stream = ChunkStream(list(body))
    return httpx.Response(status, headers={"content-type": "text/event-stream"}, stream=stream)


Reply = bytes | Sequence[bytes] | ChunkStream | httpx.Response | Callable[[httpx.Request], Any]


class ScriptedServer:
    """A MockTransport handler answering each request with the next scripted reply.

    ``requests`` keeps every request, ``bodies`` their parsed JSON.
    """

    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.requests: list[httpx.Request] = []
        self.bodies: list[dict[str, Any]] = []

    def add(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        self.bodies.append(json.loads(request.content))
        if not self.replies:
            raise AssertionError("the scripted server got an unexpected request")
        reply = self.replies.pop(0)
        if callable(reply) and not isinstance(reply, httpx.Response | ChunkStream):
            reply = reply(request)
        if isinstance(reply, httpx.Response):
            return reply
        return sse_response(reply)

    def agent(self, url: str = URL, **options: Any) -> Agent:
        # No store unless asked: scripts reuse one URL and thread ids within a test, and a
        # stored thread would come back into the next agent's thread("thread-1").
        options.setdefault("store", None)
        client = httpx.AsyncClient(transport=httpx.MockTransport(self))
        return Agent(url, http_client=client, **options)


def approval_run(*interrupts: dict[str, Any], run_id: str = "r1", with_calls: bool = True) -> bytes:
    """A run that proposes tool calls and finishes interrupted on them."""
    calls = []
    if with_calls:
        for it in interrupts:
            if it.get("toolCallId"):
                calls.append(
                    tool_call(it["toolCallId"], "transfer", {"amount": 500, "to": "bob"}, "a1")
                )
    return sse(
        run_started(run_id=run_id),
        text_message("a1", "Let me transfer that."),
        calls,
        run_finished(run_id=run_id, outcome=interrupted(*interrupts)),
    )


def ok_run(run_id: str = "r2", text: str = "Done.", mid: str = "a2") -> bytes:
    return sse(run_started(run_id=run_id), text_message(mid, text), run_finished(run_id=run_id))
