"""Instructions, not seconds: throughput.py's contenders counted by callgrind, one run each.

    python bench/instructions.py                       # realistic mix, 10,000 events: z, b, c
    python bench/instructions.py --mix project --events 20000 --contenders z a b c

This VM's speed moves in phases of seconds and not by the same factor for every contender, so
throughput.py's ratios move between runs of the same code. The instructions a run executes do
not: here each contender runs once untimed (imports, caches), then once with callgrind
counting, from the run's start to its end (``callgrind_control -i on/off`` around it). The
counts are deterministic to within a fraction of a percent; they are not time (a cache miss
costs more than an instruction), so this is a companion to throughput.py, not its target.
Needs valgrind (Debian's ``valgrind`` package); under a minute for (z), (b) and (c) at 10,000
events (valgrind runs a program ~50x slower).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

HERE = Path(__file__).resolve()
LABELS = {
    "z": "(z)  split + json.loads (the parsing limit)",
    "a": "(a)  httpx-sse + pydantic validation (floor)",
    "b": "(b)  agui_notebook thread (defaults)",
    "c": "(c)  AGUIChatClient streaming",
}


def _child(key: str, mix: str, events: int) -> None:
    """One untimed run, then one counted run of contender ``key`` (inside valgrind)."""
    import throughput
    from _agui_stream import SSEServer, pregenerated

    chunks, _ = pregenerated(events, mix=mix)
    server = SSEServer(lambda: chunks)
    run = {
        "z": throughput.run_bare,
        "a": lambda client: throughput.run_floor(client, throughput._floor_models()),
        "b": throughput.run_agui_notebook,
        "c": throughput.run_ms,
    }[key]
    asyncio.run(throughput._timed(server, run))

    def instrument(state: str) -> None:
        command = ["callgrind_control", "-i", state, str(os.getpid())]
        subprocess.run(command, check=True, capture_output=True)

    async def counted() -> None:
        async with server.client() as client:
            instrument("on")
            await run(client)
            instrument("off")

    asyncio.run(counted())


def _count(key: str, mix: str, events: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--instr-atstart=no",
                f"--callgrind-out-file={tmp}/out",
                sys.executable,
                str(HERE),
                "--child",
                key,
                "--mix",
                mix,
                "--events",
                str(events),
            ],
            capture_output=True,
            text=True,
        )
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or found is None:
        raise SystemExit(f"{key}: callgrind run failed:\n{proc.stderr[-2000:]}")
    return int(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--mix", default="realistic", choices=["project", "realistic", "text+state"]
    )
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--contenders", nargs="+", default=["z", "b", "c"], choices=list(LABELS))
    parser.add_argument("--child", choices=list(LABELS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.mix, args.events)
        return 0
    missing = [tool for tool in ("valgrind", "callgrind_control") if shutil.which(tool) is None]
    if missing:
        print(f"needs {' and '.join(missing)} (Debian: apt-get install valgrind)", file=sys.stderr)
        return 2
    print(f"instructions of one run, {args.events:,} events of the {args.mix} mix (callgrind)")
    counts = {}
    for key in args.contenders:
        counts[key] = _count(key, args.mix, args.events)
        per_event = counts[key] / args.events
        print(f"{LABELS[key]:<50} {counts[key] / 1e6:>9,.1f}M  {per_event:>8,.0f} per event")
    if "b" in counts and len(counts) > 1:
        ratios = [f"b/{k} = {counts[k] / counts['b']:.2f}" for k in counts if k != "b"]
        print("fewer instructions is better; ratios as throughput.py's:", "   ".join(ratios))
    return 0


if __name__ == "__main__":
    sys.exit(main())
