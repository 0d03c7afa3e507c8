"""What the chat view costs: comm traffic and time for a 100k-delta run, with and without a view.

The same pre-generated SSE bytes (one assistant message streamed as N text deltas, then a tool
call and a state delta) are served from memory to (a) a bare thread (``thread.run``) and (b) a
chat whose view is attached to a counting comm that JSON-encodes every message, as a kernel
would. Prints the comm messages the view sent, their bytes, and the run time of (b) against (a)
measured in the same run. Targets (issue #4): messages bounded by the coalescing window (at most
about 30 a second of run time, plus a few for the card and the end), time <= 1.5x.

    python bench/widget_traffic.py [--deltas 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx

import agui_notebook._chat.chat as chat_module
from agui_notebook import Agent
from agui_notebook._view.widget import ChatView


def stream_bytes(deltas: int) -> bytes:
    def frame(event: dict[str, Any]) -> str:
        return f"data: {json.dumps(event, separators=(',', ':'))}\n\n"

    parts = [
        frame({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"}),
        frame({"type": "STATE_SNAPSHOT", "snapshot": {"balance": 0}}),
        frame({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}),
    ]
    parts += [
        frame({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": f"w{i % 10} "})
        for i in range(deltas)
    ]
    parts += [
        frame({"type": "TEXT_MESSAGE_END", "messageId": "m1"}),
        frame(
            {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/balance", "value": 1}]}
        ),
        frame({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ]
    return "".join(parts).encode()


class _Body(httpx.AsyncByteStream):
    def __init__(self, data: bytes, chunk: int = 16384) -> None:
        self.data, self.chunk = data, chunk

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for i in range(0, len(self.data), self.chunk):
            yield self.data[i : i + self.chunk]
            await asyncio.sleep(0)  # a real socket yields to the loop between reads


def agent_for(data: bytes) -> Agent:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, stream=_Body(data)
        )

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return Agent("http://bench.invalid/", http_client=client, store=None)  # the view, not the store


class CountingComm:
    """Stands in for a kernel comm: encodes each message as the kernel would, and counts."""

    kernel = object()
    comm_id = "bench"

    def close(self, *_: Any, **__: Any) -> None:
        pass

    def on_msg(self, *_: Any) -> None:
        pass

    def __init__(self) -> None:
        self.messages = 0
        self.bytes = 0

    def send(self, data: Any = None, buffers: Any = None, **_: Any) -> None:
        self.messages += 1
        self.bytes += len(json.dumps(data, default=str))


async def run_bare(data: bytes) -> float:
    agent = agent_for(data)
    start = time.perf_counter()
    await agent.thread().run("go")
    return time.perf_counter() - start


async def run_with_view(data: bytes) -> tuple[float, CountingComm]:
    comm = CountingComm()

    class CountedView(ChatView):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.comm = comm

    original = chat_module.ChatView
    chat_module.ChatView = CountedView  # type: ignore[misc]
    try:
        chat = agent_for(data).chat(display=False)
        start = time.perf_counter()
        await chat.send("go")
        return time.perf_counter() - start, comm
    finally:
        chat_module.ChatView = original  # type: ignore[misc]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = stream_bytes(args.deltas)
    bare: list[float] = []
    viewed: list[float] = []
    comms: list[CountingComm] = []
    for _ in range(args.repeat):  # interleaved, so drift affects both equally
        bare.append(await run_bare(data))
        seconds, comm = await run_with_view(data)
        viewed.append(seconds)
        comms.append(comm)
    a, b = statistics.median(bare), statistics.median(viewed)
    comm = comms[len(comms) // 2]
    window = 30 * b + 10
    print(f"deltas: {args.deltas}  stream: {len(data) / 1e6:.1f} MB  repeat: {args.repeat}")
    print(f"(a) thread without a view : {a:.3f} s  ({args.deltas / a:,.0f} deltas/s)")
    print(f"(b) chat with a view      : {b:.3f} s  ({args.deltas / b:,.0f} deltas/s)")
    print(f"comm messages from the view: {comm.messages} ({comm.bytes / 1e6:.1f} MB encoded)")
    print(
        f"coalescing bound (30/s of run time + 10): {window:.0f} -> "
        f"{'PASS' if comm.messages <= window else 'MISS'}"
    )
    print(f"time ratio b/a: {b / a:.2f}x (target <= 1.5x) -> {'PASS' if b / a <= 1.5 else 'MISS'}")


if __name__ == "__main__":
    asyncio.run(main())
