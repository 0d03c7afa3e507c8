"""``thread_links``: one thread's audit records by the thread's index, on a real SQLite file and a
real PostgreSQL database, are exactly the records of the whole log that name the thread (a
restored chat's chain heads, issue 28, without reading the whole log)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agui_notebook import Agent
from agui_notebook._store.backend import open_store
from tests.store.conftest import BACKENDS
from tests.store.test_cli import fill

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_thread_links_are_the_threads_records_of_the_whole_log(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    path: Path | str = (
        tmp_path / "store.sqlite3"
        if backend == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    ids = await fill(path)
    agent_url = Agent.demo(store=None).url
    with open_store(path, readonly=True) as store:
        every = store.audit_links()
        counts = []
        for thread_id in ids:
            mine = store.thread_links(agent_url, thread_id)
            assert mine == [
                item
                for item in every
                if item.record.get("thread_id") == thread_id
                and item.record.get("agent_url") == agent_url
            ]
            counts.append(len(mine))
        assert store.thread_links(agent_url, "no-such-thread") == []
    assert counts == [1, 2, 1, 0]  # fill's decisions: one, two, one, none yet
