"""The PostgreSQL store beside the SQLite one, in the same run: commit cost, restore time, and 20
kernels committing at once.

    python bench/store_postgres.py [--url postgresql://...] [--commits 100] [--kernels 20]
                                   [--rounds 20]

Without ``--url`` a throwaway server is started from Debian's ``postgresql`` binaries
(tests/store/_postgres.py: initdb into a temp dir, a free loopback port; fsync is off there,
so its commits cost what the client and the server's CPU cost, not a disk flush). With
``--url`` the database must be empty or hold an agui_notebook store; the bench's threads stay.

1. Per committed run: store.py's thread of 100 messages with a pending interrupt, its agent
   sending a bearer token, committed through the journal ``--commits`` times (the last message
   changes each time), with one decision in each run (its audit record in the same
   transaction); median and p95, SQLite file vs PostgreSQL over TCP on loopback. The same with
   a thread of 10,000 messages (a commit writes the pages its run changed: about the same cost).
2. Restore: ``agent.thread(id)`` of a thread of 100 and of 1,000 messages in a new agent (a new
   kernel), then ``thread.messages``: the store opened, the row and its pages read, and every
   message validated back into its model (at that first read); median and p95.
3. ``--kernels`` OS processes, started together, each committing ``--rounds`` runs with one
   decision each to the same store: every run and decision must be there and the audit chain
   intact; p95 of the commits across all processes, and the wall time.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from store import TOKEN, build_thread, ms

from agui_notebook import Agent, approve
from agui_notebook._store.backend import describe, open_store
from agui_notebook._thread import RunRecord

REPO = Path(__file__).resolve().parents[1]
AGENT_URL = "http://bench.invalid/agent"


def _commit(journal: Any, thread: Any, pending: Any, n: int, last_id: str) -> float:
    run = thread.stream("go")  # a RunStream as _commit hands it over (never iterated)
    thread._active = None
    run.record = RunRecord(
        run_id=run.run_id,
        kind="resume",
        parent_run_id=None,
        started_at=datetime.now(timezone.utc),
        status="interrupt",
        event_count=120,
    )
    run.decisions = {pending.id: approve()}
    run.decided_by = "policy: approve-all"
    last = thread._snapshot.messages[last_id]
    thread._snapshot.messages[last_id] = last.model_copy(update={"content": f"reply {n}"})
    t0 = time.perf_counter()
    journal.committed(thread, run, [pending])
    return time.perf_counter() - t0


def commit_cost(location: Path | str, messages: int, commits: int) -> tuple[list[float], str]:
    agent = Agent(AGENT_URL, headers={"Authorization": f"Bearer {TOKEN}"}, store=location)
    journal = agent._journal
    assert journal is not None
    thread, pending = build_thread(agent, messages)
    samples = []
    for n in range(commits + 5):
        took = _commit(journal, thread, pending, n, f"m{messages - 1}")
        if n >= 5:  # the first commits open the store and warm the caches
            samples.append(took)
    journal.close()
    return samples, thread.id


def restore_cost(location: Path | str, thread_id: str, times: int) -> list[float]:
    samples = []
    for _ in range(times):
        t0 = time.perf_counter()
        agent = Agent(AGENT_URL, store=location)  # a new kernel: opens the store again
        thread = agent.thread(thread_id)
        assert thread.messages, "nothing restored"  # validated here, at their first read
        samples.append(time.perf_counter() - t0)
        assert agent._journal is not None
        agent._journal.close()
    return samples


def worker(location: str, name: str, rounds: int, go: Path) -> None:
    agent = Agent(AGENT_URL, headers={"Authorization": f"Bearer {TOKEN}"}, store=location)
    journal = agent._journal
    assert journal is not None
    thread, pending = build_thread(agent, 100)
    thread.id = name
    journal.store()  # connected before the start
    print("ready", flush=True)
    while not go.exists():
        time.sleep(0.001)
    samples = [_commit(journal, thread, pending, n, "m99") for n in range(rounds)]
    print(json.dumps({"name": name, "samples": samples}), flush=True)


def kernels(location: Path | str, count: int, rounds: int, tmp: Path) -> None:
    go = tmp / f"go-{time.monotonic_ns()}"
    tag = f"k{time.monotonic_ns()}"
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--worker",
                str(location),
                f"{tag}-{n}",
                str(rounds),
                str(go),
            ],
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        for n in range(count)
    ]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    t0 = time.perf_counter()
    go.touch()
    samples: list[float] = []
    for proc in procs:
        out, _ = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"a kernel failed ({proc.returncode})"
        samples += json.loads(out.strip().splitlines()[-1])["samples"]
    wall = time.perf_counter() - t0
    with open_store(location, readonly=True) as store:
        mine = [t for t in store.threads(AGENT_URL) if t.id.startswith(tag)]
        decisions = sum(
            len(store.thread_audit(AGENT_URL, t.id)) for t in mine
        )  # every decision of every kernel
        runs = sum(len(d.runs) for t in mine if (d := store.load_thread(AGENT_URL, t.id)))
        checked, problem = store.verify_audit()
    lost = (count * rounds - runs) + (count * rounds - decisions)
    print(
        f"   {count} kernels x {rounds} commits: {ms(samples)}  wall {wall:.2f} s  "
        f"runs {runs}/{count * rounds}, decisions {decisions}/{count * rounds}, "
        f"lost {lost}, chain {'intact' if problem is None else 'BROKEN'} ({checked} records)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", default=None, help="a PostgreSQL store (default: a throwaway)")
    parser.add_argument("--commits", type=int, default=100)
    parser.add_argument("--kernels", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--worker", nargs=4, metavar=("STORE", "NAME", "ROUNDS", "GO"))
    args = parser.parse_args()
    if args.worker:
        location, name, rounds, go = args.worker
        worker(location, name, int(rounds), Path(go))
        return 0

    import sqlite3

    import psycopg

    server = None
    url = args.url
    if url is None:
        sys.path.insert(0, str(REPO))
        from tests.store import _postgres

        server = _postgres.start()
        url = server.url(server.new_database())
    try:
        with psycopg.connect(url) as conn:
            version = conn.info.server_version
        print(
            f"agui_notebook store: SQLite {sqlite3.sqlite_version} vs PostgreSQL "
            f"{version // 10000}.{version % 10000} ({describe(url)}), psycopg {psycopg.__version__}"
        )
        with tempfile.TemporaryDirectory(prefix="agui-bench-pg-") as tmp:
            tmpdir = Path(tmp)
            stores: list[tuple[str, Path | str]] = [
                ("SQLite    ", tmpdir / "bench.sqlite3"),
                ("PostgreSQL", url),
            ]
            print(f"\n1. per committed run, 100 messages + 1 decision ({args.commits} commits)")
            ids: dict[str, str] = {}
            for label, location in stores:
                samples, ids[label] = commit_cost(location, 100, args.commits)
                print(f"   {label}  {ms(samples)}")
            print(f"   10,000 messages + 1 decision ({max(20, args.commits // 5)} commits)")
            for label, location in stores:
                samples, _ = commit_cost(location, 10_000, max(20, args.commits // 5))
                print(f"   {label}  {ms(samples)}")
            print("\n2. restore: agent.thread(id) in a new agent, then thread.messages")
            for label, location in stores:
                _, big = commit_cost(location, 1000, 3)
                small = restore_cost(location, ids[label], 30)
                large = restore_cost(location, big, 10)
                print(f"   {label}  100 messages: {ms(small)}   1,000 messages: {ms(large)}")
            print(f"\n3. {args.kernels} OS processes committing to one store at once")
            for label, location in stores:
                print(f"   {label}")
                kernels(location, args.kernels, args.rounds, tmpdir)
        print("\n(figures move by 2x on a shared machine; compare the backends within one run)")
    finally:
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
