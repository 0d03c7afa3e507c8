"""Throughput: the same pre-generated AG-UI SSE bytes through three clients, in one run.

    python bench/throughput.py                  # 100k events, 3 interleaved rounds
    python bench/throughput.py --events 200000 --rounds 5
    python bench/throughput.py --profile b      # cProfile one run of (b), top functions by cumtime

(a)  floor: httpx-sse + json.loads + ag_ui.core model validation of each event, nothing else
(b)  agui_notebook: Agent(...).thread().run("go"): decoded, parsed, verified, reduced
(b') the same with max_events_kept=None (every event object kept on the result)
(bs) the same as (b) with an Authorization header: the credential scrubbed from every event
(c)  agent-framework-ag-ui's AGUIChatClient.get_response(..., stream=True), every update consumed

All read one in-memory body (httpx.MockTransport, 16 KiB chunks). Each contender runs --rounds
times, interleaved; the median is reported. Targets (informational, never asserted): b >= 0.5x a,
b >= 4x c. Exits 0 unless a contender fails.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import json
import platform
import pstats
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx
from _agui_stream import URL, SSEServer, pregenerated

TARGET_B_OVER_A = 0.5
TARGET_B_OVER_C = 4.0


def _floor_models() -> dict[str, type]:
    from ag_ui.core import events as ev
    from pydantic import BaseModel

    models: dict[str, type] = {}
    for obj in vars(ev).values():
        if isinstance(obj, type) and issubclass(obj, BaseModel) and "type" in obj.model_fields:
            default = obj.model_fields["type"].default
            value = getattr(default, "value", default)
            if isinstance(value, str) and value not in models:
                models[value] = obj
    return models


async def run_floor(client: httpx.AsyncClient, models: dict[str, type]) -> int:
    from httpx_sse import aconnect_sse

    n = 0
    async with aconnect_sse(client, "POST", URL, json={"threadId": "t", "runId": "r"}) as source:
        async for sse in source.aiter_sse():
            raw = json.loads(sse.data)
            models[raw["type"]].model_validate(raw)
            n += 1
    return n


async def run_agui_notebook(client: httpx.AsyncClient, **options: object) -> int:
    from agui_notebook import Agent

    thread = Agent(URL, http_client=client, **options).thread()  # type: ignore[arg-type]
    result = await thread.run("go")
    unexpected = [w for w in result.warnings if not w.startswith("kept the first")]
    if result.outcome != "success" or unexpected:
        raise RuntimeError(f"unexpected result: {result!r} {unexpected[:3]}")
    return thread.runs[-1].event_count


async def run_ms(client: httpx.AsyncClient) -> int:
    from agent_framework_ag_ui import AGUIChatClient

    chat = AGUIChatClient(endpoint=URL, http_client=client)
    updates = 0
    async for _ in chat.get_response("go", stream=True):
        updates += 1
    return updates


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--chunk", type=int, default=16 * 1024, help="response chunk size in bytes")
    parser.add_argument("--no-keep-all", action="store_true", help="skip the max_events_kept=None row")
    parser.add_argument("--profile", choices=["a", "b", "bs", "c"], help="cProfile one run of a contender")
    parser.add_argument("--top", type=int, default=30, help="rows of the profile to print")
    args = parser.parse_args()

    chunks, total = pregenerated(args.events, args.chunk)
    server = SSEServer(lambda: chunks)
    models = _floor_models()

    contenders: dict[str, tuple[str, Callable[[httpx.AsyncClient], Awaitable[int]]]] = {
        "a": ("(a)  httpx-sse + pydantic validation (floor)", lambda c: run_floor(c, models)),
        "b": ("(b)  agui_notebook thread (defaults)", lambda c: run_agui_notebook(c)),
    }
    if not args.no_keep_all:
        contenders["b'"] = (
            "(b') agui_notebook thread (max_events_kept=None)",
            lambda c: run_agui_notebook(c, max_events_kept=None),
        )
    contenders["bs"] = (
        "(bs) agui_notebook thread, with a credential",
        lambda c: run_agui_notebook(c, headers={"Authorization": "Bearer sk-bench-0123456789"}),
    )
    contenders["c"] = ("(c)  AGUIChatClient streaming", run_ms)

    print(f"AG-UI throughput: {args.events:,} events, {total / 1e6:.1f} MB of SSE, "
          f"{args.chunk // 1024} KiB chunks, {len(chunks)} chunks; median of {args.rounds} "
          f"interleaved rounds")
    print(f"python {platform.python_version()} on {platform.machine()}, "
          f"{_versions()}")

    async def timed(fn: Callable[[httpx.AsyncClient], Awaitable[int]]) -> tuple[float, int]:
        elapsed, _, count = await timed_both(fn)
        return elapsed, count

    async def timed_both(fn: Callable[[httpx.AsyncClient], Awaitable[int]]) -> tuple[float, float, int]:
        async with server.client() as client:
            gc.collect()
            c0 = time.process_time()
            t0 = time.perf_counter()
            count = await fn(client)
            return time.perf_counter() - t0, time.process_time() - c0, count

    if args.profile:
        label, fn = contenders[args.profile]
        asyncio.run(timed(fn))  # warm up imports and caches
        profiler = cProfile.Profile()
        profiler.enable()
        elapsed, _ = asyncio.run(timed(fn))
        profiler.disable()
        print(f"\n{label}: {args.events / elapsed:,.0f} events/s under cProfile\n")
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(args.top)
        print(out.getvalue())
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(args.top)
        print(out.getvalue())
        return 0

    # Warm-up: imports, pydantic schema builds, first-call caches (not timed).
    async def warm() -> None:
        for _, fn in contenders.values():
            async with server.client() as client:
                await fn(client)

    warm_chunks, _ = pregenerated(1_000, args.chunk)
    real = server._make
    server._make = lambda: warm_chunks
    asyncio.run(warm())
    server._make = real

    times: dict[str, list[float]] = {k: [] for k in contenders}
    cpu: dict[str, list[float]] = {k: [] for k in contenders}
    counts: dict[str, int] = {}
    for _ in range(args.rounds):
        for key, (_label, fn) in contenders.items():
            elapsed, cpu_time, count = asyncio.run(timed_both(fn))
            times[key].append(elapsed)
            cpu[key].append(cpu_time)
            counts[key] = count
    # (bs) may count a few more: a tail that could begin the credential is held and sent as
    # its own delta before the message ends.
    if not args.events <= counts["bs"] <= args.events * 1.01:
        raise SystemExit(f"bs consumed {counts['bs']} events, expected about {args.events}")
    for key in ("a", "b", "b'"):
        if key in counts and counts[key] != args.events:
            raise SystemExit(f"{key} consumed {counts[key]} events, expected {args.events}")

    rate = {k: args.events / statistics.median(v) for k, v in times.items()}
    best = {k: args.events / statistics.median(v) for k, v in cpu.items()}
    print()
    print(f"{'contender':<50} {'events/s':>10} {'vs (a)':>7} {'CPU ev/s':>10} {'vs (a)':>7}   wall runs (s)")
    for key, (label, _) in contenders.items():
        runs = " ".join(f"{t:.2f}" for t in times[key])
        print(f"{label:<50} {rate[key]:>10,.0f} {rate[key] / rate['a']:>6.2f}x"
              f" {best[key]:>10,.0f} {best[key] / best['a']:>6.2f}x   {runs}")
    print(f"(c) yielded {counts['c']:,} updates for {args.events:,} events")
    print()
    for name, r in (("wall", rate), ("CPU", best)):
        b_a = r["b"] / r["a"]
        b_c = r["b"] / r["c"]
        print(f"{name + ':':<8} b/a = {b_a:.2f}  (target >= {TARGET_B_OVER_A})  "
              f"{'PASS' if b_a >= TARGET_B_OVER_A else 'MISS'}    "
              f"b/c = {b_c:.2f}  (target >= {TARGET_B_OVER_C})  "
              f"{'PASS' if b_c >= TARGET_B_OVER_C else 'MISS'}")
    return 0


def _versions() -> str:
    from importlib.metadata import version

    names = ["agui-notebook", "ag-ui-protocol", "pydantic", "httpx", "httpx-sse", "agent-framework-ag-ui"]
    parts = []
    for name in names:
        try:
            parts.append(f"{name} {version(name)}")
        except Exception:
            parts.append(f"{name} ?")
    return ", ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
