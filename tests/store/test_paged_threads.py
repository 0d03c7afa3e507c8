"""Messages and tool calls in pages (schema version 3), against the demo server on loopback, on a
SQLite file and on a PostgreSQL database (``store_path`` is parametrised over both).

- A commit writes the pages its run changed; another kernel's write in between makes the next
  commit write every page, so a thread is never a mix of two kernels' writes.
- A restored thread's messages are validated when first read only when every page is there, as
  written (its digest) and validated by this same code when written; a page missing, changed,
  not JSON or written by another version is said (a StoreWarning at ``agent.thread(id)``, but
  for the version) and read in full at once, nothing else lost.
- A store of version 2 (every message in one JSON text) is upgraded: its threads read as before,
  and their next commit moves them into pages; a version 2 kernel still writing the old way
  afterwards is read, and the next commit writes every page.
- A secret learned after a page was written is scrubbed from it at the next commit.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import AsyncIterator, Generator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agui_notebook import Agent, approve
from agui_notebook._errors import StoreWarning
from agui_notebook._store.codec import _interrupt_json, _tool_call_json
from agui_notebook._store.pages import page_digest
from agui_notebook._store.snapshot import StoredSnapshot
from agui_notebook._thread import Thread
from agui_notebook.demo import DemoApp
from tests.store._db import execute, rows

pytestmark = pytest.mark.timeout(120)

TRANSFER = "Transfer $500 from 1234567890 to 0987654321"
BALANCE = "What is my balance?"

_AGENTS: list[Agent] = []


def new_agent(url: str, **options: Any) -> Agent:
    """An Agent closed when the test ends (a new kernel's, as far as the store can tell)."""
    agent = Agent(url, **options)
    _AGENTS.append(agent)
    return agent


@pytest.fixture(autouse=True)
def _on_both_backends(store_path: Path | str) -> None:
    """Every test here runs once per backend (store_path is parametrised)."""


@pytest.fixture(autouse=True)
async def _close_agents() -> AsyncIterator[None]:
    yield
    while _AGENTS:
        await _AGENTS.pop().aclose()


def _dump(thread: Thread) -> list[dict[str, Any]]:
    return [m.model_dump(by_alias=True, exclude_none=True) for m in thread.messages]


def _deferred(thread: Thread) -> bool:
    """The restored messages are still their pages' text (validated when first read)."""
    return isinstance(thread._snapshot, StoredSnapshot) and not thread._snapshot.decoded


def _pages(store: Path | str, thread_id: str, kind: str = "message") -> list[tuple[Any, ...]]:
    return rows(
        store,
        "SELECT page, items, revision FROM thread_pages WHERE thread_id = ? AND kind = ? "
        "ORDER BY page",
        (thread_id, kind),
    )


@pytest.fixture
def quiet() -> Generator[None, None, None]:
    with warnings.catch_warnings():
        warnings.simplefilter("error", StoreWarning)
        yield


async def _turns(thread: Thread, count: int) -> None:
    for _ in range(count):
        assert (await thread.run(BALANCE)).outcome == "success"


# -- a commit writes what its run changed -------------------------------------------------------


async def test_a_commit_writes_the_pages_its_run_changed(
    demo: tuple[str, DemoApp], store_path: Path | str, quiet: None
) -> None:
    url, _ = demo
    thread = new_agent(url).thread()
    await _turns(thread, 17)  # 68 messages: a full page of 64 and a second one
    first = _pages(store_path, thread.id)
    assert [(page, items) for page, items, _ in first] == [(0, 64), (1, 4)]
    await _turns(thread, 1)
    after = _pages(store_path, thread.id)
    assert after[0] == first[0]  # the full page was not written again
    assert after[1][1:] == (8, first[1][2] + 1)
    ((message_count, revision),) = rows(
        store_path, "SELECT message_count, revision FROM threads WHERE id = ?", (thread.id,)
    )
    assert (message_count, revision) == (72, after[1][2])

    restored = new_agent(url).thread(thread.id)
    assert _deferred(restored)
    assert restored.tool_calls == thread.tool_calls and restored.state == thread.state
    assert _deferred(restored)  # neither reads a message
    assert _dump(restored) == _dump(thread)
    assert not _deferred(restored)


async def test_a_restored_thread_resumes_and_its_next_commit_writes_only_its_changes(
    demo: tuple[str, DemoApp], store_path: Path | str, quiet: None
) -> None:
    url, app = demo
    thread = new_agent(url).thread()
    await _turns(thread, 16)
    assert (await thread.run(TRANSFER)).outcome == "interrupt"
    before = _pages(store_path, thread.id)

    restored = new_agent(url).thread(thread.id)
    assert _deferred(restored) and [p.tool_name for p in restored.pending] == ["transfer_money"]
    assert restored.pending == thread.pending
    assert (await restored.resume(approve())).outcome == "success"
    after = _pages(store_path, thread.id)
    assert after[0] == before[0]  # the page the resume did not touch stays as it was
    assert [e["tool"] for e in app.executions if e["tool"] == "transfer_money"] == [
        "transfer_money"
    ]
    again = new_agent(url).thread(thread.id)
    assert _dump(again) == _dump(restored) and again.tool_calls == restored.tool_calls


async def test_a_thread_another_kernel_wrote_meanwhile_is_written_whole(
    demo: tuple[str, DemoApp], store_path: Path | str, quiet: None
) -> None:
    url, _ = demo
    mine = new_agent(url).thread()
    await _turns(mine, 2)
    theirs = new_agent(url).thread(mine.id)
    assert _dump(theirs) == _dump(mine)
    await mine.run("Show my statement")
    await mine.run(BALANCE)  # the store now holds my thread
    await theirs.run("Think about it")  # theirs knew an older revision: written whole
    assert _dump(new_agent(url).thread(mine.id)) == _dump(theirs)
    await mine.run(BALANCE)  # and mine again
    restored = new_agent(url).thread(mine.id)
    assert _dump(restored) == _dump(mine) and restored.tool_calls == mine.tool_calls
    assert len(_pages(store_path, mine.id)) == 1


# -- what is checked when a thread is restored -------------------------------------------------


async def _two_pages(url: str) -> Thread:
    thread = new_agent(url).thread()
    await _turns(thread, 17)
    return thread


async def test_a_page_changed_after_it_was_written_is_said_and_read_at_once(
    demo: tuple[str, DemoApp], store_path: Path | str
) -> None:
    url, _ = demo
    thread = await _two_pages(url)
    ((body,),) = rows(
        store_path,
        "SELECT body FROM thread_pages WHERE thread_id = ? AND kind = 'message' AND page = 1",
        (thread.id,),
    )
    assert BALANCE in body
    execute(
        store_path,
        "UPDATE thread_pages SET body = ? WHERE thread_id = ? AND kind = 'message' AND page = 1",
        (body.replace(BALANCE, "What is my debt?"), thread.id),
    )
    with pytest.warns(StoreWarning, match="page 1 changed after it was written"):
        restored = new_agent(url).thread(thread.id)
    assert not _deferred(restored)  # validated at agent.thread(id), as every restore once was
    assert [m.content for m in restored.messages][64] == "What is my debt?"
    assert len(restored.messages) == len(thread.messages)


async def test_a_page_that_is_not_json_is_left_out_and_the_rest_comes_back(
    demo: tuple[str, DemoApp], store_path: Path | str
) -> None:
    url, _ = demo
    thread = await _two_pages(url)
    execute(
        store_path,
        "UPDATE thread_pages SET body = 'not json' WHERE thread_id = ? AND kind = 'message' "
        "AND page = 1",
        (thread.id,),
    )
    with pytest.warns(StoreWarning) as caught:
        restored = new_agent(url).thread(thread.id)
    said = " ".join(str(w.message) for w in caught)
    assert "changed after it was written" in said and "page 1 is not JSON" in said
    assert _dump(restored) == _dump(thread)[:64]
    assert restored.pending == thread.pending and restored.state == thread.state


async def test_a_missing_page_is_said_and_the_rest_comes_back(
    demo: tuple[str, DemoApp], store_path: Path | str
) -> None:
    url, _ = demo
    thread = await _two_pages(url)
    execute(
        store_path,
        "DELETE FROM thread_pages WHERE thread_id = ? AND kind = 'message' AND page = 1",
        (thread.id,),
    )
    with pytest.warns(StoreWarning, match="holds 64 of the thread's 68 messages"):
        restored = new_agent(url).thread(thread.id)
    assert _dump(restored) == _dump(thread)[:64]
    # Its next commit writes every page: the thread is whole again, as it now is.
    await restored.run(BALANCE)
    again = new_agent(url).thread(thread.id)
    assert _deferred(again) and _dump(again) == _dump(restored)


async def test_pages_validated_by_another_version_are_validated_at_once_without_a_word(
    demo: tuple[str, DemoApp], store_path: Path | str, quiet: None
) -> None:
    url, _ = demo
    thread = await _two_pages(url)
    older = "agui_notebook 0.0.9; ag-ui-protocol 0.1.0; pydantic-core 2.0.0"
    for page, items, _ in _pages(store_path, thread.id):
        ((body,),) = rows(
            store_path,
            "SELECT body FROM thread_pages WHERE thread_id = ? AND kind = 'message' AND page = ?",
            (thread.id, page),
        )
        execute(
            store_path,
            "UPDATE thread_pages SET validated_by = ?, digest = ? "
            "WHERE thread_id = ? AND kind = 'message' AND page = ?",
            (older, page_digest("message", page, items, older, body), thread.id, page),
        )
    restored = new_agent(url).thread(thread.id)
    assert not _deferred(restored) and _dump(restored) == _dump(thread)


async def test_a_changed_tool_call_page_is_said(
    demo: tuple[str, DemoApp], store_path: Path | str
) -> None:
    url, _ = demo
    thread = new_agent(url).thread()
    await _turns(thread, 2)
    execute(
        store_path,
        "UPDATE thread_pages SET body = replace(body, 'check_balance', 'check_balanse') "
        "WHERE thread_id = ? AND kind = 'tool_call'",
        (thread.id,),
    )
    with pytest.warns(StoreWarning, match="tool calls page 0 changed after it was written"):
        restored = new_agent(url).thread(thread.id)
    assert {c.name for c in restored.tool_calls.values()} == {"check_balanse"}


# -- version 2 stores ---------------------------------------------------------------------------


def _as_version_2(store: Path | str, agent_url: str, thread: Thread) -> None:
    """``thread`` written back the way version 2 kept a thread: every message and every tool
    call in one JSON text in its row, no pages (what a version 2 kernel writes)."""
    messages = (
        "["
        + ",".join(m.model_dump_json(by_alias=True, exclude_none=True) for m in thread.messages)
        + "]"
    )
    calls = "[" + ",".join(_tool_call_json(c) for c in thread.tool_calls.values()) + "]"
    execute(
        store,
        "UPDATE threads SET messages = ?, tool_calls = ?, message_count = ?, pending = ?, "
        "state = ? WHERE agent_url = ? AND id = ?",
        (
            messages,
            calls,
            len(thread.messages),
            json.dumps([_interrupt_json(p) for p in thread.pending]),
            json.dumps(thread.state),
            agent_url,
            thread.id,
        ),
    )


def _downgrade(store: Path | str) -> None:
    """The store as version 2 left it: no pages table, no revision columns."""
    execute(store, "DROP TABLE thread_pages")
    execute(store, "ALTER TABLE threads DROP COLUMN revision")
    execute(store, "ALTER TABLE threads DROP COLUMN tool_call_count")
    if isinstance(store, str):
        execute(store, "UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    else:
        execute(store, "PRAGMA user_version=2")


def _version(store: Path | str) -> int:
    if isinstance(store, str):
        ((value,),) = rows(store, "SELECT value FROM meta WHERE key = 'schema_version'")
        return int(value)
    ((value,),) = rows(store, "PRAGMA user_version")
    return int(value)


async def test_a_version_2_store_is_upgraded_its_threads_read_and_moved_into_pages(
    demo: tuple[str, DemoApp], store_path: Path | str, quiet: None
) -> None:
    url, app = demo
    agent = new_agent(url)
    thread = agent.thread()
    await _turns(thread, 3)
    assert (await thread.run(TRANSFER)).outcome == "interrupt"
    await agent.aclose()
    agent_url = agent._journal.agent_url  # type: ignore[union-attr]
    _as_version_2(store_path, agent_url, thread)
    _downgrade(store_path)
    assert _version(store_path) == 2

    restored = new_agent(url).thread(thread.id)
    assert _version(store_path) == 3
    assert not _deferred(restored)  # read from its row, validated at once, as version 2 did
    assert _dump(restored) == _dump(thread) and restored.tool_calls == thread.tool_calls
    assert restored.pending == thread.pending and restored.state == thread.state
    assert _pages(store_path, thread.id) == []

    assert (await restored.resume(approve())).outcome == "success"
    assert rows(
        store_path, "SELECT messages, tool_calls FROM threads WHERE id = ?", (thread.id,)
    ) == [("", "")]
    assert sum(items for _, items, _ in _pages(store_path, thread.id)) == len(restored.messages)
    again = new_agent(url).thread(thread.id)
    assert _deferred(again) and _dump(again) == _dump(restored)
    assert [e["tool"] for e in app.executions if e["tool"] == "transfer_money"] == [
        "transfer_money"
    ]


async def test_a_version_2_kernel_writing_after_the_upgrade_is_read_and_then_written_whole(
    demo: tuple[str, DemoApp], store_path: Path | str, quiet: None
) -> None:
    # A kernel that opened the store before the upgrade still writes the old way: the row's
    # JSON texts, its revision untouched. The row is then the newest write.
    url, _ = demo
    agent = new_agent(url)
    thread = agent.thread()
    await _turns(thread, 2)
    elsewhere = new_agent(url, store=None).thread(thread.id)
    elsewhere._snapshot = thread._snapshot
    await _turns(elsewhere, 1)
    _as_version_2(store_path, agent._journal.agent_url, elsewhere)  # type: ignore[union-attr]

    restored = new_agent(url).thread(thread.id)
    assert _dump(restored) == _dump(elsewhere)  # its row, not the older pages
    await thread.run("Show my statement")  # this journal's layout is at the same revision
    again = new_agent(url).thread(thread.id)
    assert _deferred(again) and _dump(again) == _dump(thread)


# -- secrets -------------------------------------------------------------------------------------


class _RotatingToken(httpx.Auth):
    """Sends the first token on the first request and the second on every later one."""

    def __init__(self, first: str, second: str) -> None:
        self.tokens = [first, second]
        self.sent = 0

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = f"Bearer {self.tokens[min(self.sent, 1)]}"
        self.sent += 1
        yield request


async def test_a_secret_learned_after_its_page_was_written_is_scrubbed_at_the_next_commit(
    demo: tuple[str, DemoApp], store_path: Path | str
) -> None:
    url, _ = demo
    later = "sk-second-token-7f3a9c1e"
    auth = _RotatingToken("sk-first-token-0b5d2e88", later)
    agent = new_agent(url, http_client=httpx.AsyncClient(auth=auth))
    thread = agent.thread()
    await thread.run(f"I will use {later} tomorrow")  # nobody knows it is a secret yet
    assert any(later in body for (body,) in rows(store_path, "SELECT body FROM thread_pages"))
    await thread.run(BALANCE)  # sent now: the page written before is written again
    assert not any(later in body for (body,) in rows(store_path, "SELECT body FROM thread_pages"))
    assert later in thread.messages[0].content  # the live thread keeps what you typed
