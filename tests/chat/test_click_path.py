"""A click's path: the card's new state reaches the view in one push, before the resume goes out.

Each push re-sends the card's page (and, in JupyterLab, redraws it), so a click that pushed the
same "sending" card twice cost two round trips for nothing. These tests count the view's pushes
around one click, the way the front end would see them.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from agui_notebook import Agent
from agui_notebook._chat.chat import Chat
from agui_notebook._view.widget import ChatView
from tests.chat.test_chat import TRANSFER, capture_acks, click, decide, pending_card, resumes


@pytest.fixture
def agent() -> Agent:
    return Agent.demo(text_delay=0)


class Pushes:
    """Each push of a view: whether a resume had reached the server, and the card's status."""

    def __init__(self, view: ChatView, agent: Agent) -> None:
        self.seen: list[tuple[bool, str]] = []
        push = view.push

        def counted(items: list[dict[str, Any]], state: Any) -> None:
            card = next(i for i in reversed(items) if i["kind"] == "card")
            self.seen.append((bool(resumes(agent)), card["status"]))
            push(items, state)

        view.push = counted  # type: ignore[method-assign]

    def before_resume(self) -> list[str]:
        return [status for resumed, status in self.seen if not resumed]

    def after_resume(self) -> list[str]:
        return [status for resumed, status in self.seen if resumed]


async def card_status(chat: Chat, status: str, timeout: float = 5.0) -> dict[str, Any]:
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        for item in chat.view.items if chat.view else []:
            if item["kind"] == "card" and item["status"] == status:
                return item
        await asyncio.sleep(0.01)
    raise AssertionError(f"no {status} card appeared")


async def test_a_click_is_one_push_then_the_resume_then_one_push_for_done(agent: Agent) -> None:
    chat = agent.chat(timeout=10)
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    assert chat.view is not None
    pushes = Pushes(chat.view, agent)
    acks = capture_acks(chat.view)
    click(chat, decide(card, "r1", action="approve"))
    result = await asyncio.wait_for(send, 10)

    assert result.outcome == "success"
    assert acks == [{"type": "ack", "requestId": "r1", "accepted": True}]
    assert pushes.before_resume() == ["sending"]  # decided, audited and shown: once
    after = pushes.after_resume()
    assert after[-1] == "done" and after.count("done") == 1  # the tools marked with it
    assert chat.audit[0]["outcome"] == "success"
    assert next(i for i in chat.view.items if i["kind"] == "card")["decidedBy"] == "you"


async def test_a_retry_click_is_one_push_before_the_same_decision_is_sent_again(
    agent: Agent,
) -> None:
    chat = agent.chat(timeout=10)
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    transport = agent._transport._given_client._transport  # type: ignore[union-attr]
    original = transport.handle_async_request
    calls = 0

    async def refused_once(request: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise httpx.ConnectError("connection refused (test)")
        return await original(request)

    transport.handle_async_request = refused_once
    click(chat, decide(card, "a", action="reject", reason="not today"))
    failed = await card_status(chat, "failed")
    assert chat.audit[0]["outcome"].startswith("failed")
    assert chat.view is not None
    pushes = Pushes(chat.view, agent)
    acks = capture_acks(chat.view)
    click(chat, {"type": "retry", "requestId": "again", "card": failed["id"]})
    result = await asyncio.wait_for(send, 10)

    assert result.outcome == "success"
    assert acks == [{"type": "ack", "requestId": "again", "accepted": True}]
    assert pushes.before_resume() == ["sending"]
    assert [r["payload"] for r in resumes(agent)[0]["resume"]] == [
        {"approved": False, "reason": "not today"}
    ]
    assert [(r["decision"], r["outcome"]) for r in chat.audit] == [("reject", "success")]
    tool = next(i for i in chat.view.items if i["kind"] == "tool")
    assert tool["status"] == "rejected"


async def test_a_counted_approval_is_one_push_and_the_last_one_sends(agent: Agent) -> None:
    from tests.front_end import FakeHost

    chat = agent.chat(timeout=10, approvals=2)
    host = chat.host
    assert isinstance(host, FakeHost)
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    assert chat.view is not None
    pushes = Pushes(chat.view, agent)
    acks = capture_acks(chat.view)
    host.header = {"username": "ada"}
    click(chat, decide(card, "ada", action="approve"))
    for _ in range(500):  # the click is handled on the loop, soon
        if acks:
            break
        await asyncio.sleep(0.01)
    counted = next(i for i in chat.view.items if i["kind"] == "card")
    assert acks == [{"type": "ack", "requestId": "ada", "accepted": True, "waiting": True}]
    assert pushes.before_resume() == ["pending"]
    assert counted["approvals"]["text"] == "1 of 2 approvals: ada"
    host.header = {"username": "bob"}
    click(chat, decide(card, "bob", action="approve"))
    result = await asyncio.wait_for(send, 10)

    assert result.outcome == "success" and len(resumes(agent)) == 1
    assert pushes.before_resume() == ["pending", "sending"]
    done = next(i for i in chat.view.items if i["kind"] == "card")
    assert (done["decidedBy"], result.decided_by) == ("ada, bob", "bob")
