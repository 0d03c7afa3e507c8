"""Load: many threads streaming at once in one process against the demo server on loopback.

    python bench/load.py                        # 50 threads, 3 rounds, text_delay 0.002 s
    python bench/load.py --threads 200 --rounds 5 --text-delay 0

Each thread asks for a transfer of a distinct amount (interrupt: approval), then approves it
(the tool runs, its reply and the new balance are streamed back): two requests per thread, all
threads at once with ``asyncio.gather`` on ONE Agent (one httpx pool). After each round every
thread's replies, state and events are checked against its own amount (no cross-talk), then the
round's objects are dropped. Reported: wall time, requests/s, events/s, and RSS before, at the
end of each round, and after ``gc.collect()``. The demo server runs in this process (a uvicorn
thread); its thread store and request log are cleared after each round so the figures are the
client's. The 1M-delta memory figure is bench/memory.py's.

``tests/reliability/test_load.py`` runs the same thing (one round) with assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import time
from dataclasses import dataclass
from typing import Any

from agui_notebook import Agent, RunResult, Thread, approve

# The server and the client under load are measured, not the store (bench/store.py does that).
os.environ.setdefault("AGUI_NOTEBOOK_STORE", "off")

CHECKING, SAVINGS = "1234567890", "0987654321"
OPENING_BALANCE = 2500.0


def rss() -> int:
    """Resident set size of this process, bytes."""
    try:
        import psutil

        return int(psutil.Process().memory_info().rss)
    except ImportError:  # pragma: no cover - psutil is a test dependency
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def amount_for(n: int) -> float:
    return 100.0 + n  # distinct per thread, and distinct in every text it appears in


@dataclass
class Outcome:
    n: int
    thread: Thread
    asked: RunResult
    done: RunResult


async def one_thread(agent: Agent, n: int) -> Outcome:
    thread = agent.thread()
    amount = amount_for(n)
    asked = await thread.run(f"Transfer ${amount:.2f} from {CHECKING} to {SAVINGS}")
    done = await thread.resume(approve())
    return Outcome(n, thread, asked, done)


async def run_threads(agent: Agent, count: int, *, start: int = 0) -> list[Outcome]:
    return list(await asyncio.gather(*(one_thread(agent, start + i) for i in range(count))))


def crosstalk(outcome: Outcome) -> list[str]:
    """What in this thread's results does not belong to it (empty: nothing)."""
    problems: list[str] = []
    amount = amount_for(outcome.n)
    thread = outcome.thread
    money = f"{amount:.2f} USD"
    if outcome.asked.outcome != "interrupt" or len(outcome.asked.interrupts) != 1:
        problems.append(f"first run: {outcome.asked!r}")
    else:
        arguments = outcome.asked.interrupts[0].arguments or {}
        if arguments.get("amount") != amount:
            problems.append(f"interrupt for amount {arguments.get('amount')}, not {amount}")
    if money not in outcome.asked.text:
        problems.append(f"first reply {outcome.asked.text!r} lacks {money}")
    if outcome.done.outcome != "success":
        problems.append(f"resume: {outcome.done!r}")
    new_balance = f"{OPENING_BALANCE - amount:,.2f} USD"
    if money not in outcome.done.text or new_balance not in outcome.done.text:
        problems.append(f"final reply {outcome.done.text!r} lacks {money} / {new_balance}")
    balances = (thread.state or {}).get("balances", {})
    if balances.get(CHECKING) != OPENING_BALANCE - amount:
        problems.append(f"state balance {balances.get(CHECKING)} != {OPENING_BALANCE - amount}")
    for result in (outcome.asked, outcome.done):
        for event in result.events:
            tid = getattr(event, "thread_id", None)
            if tid is not None and tid != thread.id:
                problems.append(f"event {type(event).__name__} of thread {tid}")
            if result.run_id and getattr(event, "run_id", result.run_id) != result.run_id:
                problems.append(f"event of run {event.run_id} in run {result.run_id}")  # type: ignore[attr-defined]
    for message in thread.messages:
        content = message.content if isinstance(getattr(message, "content", None), str) else ""
        for other in ("Transfer $", "Transferred ", "I'll transfer "):
            if other in content and f"{amount:.2f}" not in content:
                problems.append(f"message {content!r} belongs to another thread")
    return problems


def events_of(outcomes: list[Outcome]) -> int:
    return sum(len(o.asked.events) + len(o.done.events) for o in outcomes)


def clear_server(app: Any) -> None:
    app.requests.clear()
    app.agent.threads.clear()
    app.agent.executions.clear()


async def bench(threads: int, rounds: int, text_delay: float) -> int:
    from agui_notebook.demo import create_app, start_in_thread

    app = create_app(text_delay=text_delay)
    url, stop = start_in_thread(app=app)
    try:
        agent = Agent(url, timeout=30)
        await run_threads(agent, 5, start=10_000)  # warm up: imports, pool, server
        clear_server(app)
        gc.collect()
        baseline = rss()
        print(
            f"{threads} threads x {rounds} rounds, text_delay={text_delay} s, "
            f"python {sys.version.split()[0]}"
        )
        print(f"RSS baseline            {baseline / 2**20:8.1f} MiB")
        failures = 0
        for r in range(rounds):
            started = time.perf_counter()
            outcomes = await run_threads(agent, threads, start=r * threads)
            elapsed = time.perf_counter() - started
            events = events_of(outcomes)
            bad = {o.n: p for o in outcomes if (p := crosstalk(o))}
            failures += len(bad)
            peak = rss()
            del outcomes
            clear_server(app)
            gc.collect()
            after = rss()
            print(
                f"round {r + 1}: {elapsed:6.2f} s  {2 * threads / elapsed:7.1f} requests/s  "
                f"{events / elapsed:9.0f} events/s  ({events} events)  "
                f"RSS end {peak / 2**20:7.1f} MiB  after gc {after / 2**20:7.1f} MiB  "
                f"(+{(after - baseline) / 2**20:.1f} MiB)  cross-talk: {len(bad)}"
            )
            for n, problems in list(bad.items())[:5]:
                print(f"  thread {n}: {problems[:3]}")
        await agent.aclose()
        gc.collect()
        final = rss()
        print(
            f"RSS after aclose + gc   {final / 2**20:8.1f} MiB "
            f"(+{(final - baseline) / 2**20:.1f} MiB over baseline)"
        )
        return 1 if failures else 0
    finally:
        stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--text-delay", type=float, default=0.002)
    args = parser.parse_args()
    return asyncio.run(bench(args.threads, args.rounds, args.text_delay))


if __name__ == "__main__":
    sys.exit(main())
