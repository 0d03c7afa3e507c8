"""The inbox: every approval waiting in the store, a card each; a click resumes from this kernel,
once; new approvals appear at the next read (both backends, the demo agent over loopback)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from agui_notebook import Agent, AlreadyDecided, approve
from agui_notebook.demo import DemoApp, create_app, start_in_thread
from tests.chat.test_chat import capture_acks, click, decide, pending_card

pytestmark = pytest.mark.timeout(120)

TRANSFER = "Transfer $500 from 1234567890 to 0987654321"
SMALL = "Transfer $20 from 1234567890 to 0987654321"


@pytest.fixture
def slow_expiry_demo() -> Iterator[tuple[str, DemoApp]]:
    app = create_app(text_delay=0, expires_in=300.0)  # the click comes well before expiry
    url, stop = start_in_thread(app=app)
    try:
        yield url, app
    finally:
        stop()


def _transfers(app: DemoApp) -> int:
    return len([e for e in app.executions if e["tool"] == "transfer_money"])


async def test_a_card_per_pending_approval_and_a_click_resumes_it_once(
    slow_expiry_demo: tuple[str, DemoApp], store_path: Path | str
) -> None:
    url, app = slow_expiry_demo
    machine_one, machine_two = Agent(url), Agent(url)
    try:
        left = machine_one.thread()
        await left.run(TRANSFER)  # ends pending on the first machine

        inbox = machine_two.inbox(interval=0.05)
        assert [(i.thread_id, i.interrupt.tool_name, i.status) for i in inbox] == [
            (left.id, "transfer_money", "waiting")
        ]
        data, _ = inbox._repr_mimebundle_()
        assert data["text/plain"].splitlines() == [
            "Inbox: 1 pending approval",
            f"- thread {left.id}: transfer_money (waiting)",
        ]
        assert "application/vnd.jupyter.widget-view+json" in data
        assert "<script" not in data["text/html"] and left.id in data["text/html"]

        chat = inbox.chats[left.id]
        card = await pending_card(chat)
        assert card["interrupts"][0]["args"]["amount"] == 500
        acks = capture_acks(chat.view)  # type: ignore[arg-type]
        click(chat, decide(card, "r1", action="approve"))
        final = await asyncio.wait_for(chat.wait(), 30)
        assert final is not None and final.outcome == "success"
        assert acks[0]["accepted"] is True and _transfers(app) == 1

        # The first machine still holds the interrupt in memory: refused, nothing sent.
        with pytest.raises(AlreadyDecided, match="already decided"):
            await left.resume(approve())
        assert _transfers(app) == 1

        # A new approval appears at the next read; the decided one has left the list.
        later = machine_one.thread()
        await later.run(SMALL)
        for _ in range(200):
            if later.id in inbox.chats:
                break
            await asyncio.sleep(0.05)
        assert [i.thread_id for i in inbox] == [later.id]
        assert len(inbox._widget.children) == 2
        assert f"- thread {later.id}: transfer_money (waiting)" in repr(inbox)
        inbox.stop()
    finally:
        await machine_one.aclose()
        await machine_two.aclose()


async def test_an_agent_without_a_store_has_an_empty_inbox() -> None:
    agent = Agent("http://127.0.0.1:9/", store=None)
    inbox = agent.inbox()
    assert inbox == [] and repr(inbox) == "Inbox: no approval is waiting."
    with pytest.raises(ValueError, match="interval must be a positive"):
        agent.inbox(interval=0)
