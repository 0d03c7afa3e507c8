"""Load (issue 8): 50 threads streaming at once in one process against the demo server on
loopback: all complete, no event lands in the wrong thread, memory returns to baseline.

The runner and the cross-talk check are bench/load.py's (the benchmark prints the figures).
"""

from __future__ import annotations

import gc
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agui_notebook import Agent
from agui_notebook.demo import create_app, start_in_thread

pytestmark = pytest.mark.timeout(60)

_spec = importlib.util.spec_from_file_location(
    "bench_load", Path(__file__).resolve().parents[2] / "bench" / "load.py"
)
assert _spec is not None and _spec.loader is not None
load: Any = importlib.util.module_from_spec(_spec)
sys.modules["bench_load"] = load  # its dataclasses look their module up
_spec.loader.exec_module(load)

THREADS = 50
MAX_GROWTH = 30 * 2**20  # bytes of RSS over the warmed-up baseline, after gc


@pytest.fixture(scope="module")
def loaded_demo() -> Iterator[tuple[str, Any]]:
    app = create_app(text_delay=0.002)  # streams interleave: every delta is its own write
    url, stop = start_in_thread(app=app)
    try:
        yield url, app
    finally:
        stop()


async def test_fifty_threads_at_once_complete_without_crosstalk_and_memory_returns(
    loaded_demo: tuple[str, Any],
) -> None:
    url, app = loaded_demo
    agent = Agent(url, timeout=30)
    await load.run_threads(agent, 5, start=10_000)  # warm up imports, the pool, the server
    load.clear_server(app)
    gc.collect()
    baseline = load.rss()

    outcomes = await load.run_threads(agent, THREADS)
    peak = load.rss()
    problems = {o.n: p for o in outcomes if (p := load.crosstalk(o))}
    assert problems == {}
    assert len({o.thread.id for o in outcomes}) == THREADS
    # The server ran each thread's transfer exactly once, with that thread's amount.
    ran = {
        (e["thread_id"], e["arguments"]["amount"])
        for e in app.executions
        if e["tool"] == "transfer_money"
    }
    assert ran == {(o.thread.id, load.amount_for(o.n)) for o in outcomes}
    assert len([e for e in app.executions if e["tool"] == "transfer_money"]) == THREADS
    events = load.events_of(outcomes)

    del outcomes
    load.clear_server(app)
    gc.collect()
    after = load.rss()
    await agent.aclose()
    gc.collect()
    closed = load.rss()
    print(
        f"\n{THREADS} threads, {events} events: RSS baseline {baseline / 2**20:.1f} MiB, "
        f"end {peak / 2**20:.1f} MiB, after gc {after / 2**20:.1f} MiB "
        f"(+{(after - baseline) / 2**20:.1f} MiB), after aclose {closed / 2**20:.1f} MiB"
    )
    assert after - baseline < MAX_GROWTH


async def test_a_second_and_third_round_do_not_grow_memory(loaded_demo: tuple[str, Any]) -> None:
    """A leak per run shows as growth from round to round once the allocator has warmed up."""
    url, app = loaded_demo
    agent = Agent(url, timeout=30)
    figures = []
    for r in range(3):
        outcomes = await load.run_threads(agent, THREADS, start=100 * (r + 1))
        assert not any(load.crosstalk(o) for o in outcomes)
        del outcomes
        load.clear_server(app)
        gc.collect()
        figures.append(load.rss())
    await agent.aclose()
    print(f"\nRSS after gc, rounds 1-3: {[round(f / 2**20, 1) for f in figures]} MiB")
    assert figures[2] - figures[0] < 10 * 2**20
