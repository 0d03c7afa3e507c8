"""A long chat's cost per turn: does the 1,000th turn cost what the 30th did? (issue 28)

A chat with the in-process demo agent (``Agent.demo(text_delay=0)``, store off, a policy
approving every card) runs ``--turns`` turns (default 1,000) in one view, as a chat in one cell
does: plain questions, and every fifth turn a transfer whose tool call needs approval (the card,
the policy's decision, the resumed run). The view is attached to a counting comm that encodes
every message as a kernel would (as bench/widget_traffic.py does).

Printed: the process's CPU time per turn (``time.process_time()``) in the first and last
``--window`` turns (default 30) and their ratio, twice: the whole process, and the client's share
(the whole minus the demo agent's own synchronous work in the same process: parsing and
validating the request it receives, twice, and scripting its reply, timed around those calls;
a real agent runs elsewhere). The demo's log of requests is emptied after each turn (it keeps
every request body: a test aid, not a chat's cost). Also the widget bytes per turn in both
windows, and the kernel's memory at the end (RSS growth, the items' JSON size, the text held).
Exit 1 when the client's last/first > 1.5 (the target of issue 28).

    python bench/turns.py [--turns 1000] [--window 30] [--profile out.prof]
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
import time
from typing import Any

import comm as comm_package
from comm.base_comm import BaseComm

os.environ.setdefault("AGUI_NOTEBOOK_STORE", "off")

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


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def message(turn: int) -> str:
    if turn % 5 == 4:
        return f"Transfer ${100 + turn} from checking to savings"
    return f"What can you do for me? (question {turn})"


async def chat_turns(turns: int) -> dict[str, Any]:
    comm = Counter()
    original = comm_package.create_comm
    comm_package.create_comm = comm.create
    try:
        agent = Agent.demo(text_delay=0, store=None)  # the default body limit holds 1,000 turns
        chat = agent.chat(display=False, policy=approve_all())
        cpu: list[float] = []
        server: list[float] = []
        sent: list[int] = []
        decided = 0
        gc.collect()
        rss_before = _rss()
        for turn in range(turns):
            before_bytes = comm.bytes
            before_server = SERVER.seconds
            start = time.process_time()
            result = await chat.send(message(turn))
            cpu.append(time.process_time() - start)
            server.append(SERVER.seconds - before_server)
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
            "server": server,
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
    parser.add_argument("--profile", help="write a cProfile of the whole chat to this file")
    args = parser.parse_args()
    SERVER.install()
    asyncio.run(chat_turns(10))  # warm-up: imports, validators, the demo's app
    profiler = cProfile.Profile() if args.profile else None
    wall = time.perf_counter()
    if profiler:
        profiler.enable()
    out = asyncio.run(chat_turns(args.turns))
    if profiler:
        profiler.disable()
        profiler.dump_stats(args.profile)
    wall = time.perf_counter() - wall
    w = args.window
    first_cpu, last_cpu = out["cpu"][:w], out["cpu"][-w:]
    first_b, last_b = out["bytes"][:w], out["bytes"][-w:]
    a, b = statistics.mean(first_cpu), statistics.mean(last_cpu)
    client = [c - s for c, s in zip(out["cpu"], out["server"], strict=True)]
    ca, cb = statistics.mean(client[:w]), statistics.mean(client[-w:])
    ratio = cb / ca
    print(
        f"turns: {args.turns} in {wall:.1f} s ({out['decided']} approvals, "
        f"{out['messages']} messages, {out['views']} view)"
    )
    print(
        f"process CPU per turn, first {w}: {a * 1e3:7.2f} ms   last {w}: {b * 1e3:7.2f} ms"
        f"   ({b / a:.2f}x)"
    )
    print(
        f"client CPU per turn,  first {w}: {ca * 1e3:7.2f} ms   last {w}: {cb * 1e3:7.2f} ms"
        f"   (medians {statistics.median(client[:w]) * 1e3:.2f} -> "
        f"{statistics.median(client[-w:]) * 1e3:.2f} ms)"
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
