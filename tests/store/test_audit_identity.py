"""Audit records that say who decided, beside records written before they did: on a real SQLite
file and a real PostgreSQL database the old records keep their JSON and hashes (the chain still
verifies), and read the new fields as null; ``audit export`` has them for new records."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from agui_notebook import approve
from agui_notebook._decisions.audit import (
    GENESIS_HASH,
    ChainLink,
    chain_hash,
    decision_entries,
    link,
)
from agui_notebook._decisions.identity import Person
from agui_notebook._decisions.interrupts import PendingInterrupt
from agui_notebook._store.backend import open_store
from tests.store.conftest import BACKENDS
from tests.store.test_cli import agui

pytestmark = pytest.mark.timeout(120)

#: A record as agui_notebook wrote it before decided_by had kernel_user and identity beside it.
OLD_RECORD = {
    "time": "2026-01-01T00:00:00.000000+00:00",
    "agent_url": "http://127.0.0.1:1/agent",
    "thread_id": "t-old",
    "run_id": "r-old",
    "interrupt_id": "i-old",
    "tool": "transfer_money",
    "tool_call_id": "c-old",
    "reason_kind": "tool_call",
    "arguments_sha256": None,
    "decision": "approve",
    "edited_arguments": None,
    "reason": None,
    "decider": "person",
    "decided_by": "jovyan",
    "outcome": "success",
}


@pytest.fixture(params=BACKENDS)
def location(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    if request.param == "sqlite":
        return tmp_path / "store.sqlite3"
    url: str = request.getfixturevalue("postgres_url")
    return url


def test_old_records_verify_beside_new_ones_that_say_who(location: Path | str) -> None:
    old_hash = chain_hash(GENESIS_HASH, 1, OLD_RECORD)
    (entry,) = decision_entries(
        [PendingInterrupt(id="i-new", reason="tool_call", tool_name="transfer_money")],
        {"i-new": approve()},
        agent_url="http://127.0.0.1:1/agent",
        thread_id="t-new",
        run_id="r-new",
        time=datetime(2026, 2, 1, tzinfo=timezone.utc),
        decided_by="you",
        outcome="success",
        person=Person("ada", "server", "Ada Lovelace"),
        kernel_user="jovyan",
    )
    with open_store(location) as store:
        store.append_links([ChainLink(1, dict(OLD_RECORD), GENESIS_HASH, old_hash)], (1, old_hash))
        store.append_audit([entry])
        count, problem = store.verify_audit()
        assert (count, problem) == (2, None)
        [old] = store.thread_audit("http://127.0.0.1:1/agent", "t-old")
        assert (old.decided_by, old.identity, old.kernel_user) == ("jovyan", None, None)
        [new] = store.thread_audit("http://127.0.0.1:1/agent", "t-new")
        assert new == entry
        assert store.audit_links()[1] == link(old_hash, 2, entry)
    exported = agui("audit", "export", "--store", str(location))
    assert exported.returncode == 0, exported.stderr
    first, second = (json.loads(line) for line in exported.stdout.splitlines())
    assert "identity" not in first  # exported as stored: the old record's JSON is untouched
    assert (second["decided_by"], second["kernel_user"], second["identity"]) == (
        "ada",
        "jovyan",
        "server",
    )
    table = agui("audit", "export", "--format", "csv", "--store", str(location))
    header = table.stdout.splitlines()[0].split(",")
    assert {"decided_by", "kernel_user", "identity", "identity_note"} <= set(header)
    assert agui("audit", "verify", "--store", str(location)).returncode == 0
