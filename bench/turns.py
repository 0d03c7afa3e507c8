"""A long chat's cost per turn: does the 1,000th turn cost what the 30th did? (issue 28)

A chat with the demo agent (``text_delay=0``, store off, a policy approving every card) runs
``--turns`` turns (default 1,000) in one view, as a chat in one cell does: plain questions, and
every fifth turn a transfer whose tool call needs approval (the card, the policy's decision, the
resumed run). The view is attached to a counting comm that encodes every message as a kernel
would (as bench/widget_traffic.py does).

The agent runs in its own process (bench/_demo_server.py: uvicorn on 127.0.0.1), as a real
agent does, so the client process's CPU time is the client's alone: the demo validates the whole
history it receives on every run, and in the same interpreter its garbage would be collected on
the client's time (``--inline`` runs it in-process, ``Agent.demo()``, and subtracts the demo's
synchronous work timed around its calls, which cannot take out that collection).

Printed: the client process's CPU time per turn (``time.process_time()``) in the first and last
``--window`` turns (default 30), their ratio, and the share of it spent collecting garbage; the
server process's CPU per turn beside it (from /proc). Also the widget bytes per turn in both
windows, and the kernel's memory at the end (RSS growth, the items' JSON size, the text held).
Exit 1 when the client's last/first > 1.5 (the target of issue 28).

    python bench/turns.py [--turns 1000] [--window 30] [--inline] [--profile out.prof]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from typing import Any

import comm as comm_package
from comm.base_comm import BaseComm

os.environ.setdefault("AGUI_NOTEBOOK_STORE", "off")

from _demo_server import DemoProcess

import agui_notebook.demo._app as demo_app
from agui_notebook import Agent
from agui_notebook.policies import approve_all

TARGET = 1.5


class Counter:
    """Every widget comm's traffic (the view's, its pages' and their layouts'), each message
    JSON-encoded as a kernel would: ``comm.create_comm`` is where ipywidgets opens them."""

    def __init__(self) -> None:
        self.messages = 0
        self.bytes = 0

    def create(self, **kwargs: Any) -> BaseComm:
        counter = self

        class Counting(BaseComm):
            def publish_msg(self, msg_type: str, data: Any = None, *_: Any, **__: Any) -> None:
                counter.messages += 1
                counter.bytes += len(json.dumps(data, default=str))

        return Counting(**kwargs)


class ServerClock:
    """CPU time spent in the demo agent's own synchronous work (it shares the process)."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def install(self) -> None:
        parse, loads, run = (
            demo_app._parse_run_input,
            demo_app._json_or_none,
            demo_app.DemoAgent.run,
        )
        clock = self

        async def timed_parse(body: bytes, send: Any) -> Any:
            start = time.process_time()
            try:
                return await parse(body, send)
            finally:
                clock.seconds += time.process_time() - start

        def timed_loads(body: bytes) -> Any:
            start = time.process_time()
            try:
                return loads(body)
            finally:
                clock.seconds += time.process_time() - start

        def timed_run(agent: Any, *args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return run(agent, *args, **kwargs)
            finally:
                clock.seconds += time.process_time() - start

        demo_app._parse_run_input = timed_parse  # type: ignore[assignment]
        demo_app._json_or_none = timed_loads
        demo_app.DemoAgent.run = timed_run  # type: ignore[method-assign]


SERVER = ServerClock()


class GarbageClock:
    """CPU time the process spends in the garbage collector (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._start = time.process_time()
        else:
            self.seconds += time.process_time() - self._start


GC = GarbageClock()


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def message(turn: int) -> str:
    if turn % 5 == 4:
        return f"Transfer ${100 + turn} from checking to savings"
    return f"What can you do for me? (question {turn})"


async def chat_turns(turns: int, server: DemoProcess | None) -> dict[str, Any]:
    comm = Counter()
    original = comm_package.create_comm
    comm_package.create_comm = comm.create
    try:
        if server is None:
            agent = Agent.demo(text_delay=0, store=None)
        else:
            agent = Agent(server.url, store=None)
        chat = agent.chat(display=False, policy=approve_all())
        cpu: list[float] = []
        inline: list[float] = []  # the in-process demo's own work, to subtract
        garbage: list[float] = []
        remote: list[float] = []  # the server process's CPU
        sent: list[int] = []
        decided = 0
        gc.collect()
        rss_before = _rss()
        for turn in range(turns):
            before_bytes = comm.bytes
            before_inline, before_gc = SERVER.seconds, GC.seconds
            before_remote = server.cpu() if server is not None else 0.0
            start = time.process_time()
            result = await chat.send(message(turn))
            cpu.append(time.process_time() - start)
            inline.append(SERVER.seconds - before_inline)
            garbage.append(GC.seconds - before_gc)
            remote.append(server.cpu() - before_remote if server is not None else 0.0)
            if server is None:
                agent.demo_app.requests.clear()
            sent.append(comm.bytes - before_bytes)
            decided += len(result.decisions)
            if result.outcome != "success":
                raise SystemExit(f"turn {turn} ended {result.outcome!r}")
        view = chat.view
        assert view is not None
        items = view.item_list.snapshot()
        return {
            "cpu": cpu,
            "inline": inline,
            "garbage": garbage,
            "remote": remote,
            "bytes": sent,
            "decided": decided,
            "views": len(chat.views),
            "messages": len(chat.thread.messages),
            "rss_growth": _rss() - rss_before,
            "items": len(items),
            "items_json": len(json.dumps(items)),
            "text_chars": sum(
                len(m.content) for m in chat.thread.messages if isinstance(m.content, str)
            ),
            "comm_messages": comm.messages,
        }
    finally:
        comm_package.create_comm = original


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1_000)
    parser.add_argument("--window", type=int, default=30)
    parser.add_argument("--inline", action="store_true", help="the demo in this process")
    parser.add_argument("--profile", help="write a cProfile of the whole chat to this file")
    args = parser.parse_args()
    SERVER.install()
    gc.callbacks.append(GC)
    with tempfile.TemporaryDirectory() as tmp:
        server = None if args.inline else DemoProcess(tmp)
        try:
            asyncio.run(chat_turns(10, server))  # warm-up: imports, validators, the app
            profiler = cProfile.Profile() if args.profile else None
            wall = time.perf_counter()
            if profiler:
                profiler.enable()
            out = asyncio.run(chat_turns(args.turns, server))
            if profiler:
                profiler.disable()
                profiler.dump_stats(args.profile)
            wall = time.perf_counter() - wall
        finally:
            if server is not None:
                server.stop()
    return report(args, out, wall, inline=args.inline)


def report(args: argparse.Namespace, out: dict[str, Any], wall: float, *, inline: bool) -> int:
    w = args.window
    first, last = slice(0, w), slice(-w, None)

    def mean_ms(values: list[float], part: slice) -> float:
        return statistics.mean(values[part]) * 1e3

    where = "in this process" if inline else "in its own process"
    print(
        f"turns: {args.turns} in {wall:.1f} s ({out['decided']} approvals, "
        f"{out['messages']} messages, {out['views']} view; the demo agent {where})"
    )
    process = out["cpu"]
    print(
        f"process CPU per turn, first {w}: {mean_ms(process, first):7.2f} ms   "
        f"last {w}: {mean_ms(process, last):7.2f} ms   "
        f"({mean_ms(process, last) / mean_ms(process, first):.2f}x)"
    )
    client = [c - s for c, s in zip(process, out["inline"], strict=True)] if inline else process
    ca, cb = mean_ms(client, first), mean_ms(client, last)
    ratio = cb / ca
    print(
        f"client CPU per turn,  first {w}: {ca:7.2f} ms   last {w}: {cb:7.2f} ms"
        f"   (medians {statistics.median(client[first]) * 1e3:.2f} -> "
        f"{statistics.median(client[last]) * 1e3:.2f} ms)"
    )
    print(
        f"  of which garbage collection: {mean_ms(out['garbage'], first):.2f} -> "
        f"{mean_ms(out['garbage'], last):.2f} ms"
    )
    if not inline:
        print(
            f"server process CPU per turn: {mean_ms(out['remote'], first):.2f} -> "
            f"{mean_ms(out['remote'], last):.2f} ms (information: the demo, not the client)"
        )
    start = args.turns - w

    def kind(turns: range, approval: bool) -> float:
        return statistics.mean(
            client[t] for t in turns if (message(t).startswith("Transfer")) == approval
        )

    print(
        "  client, plain turns: "
        f"{kind(range(w), False) * 1e3:.2f} -> {kind(range(start, args.turns), False) * 1e3:.2f} ms;"
        " approval turns (card, decision, resumed run): "
        f"{kind(range(w), True) * 1e3:.2f} -> {kind(range(start, args.turns), True) * 1e3:.2f} ms"
    )
    first_b, last_b = out["bytes"][first], out["bytes"][last]
    print(
        f"widget bytes per turn, first {w}: {statistics.mean(first_b):,.0f}   "
        f"last {w}: {statistics.mean(last_b):,.0f}   "
        f"(all: {sum(out['bytes']) / 1e6:.1f} MB in {out['comm_messages']} messages)"
    )
    print(
        f"memory: RSS growth {out['rss_growth'] / 1e6:.1f} MB; widget items {out['items']} "
        f"({out['items_json'] / 1e6:.2f} MB of JSON); message text held "
        f"{out['text_chars'] / 1e6:.2f}M chars"
    )
    verdict = "PASS" if ratio <= TARGET else "MISS"
    print(f"client last/first CPU per turn: {ratio:.2f}x (target <= {TARGET}x) -> {verdict}")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
