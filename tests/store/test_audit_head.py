"""``agui-notebook audit head`` and ``audit verify --head SEQ:HASH``, through the entry point, on
a real SQLite file and a real PostgreSQL database: a published head catches what the chain alone
cannot, a record altered with every later hash recomputed, and the last records removed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agui_notebook import Agent, policies
from agui_notebook._decisions.audit import GENESIS_HASH, chain_hash
from tests.store import _postgres
from tests.store._db import rows
from tests.store.conftest import BACKENDS
from tests.store.test_cli import _SERVER, TRANSFER, _tamper, agui, fill

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(params=BACKENDS)
async def filled(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """A store with four decisions in its audit log."""
    if request.param == "sqlite":
        path: Path | str = tmp_path / "store.sqlite3"
    else:
        path = request.getfixturevalue("postgres_url")
        if not _SERVER:
            server: _postgres.Server = request.getfixturevalue("postgres_server")
            _SERVER.append(server)
    await fill(path)
    return path


def _head(path: Path | str) -> str:
    done = agui("audit", "head", "--store", str(path))
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip()


def _rehash_from(path: Path | str, seq: int, change: dict[str, str]) -> None:
    """Rewrite record ``seq`` and recompute every hash after it, and the noted head, as someone
    holding the store would to hide the change: the chain verifies afterwards."""
    links = rows(path, "SELECT seq, record, prev_hash, hash FROM audit ORDER BY seq")
    prev = GENESIS_HASH
    statements = []
    for number, record_text, _, _ in links:
        record = json.loads(record_text)
        if number == seq:
            record.update(change)
        if number >= seq:
            new_text = json.dumps(record, ensure_ascii=False).replace("'", "''")
            digest = chain_hash(prev, number, record)
            statements.append(
                f"UPDATE audit SET record = '{new_text}', prev_hash = '{prev}', "
                f"hash = '{digest}' WHERE seq = {number}"
            )
            prev = digest
        else:
            prev = chain_hash(prev, number, record)
    statements.append(f"UPDATE meta SET value = '{prev}' WHERE key = 'audit_head_hash'")
    _tamper(path, *statements)


async def test_head_prints_seq_and_hash_and_verify_holds_it(filled: Path | str) -> None:
    head = _head(filled)
    seq, _, digest = head.partition(":")
    assert seq == "4" and len(digest) == 64
    assert rows(filled, "SELECT hash FROM audit WHERE seq = 4") == [(digest,)]
    done = agui("audit", "verify", "--head", head, "--store", str(filled))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"holds the head {head}" in done.stdout and "intact: 4 records" in done.stdout


async def test_a_rehashed_rewrite_passes_the_chain_but_not_the_published_head(
    filled: Path | str,
) -> None:
    published = _head(filled)
    _rehash_from(filled, 2, {"decision": "reject", "decided_by": "mallory"})
    alone = agui("audit", "verify", "--store", str(filled))
    assert alone.returncode == 0, alone.stdout  # the chain alone cannot see it: re-hashed
    done = agui("audit", "verify", "--head", published, "--store", str(filled))
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"does NOT hold the head {published}" in done.stdout
    assert "record 4 now hashes to" in done.stdout and "altered" in done.stdout
    assert _head(filled) != published


async def test_records_removed_after_the_head_was_published(filled: Path | str) -> None:
    published = _head(filled)
    kept = rows(filled, "SELECT hash FROM audit WHERE seq = 3")[0][0]
    _tamper(
        filled,
        "DELETE FROM audit WHERE seq = 4",
        "UPDATE meta SET value = '3' WHERE key = 'audit_head_seq'",
        f"UPDATE meta SET value = '{kept}' WHERE key = 'audit_head_hash'",
    )
    assert agui("audit", "verify", "--store", str(filled)).returncode == 0  # a clean cut
    done = agui("audit", "verify", "--head", published, "--store", str(filled))
    assert done.returncode == 1
    assert "ends at record 3, before the published head 4" in done.stdout


async def test_an_older_head_still_holds_after_more_decisions(filled: Path | str) -> None:
    first = _head(filled)
    agent = Agent.demo(text_delay=0, store=filled)
    await agent.chat(policy=policies.approve_all(), display=False).send(TRANSFER)
    await agent.aclose()
    assert _head(filled).startswith("5:")
    assert agui("audit", "verify", "--head", first, "--store", str(filled)).returncode == 0


@pytest.mark.parametrize("bad", ["4", "x:ab", "4:" + "g" * 64, "4:abc"])
async def test_a_malformed_head_exits_2_naming_the_form(filled: Path | str, bad: str) -> None:
    done = agui("audit", "verify", "--head", bad, "--store", str(filled))
    assert done.returncode == 2
    assert "a head is SEQ:HASH" in done.stderr


async def test_head_of_a_broken_chain_exits_1(filled: Path | str) -> None:
    _tamper(filled, "UPDATE audit SET record = replace(record, 'approve', 'reject') WHERE seq = 2")
    done = agui("audit", "head", "--store", str(filled))
    assert done.returncode == 1 and "BROKEN at record 2" in done.stderr and not done.stdout
