"""Restore: ``agent.thread(id)`` of a 10,000-message thread and ``agent.threads()`` of a store of
10,000 threads, each against the bare read of the same rows in the same run (issue 28).

    python bench/restore.py [--messages 10000] [--threads 10000] [--rounds 30] [--postgres]
                            [--profile]

1. ``agent.thread(id)``: store.py's thread (turns of four: user, assistant with a tool call,
   tool result, a 60-word reply) of ``--messages`` messages, a state and a pending interrupt,
   committed once through the journal into a fresh SQLite file. Timed: ``agent.thread(id)`` on
   an agent whose store is open (the row, its pages and its runs read in one transaction, every
   page's digest checked, the tool calls, state and interrupts rebuilt; the messages are
   validated back into their ``ag_ui.core`` models when first read: docs/store.md). Baseline:
   the same SELECTs on a bare ``sqlite3`` connection to the same file, then ``json.loads`` of
   every page (messages and tool calls), the state, interrupts and run summaries. Target:
   restore <= 2x baseline (medians). Printed beside it, not a target: ``agent.thread(id)`` and
   then ``thread.messages``, the first read that validates every message.
2. ``agent.threads()`` on a store holding ``--threads`` threads of this agent. Baseline: the
   bare ``SELECT`` of the same columns, in the same order, on a bare connection. Target < 2x.

Both are timed ``--rounds`` times, interleaved (baseline, contender, baseline, ...), after two
untimed rounds; median and p95 printed, and the ratio of the medians. ``--postgres`` measures
the same on a throwaway PostgreSQL server (tests/store/_postgres.py; baseline: a bare psycopg
connection); ``--profile`` prints cProfile's top functions of one restore. Exits 1 when a target
is missed.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import pstats
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from store import build_thread, ms

from agui_notebook import Agent
from agui_notebook._store.codec import ThreadRow
from agui_notebook._store.snapshot import StoredSnapshot
from agui_notebook._thread import RunRecord

REPO = Path(__file__).resolve().parents[1]
AGENT_URL = "http://bench.invalid/agent"
RESTORE_TARGET = 2.0
LIST_TARGET = 2.0

_THREAD_SQL = (
    "SELECT created_at, updated_at, last_run_id, state, pending, answered, messages, tool_calls, "
    "revision, message_count, tool_call_count FROM {s}threads WHERE agent_url = {p} AND id = {p}"
)
_PAGES_SQL = (
    "SELECT kind, page, items, body, digest, validated_by, revision FROM {s}thread_pages "
    "WHERE agent_url = {p} AND thread_id = {p} ORDER BY kind, page"
)
_RUNS_SQL = (
    "SELECT run_id, summary FROM {s}runs WHERE agent_url = {p} AND thread_id = {p} ORDER BY seq"
)
_LIST_SQL = (
    "SELECT id, agent_url, created_at, updated_at, pending_count, message_count, "
    "last_status, title FROM {s}threads WHERE agent_url = {p} ORDER BY updated_at DESC, {row} DESC"
)


def write_thread(location: Path | str, messages: int) -> str:
    """A thread of ``messages`` messages committed once (all new); its id."""
    agent = Agent(AGENT_URL, store=location)
    journal = agent._journal
    assert journal is not None
    thread, _ = build_thread(agent, messages)
    run = thread.stream("go")  # a RunStream as _commit hands it over (never iterated)
    thread._active = None
    run.record = RunRecord(
        run_id=run.run_id,
        kind="run",
        parent_run_id=None,
        started_at=datetime.now(timezone.utc),
        status="interrupt",
        event_count=messages * 10,
    )
    journal.committed(thread, run, [])
    journal.close()
    return thread.id


def write_threads(location: Path | str, count: int) -> None:
    """``count`` small threads of this agent, written straight through the backend."""
    from agui_notebook._store.backend import open_store
    from agui_notebook._store.codec import encode_run

    base = datetime.now(timezone.utc)
    with open_store(location) as store:
        for n in range(count):
            row = ThreadRow(
                agent_url=AGENT_URL,
                id=f"t{n:05d}",
                updated_at=(base + timedelta(microseconds=n)).isoformat(timespec="microseconds"),
                title=f"Turn {n}: transfer ${n} please",
                last_run_id=f"r{n}",
                last_status="interrupt" if n % 7 == 0 else "success",
                message_count=4,
                pending_count=1 if n % 7 == 0 else 0,
                state="{}",
                pending="[]",
                answered="[]",
            )
            summary = encode_run(
                run_id=f"r{n}",
                kind="run",
                parent_run_id=None,
                started_at=base,
                finished_at=base,
                status=row.last_status or "success",
                event_count=10,
                warnings=[],
                resume=[],
                scrubber=_no_scrubber(),
            )
            store.save_run(row, summary, [], [], [])


def _no_scrubber() -> Any:
    from agui_notebook._protocol.secrets import Scrubber

    return Scrubber(())


def bare_restore(
    cursor: Callable[[str, tuple[str, ...]], list[Any]], p: str, schema: str, thread_id: str
) -> int:
    """The baseline: the thread's row, pages and runs read, and their JSON parsed once (a page's
    body is JSON Lines: its lines joined by commas are a JSON array)."""
    (row,) = cursor(_THREAD_SQL.format(p=p, s=schema), (AGENT_URL, thread_id))
    pages = cursor(_PAGES_SQL.format(p=p, s=schema), (AGENT_URL, thread_id))
    runs = [
        (r, json.loads(s))
        for r, s in cursor(_RUNS_SQL.format(p=p, s=schema), (AGENT_URL, thread_id))
    ]
    items = [json.loads("[" + page[3].replace("\n", ",") + "]") for page in pages]
    for text in row[3:6]:
        json.loads(text)
    return sum(map(len, items)) + len(runs)


def timed_pair(
    base: Callable[[], Any], contender: Callable[[], Any], rounds: int
) -> tuple[list[float], list[float]]:
    for _ in range(2):  # warm: caches, the file in the page cache, pydantic's validators
        base()
        contender()
    a: list[float] = []
    b: list[float] = []
    for _ in range(rounds):
        gc.collect()
        t0 = time.perf_counter()
        base()
        a.append(time.perf_counter() - t0)
        gc.collect()
        t0 = time.perf_counter()
        contender()
        b.append(time.perf_counter() - t0)
    return a, b


def verdict(
    name: str, base: list[float], got: list[float], target: float | None, strict: bool
) -> bool:
    ratio = statistics.median(got) / statistics.median(base)
    print(f"   baseline  {ms(base)}")
    print(f"   {name:<9} {ms(got)}")
    if target is None:
        print(f"   ratio {ratio:.2f}x (no target)")
        return True
    ok = ratio < target if strict else ratio <= target
    sign = "<" if strict else "<="
    print(f"   ratio {ratio:.2f}x (target {sign} {target:g}x): {'PASS' if ok else 'MISS'}")
    return ok


def measure(
    label: str,
    location: Path | str,
    cursor: Callable[[str, tuple[str, ...]], list[Any]],
    p: str,
    args: argparse.Namespace,
    schema: str = "",
) -> bool:
    print(f"\n== {label}")
    thread_id = write_thread(location, args.messages)
    agent = Agent(AGENT_URL, store=location)
    assert agent._journal is not None
    agent._journal.store()  # opened once per agent: not what a restore costs

    def restore() -> None:
        thread = agent.thread(thread_id)
        assert thread.pending, "not restored"

    def restore_and_read() -> None:
        thread = agent.thread(thread_id)
        assert len(thread.messages) == args.messages, "not everything restored"

    first = agent.thread(thread_id)
    deferred = isinstance(first._snapshot, StoredSnapshot) and not first._snapshot.decoded
    assert len(first.messages) == args.messages, "not everything restored"
    when = "when first read" if deferred else "at agent.thread(id)"
    print(
        f"1. agent.thread(id) of {args.messages:,} messages (validated {when}), {args.rounds} rounds"
    )
    baseline = lambda: bare_restore(cursor, p, schema, thread_id)  # noqa: E731
    base, got = timed_pair(baseline, restore, args.rounds)
    ok = verdict("restore", base, got, RESTORE_TARGET, strict=False)
    print("1b. the same, then thread.messages (every message validated): information")
    base, got = timed_pair(baseline, restore_and_read, args.rounds)
    verdict("+ read", base, got, None, strict=False)
    if args.profile:
        for timed in (restore, restore_and_read):
            profile = cProfile.Profile()
            profile.runcall(timed)
            pstats.Stats(profile).sort_stats("cumulative").print_stats(25)

    write_threads(location, args.threads)
    listing = agent.threads()
    assert len(listing) == args.threads + 1, len(listing)
    print(f"2. agent.threads() of {len(listing):,} threads, {args.rounds} rounds")
    base, got = timed_pair(
        lambda: cursor(
            _LIST_SQL.format(p=p, s=schema, row="row_id" if schema else "rowid"), (AGENT_URL,)
        ),
        agent.threads,
        args.rounds,
    )
    ok = verdict("threads()", base, got, LIST_TARGET, strict=True) and ok
    agent._journal.close()
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--threads", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--postgres", action="store_true", help="PostgreSQL too")
    parser.add_argument("--profile", action="store_true", help="cProfile one restore")
    args = parser.parse_args()
    print(
        f"agui_notebook restore benchmark: python {sys.version.split()[0]}, "
        f"SQLite {sqlite3.sqlite_version}"
    )
    ok = True
    with tempfile.TemporaryDirectory(prefix="agui-bench-restore-") as tmp:
        path = Path(tmp) / "restore.sqlite3"
        path.touch()
        conn = sqlite3.connect(path)
        ok = measure(
            "SQLite", path, lambda sql, params: conn.execute(sql, params).fetchall(), "?", args
        )
        conn.close()
    if args.postgres:
        import psycopg

        sys.path.insert(0, str(REPO))
        from agui_notebook._store.postgres import SCHEMA
        from tests.store import _postgres

        server = _postgres.start()
        try:
            url = server.url(server.new_database())
            Agent(AGENT_URL, store=url)._journal.store()  # type: ignore[union-attr]  # the schema
            with psycopg.connect(url, autocommit=True) as pg:
                ok = (
                    measure(
                        "PostgreSQL (loopback TCP)",
                        url,
                        lambda sql, params: pg.execute(sql, params).fetchall(),
                        "%s",
                        args,
                        SCHEMA + ".",
                    )
                    and ok
                )
        finally:
            server.stop()
    print("\n(figures move by 2x on a shared machine; the ratios are the figures to compare)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
