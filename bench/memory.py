"""Peak memory of an agui_notebook run of 1M TEXT_MESSAGE_CONTENT deltas (default settings).

    python bench/memory.py                      # 1M deltas; scenarios "one" and "many"
    python bench/memory.py --deltas 250000 --scenarios one
    python bench/memory.py --tracemalloc        # also the tracemalloc peak (slow: ~1 min per scenario)

The claim checked: a run's memory is bounded by the text it holds, not by how many events
carried that text. Each scenario runs in a fresh subprocess (so ru_maxrss is its own), streaming
a lazily generated body (chunks are produced on the fly, 16 KiB each; the 1M events' bytes are
never held at once) through ``Agent(url, http_client=...)`` with default settings
(``max_events_kept=10_000``):

- one:  all deltas in ONE message (the worst case: nothing ends the message until the last event)
- many: the same deltas spread over 1,000 messages of 1,000 deltas

Reported per scenario: the text the thread holds afterwards (characters and bytes), peak RSS
growth over the pre-run baseline (ru_maxrss - RSS before the run), with ``--tracemalloc`` the
tracemalloc peak of the run (a second subprocess, since tracing slows it ~5x), and peak / text. A ratio near 1-3x
means bounded by text; tens of x means memory grows per event.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _agui_stream import URL, SSEServer, encode, rechunk, text_events

SCENARIOS = {"one": 1, "many": 1_000}
DELTA = "abcd"


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _maxrss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


def child(scenario: str, deltas: int, trace: bool, keep: int | None) -> dict[str, object]:
    import tracemalloc

    from agui_notebook import Agent

    messages = SCENARIOS[scenario]
    server = SSEServer(lambda: rechunk(encode(text_events(deltas, messages=messages, delta=DELTA))))
    total_events = deltas + 2 * messages + 2

    async def run(n: int) -> tuple[object, object]:
        nonlocal server
        async with server.client() as client:
            agent = Agent(URL, http_client=client, max_events_kept=keep)
            thread = agent.thread()
            result = await thread.run("go")
            return thread, result

    # warm-up: imports, pydantic validators, httpx machinery
    saved = server
    server = SSEServer(lambda: rechunk(encode(text_events(2_000, messages=2, delta=DELTA))))
    asyncio.run(run(2_000))
    server = saved
    gc.collect()
    baseline = _rss()
    maxrss_before = _maxrss()
    if trace:
        tracemalloc.start()
    t0 = time.perf_counter()
    thread, result = asyncio.run(run(deltas))
    elapsed = time.perf_counter() - t0
    traced_peak = tracemalloc.get_traced_memory()[1] if trace else None
    if trace:
        tracemalloc.stop()
    after = _rss()
    contents = [m.content for m in thread.messages if isinstance(getattr(m, "content", None), str)]
    text_chars = sum(len(c) for c in contents)
    text_bytes = sum(sys.getsizeof(c) for c in contents)
    if text_chars != deltas * len(DELTA) + 2:  # + the user message "go"
        raise SystemExit(f"unexpected text length {text_chars}")
    return {
        "scenario": scenario,
        "deltas": deltas,
        "events": total_events,
        "messages": messages,
        "elapsed": elapsed,
        "baseline_rss": baseline,
        # ru_maxrss is the process's lifetime peak; the warm-up peak stays below the baseline.
        "peak_rss_growth": max(0, _maxrss() - baseline),
        "warmup_peak_over_baseline": max(0, maxrss_before - baseline),
        "rss_growth_after": after - baseline,
        "traced_peak": traced_peak,
        "text_chars": text_chars,
        "text_bytes": text_bytes,
        "events_kept": len(result.events),  # type: ignore[attr-defined]
    }


def _mb(n: float | None) -> str:
    return "-" if n is None else f"{n / 1e6:,.1f} MB"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deltas", type=int, default=1_000_000)
    parser.add_argument("--scenarios", default="one,many")
    parser.add_argument(
        "--tracemalloc",
        action="store_true",
        help="also run each scenario under tracemalloc (a second, ~5x slower run)",
    )
    parser.add_argument(
        "--max-events-kept",
        default="10000",
        help="Agent(max_events_kept=...); 'none' keeps every event",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    keep = None if args.max_events_kept.lower() == "none" else int(args.max_events_kept)

    if args.child:
        print(json.dumps(child(args.child, args.deltas, args.trace, keep)))
        return 0

    print(
        f"agui_notebook memory: {args.deltas:,} TEXT_MESSAGE_CONTENT deltas of {len(DELTA)} chars, "
        f"max_events_kept={keep}, lazily generated body in 16 KiB chunks"
    )
    print(
        f"{'scenario':<34} {'text held':>20} {'peak RSS growth':>16} {'tracemalloc peak':>17}"
        f" {'peak/text':>10} {'events/s':>9} {'kept':>6}"
    )
    for scenario in args.scenarios.split(","):
        runs = [False, True] if args.tracemalloc else [False]
        results = []
        for trace in runs:
            cmd = [
                sys.executable,
                __file__,
                "--child",
                scenario,
                "--deltas",
                str(args.deltas),
                "--max-events-kept",
                args.max_events_kept,
            ]
            if trace:
                cmd.append("--trace")
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            results.append(json.loads(out.strip().splitlines()[-1]))
        plain = results[0]
        traced = results[1]["traced_peak"] if len(results) > 1 else None
        ratio = plain["peak_rss_growth"] / plain["text_bytes"]
        label = f"{scenario} ({plain['messages']:,} msg{'s' if plain['messages'] > 1 else ''}, {plain['events']:,} ev)"
        text = f"{plain['text_chars'] / 1e6:.1f}M chars, {_mb(plain['text_bytes'])}"
        print(
            f"{label:<34} {text:>20} {_mb(plain['peak_rss_growth']):>16} {_mb(traced):>17}"
            f" {ratio:>9.1f}x {plain['events'] / plain['elapsed']:>9,.0f} {plain['events_kept']:>6,}"
        )
        if traced is not None:
            print(
                f"{'':<34} {'':>20} {'':>16} {'':>17} {traced / plain['text_bytes']:>9.1f}x (tracemalloc)"
            )
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
