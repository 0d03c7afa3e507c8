"""Shared by the benchmarks: a synthetic, valid AG-UI event stream and an in-memory transport.

Nothing here touches the network. The SSE body is served by ``httpx.MockTransport`` through an
``httpx.AsyncByteStream`` in fixed-size chunks (16 KiB by default), so every contender reads the
same bytes through the same httpx response machinery.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import httpx

# The client alone is measured here; bench/store.py measures the store (on vs off). Nothing a
# benchmark runs is written to the user's data directory.
os.environ.setdefault("AGUI_NOTEBOOK_STORE", "off")

URL = "http://bench.invalid/agent"
THREAD_ID = "bench-thread"
RUN_ID = "bench-run"
CHUNK_SIZE = 16 * 1024

# Per block of 100 events: one text message (60 deltas), one tool call (20 argument deltas and a
# result) and 15 state deltas.
TEXT_DELTAS = 60
ARGS_DELTAS = 20
STATE_DELTAS = 15
BLOCK = (TEXT_DELTAS + 2) + (ARGS_DELTAS + 3) + STATE_DELTAS  # 100

_WORDS = [
    "Hello",
    " there",
    ",",
    " the",
    " quick",
    " brown",
    " fox",
    " jumps",
    " over",
    " a",
    " lazy",
    " dog",
    ".",
    " It",
    " was",
    " sunny",
    " in",
    " Paris",
    " today",
    "!",
]


def _dumps(obj: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"


def _split(text: str, parts: int) -> list[str]:
    n = len(text)
    return [text[i * n // parts : (i + 1) * n // parts] for i in range(parts)]


def _text_message(mid: str, deltas: int, start: int = 0) -> Iterator[dict[str, Any]]:
    yield {"type": "TEXT_MESSAGE_START", "messageId": mid, "role": "assistant"}
    words = _WORDS
    nw = len(words)
    for k in range(start, start + deltas):
        yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": words[k % nw]}
    yield {"type": "TEXT_MESSAGE_END", "messageId": mid}


def mixed_events(n: int) -> Iterator[dict[str, Any]]:
    """Exactly ``n`` (>= 3) events of one valid run: text, tool calls, state snapshot and deltas."""
    if n < 3:
        raise ValueError("a run needs at least 3 events")
    yield {"type": "RUN_STARTED", "threadId": THREAD_ID, "runId": RUN_ID, "protocolVersion": "1.1"}
    yield {
        "type": "STATE_SNAPSHOT",
        "snapshot": {"counter": 0, "status": "idle", "city": "Paris", "items": ["a", "b"]},
    }
    remaining = n - 3
    block = 0
    counter = 0
    while remaining >= BLOCK:
        mid = f"msg-{block}"
        yield from _text_message(mid, TEXT_DELTAS, block)
        tcid = f"call-{block}"
        yield {
            "type": "TOOL_CALL_START",
            "toolCallId": tcid,
            "toolCallName": "get_weather",
            "parentMessageId": mid,
        }
        args = json.dumps(
            {
                "city": "Paris",
                "days": block % 7 + 1,
                "units": "metric",
                "note": f"forecast request number {block}",
            }
        )
        for piece in _split(args, ARGS_DELTAS):
            yield {"type": "TOOL_CALL_ARGS", "toolCallId": tcid, "delta": piece}
        yield {"type": "TOOL_CALL_END", "toolCallId": tcid}
        yield {
            "type": "TOOL_CALL_RESULT",
            "messageId": f"result-{block}",
            "toolCallId": tcid,
            "content": '{"temperature":21,"sky":"clear"}',
            "role": "tool",
        }
        for _ in range(STATE_DELTAS):
            counter += 1
            if counter % 5:
                op = {"op": "replace", "path": "/counter", "value": counter}
            else:
                op = {"op": "replace", "path": "/status", "value": f"step {counter}"}
            yield {"type": "STATE_DELTA", "delta": [op]}
        remaining -= BLOCK
        block += 1
    if remaining >= 3:
        yield from _text_message(f"msg-{block}", remaining - 2)
    else:
        for _ in range(remaining):
            counter += 1
            yield {
                "type": "STATE_DELTA",
                "delta": [{"op": "replace", "path": "/counter", "value": counter}],
            }
    yield {
        "type": "RUN_FINISHED",
        "threadId": THREAD_ID,
        "runId": RUN_ID,
        "outcome": {"type": "success"},
    }


def text_state_events(n: int, per_message: int = 40) -> Iterator[dict[str, Any]]:
    """Exactly ``n`` (>= 4) events of one valid run: text messages of ``per_message`` deltas,
    each followed by one STATE_DELTA (the second mix of issue 19)."""
    if n < 4:
        raise ValueError("a run needs at least 4 events")
    yield {"type": "RUN_STARTED", "threadId": THREAD_ID, "runId": RUN_ID, "protocolVersion": "1.1"}
    yield {"type": "STATE_SNAPSHOT", "snapshot": {"counter": 0, "status": "idle"}}
    remaining = n - 3
    block = per_message + 3  # start, deltas, end, state delta
    m = 0
    while remaining >= block:
        yield from _text_message(f"msg-{m}", per_message, m)
        yield {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/counter", "value": m}]}
        remaining -= block
        m += 1
    if remaining >= 3:
        yield from _text_message(f"msg-{m}", remaining - 2, m)
    else:
        for k in range(remaining):
            yield {
                "type": "STATE_DELTA",
                "delta": [{"op": "replace", "path": "/counter", "value": m + k}],
            }
    yield {
        "type": "RUN_FINISHED",
        "threadId": THREAD_ID,
        "runId": RUN_ID,
        "outcome": {"type": "success"},
    }


# The realistic mix: what a model streams in a working session (issue 28).
_PROSE = (
    'The quarterly report shows revenue up 12% — driven by the "Atlas" line in Zürich and '
    "São Paulo; costs fell where the new supplier took over.\nNext: reconcile the ledger, "
    "check the FX rates (EUR→USD 1.08), and flag anything over €10,000 for review. 数据已更新 ✓ "
)


def _prose(k: int) -> str:
    """A text delta of 20-200 characters (words, punctuation, escapes, non-ASCII)."""
    size = 20 + (k * 37) % 181
    start = (k * 53) % len(_PROSE)
    return (_PROSE[start:] + _PROSE)[:size]


def realistic_events(n: int) -> Iterator[dict[str, Any]]:
    """Exactly ``n`` (>= 3) events of one valid run: text messages of 12 long deltas, a tool call
    whose multi-KB JSON arguments arrive in 12 deltas with its result, and 4 state deltas of
    several operations each on a nested state; blocks of 36 events."""
    if n < 3:
        raise ValueError("a run needs at least 3 events")
    yield {"type": "RUN_STARTED", "threadId": THREAD_ID, "runId": RUN_ID, "protocolVersion": "1.1"}
    yield {
        "type": "STATE_SNAPSHOT",
        "snapshot": {
            "report": {"status": "draft", "sections": [], "totals": {"revenue": 0, "costs": 0}},
            "progress": {"done": 0, "steps": ["collect", "reconcile", "review"]},
        },
    }
    remaining = n - 3
    block_size = (12 + 2) + (12 + 3) + 4  # 33
    block = 0
    while remaining >= block_size:
        mid = f"msg-{block}"
        yield {"type": "TEXT_MESSAGE_START", "messageId": mid, "role": "assistant"}
        for k in range(12):
            yield {
                "type": "TEXT_MESSAGE_CONTENT",
                "messageId": mid,
                "delta": _prose(block * 12 + k),
            }
        yield {"type": "TEXT_MESSAGE_END", "messageId": mid}
        tcid = f"call-{block}"
        yield {
            "type": "TOOL_CALL_START",
            "toolCallId": tcid,
            "toolCallName": "update_ledger",
            "parentMessageId": mid,
        }
        args = json.dumps(
            {
                "ledger": "2026-Q4",
                "entries": [
                    {
                        "account": f"{4000 + (block + i) % 97}",
                        "amount": round(((block * 31 + i * 17) % 100_000) / 100, 2),
                        "currency": "EUR" if i % 3 else "USD",
                        "memo": _prose(block + i)[:60],
                    }
                    for i in range(24)
                ],
                "dryRun": block % 2 == 0,
            },
            ensure_ascii=False,
        )
        for piece in _split(args, 12):
            yield {"type": "TOOL_CALL_ARGS", "toolCallId": tcid, "delta": piece}
        yield {"type": "TOOL_CALL_END", "toolCallId": tcid}
        yield {
            "type": "TOOL_CALL_RESULT",
            "messageId": f"result-{block}",
            "toolCallId": tcid,
            "content": json.dumps({"posted": 24, "balance": block * 1.5, "warnings": []}),
            "role": "tool",
        }
        for k in range(4):
            yield {
                "type": "STATE_DELTA",
                "delta": [
                    {"op": "replace", "path": "/report/status", "value": f"step {block}.{k}"},
                    {"op": "add", "path": "/report/sections/-", "value": {"id": f"s{block}.{k}"}},
                    {"op": "replace", "path": "/report/totals/revenue", "value": block * 10 + k},
                    {"op": "replace", "path": "/progress/done", "value": block * 4 + k},
                ],
            }
        remaining -= block_size
        block += 1
    if remaining >= 3:
        yield {"type": "TEXT_MESSAGE_START", "messageId": "msg-last", "role": "assistant"}
        for k in range(remaining - 2):
            yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-last", "delta": _prose(k)}
        yield {"type": "TEXT_MESSAGE_END", "messageId": "msg-last"}
    else:
        for k in range(remaining):
            yield {
                "type": "STATE_DELTA",
                "delta": [{"op": "replace", "path": "/progress/done", "value": k}],
            }
    yield {
        "type": "RUN_FINISHED",
        "threadId": THREAD_ID,
        "runId": RUN_ID,
        "outcome": {"type": "success"},
    }


#: The event mixes ``throughput.py`` measures: name -> (generator, default event count).
MIXES: dict[str, tuple[Callable[[int], Iterator[dict[str, Any]]], int]] = {
    "project": (mixed_events, 100_000),
    "text+state": (text_state_events, 50_000),
    "realistic": (realistic_events, 50_000),
}


def text_events(deltas: int, *, messages: int = 1, delta: str = "abcd") -> Iterator[dict[str, Any]]:
    """One run of ``deltas`` TEXT_MESSAGE_CONTENT events spread over ``messages`` messages."""
    yield {"type": "RUN_STARTED", "threadId": THREAD_ID, "runId": RUN_ID, "protocolVersion": "1.1"}
    per, extra = divmod(deltas, messages)
    for m in range(messages):
        mid = f"msg-{m}"
        yield {"type": "TEXT_MESSAGE_START", "messageId": mid, "role": "assistant"}
        event = {"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": delta}
        line = _dumps(event)
        for _ in range(per + (1 if m < extra else 0)):
            yield line  # type: ignore[misc]  # pre-encoded: the same bytes every time
        yield {"type": "TEXT_MESSAGE_END", "messageId": mid}
    yield {
        "type": "RUN_FINISHED",
        "threadId": THREAD_ID,
        "runId": RUN_ID,
        "outcome": {"type": "success"},
    }


def encode(events: Iterable[dict[str, Any] | bytes]) -> Iterator[bytes]:
    """SSE-encode events lazily (``data: {json}\\n\\n``); pre-encoded bytes pass through."""
    for event in events:
        yield event if isinstance(event, bytes) else _dumps(event)


def rechunk(pieces: Iterable[bytes], size: int = CHUNK_SIZE) -> Iterator[bytes]:
    """Re-cut a byte stream into ``size``-byte chunks (the last one shorter), lazily."""
    buf = bytearray()
    for piece in pieces:
        buf += piece
        if len(buf) >= size:
            whole = len(buf) - len(buf) % size
            for i in range(0, whole, size):
                yield bytes(buf[i : i + size])
            del buf[:whole]
    if buf:
        yield bytes(buf)


class ByteStream(httpx.AsyncByteStream):
    """A response body: a fresh iteration of ``make_chunks()`` per request."""

    def __init__(self, make_chunks: Callable[[], Iterable[bytes]]) -> None:
        self._make = make_chunks

    async def __aiter__(self):  # type: ignore[override]
        for chunk in self._make():
            yield chunk


class SSEServer:
    """An ``httpx.MockTransport`` handler answering every POST with the same SSE body."""

    def __init__(self, make_chunks: Callable[[], Iterable[bytes]]) -> None:
        self._make = make_chunks
        self.requests = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        return httpx.Response(
            200,
            headers={"content-type": "text/event-stream", "cache-control": "no-store"},
            stream=ByteStream(self._make),
        )

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self), timeout=None)


def pregenerated(n: int, size: int = CHUNK_SIZE, mix: str = "project") -> tuple[list[bytes], int]:
    """The ``mix`` stream of ``n`` events, encoded once and cut into chunks; (chunks, bytes)."""
    data = b"".join(encode(MIXES[mix][0](n)))
    return [data[i : i + size] for i in range(0, len(data), size)], len(data)
