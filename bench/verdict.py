"""The execution verdict's cost per resumed run (issue 43), against the same runs without it.

The in-process demo agent (``Agent.demo(text_delay=0)``, no store, no view shown); a chat whose
policy approves every card. Each turn is a run that ends on a transfer's interrupt and the
resumed run that answers it; the verdict is judged on the resumed run, before its commit.

- (v) the judgement alone: ``Informed._judge`` timed around each resumed run's call (the dialect
  readings, the pure verdict, the evidence), in microseconds per resumed run;
- (on) / (off): whole turns with the verdict, and with the chat's hook that attaches it turned off
  (the baseline, in the same process), interleaved in ``--rounds`` rounds of ``--turns`` turns; the
  median per-turn CPU time of each and their ratio;
- the same (v) on a thread that already holds ``--history`` turns (the verdict reads the calls it
  decided, not the thread).

    .venv/bin/python bench/verdict.py [--rounds 7] [--turns 40] [--history 500]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

from agui_notebook import Agent, policies
from agui_notebook._chat.informed import Informed

TRANSFER = "Transfer ${n} from 1234567890 to 0987654321"


class Timed:
    """Wraps ``Informed._judge`` to time each call."""

    def __init__(self) -> None:
        self.seconds: list[float] = []
        self._judge = Informed._judge

    def __enter__(self) -> Timed:
        original = self._judge
        times = self.seconds

        async def judge(informed: Informed, found: Any, run: Any, reducer: Any) -> None:
            started = time.perf_counter()
            await original(informed, found, run, reducer)
            times.append(time.perf_counter() - started)

        Informed._judge = judge  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        Informed._judge = self._judge  # type: ignore[method-assign]


def new_chat(*, verdict: bool) -> Any:
    chat = Agent.demo(text_delay=0, store=None).chat(policy=policies.approve_all(), display=False)
    if not verdict:
        chat.deck.informed.attach = lambda card, run: None  # the baseline: no verdict attached
    return chat


async def turns(chat: Any, count: int, start: int = 0) -> float:
    """CPU seconds of this process per turn over ``count`` turns (the demo agent's included:
    steadier than wall time on a shared machine, the same on an idle one)."""
    began = time.process_time()
    for n in range(start, start + count):
        result = await chat.send(TRANSFER.format(n=100 + n % 50))
        assert result.decisions[-1]["execution"] is None or result.outcome == "success"
    return (time.process_time() - began) / count


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--history", type=int, default=500)
    options = parser.parse_args()

    on, off = new_chat(verdict=True), new_chat(verdict=False)
    await turns(on, 5)  # warm-up: validators, models, the demo's first threads
    await turns(off, 5)
    per_turn: dict[str, list[float]] = {"on": [], "off": []}
    with Timed() as judged:
        for round_ in range(options.rounds):
            order = (("off", off), ("on", on)) if round_ % 2 == 0 else (("on", on), ("off", off))
            for name, chat in order:  # each first in every other round
                per_turn[name].append(await turns(chat, options.turns))
    assert on.audit[-1]["execution"]["verdict"] == "executed"
    assert off.audit[-1]["execution"] is None

    long = new_chat(verdict=True)
    await turns(long, options.history)
    with Timed() as judged_long:
        await turns(long, options.turns, start=options.history)

    def us(values: list[float]) -> str:
        ordered = sorted(values)
        p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
        return f"median {statistics.median(values) * 1e6:7.1f} us  p95 {p95 * 1e6:7.1f} us"

    turn_on, turn_off = statistics.median(per_turn["on"]), statistics.median(per_turn["off"])
    print(
        f"the execution verdict, in-process demo agent, {options.rounds} interleaved rounds of "
        f"{options.turns} turns (a run + its resumed run)"
    )
    print(f"  (v) the judgement, per resumed run:            {us(judged.seconds)}")
    print(f"  (v) after {options.history} turns in the thread:           {us(judged_long.seconds)}")
    print(f"  (off) per turn, no verdict:  {turn_off * 1e3:7.2f} ms CPU (median of the rounds)")
    print(f"  (on)  per turn, the verdict: {turn_on * 1e3:7.2f} ms CPU")
    share = statistics.median(judged.seconds) / turn_on
    print(f"  on/off: {turn_on / turn_off:.3f}x;  (v) / a turn: {share * 100:.2f}%")


if __name__ == "__main__":
    asyncio.run(main())
