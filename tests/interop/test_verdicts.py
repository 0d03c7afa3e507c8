"""Approved = executed, against real servers over HTTP on 127.0.0.1 (issue 43).

Each decided tool call gets an execution verdict after the resumed run. What each server reports
after a decision (docs/compatibility.md, "After a decision"):

- the demo agent: a TOOL_CALL_RESULT for an approved call; for a refused one a result that says
  so (``{"ok": false, "status": "rejected"}``);
- Microsoft Agent Framework: a TOOL_CALL_RESULT for an approved call; a rejected one gets a tool
  message in the run's MESSAGES_SNAPSHOT that says it was rejected; a cancel, nothing;
- pydantic-ai: a TOOL_CALL_RESULT for an approved call; for a denied or cancelled one a
  TOOL_CALL_RESULT with the denial's text, marked ``{"pydantic_ai": {"outcome": "denied"}}``;
- tests/servers/unfaithful.py: an approval that runs nothing (``not_reported``), a call streamed
  again with other arguments (``unexpected``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from agui_notebook import Agent, policies
from agui_notebook.demo import create_app, start_in_thread
from tests.servers.unfaithful import RESTREAMED_ARGS, start_server

pytestmark = pytest.mark.interop


def verdicts(result: Any) -> list[tuple[str, str, str]]:
    return [(d["tool"], d["decision"], d["execution"]["verdict"]) for d in result.decisions]


def card_verdicts(chat: Any) -> list[str]:
    return [
        section["verdict"]["verdict"]
        for item in chat.view.items
        if item["kind"] == "card"
        for section in item["interrupts"]
        if section.get("verdict")
    ]


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    url, stop = start_in_thread(app=create_app(text_delay=0))
    try:
        yield url
    finally:
        stop()


@pytest.fixture
async def demo(demo_url: str) -> AsyncIterator[Agent]:
    async with Agent(demo_url, store=None) as agent:
        yield agent


@pytest.mark.parametrize(
    ("policy", "decision", "verdict"),
    [
        (policies.approve_all(), "approve", "executed"),
        (policies.reject_all("no"), "reject", "not_executed"),
        (policies.cancel_all(), "cancel", "not_executed"),
    ],
    ids=["approve", "reject", "cancel"],
)
async def test_the_demo_agent(demo: Agent, policy: Any, decision: str, verdict: str) -> None:
    chat = demo.chat(policy=policy, display=False)
    result = await chat.send("Transfer $500 from 1234567890 to 0987654321")
    assert verdicts(result) == [("transfer_money", decision, verdict)]
    assert card_verdicts(chat) == [verdict]


@pytest.mark.parametrize(
    ("policy", "decision", "verdict", "ran"),
    [
        (policies.approve_all(), "approve", "executed", 1),
        (policies.reject_all(), "reject", "not_executed", 0),
        (policies.cancel_all(), "cancel", "not_executed", 0),
    ],
    ids=["approve", "reject", "cancel"],
)
async def test_microsoft_agent_framework(
    msaf_server: Any, policy: Any, decision: str, verdict: str, ran: int
) -> None:
    msaf_server.executions.clear()
    async with Agent(msaf_server.url) as agent:
        chat = agent.chat(policy=policy, display=False)
        result = await chat.send("transfer")
    assert verdicts(result) == [("transfer_money", decision, verdict)]
    assert len(msaf_server.executions) == ran


async def test_microsoft_agent_framework_two_approvals(msaf_server: Any) -> None:
    async with Agent(msaf_server.url) as agent:
        chat = agent.chat(policy=policies.approve_all(), display=False)
        result = await chat.send("two things")
    assert verdicts(result) == [
        ("transfer_money", "approve", "executed"),
        ("cancel_subscription", "approve", "executed"),
    ]


@pytest.mark.parametrize(
    ("policy", "decision", "verdict", "ran"),
    [
        (policies.approve_all(), "approve", "executed", 1),
        (policies.reject_all("Not today"), "reject", "not_executed", 0),
        (policies.cancel_all(), "cancel", "not_executed", 0),
    ],
    ids=["approve", "reject", "cancel"],
)
async def test_pydantic_ai(
    pydantic_ai_server: Any, policy: Any, decision: str, verdict: str, ran: int
) -> None:
    pydantic_ai_server.executions.clear()
    async with Agent(pydantic_ai_server.url) as agent:
        chat = agent.chat(policy=policy, display=False)
        result = await chat.send("transfer")
    assert verdicts(result) == [("transfer_money", decision, verdict)]
    assert len(pydantic_ai_server.executions) == ran


async def test_pydantic_ai_edit_runs_the_edited_arguments(pydantic_ai_server: Any) -> None:
    from agui_notebook import edit
    from tests.servers.pydantic_ai_server import TRANSFER_ARGS

    edited = {**TRANSFER_ARGS, "amount": 250.0}
    async with Agent(pydantic_ai_server.url) as agent:
        chat = agent.chat(policy=policies.scripted([edit(edited)]), display=False)
        result = await chat.send("transfer")
    assert verdicts(result) == [("transfer_money", "edit", "executed")]


async def test_an_approval_that_runs_nothing_is_not_reported() -> None:
    with start_server("silent") as server:
        async with Agent(server.url, store=None) as agent:
            chat = agent.chat(policy=policies.approve_all(), display=False)
            result = await chat.send("transfer")
    assert server.executions == []
    assert verdicts(result) == [("transfer_money", "approve", "not_reported")]
    warning = "Approved, but the agent reported no execution of transfer_money"
    assert warning in result.warnings
    assert card_verdicts(chat) == ["not_reported"]
    text = chat.view._repr_mimebundle_()[0]["text/plain"]  # type: ignore[union-attr]
    assert f"Execution: {warning}" in text


async def test_a_call_streamed_again_with_other_arguments_is_unexpected() -> None:
    with start_server("restream") as server:
        async with Agent(server.url, store=None) as agent:
            chat = agent.chat(policy=policies.approve_all(), display=False)
            result = await chat.send("transfer")
    assert server.executions == [("transfer_money", RESTREAMED_ARGS)]
    (found,) = result.decisions
    assert found["execution"]["verdict"] == "unexpected"
    assert found["execution"]["text"] == (
        "The agent streamed transfer_money again with arguments other than those approved"
    )
    assert any(w.startswith("The agent streamed transfer_money again") for w in result.warnings)


async def test_the_faithful_control_is_executed() -> None:
    with start_server("faithful") as server:
        async with Agent(server.url, store=None) as agent:
            chat = agent.chat(policy=policies.approve_all(), display=False)
            result = await chat.send("transfer")
    assert verdicts(result) == [("transfer_money", "approve", "executed")]
    assert result.warnings == []


@pytest.mark.parametrize("style", ["default", "outcome"])
async def test_langgraph_restates_the_call_on_resume_and_that_is_as_decided(
    external_server: Any, style: str
) -> None:
    """ag-ui-langgraph streams the held call again on resume (its arguments as held): no
    deviation. Its approved call is executed; its edited one too."""
    from agui_notebook import edit

    server = external_server("langgraph", "--style", style)
    server.clear()
    async with Agent(server.url) as agent:
        approved = await agent.chat(policy=policies.approve_all(), display=False).send("transfer")
        chat = agent.chat(policy=policies.scripted([edit(amount=250.0)]), display=False)
        edited = await chat.send("transfer")
    assert verdicts(approved) == [("transfer_money", "approve", "executed")]
    assert verdicts(edited) == [("transfer_money", "edit", "executed")]
