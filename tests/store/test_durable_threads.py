"""Durable threads against the demo server on loopback: stored at each commit, restored by id.

Each test's agents share the test's own store (tests/store/conftest.py): every test runs on a
SQLite file and on a PostgreSQL database. A second ``Agent`` on the same URL plays a new kernel
(nothing in memory is shared but the server and the store).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agui_notebook import Agent, ExpiredInterrupt, RunError, approve, cancel, policies
from agui_notebook._decisions.audit import arguments_sha256
from agui_notebook._store.backend import describe
from agui_notebook.demo import DemoApp, create_app, start_in_thread
from tests.reliability.chat_driver import Driver
from tests.store._db import rows

pytestmark = pytest.mark.timeout(60)

TRANSFER = "Transfer $500 from 1234567890 to 0987654321"


_AGENTS: list[Agent] = []


def new_agent(url: str, **options: Any) -> Agent:
    """An Agent closed when the test ends (a new kernel's agent, as far as the store can tell)."""
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


def _dump(messages: list[object]) -> list[dict[str, object]]:
    return [m.model_dump(by_alias=True, exclude_none=True) for m in messages]  # type: ignore[attr-defined]


async def test_a_thread_comes_back_as_committed_and_resumes_once(
    demo: tuple[str, DemoApp], store_path: Path | str
) -> None:
    url, app = demo
    first = new_agent(url).thread()
    result = await first.run(TRANSFER)
    assert result.outcome == "interrupt"

    # A new kernel: a new Agent on the same URL, the same store file.
    again = new_agent(url).thread(first.id)
    assert again.id == first.id
    assert _dump(again.messages) == _dump(first.messages)
    assert again.state == first.state and again.state is not None
    assert again.pending == first.pending  # tool name, arguments, schema, expiry, run id
    (pending,) = again.pending
    assert pending.tool_name == "transfer_money"
    assert pending.arguments["amount"] == 500
    assert pending.response_schema and "approved" in pending.response_schema["properties"]
    assert [r.status for r in again.runs] == ["interrupt"]
    assert again.tool_calls.keys() == first.tool_calls.keys()

    done = await again.resume(approve())
    assert done.outcome == "success"
    assert "Transferred 500.00 USD" in done.text
    assert [e["tool"] for e in app.executions] == ["transfer_money"]
    resumes = [r for r in app.requests if (r["body"] or {}).get("resume")]
    assert len(resumes) == 1 and resumes[0]["body"]["threadId"] == first.id
    # The run it sent continues the restored one.
    assert resumes[0]["body"]["parentRunId"] == result.run_id

    third = new_agent(url).thread(first.id)
    assert third.pending == [] and len(third.messages) == len(again.messages)
    assert [r.status for r in third.runs] == ["interrupt", "success"]
    ((count,),) = rows(store_path, "SELECT count(*) FROM runs")
    assert count == 2
    (record,) = [r for (r,) in rows(store_path, "SELECT record FROM audit")]
    assert '"decision":"approve"' in record and '"outcome":"success"' in record
    assert arguments_sha256(pending.arguments) in record


async def test_threads_lists_this_agents_threads_newest_first(demo: tuple[str, DemoApp]) -> None:
    url, _ = demo
    agent = new_agent(url)
    waiting = agent.thread()
    await waiting.run(TRANSFER)
    answered = agent.thread()
    await answered.run("What is my balance?")
    other_agent = new_agent(url + "?tenant=b")  # another URL: not listed
    await other_agent.thread().run("hello")

    listed = new_agent(url).threads()
    assert [t.id for t in listed] == [answered.id, waiting.id]
    assert [t.pending for t in listed] == [0, 1]
    assert listed[0].updated_at >= listed[1].updated_at
    assert listed[1].title == TRANSFER
    assert [t.id for t in new_agent(url).threads(pending=True)] == [waiting.id]
    assert [t.id for t in new_agent(url).threads(pending=False)] == [answered.id]
    assert new_agent(url, store=None).threads() == []


async def test_a_failed_run_changes_nothing_in_the_store(
    demo: tuple[str, DemoApp], store_path: Path | str
) -> None:
    url, _ = demo
    thread = new_agent(url).thread()
    await thread.run("What is my balance?")
    before = rows(store_path, "SELECT * FROM threads")
    with pytest.raises(RunError):
        await thread.run("Please fail now")
    assert rows(store_path, "SELECT * FROM threads") == before
    ((count,),) = rows(store_path, "SELECT count(*) FROM runs")
    assert count == 1


async def test_an_interrupt_that_expired_meanwhile_comes_back_expired(
    demo: tuple[str, DemoApp],
) -> None:
    url, app = demo  # expires_in=1.0
    thread = new_agent(url).thread()
    await thread.run("A quick transfer of $20 from 1234567890 to 0987654321")
    assert thread.pending[0].expires_at is not None
    await asyncio.sleep(1.3)

    restored = new_agent(url).thread(thread.id)
    (pending,) = restored.pending
    assert pending.is_expired()
    sent = len(app.requests)
    with pytest.raises(ExpiredInterrupt):
        await restored.resume(approve())
    assert len(app.requests) == sent  # refused before anything was sent
    result = await restored.resume(cancel())
    assert result.outcome == "success" and app.executions == []


async def test_a_server_that_forgot_the_thread_gives_its_error_and_it_stays_pending() -> None:
    app = create_app(text_delay=0)
    url, stop = start_in_thread(app=app)
    port = int(url.rsplit(":", 1)[1].strip("/"))
    thread = new_agent(url).thread()
    await thread.run(TRANSFER)
    stop()  # the server restarts and remembers nothing
    fresh = create_app(text_delay=0)
    url2, stop2 = start_in_thread(port, app=fresh)
    try:
        assert url2 == url
        restored = new_agent(url).thread(thread.id)
        with pytest.raises(RunError) as raised:
            await restored.resume(approve())
        assert raised.value.code == "THREAD_NOT_FOUND"
        assert [p.id for p in restored.pending] == [p.id for p in thread.pending]
        # ... in memory and in the store.
        assert new_agent(url).thread(thread.id).pending == restored.pending
        assert fresh.executions == []
    finally:
        stop2()


async def test_a_restored_chat_shows_its_card_and_a_click_resumes_it(
    demo: tuple[str, DemoApp], store_path: Path | str
) -> None:
    url, app = demo
    thread = new_agent(url).thread()
    await thread.run(TRANSFER)

    chat = new_agent(url).chat(thread.id, policy=None, timeout=20)
    driver = Driver(chat)
    card = await driver.waiting_card("pending")
    assert [i["toolName"] for i in card["interrupts"]] == ["transfer_money"]
    assert card["interrupts"][0]["args"]["amount"] == 500
    decided = driver.decide(card, "approve")
    assert (await driver.ack(decided))["accepted"] is True
    result = await chat.wait()
    assert result is not None and result.outcome == "success"
    assert "Transferred 500.00 USD" in result.text
    assert len(app.executions) == 1
    assert [(r["decision"], r["decidedBy"], r["outcome"]) for r in chat.audit] == [
        ("approve", "you", "success")
    ]
    (stored,) = [r for (r,) in rows(store_path, "SELECT record FROM audit")]
    assert '"decider":"person"' in stored
    # The card's tool call comes back with its arguments, and the result finds it.
    shown = chat.views[0].static_bundle()["text/plain"]
    assert 'Tool: transfer_money (done)\n  from_account: "1234567890"' in shown
    assert "(earlier call)" not in shown and 'Result: {"ok": true' in shown

    # A later session reads the same records back as chat.audit.
    later = new_agent(url).chat(thread.id)
    assert later.thread.pending == []
    assert [(r["tool"], r["decision"], r["decidedBy"], r["outcome"]) for r in later.audit] == [
        ("transfer_money", "approve", "you", "success")
    ]
    assert later.audit[0]["arguments"]["amount"] == 500
    assert later.audit_text() == chat.audit_text()


async def test_every_kind_of_decider_is_in_the_log(
    demo: tuple[str, DemoApp], store_path: Path | str
) -> None:
    url, _ = demo
    agent = new_agent(url)
    by_policy = agent.chat(policy=policies.approve_all(), display=False)
    await by_policy.send(TRANSFER)
    by_rule = agent.chat(policy=None, display=False)
    by_rule.allow_always("transfer_money")
    await by_rule.send(TRANSFER)
    by_timeout = agent.chat(policy=None, timeout=0.3, on_timeout="cancel", display=False)
    with pytest.warns(UserWarning, match="nobody decided within 0.3 s"):
        await by_timeout.send(TRANSFER)
    records = [r for (r,) in rows(store_path, "SELECT record FROM audit ORDER BY seq")]
    assert len(records) == 3
    assert '"decider":"policy","decision":"approve"' in records[0]
    assert '"decided_by":"approve-all"' in records[0]
    assert '"decided_by":"always allow transfer_money","decider":"rule"' in records[1]
    assert '"decider":"timeout","decision":"cancel"' in records[2]
    assert by_timeout.audit[0]["decidedBy"] == "timeout: cancel after 0.3 s"


async def test_a_failed_resume_from_a_chat_is_in_the_log_and_the_thread_stays_pending(
    store_path: Path | str,
) -> None:
    app = create_app(text_delay=0)
    url, stop = start_in_thread(app=app)
    port = int(url.rsplit(":", 1)[1].strip("/"))
    thread = new_agent(url).thread()
    await thread.run(TRANSFER)
    stop()
    url2, stop2 = start_in_thread(port, app=create_app(text_delay=0))
    try:
        chat = new_agent(url2).chat(thread.id, policy=None, timeout=20)
        driver = Driver(chat)
        card = await driver.waiting_card("pending")
        driver.decide(card, "approve")
        failed = await driver.waiting_card("failed")
        assert "THREAD_NOT_FOUND" in failed["error"]["message"]
        assert chat.thread.pending and new_agent(url).thread(thread.id).pending
        (record,) = [r for (r,) in rows(store_path, "SELECT record FROM audit")]
        assert '"outcome":"failed: RunError THREAD_NOT_FOUND"' in record
        chat.background.cancel()  # type: ignore[union-attr]
    finally:
        stop2()


async def test_an_interrupt_raised_again_after_a_restore_is_still_flagged(
    store_path: Path | str,
) -> None:
    from tests.thread._streams import (
        ScriptedServer,
        approval_run,
        interrupt,
        interrupted,
        ok_run,
        run_finished,
        run_started,
        sse,
    )

    it1 = interrupt("i1", toolCallId="c1")
    server = ScriptedServer(approval_run(it1), ok_run())
    thread = server.agent(store=store_path).thread()
    await thread.run("Transfer $500 to bob")
    assert (await thread.resume(approve())).outcome == "success"

    # A new session; the server (wrongly) raises the answered interrupt on the next run.
    server.add(sse(run_started(run_id="r3"), run_finished(run_id="r3", outcome=interrupted(it1))))
    restored = server.agent(store=store_path).thread(thread.id)
    result = await restored.run("and now?")
    assert result.interrupts[0].reissued is True
    assert any("again after it was answered" in w for w in result.warnings)


async def test_content_parts_subagents_and_encrypted_reasoning_come_back_as_they_were(
    demo: tuple[str, DemoApp],
) -> None:
    url, app = demo
    thread = new_agent(url).thread()
    await thread.run("Show my statement")
    await thread.run("Think privately about it")
    delegated = await thread.run("Delegate a transfer of $20 from 1234567890 to 0987654321")
    assert delegated.outcome == "interrupt"
    assert thread.pending[0].subagent_run_id is not None

    restored = new_agent(url).thread(thread.id)
    assert _dump(restored.messages) == _dump(thread.messages)
    assert restored.tool_calls == thread.tool_calls  # content-part results, metadata, subagent
    assert restored.pending == thread.pending
    assert (await restored.resume(approve())).outcome == "success"
    again = await restored.run("Think privately about it")  # sends the stored signature back
    assert "Earlier signed reasoning returned intact: 1 of 1" in again.text
    assert [e["tool"] for e in app.executions if e["tool"] == "transfer_money"] == [
        "transfer_money"
    ]


async def test_a_replay_keeps_nothing_unless_given_a_store(
    demo: tuple[str, DemoApp], store_path: Path | str, tmp_path: Path
) -> None:
    from agui_notebook.record import record, replay

    url, _ = demo
    recording = tmp_path / "run.jsonl"
    live = record(new_agent(url), recording)
    recorded = live.thread()
    await recorded.run("What is my balance?")
    await live.aclose()
    kept = {s.id for s in new_agent(url).threads()}
    assert recorded.id in kept  # the live run was stored

    quiet = replay(recording)
    _AGENTS.append(quiet)
    assert quiet.store_path is None
    replayed = quiet.thread("replayed")
    await replayed.run("What is my balance?")
    assert {s.id for s in new_agent(url).threads()} == kept

    stored = replay(recording, store=store_path)
    _AGENTS.append(stored)
    assert str(stored.store_path) == describe(store_path)  # a URL without its password
