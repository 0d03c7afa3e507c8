"""Two processes writing one store at the same time lose nothing: on SQLite (WAL + busy_timeout)
and on PostgreSQL (row locks, the chain's advisory lock)."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agui_notebook import Agent
from agui_notebook._store.backend import open_store
from tests.store._db import rows
from tests.store.conftest import BACKENDS

pytestmark = pytest.mark.timeout(240)

WRITER = Path(__file__).with_name("store_writer.py")
THREADS = 40  # per process, all at once
ROUNDS = 3  # per thread: each round commits two runs and one decision


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_processes_writing_many_threads_lose_nothing(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    path: Path | str = (
        tmp_path / "shared.sqlite3"
        if backend == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    go = tmp_path / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, str(WRITER), str(path), name, str(THREADS), str(ROUNDS), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("a", "b")
    ]
    for proc in procs:  # both imported and ready: start them together
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    go.touch()
    reports = []
    for proc in procs:
        out, err = proc.communicate(timeout=200)
        assert proc.returncode == 0, err
        reports.append(json.loads(out.strip().splitlines()[-1]))
    for report in reports:
        assert report["warnings"] == [], report["warnings"]  # no write was given up

    expected = {f"{name}-{n}" for name in ("a", "b") for n in range(THREADS)}
    stored = rows(path, "SELECT id, pending_count, message_count FROM threads")
    assert {r[0] for r in stored} == expected
    assert all(pending == 0 and messages == 4 * ROUNDS for _, pending, messages in stored)
    decisions = len(expected) * ROUNDS
    assert rows(path, "SELECT count(*) FROM runs") == [(2 * decisions,)]
    assert rows(path, "SELECT count(*), count(DISTINCT thread_id) FROM audit") == [
        (decisions, len(expected))
    ]
    seqs = [s for (s,) in rows(path, "SELECT seq FROM audit ORDER BY seq")]
    assert seqs == list(range(1, decisions + 1))
    with open_store(path, readonly=True) as store:
        assert store.verify_audit() == (decisions, None)
    # The two processes really wrote at the same time: their decisions interleave in one chain.
    writers = "".join(t[0] for (t,) in rows(path, "SELECT thread_id FROM audit ORDER BY seq"))
    switches = sum(1 for x, y in itertools.pairwise(writers) if x != y)
    assert switches >= 3, writers
    restored = Agent.demo(store=path).thread("b-7")
    assert [r.status for r in restored.runs] == ["interrupt", "success"] * ROUNDS
    assert "Transferred 8.00 USD" in restored.messages[-1].content
