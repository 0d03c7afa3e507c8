"""Exactly once (issues 8 and 18): one resume per set of pending interrupts, counted at the server.

Against the demo server on 127.0.0.1 (``start_in_thread``); ``app.requests`` records every
request the server received. The fault server covers a resume applied before the connection
dropped: a retry must be the same resume, so a deduplicating server applies it once.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from chat_driver import Driver
from fault_server import ApplyThenDrop, FaultServer, Status

from agui_notebook import (
    Agent,
    ConnectError,
    HTTPStatusError,
    NothingPending,
    ThreadBusy,
    TransportError,
    approve,
    edit,
    policies,
)
from agui_notebook.demo import DemoApp

pytestmark = pytest.mark.timeout(30)

TRANSFER = "Transfer $500 from 1234567890 to 0987654321"


def resumes(app: DemoApp, thread_id: str) -> list[list[dict[str, Any]]]:
    """The resume payloads the server received for ``thread_id``."""
    return [
        r["body"]["resume"]
        for r in list(app.requests)
        if isinstance(r["body"], dict)
        and r["body"].get("threadId") == thread_id
        and r["body"].get("resume")
    ]


def transfers(app: DemoApp, thread_id: str) -> list[dict[str, Any]]:
    return [
        e for e in app.executions if e["thread_id"] == thread_id and e["tool"] == "transfer_money"
    ]


async def test_double_click_sends_one_resume(demo: tuple[str, DemoApp]) -> None:
    url, app = demo
    chat = Agent(url, timeout=5).chat(timeout=5)
    driver = Driver(chat)
    turn = asyncio.create_task(chat.send(TRANSFER))
    try:
        card = await driver.waiting_card()
        first = driver.decide(card, "approve")
        second = driver.decide(card, "approve")  # the same button, clicked twice
        result = await asyncio.wait_for(turn, 5)
    finally:
        turn.cancel()
    assert result.outcome == "success"
    a, b = await driver.ack(first), await driver.ack(second)
    assert a["accepted"] is True
    assert b["accepted"] is False and b["late"] is True
    assert b["error"] == (
        "Your Approve arrived after another click had approved; only that decision was sent."
    )
    assert len(resumes(app, chat.thread.id)) == 1
    assert len(transfers(app, chat.thread.id)) == 1


async def test_two_front_ends_of_one_card_send_one_resume(demo: tuple[str, DemoApp]) -> None:
    """One widget model shown twice (two cells, or two browser tabs): two requestIds, and the
    two clicks may arrive on different kernel threads at once."""
    url, app = demo
    chat = Agent(url, timeout=5).chat(timeout=5)
    driver = Driver(chat)
    turn = asyncio.create_task(chat.send(TRANSFER))
    try:
        card = await driver.waiting_card()
        barrier = threading.Barrier(2)
        ids = ["tab-a", "tab-b"]

        def click(request_id: str, action: str) -> None:
            barrier.wait()
            if action == "reject":
                driver.decide(card, action, request_id=request_id, reason="no")
            else:
                driver.decide(card, action, request_id=request_id)

        threads = [
            threading.Thread(target=click, args=(ids[0], "approve")),
            threading.Thread(target=click, args=(ids[1], "reject")),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(5)
        result = await asyncio.wait_for(turn, 5)
    finally:
        turn.cancel()
    acks = [await driver.ack(i) for i in ids]
    assert sorted(a["accepted"] for a in acks) == [False, True]
    winner = "approve" if acks[0]["accepted"] else "reject"
    sent = resumes(app, chat.thread.id)
    assert len(sent) == 1
    assert sent[0][0]["payload"]["approved"] is (winner == "approve")
    assert [r["decision"] for r in chat.audit if not r.get("late")] == [winner]
    # The losing click is audited as late, never as sent.
    [late] = [r for r in chat.audit if r.get("late")]
    assert late["decision"] != winner and late["outcome"].startswith("late, not sent")
    assert result.outcome == "success"


async def test_a_policy_and_a_click_racing_send_one_resume(demo: tuple[str, DemoApp]) -> None:
    url, app = demo
    clicks: list[str] = []
    holder: dict[str, Driver] = {}

    class ClickWhileDeciding:
        """Approves, while a person's click arrives at that very moment (from this and
        from another thread)."""

        name = "approve (racing a click)"

        def decide(self, interrupt: Any) -> Any:
            driver = holder["driver"]
            card = {"id": "card-1", "interrupts": [{"id": interrupt.id}]}
            clicks.append(driver.decide(card, "reject", reason="mine"))
            other = threading.Thread(target=lambda: clicks.append(driver.decide(card, "reject")))
            other.start()
            other.join(5)
            return approve()

    chat = Agent(url, timeout=5).chat(policy=ClickWhileDeciding(), timeout=5)
    driver = holder["driver"] = Driver(chat)
    chat._new_view(show=False)  # the view exists before the turn so the click can target it
    await driver.view()
    result = await asyncio.wait_for(chat.send(TRANSFER), 5)
    assert result.outcome == "success"
    late = driver.decide(driver.cards()[-1], "reject")  # a click after the card is done
    for request_id in [*clicks, late]:
        ack = await driver.ack(request_id)
        assert ack["accepted"] is False, ack
    sent = resumes(app, chat.thread.id)
    assert len(sent) == 1 and sent[0][0]["payload"]["approved"] is True
    assert [(r["decision"], r["decidedBy"]) for r in chat.audit if not r.get("late")] == [
        ("approve", "policy: approve (racing a click)")
    ]
    assert [(r["decision"], r["late"]) for r in chat.audit if r.get("late")] == [
        ("reject", True)
    ] * 3
    assert len(transfers(app, chat.thread.id)) == 1


async def test_approve_all_policy_then_late_click_is_refused(demo: tuple[str, DemoApp]) -> None:
    url, app = demo
    chat = Agent(url, timeout=5).chat(policy=policies.approve_all(), timeout=5)
    driver = Driver(chat)
    result = await asyncio.wait_for(chat.send(TRANSFER), 5)
    await driver.view()
    late = driver.decide(driver.cards()[-1], "reject")
    assert (await driver.ack(late))["accepted"] is False
    assert result.outcome == "success"
    assert len(resumes(app, chat.thread.id)) == 1


async def test_two_resumes_started_at_once_on_one_thread_send_one(
    demo: tuple[str, DemoApp],
) -> None:
    url, app = demo
    thread = Agent(url, timeout=5).thread()
    await thread.run(TRANSFER)
    assert len(thread.pending) == 1
    outcomes = await asyncio.gather(
        thread.resume(approve()), thread.resume(approve()), return_exceptions=True
    )
    results = [o for o in outcomes if not isinstance(o, BaseException)]
    errors = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(results) == 1 and results[0].outcome == "success"
    assert len(errors) == 1 and isinstance(errors[0], ThreadBusy | NothingPending), errors
    with pytest.raises(NothingPending):
        await thread.resume(approve())  # and once it went through, nothing is left to answer
    assert len(resumes(app, thread.id)) == 1
    assert len(transfers(app, thread.id)) == 1


async def test_two_agents_on_one_thread_id_resuming_at_once_send_one(
    demo: tuple[str, DemoApp],
) -> None:
    """Two Thread objects for one threadId (e.g. agent.thread(id) in two cells) each hold the
    pending interrupt; only one resume may reach the server... or the server must refuse the
    second (it does: RESUME_ALREADY_APPLIED), and no tool runs twice."""
    url, app = demo
    agent = Agent(url, timeout=5)
    first = agent.thread()
    await first.run(TRANSFER)
    second = agent.thread(first.id)
    second._pending = first.pending  # the same pending set, as a second cell would see it
    outcomes = await asyncio.gather(
        first.resume(approve()), second.resume(approve()), return_exceptions=True
    )
    assert any(not isinstance(o, BaseException) for o in outcomes)
    assert len(transfers(app, first.id)) == 1


async def test_a_click_from_another_thread_resolves_the_wait_promptly(
    demo: tuple[str, DemoApp],
) -> None:
    """JupyterLab >= 4.4 delivers comm messages on a kernel subshell thread."""
    url, app = demo
    chat = Agent(url, timeout=5).chat(timeout=10)
    driver = Driver(chat)
    turn = asyncio.create_task(chat.send(TRANSFER))
    try:
        card = await driver.waiting_card()
        clicked: list[float] = []

        def subshell() -> None:
            clicked.append(time.monotonic())
            driver.decide(card, "approve", request_id="from-subshell")

        worker = threading.Thread(target=subshell, name="subshell-1")
        worker.start()
        result = await asyncio.wait_for(turn, 5)
        done = time.monotonic()
        worker.join(5)
    finally:
        turn.cancel()
    assert result.outcome == "success"
    assert done - clicked[0] < 1.0, f"the click took {done - clicked[0]:.2f} s to take effect"
    assert (await driver.ack("from-subshell"))["accepted"] is True
    assert len(resumes(app, chat.thread.id)) == 1


async def test_code_resume_racing_a_click_sends_one_and_the_turn_ends(
    demo: tuple[str, DemoApp],
) -> None:
    """A person clicks on the card while code answers the same interrupt with
    ``chat.thread.resume``: one resume reaches the server, and the cell does not hang
    waiting for another click on a card whose interrupt is already answered."""
    url, app = demo
    chat = Agent(url, timeout=5).chat(timeout=5)
    driver = Driver(chat)
    turn = asyncio.create_task(chat.send(TRANSFER))
    try:
        card = await driver.waiting_card()
        code = asyncio.create_task(chat.thread.resume(approve()))
        await asyncio.sleep(0)  # the code's resume is in flight
        driver.decide(card, "approve")
        started = time.monotonic()
        outcomes = await asyncio.gather(code, asyncio.wait_for(turn, 10), return_exceptions=True)
        ended = time.monotonic() - started
    finally:
        turn.cancel()
    assert len(resumes(app, chat.thread.id)) == 1
    assert len(transfers(app, chat.thread.id)) == 1
    assert not isinstance(outcomes[0], BaseException)
    assert ended < 2.0, f"the turn ended only after {ended:.1f} s (its wait timeout is 5 s)"
    assert driver.card(card["id"])["status"] != "pending"
    # The audit must not record a decision that was never sent (the timeout's default).
    assert all(not r["decidedBy"].startswith("timeout") for r in chat.audit), chat.audit


# -- the server applied the resume, then the connection dropped (issue 18) ----------------------


async def test_a_resume_applied_then_dropped_says_so_and_a_retry_is_the_same_resume(
    fault_server: FaultServer,
) -> None:
    """The server acts on the decision and the connection breaks before it answers: the client
    cannot tell, so the error says the decision may have been applied; the interrupt stays
    pending here, and re-sending sends the very same entries (same interrupt id, same payload),
    which a deduplicating server recognises: the decision takes effect once."""
    thread = Agent(fault_server.url, timeout=5).thread()
    first = await thread.run(TRANSFER)
    interrupt_id = first.interrupts[0].id
    fault_server.script(ApplyThenDrop())
    with pytest.raises(TransportError) as info:
        await thread.resume(edit(amount=250))
    error = info.value
    assert not isinstance(error, ConnectError)
    assert error.maybe_applied and error.during == "resume"
    assert "the server may already have applied it" in str(error)
    assert error.hint is not None and "same interrupt ids" in error.hint
    assert thread.runs[-1].error is error and thread.runs[-1].status == "failed"
    assert [p.id for p in thread.pending] == [interrupt_id]  # still answerable here
    assert fault_server.applications == [interrupt_id]  # ... though the server applied it

    result = await thread.resume(edit(amount=250))
    assert result.outcome == "success"
    first_try, retry = (s.resume for s in fault_server.resumes)
    assert first_try == retry  # the same interrupt id, status and payload
    assert first_try is not None and first_try[0]["interruptId"] == interrupt_id
    assert first_try[0]["payload"]["editedArgs"]["amount"] == 250
    assert fault_server.applications == [interrupt_id]  # applied once, not twice
    assert thread.pending == []


async def test_a_run_that_fails_does_not_claim_a_decision_was_kept(
    fault_server: FaultServer,
) -> None:
    """Hints fit what the thread had: nothing was pending on a first run."""
    thread = Agent(fault_server.url, timeout=5).thread()
    fault_server.script(Status(500, '{"error": "boom"}'), ApplyThenDrop())
    with pytest.raises(HTTPStatusError) as info:
        await thread.run(TRANSFER)
    assert info.value.during == "run" and not info.value.maybe_applied
    hint = info.value.hint or ""
    assert "decision" not in hint and "message can be sent again" in hint
    with pytest.raises(TransportError) as dropped:
        await thread.run(TRANSFER)
    assert not dropped.value.maybe_applied and "may already have applied" not in str(dropped.value)
    await thread.run(TRANSFER)
    fault_server.script(Status(503, '{"error": "busy"}'))
    with pytest.raises(HTTPStatusError) as on_resume:
        await thread.resume(approve())
    assert "still pending" in (on_resume.value.hint or "")
