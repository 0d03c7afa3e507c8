"""The client against the demo agent served by uvicorn on 127.0.0.1: real HTTP, real SSE.

Each decision is checked where it matters, at the server: what the resume carried and which
tools ran.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from agui_notebook import (
    Agent,
    ConnectError,
    ExpiredInterrupt,
    approve,
    cancel,
    edit,
    reject,
)
from agui_notebook.demo import DemoApp, create_app, start_in_thread

TRANSFER = "Transfer $500 from 1234567890 to 0987654321"


@pytest.fixture
def served() -> Iterator[tuple[str, DemoApp]]:
    app = create_app(text_delay=0, expires_in=0.5)
    url, stop = start_in_thread(app=app)
    try:
        yield url, app
    finally:
        stop()


def resumes(app: DemoApp) -> list[dict[str, Any]]:
    return [r["body"]["resume"] for r in app.requests if (r["body"] or {}).get("resume")]


async def test_approve(served: tuple[str, DemoApp]) -> None:
    url, app = served
    async with Agent(url) as agent:
        thread = agent.thread()
        first = await thread.run(TRANSFER)
        assert first.outcome == "interrupt"
        assert thread.pending[0].tool_name == "transfer_money"
        result = await thread.resume(approve())
    assert result.outcome == "success" and thread.pending == []
    assert "Transferred 500.00 USD" in result.text
    assert resumes(app) == [
        [
            {
                "interruptId": first.interrupts[0].id,
                "status": "resolved",
                "payload": {"approved": True},
            }
        ]
    ]
    assert [e["tool"] for e in app.executions] == ["transfer_money"]


async def test_reject_with_reason(served: tuple[str, DemoApp]) -> None:
    url, app = served
    async with Agent(url) as agent:
        thread = agent.thread()
        await thread.run(TRANSFER)
        result = await thread.resume(reject("too much"))
    assert resumes(app)[0][0]["payload"] == {"approved": False, "reason": "too much"}
    assert app.executions == []
    assert "too much" in result.text


async def test_edit(served: tuple[str, DemoApp]) -> None:
    url, app = served
    async with Agent(url) as agent:
        thread = agent.thread()
        await thread.run(TRANSFER)
        await thread.resume(edit(amount=250))
    payload = resumes(app)[0][0]["payload"]
    assert payload["editedArgs"] == {
        "from_account": "1234567890",
        "to_account": "0987654321",
        "amount": 250,
        "currency": "USD",
    }
    assert app.executions[0]["arguments"]["amount"] == 250


async def test_cancel(served: tuple[str, DemoApp]) -> None:
    url, app = served
    async with Agent(url) as agent:
        thread = agent.thread()
        first = await thread.run(TRANSFER)
        result = await thread.resume(cancel())
    # Abandoned: status cancelled and no payload at all.
    assert resumes(app)[0] == [{"interruptId": first.interrupts[0].id, "status": "cancelled"}]
    assert app.executions == [] and result.outcome == "success"


async def test_batched_interrupts_answered_in_one_resume(served: tuple[str, DemoApp]) -> None:
    url, app = served
    async with Agent(url) as agent:
        thread = agent.thread()
        first = await thread.run("two transfers please")
        assert len(first.interrupts) == 2
        a, b = thread.pending
        await thread.resume({a.id: approve(), b.id: reject("not this one")})
    sent = resumes(app)
    assert len(sent) == 1 and {e["interruptId"] for e in sent[0]} == {a.id, b.id}
    assert [e["tool"] for e in app.executions] == [a.tool_name]


async def test_expired_interrupt_can_only_be_cancelled(served: tuple[str, DemoApp]) -> None:
    url, app = served
    async with Agent(url) as agent:
        thread = agent.thread()
        await thread.run("quick transfer of $5 from 1234567890 to 0987654321")
        assert thread.pending[0].expires_at is not None
        await asyncio.sleep(0.6)
        with pytest.raises(ExpiredInterrupt):
            await thread.resume(approve())
        assert resumes(app) == []  # refused before any request
        result = await thread.resume(cancel())
    assert result.outcome == "success" and resumes(app)[0][0]["status"] == "cancelled"


async def test_failed_resume_then_the_same_decision_succeeds() -> None:
    app = create_app(text_delay=0)
    url, stop = start_in_thread(app=app)
    port = int(url.rstrip("/").rsplit(":", 1)[1])
    async with Agent(url, timeout=5) as agent:
        thread = agent.thread()
        await thread.run(TRANSFER)
        pending_before = thread.pending
        messages_before = thread.messages
        stop()  # the server goes away: the resume cannot connect
        with pytest.raises(ConnectError):
            await thread.resume(edit(amount=300))
        assert thread.pending == pending_before and thread.messages == messages_before
        assert thread.runs[-1].status == "failed"
        url_again, stop_again = start_in_thread(port, app=app)  # same app: same thread store
        try:
            assert url_again == url
            result = await thread.resume(edit(amount=300))
        finally:
            stop_again()
    assert result.outcome == "success"
    assert len(resumes(app)) == 1 and app.executions[0]["arguments"]["amount"] == 300
