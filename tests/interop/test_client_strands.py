"""agui_notebook end to end against Strands Agents through ag-ui-strands (1.0.2; strands 1.62).

The server is tests/servers/strands/server.py in its own venv: a Strands ``Agent`` whose model is
scripted (a ``Model`` subclass, no LLM, no AWS credentials), wrapped by ag-ui-strands'
``StrandsAgent`` and served with its ``create_strands_app``. Each ``--style`` pauses
``transfer_money`` another way; one server process per style, shared by this module:

- ``approval``: the adapter's own tool-shaped approval (``interrupt_on_call``), which reads
  ``approved`` alone: edit is unavailable, and the card says so;
- ``hook`` / ``tool``: a plain Strands interrupt raised from a ``BeforeToolCallEvent`` hook / inside
  the tool, the tool in ``metadata.reason``; the code applies ``editedArgs``;
- ``bad-reason`` / ``no-fields``: a plain interrupt whose reason names no tool.

The server records each execution of the tool: a resume is applied once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from agui_notebook import (
    Agent,
    InvalidDecision,
    NothingPending,
    answer,
    approve,
    cancel,
    edit,
    policies,
    reject,
)
from agui_notebook._state.items import card_interrupt

pytestmark = pytest.mark.interop

TRANSFER_ARGS = {
    "from_account": "checking",
    "to_account": "savings",
    "amount": 100.0,
    "currency": "USD",
}
PLAIN = ["hook", "tool"]


@pytest.fixture(scope="module")
def strands(external_server: Callable[..., Any]) -> Callable[[str], Any]:
    def get(style: str) -> Any:
        server = external_server("strands", "--style", style)
        server.clear()
        return server

    return get


@pytest.fixture
async def agent_for() -> AsyncIterator[Callable[[Any], Agent]]:
    opened: list[Agent] = []

    def make(server: Any) -> Agent:
        agent = Agent(server.url, timeout=60.0, store=None)
        opened.append(agent)
        return agent

    yield make
    for agent in opened:
        await agent.aclose()


def runs(server: Any) -> list[Any]:
    return [r for r in server.requests if r.method == "POST" and r.path == "/"]


async def pause(server: Any, agent_for: Callable[[Any], Agent]) -> tuple[Any, Any]:
    thread = agent_for(server).thread()
    first = await thread.run("Please transfer 100 USD to savings")
    assert first.outcome == "interrupt", first.text
    (pending,) = first.interrupts
    return thread, pending


@pytest.mark.parametrize("style", PLAIN)
@pytest.mark.parametrize(
    ("decision", "ran", "text"),
    [
        (approve(), TRANSFER_ARGS, "Transferred 100.00 USD."),
        (edit(amount=250.0), {**TRANSFER_ARGS, "amount": 250.0}, "Transferred 250.00 USD."),
        (reject("too much"), None, "The transfer was not approved (too much)."),
        (cancel(), None, "Cancelled."),
    ],
    ids=["approve", "edit", "reject", "cancel"],
)
async def test_a_plain_interrupt_shows_the_tool_and_resumes_once(
    strands: Callable[[str], Any],
    agent_for: Callable[[Any], Agent],
    style: str,
    decision: Any,
    ran: dict[str, Any] | None,
    text: str,
) -> None:
    server = strands(style)
    thread, pending = await pause(server, agent_for)
    assert pending.reason == "approve-transfer"  # the Strands interrupt's name
    assert (pending.tool_name, pending.arguments) == ("transfer_money", TRANSFER_ARGS)
    assert pending.raw["metadata"]["reason"]["tool_use_id"] == pending.tool_call_id
    card = card_interrupt(pending, None)
    assert (card["mode"], card["toolName"], card["args"]) == (
        "tool",
        "transfer_money",
        TRANSFER_ARGS,
    )
    assert card["canEdit"] and card["editNote"] is None

    result = await thread.resume(decision)
    assert (result.outcome, result.text) == ("success", text)
    assert thread.pending == []
    assert server.executions == ([("transfer_money", ran)] if ran is not None else [])
    sent = runs(server)
    assert len(sent) == 2  # the run and one resume: nothing re-sent
    [entry] = sent[1].json["resume"]
    assert entry["interruptId"] == pending.id
    if decision.kind == "cancel":
        assert entry["status"] == "cancelled"
    if decision.kind == "edit":
        assert entry["payload"] == {
            "approved": True,
            "editedArgs": {**TRANSFER_ARGS, "amount": 250.0},
        }


@pytest.mark.parametrize(
    ("decision", "ran", "text"),
    [
        (approve(), TRANSFER_ARGS, "Transferred 100.00 USD."),
        (reject("too much"), None, "User denied approval for 'transfer_money'."),
        (cancel(), None, "User denied approval for 'transfer_money'."),
    ],
    ids=["approve", "reject", "cancel"],
)
async def test_the_adapters_approval_shows_the_tool_and_resumes_once(
    strands: Callable[[str], Any],
    agent_for: Callable[[Any], Agent],
    decision: Any,
    ran: dict[str, Any] | None,
    text: str,
) -> None:
    server = strands("approval")
    thread, pending = await pause(server, agent_for)
    assert (pending.reason, pending.tool_name, pending.arguments) == (
        "tool_call",
        "transfer_money",
        TRANSFER_ARGS,
    )
    card = card_interrupt(pending, None)
    assert card["mode"] == "tool" and card["args"] == TRANSFER_ARGS
    result = await thread.resume(decision)
    assert (result.outcome, result.text) == ("success", text)
    assert server.executions == ([("transfer_money", ran)] if ran is not None else [])
    assert len(runs(server)) == 2


async def test_the_adapters_approval_says_edit_is_unavailable_and_sends_nothing(
    strands: Callable[[str], Any], agent_for: Callable[[Any], Agent]
) -> None:
    # Its hook reads ``approved`` alone (the server ran 100.00 when sent editedArgs by hand): an
    # edit would be dropped, so it is refused before anything is sent and the card says why.
    server = strands("approval")
    thread, pending = await pause(server, agent_for)
    card = card_interrupt(pending, None)
    assert not card["canEdit"] and "Edit is unavailable" in card["editNote"]
    with pytest.raises(InvalidDecision, match="no place for edited arguments"):
        await thread.resume(edit(amount=250.0))
    assert len(runs(server)) == 1 and [p.id for p in thread.pending] == [pending.id]
    result = await thread.resume(approve())  # still pending, still answerable, once
    assert result.text == "Transferred 100.00 USD."
    assert server.executions == [("transfer_money", TRANSFER_ARGS)]


@pytest.mark.parametrize("style", ["bad-reason", "no-fields"])
async def test_a_reason_naming_no_tool_still_makes_a_working_card(
    strands: Callable[[str], Any], agent_for: Callable[[Any], Agent], style: str
) -> None:
    server = strands(style)
    thread, pending = await pause(server, agent_for)
    assert pending.tool_name is None and pending.arguments is None
    assert "the tool is unknown" in (pending.message or "")
    card = card_interrupt(pending, None)
    assert card["mode"] == "free" and card["review"] == pending.raw["metadata"]["reason"]
    result = await thread.resume(answer({"approved": True}))
    assert (result.outcome, result.text) == ("success", "Transferred 100.00 USD.")
    assert server.executions == [("transfer_money", TRANSFER_ARGS)]
    assert len(runs(server)) == 2


async def test_a_plain_message_is_answered(
    strands: Callable[[str], Any], agent_for: Callable[[Any], Agent]
) -> None:
    result = await agent_for(strands("hook")).thread().run("hello")
    assert (result.outcome, result.text) == ("success", "Echo: hello")


@pytest.mark.parametrize("style", PLAIN)
async def test_a_second_resume_is_refused_and_not_sent(
    strands: Callable[[str], Any], agent_for: Callable[[Any], Agent], style: str
) -> None:
    server = strands(style)
    thread, _ = await pause(server, agent_for)
    await thread.resume(approve())
    with pytest.raises(NothingPending):
        await thread.resume(approve())
    assert len(runs(server)) == 2
    assert server.executions == [("transfer_money", TRANSFER_ARGS)]


# --- the chat's own card (headless, decided by a policy) ----------------------------------------


def cards(chat: Any) -> list[dict[str, Any]]:
    return [item for item in chat.view.items if item["kind"] == "card"]


@pytest.mark.parametrize("style", ["approval", *PLAIN])
async def test_the_chats_card_names_the_tool_and_a_policy_resumes_once(
    strands: Callable[[str], Any], agent_for: Callable[[Any], Agent], style: str
) -> None:
    server = strands(style)
    chat = agent_for(server).chat(policy=policies.approve_all(), display=False)
    result = await chat.send("Please transfer 100 USD to savings")
    assert (result.outcome, result.text) == ("success", "Transferred 100.00 USD.")
    [card] = cards(chat)
    [shown] = card["interrupts"]
    assert (shown["mode"], shown["toolName"], shown["args"]) == (
        "tool",
        "transfer_money",
        TRANSFER_ARGS,
    )
    assert shown["canEdit"] is (style != "approval")
    assert (shown["editNote"] is None) is (style != "approval")
    [decision] = result.decisions
    assert decision["tool"] == "transfer_money" and decision["decision"] == "approve"
    tools = [item for item in chat.view.items if item["kind"] == "tool"]
    assert [(t["name"], t["status"]) for t in tools] == [("transfer_money", "done")]
    assert server.executions == [("transfer_money", TRANSFER_ARGS)]
    assert len(runs(server)) == 2
