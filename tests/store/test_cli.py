"""``agui-notebook threads``, ``audit export|verify`` and ``store init|copy`` through the installed
entry point, in a subprocess, on real stores (and ones tampered with by hand): each test on a
SQLite file and on a PostgreSQL database (tampered with by a superuser with triggers disabled)."""

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
from agui_notebook._store.postgres import SCHEMA_VERSION
from tests.store import _postgres
from tests.store._db import rows
from tests.store.conftest import BACKENDS

pytestmark = pytest.mark.timeout(120)

CLI = Path(sys.executable).with_name("agui-notebook")
TRANSFER = "Transfer $500 from 1234567890 to 0987654321"


def leaked(secret: str, text: str) -> bool:
    """Whether ``secret`` is in ``text`` (a bool, so a failing assert never prints either)."""
    return secret in text


def agui(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    assert CLI.exists(), f"the entry point is not installed at {CLI}"
    return subprocess.run(
        [str(CLI), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


async def fill(path: Path | str) -> list[str]:
    """Three decided threads (four decisions) and one thread still pending."""
    agent = Agent.demo(text_delay=0, store=path)
    ids = []
    for text in (TRANSFER, "Move money and cancel subscription SUB-1", TRANSFER):
        chat = agent.chat(policy=policies.approve_all(), display=False)
        await chat.send(text)
        ids.append(chat.thread.id)
    waiting = agent.thread()
    await waiting.run("\x1b[31mTransfer\x1b[0m $5 from 1234567890 to 0987654321")
    ids.append(waiting.id)
    await agent.aclose()
    assert rows(path, "SELECT count(*) FROM audit") == [(4,)]
    return ids


@pytest.fixture(params=BACKENDS)
async def filled(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path | str, list[str]]:
    """A store with three decided threads (four decisions) and one thread still pending."""
    if request.param == "sqlite":
        path: Path | str = tmp_path / "store.sqlite3"
    else:
        path = request.getfixturevalue("postgres_url")
    return path, await fill(path)


async def test_threads_lists_newest_first_and_filters_pending(
    filled: tuple[Path | str, list[str]],
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


async def test_audit_export_jsonl_and_csv(filled: tuple[Path | str, list[str]]) -> None:
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


async def test_verify_passes_on_an_intact_log(filled: tuple[Path | str, list[str]]) -> None:
    path, _ = filled
    before = rows(path, "SELECT * FROM audit")
    done = agui("audit", "verify", "--store", str(path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "intact: 4 records" in done.stdout
    assert rows(path, "SELECT * FROM audit") == before  # read-only


def _tamper(path: Path | str, *statements: str) -> None:
    """Change the store behind the client's back: on PostgreSQL as the superuser, with the
    append-only trigger switched off (session_replication_role = replica)."""
    if isinstance(path, str):
        import psycopg

        dbname = path.rsplit("/", 1)[1]
        with psycopg.connect(_SERVER[0].admin_url(dbname), autocommit=True) as pg:
            pg.execute("SET search_path TO agui_notebook")
            pg.execute("SET session_replication_role = replica")
            for statement in statements:
                pg.execute(statement.encode())
        return
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


_SERVER: list[_postgres.Server] = []


@pytest.fixture(autouse=True)
def _server_for_tampering(request: pytest.FixtureRequest) -> None:
    if "postgres" in request.node.name and not _SERVER:
        _SERVER.append(request.getfixturevalue("postgres_server"))


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
    filled: tuple[Path | str, list[str]], statements: list[str], named: int, problem: str
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


# -- store init and store copy -----------------------------------------------------------------


def test_store_init_creates_and_is_idempotent(
    postgres_server: _postgres.Server, tmp_path: Path
) -> None:
    url = postgres_server.url(postgres_server.new_database())
    secret = postgres_server.app_password
    for _ in range(2):  # creates, then finds it current
        done = agui("store", "init", url)
        assert done.returncode == 0, done.stderr
        assert "store ready" in done.stdout and f"schema version {SCHEMA_VERSION}" in done.stdout
        assert not leaked(secret, done.stdout + done.stderr)
    assert rows(url, "SELECT value FROM meta WHERE key = 'schema_version'") == [
        (str(SCHEMA_VERSION),)
    ]
    listed = agui("threads", "--store", url)
    assert listed.returncode == 0 and "no stored threads" in listed.stdout
    path = tmp_path / "new.sqlite3"
    assert agui("store", "init", str(path)).returncode == 0 and path.exists()


async def test_store_copy_sqlite_to_postgres_and_back_keeps_the_chain(
    postgres_server: _postgres.Server, tmp_path: Path
) -> None:
    source = tmp_path / "store.sqlite3"
    ids = await fill(source)
    url = postgres_server.url(postgres_server.new_database())
    secret = postgres_server.app_password

    there = agui("store", "copy", str(source), url)
    assert there.returncode == 0, there.stdout + there.stderr
    assert "copied 4 threads (1 pending) and 4 audit records" in there.stdout
    assert "audit log intact on the copy: 4 records" in there.stdout
    assert not leaked(secret, there.stdout + there.stderr)
    back_path = tmp_path / "back.sqlite3"
    back = agui("store", "copy", url, str(back_path))
    assert back.returncode == 0, back.stdout + back.stderr

    for where in (url, str(back_path)):
        verified = agui("audit", "verify", "--store", where)
        assert verified.returncode == 0, verified.stdout
        assert "intact: 4 records" in verified.stdout
    exports = [
        agui("audit", "export", "--store", where).stdout
        for where in (str(source), url, str(back_path))
    ]
    assert exports[0] == exports[1] == exports[2]  # same records, numbers and hashes
    listings = [agui("threads", "--store", where).stdout for where in (str(source), url)]
    assert listings[0] == listings[1]
    pending = agui("threads", "--pending", "--store", url)
    assert ids[3] in pending.stdout and ids[0] not in pending.stdout
    assert agui("--store", url, "threads", "--pending").stdout == pending.stdout  # either place

    # The pending thread comes back from the copy, with its interrupt, runs and messages.
    original = Agent.demo(store=source).thread(ids[3])
    for where in (url, back_path):
        restored = Agent.demo(store=where).thread(ids[3])
        assert [p.tool_name for p in restored.pending] == ["transfer_money"]
        assert restored.pending == original.pending
        assert len(restored.messages) == len(original.messages) > 0
        assert [r.status for r in restored.runs] == [r.status for r in original.runs]

    again = agui("store", "copy", str(source), url)  # not into a store that holds something
    assert again.returncode == 2 and "not empty" in again.stderr


def test_postgres_problems_exit_2_and_never_print_the_password(
    postgres_server: _postgres.Server,
) -> None:
    db = postgres_server.new_database()
    secret = postgres_server.app_password
    wrong = postgres_server.url(db, password="not-" + secret)
    cases = {
        "wrong password": (wrong, "cannot sign in"),
        "unreachable": (
            f"postgresql://agui_app:{secret}@127.0.0.1:1/{db}",
            "unreachable",
        ),
        "no such database": (postgres_server.url("nope"), "does not exist"),
        "typo in the port": (
            f"postgresql://agui_app:{secret}@127.0.0.1:54x2/{db}",
            "not valid",
        ),
        "typo in an option": (postgres_server.url(db) + "?sslmod=disable", "not a valid"),
        "typo in the scheme": (
            f"postgresq://agui_app:{secret}@127.0.0.1/{db}",
            "unknown store URL",
        ),
        "not initialised": (postgres_server.url(db), "store init"),
    }
    for name, (url, said) in cases.items():
        done = agui("audit", "verify", "--store", url)
        assert done.returncode == 2, (name, done.stdout, done.stderr)
        assert said in done.stderr, (name, done.stderr)
        assert not leaked(secret, done.stdout + done.stderr), name
        assert "Traceback" not in done.stderr, name

    url = postgres_server.url(db)
    assert agui("store", "init", url).returncode == 0
    _tamper_admin(postgres_server, db, "UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    newer = agui("threads", "--store", url)
    assert newer.returncode == 2 and "StoreVersionError" in newer.stderr and "99" in newer.stderr


def _tamper_admin(server: _postgres.Server, dbname: str, statement: str) -> None:
    with server.admin(dbname) as pg:
        pg.execute(f"SET search_path TO agui_notebook; {statement}".encode())
