"""``agui-notebook threads`` and ``agui-notebook audit export|verify`` through the installed entry
point, in a subprocess, on real store files (and ones tampered with by hand)."""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agui_notebook import Agent, policies
from tests.store._db import rows

pytestmark = pytest.mark.timeout(120)

CLI = Path(sys.executable).with_name("agui-notebook")
TRANSFER = "Transfer $500 from 1234567890 to 0987654321"


def agui(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    assert CLI.exists(), f"the entry point is not installed at {CLI}"
    return subprocess.run(
        [str(CLI), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture
async def filled(tmp_path: Path) -> tuple[Path, list[str]]:
    """A store with three decided threads (five decisions) and one thread still pending."""
    path = tmp_path / "store.sqlite3"
    agent = Agent.demo(text_delay=0, store=path)
    ids = []
    for text in (TRANSFER, "Move money and cancel subscription SUB-1", TRANSFER):
        chat = agent.chat(policy=policies.approve_all(), display=False)
        await chat.send(text)
        ids.append(chat.thread.id)
    waiting = agent.thread()
    await waiting.run("\x1b[31mTransfer\x1b[0m $5 from 1234567890 to 0987654321")
    ids.append(waiting.id)
    assert rows(path, "SELECT count(*) FROM audit") == [(4,)]
    return path, ids


async def test_threads_lists_newest_first_and_filters_pending(
    filled: tuple[Path, list[str]],
) -> None:
    path, ids = filled
    done = agui("threads", "--store", str(path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:4] == ["UPDATED", "(UTC)", "THREAD", "PENDING"]
    assert [next(i for i in ids if i in line) for line in lines[1:]] == list(reversed(ids))
    assert "\x1b" not in done.stdout and "\\x1b[31mTransfer" in done.stdout  # no escapes run
    pending = agui("threads", "--pending", "--store", str(path))
    assert pending.returncode == 0
    assert [line for line in pending.stdout.splitlines()[1:]] and ids[3] in pending.stdout
    assert all(i not in pending.stdout for i in ids[:3])
    # The default store: AGUI_NOTEBOOK_STORE.
    by_env = agui("threads", env={"AGUI_NOTEBOOK_STORE": str(path)})
    assert by_env.stdout == done.stdout


async def test_audit_export_jsonl_and_csv(filled: tuple[Path, list[str]]) -> None:
    path, ids = filled
    jsonl = agui("audit", "export", "--format", "jsonl", "--store", str(path))
    assert jsonl.returncode == 0, jsonl.stderr
    records = [json.loads(line) for line in jsonl.stdout.splitlines()]
    assert [r["seq"] for r in records] == [1, 2, 3, 4]
    assert {r["thread_id"] for r in records} == set(ids[:3])
    assert [r["decision"] for r in records] == ["approve"] * 4
    assert {r["decider"] for r in records} == {"policy"}
    assert {r["decided_by"] for r in records} == {"approve-all"}
    assert all(len(r["arguments_sha256"]) == 64 and len(r["hash"]) == 64 for r in records)
    assert records[1]["prev_hash"] == records[0]["hash"]
    table = agui("audit", "export", "--format", "csv", "--store", str(path))
    assert table.returncode == 0
    parsed = list(csv.DictReader(io.StringIO(table.stdout)))
    assert [int(r["seq"]) for r in parsed] == [1, 2, 3, 4]
    assert [r["hash"] for r in parsed] == [r["hash"] for r in records]
    assert parsed[0]["tool"] == "transfer_money" and parsed[0]["outcome"] == "success"


async def test_verify_passes_on_an_intact_log(filled: tuple[Path, list[str]]) -> None:
    path, _ = filled
    before = rows(path, "SELECT * FROM audit")
    done = agui("audit", "verify", "--store", str(path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "intact: 4 records" in done.stdout
    assert rows(path, "SELECT * FROM audit") == before  # read-only


def _tamper(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


@pytest.mark.parametrize(
    ("statements", "named", "problem"),
    [
        (
            [
                "UPDATE audit SET record = replace(record, '\"approve\"', '\"reject\"') WHERE seq = 2"
            ],
            2,
            "altered",
        ),
        (["DELETE FROM audit WHERE seq = 2"], 2, "removed"),
        (
            [  # records 2 and 3 swap places (their rows keep their numbers)
                "UPDATE audit SET seq = -2 WHERE seq = 2",
                "UPDATE audit SET seq = 2 WHERE seq = 3",
                "UPDATE audit SET seq = 3 WHERE seq = -2",
            ],
            2,
            "reordered",
        ),
        (["DELETE FROM audit WHERE seq = 4"], 4, "truncated"),
        (
            [  # removed, and the rest renumbered to hide the gap
                "DELETE FROM audit WHERE seq = 2",
                "UPDATE audit SET seq = seq - 1 WHERE seq > 2",
            ],
            2,
            "removed",
        ),
    ],
    ids=["altered", "removed", "reordered", "truncated", "removed-renumbered"],
)
async def test_verify_names_the_first_bad_record(
    filled: tuple[Path, list[str]], statements: list[str], named: int, problem: str
) -> None:
    path, _ = filled
    _tamper(path, *statements)
    done = agui("audit", "verify", "--store", str(path))
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"BROKEN at record {named}: {problem}" in done.stdout, done.stdout


async def test_store_problems_exit_2_and_nothing_is_created(tmp_path: Path) -> None:
    missing = tmp_path / "none" / "store.sqlite3"
    done = agui("audit", "verify", "--store", str(missing))
    assert done.returncode == 2 and "no store" in done.stderr
    listed = agui("threads", "--store", str(missing))
    assert listed.returncode == 0 and "nothing stored" in listed.stderr
    assert not missing.parent.exists()

    broken = tmp_path / "broken.sqlite3"
    broken.write_bytes(b"not sqlite at all" * 300)
    done = agui("threads", "--store", str(broken))
    assert done.returncode == 2 and "StoreCorrupt" in done.stderr

    newer = tmp_path / "newer.sqlite3"
    Agent.demo(store=newer)._journal.store()  # type: ignore[union-attr]
    _tamper(newer, "PRAGMA user_version = 99")
    done = agui("audit", "verify", "--store", str(newer))
    assert done.returncode == 2 and "StoreVersionError" in done.stderr and "99" in done.stderr

    off = agui("threads", env={"AGUI_NOTEBOOK_STORE": "off"})
    assert off.returncode == 2 and "off" in off.stderr
