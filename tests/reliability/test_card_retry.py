"""The card shows a failed resume and a Retry that re-sends the same decision (issues 8, 18).

``agent.chat(timeout=5)`` with no kernel; the card's clicks are custom messages delivered to
``ChatView._handle_custom_msg`` as the front end sends them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from chat_driver import Driver
from fault_server import ApplyThenDrop, Cut, Fault, FaultServer, RunErrorMidRun, Stall, Status

from agui_notebook import Agent

pytestmark = pytest.mark.timeout(30)

TRANSFER = "Transfer $500 from 1234567890 to 0987654321"

FAULTS: dict[str, tuple[Callable[[], Fault], str, str]] = {
    "503": (
        lambda: Status(503, '{"error": "overloaded"}'),
        "The server answered with an error",
        "HTTP 503",
    ),
    "cut": (lambda: Cut("mid_event", "drop"), "The run was cut off", "the connection dropped"),
    "run_error": (
        lambda: RunErrorMidRun(),
        "The agent reported an error",
        "[UPSTREAM_UNAVAILABLE]",
    ),
    "stall": (lambda: Stall(30, headers=True, events=1), "The agent went silent", "read timeout"),
}


@pytest.mark.parametrize("name", list(FAULTS))
async def test_failed_resume_shows_on_the_card_and_retry_resends_the_same_decision(
    fault_server: FaultServer, name: str
) -> None:
    make, title, said = FAULTS[name]
    chat = Agent(fault_server.url, timeout=1.0, idle_timeout=1.0).chat(timeout=5)
    driver = Driver(chat)
    turn = asyncio.create_task(chat.send(TRANSFER))
    try:
        card = await driver.waiting_card("pending")
        fault_server.script(make())
        decided = driver.decide(card, "approve")
        assert (await driver.ack(decided))["accepted"] is True

        failed = await driver.waiting_card("failed")
        assert failed["id"] == card["id"]
        assert failed["error"]["title"] == title
        assert said in failed["error"]["message"]
        assert chat.thread.pending and chat.thread.pending[0].id == card["interrupts"][0]["id"]
        errors = [i for i in chat.view.items if i["kind"] == "error"]
        assert errors and errors[-1]["title"] == title
        assert chat.audit[-1]["outcome"].startswith("failed")

        retried = driver.retry(failed)
        assert (await driver.ack(retried))["accepted"] is True
        result = await asyncio.wait_for(turn, 5)
    finally:
        turn.cancel()
    assert result.outcome == "success"
    assert driver.card(card["id"])["status"] == "done"
    assert driver.card(card["id"])["error"] is None
    attempts = [s.resume for s in fault_server.resumes]
    assert len(attempts) == 2 and attempts[0] == attempts[1]
    assert len(fault_server.successful_resumes) == 1
    assert [(r["decision"], r["decidedBy"], r["outcome"]) for r in chat.audit] == [
        ("approve", "you", "success")
    ]


async def test_retry_failing_again_stays_retryable(fault_server: FaultServer) -> None:
    chat = Agent(fault_server.url, timeout=1.0).chat(timeout=5)
    driver = Driver(chat)
    turn = asyncio.create_task(chat.send(TRANSFER))
    try:
        card = await driver.waiting_card("pending")
        fault_server.script(Status(500, "boom"), Cut("between_events", "drop"))
        driver.decide(card, "reject", reason="not today")
        failed = await driver.waiting_card("failed")
        driver.retry(failed)
        failed_again = await driver.waiting_card("failed", error_title="The run was cut off")
        # A second retry message for the same failure, sent twice (double click): one goes out.
        first, second = driver.retry(failed_again), driver.retry(failed_again)
        result = await asyncio.wait_for(turn, 5)
    finally:
        turn.cancel()
    assert result.outcome == "success"
    acks = {a["requestId"]: a["accepted"] for a in driver.acks}
    assert acks[first] is True and acks[second] is False
    attempts = [s.resume for s in fault_server.resumes]
    assert len(attempts) == 3 and all(a == attempts[0] for a in attempts)
    assert attempts[0][0]["status"] == "resolved"
    assert attempts[0][0]["payload"]["approved"] is False
    assert len(fault_server.successful_resumes) == 1


async def test_a_retry_click_when_nothing_failed_is_refused(fault_server: FaultServer) -> None:
    chat = Agent(fault_server.url, timeout=1.0).chat(timeout=5)
    driver = Driver(chat)
    turn = asyncio.create_task(chat.send(TRANSFER))
    try:
        card = await driver.waiting_card("pending")
        refused = driver.retry(card)
        ack = await driver.ack(refused)
        assert ack["accepted"] is False and "nothing to retry" in ack["error"]
        driver.decide(card)
        result = await asyncio.wait_for(turn, 5)
    finally:
        turn.cancel()
    assert result.outcome == "success"
    assert len(fault_server.resumes) == 1


async def test_a_resume_applied_then_dropped_says_so_on_the_card_and_retry_is_the_same(
    fault_server: FaultServer,
) -> None:
    """The server applies the decision, then the connection drops before it answers. The card
    says the decision may already have been applied; Retry re-sends the same resume (same
    interrupt ids, same payloads), so the deduplicating server applies it once."""
    chat = Agent(fault_server.url, timeout=2.0).chat(timeout=5)
    driver = Driver(chat)
    turn = asyncio.create_task(chat.send(TRANSFER))
    try:
        card = await driver.waiting_card("pending")
        fault_server.script(ApplyThenDrop())
        driver.decide(card, "reject", reason="not today")
        failed = await driver.waiting_card("failed")
        assert "the server may already have applied it" in failed["error"]["message"]
        errors = [i for i in chat.view.items if i["kind"] == "error"]
        assert "same interrupt ids" in errors[-1]["hint"]
        assert fault_server.applications == [card["interrupts"][0]["id"]]
        retried = driver.retry(failed)
        assert (await driver.ack(retried))["accepted"] is True
        result = await asyncio.wait_for(turn, 5)
    finally:
        turn.cancel()
    assert result.outcome == "success"
    assert driver.card(card["id"])["status"] == "done"
    first_try, retry = (s.resume for s in fault_server.resumes)
    assert first_try == retry and first_try is not None
    assert first_try[0]["interruptId"] == card["interrupts"][0]["id"]
    assert first_try[0]["payload"] == {"approved": False, "reason": "not today"}
    assert fault_server.applications == [card["interrupts"][0]["id"]]  # once, not twice
    assert [(r["decision"], r["outcome"]) for r in chat.audit] == [("reject", "success")]
