"""agui_notebook end to end against LangGraph's AG-UI adapter (ag-ui-langgraph 0.0.47).

The server is tests/servers/langgraph/server.py in its own venv, with a scripted chat model, run in
both of the adapter's interrupt styles: ``default`` (``CUSTOM on_interrupt``, no outcome, answers in
``forwardedProps.command.resume``) and ``outcome`` (``emit_interrupt_outcome=True``: the event and
the 1.1 outcome, answers in ``resume[]``). Every scenario runs in both; the client must behave the
same, and the graph must receive the same answers. The wire itself is pinned in
test_langgraph_wire.py.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from agui_notebook import (
    Agent,
    InvalidDecision,
    PendingInterrupt,
    StreamTimeout,
    Thread,
    UnansweredInterrupts,
    UnknownInterrupt,
    answer,
    approve,
    cancel,
    edit,
    policies,
    reject,
)

pytestmark = pytest.mark.interop

TRANSFER_ARGS = {
    "from_account": "checking",
    "to_account": "savings",
    "amount": 100.0,
    "currency": "USD",
}
SUBSCRIPTION_ARGS = {"subscription_id": "sub_123"}
TRANSFER_RESULT = "Transferred 100.00 USD from checking to savings"
LANGGRAPH_ID = re.compile(r"^[0-9a-f]{32}$")
CANCELLED = "__agui_cancelled__"


@pytest.fixture(scope="module", params=["default", "outcome"])
def server(request: pytest.FixtureRequest, external_server: Any) -> Any:
    return external_server("langgraph", "--style", request.param)


@pytest.fixture
def style(server: Any) -> str:
    return str(server.args[1])


@pytest.fixture(autouse=True)
def _clear(server: Any) -> None:
    server.clear()


@pytest.fixture
async def agent(server: Any) -> AsyncIterator[Agent]:
    async with Agent(server.url) as agent:
        yield agent


async def interrupted(agent: Agent, text: str, count: int = 1) -> Thread:
    thread = agent.thread()
    result = await thread.run(text)
    assert result.outcome == "interrupt"
    assert len(thread.pending) == count  # in the 1.1 style: the event and the outcome, once
    assert result.interrupts == thread.pending
    return thread


def sent(server: Any) -> dict[str, Any]:
    """How the last request answered: {"resume": [...]} or {"command": <command.resume>}."""
    body = server.requests[-1].json
    assert body is not None
    command = (body.get("forwardedProps") or {}).get("command")
    if command is not None:
        assert "resume" not in body  # one channel only: resume[] would win in the adapter
        return {"command": command["resume"]}
    return {"resume": body["resume"]}


def expect(style: str, interrupt: PendingInterrupt, payload: Any) -> dict[str, Any]:
    """What a single answer looks like on the wire in each style."""
    if style == "default":
        return {"command": payload}
    return {"resume": [{"interruptId": interrupt.id, "status": "resolved", "payload": payload}]}


# --- the interrupt and its decisions ------------------------------------------------------------


async def test_approve(agent: Agent, server: Any, style: str) -> None:
    thread = await interrupted(agent, "please transfer 100")
    [pending] = thread.pending
    assert LANGGRAPH_ID.match(pending.id)  # LangGraph's own id, in both styles
    assert pending.reason == "tool_call"
    assert pending.tool_name == "transfer_money"
    assert pending.arguments == TRANSFER_ARGS
    assert pending.message == "Approve transfer_money?"
    assert pending.tool_call_id is not None and pending.tool_call_id.startswith("lg_transfer_money")
    assert (
        pending.response_schema is not None
        and "editedArgs" in pending.response_schema["properties"]
    )
    assert (
        pending.metadata is not None
        and pending.metadata["langgraph"]["raw"]["tool"] == "transfer_money"
    )
    assert server.executions == []

    result = await thread.resume(approve())
    assert result.outcome == "success"
    assert result.text == f"Done: {TRANSFER_RESULT}"
    assert thread.pending == []
    assert server.executions == [("transfer_money", TRANSFER_ARGS)]
    assert sent(server) == expect(style, pending, {"approved": True})
    assert server.requests[-1].json["threadId"] == thread.id
    assert thread.tool_calls[pending.tool_call_id].result == TRANSFER_RESULT


async def test_reject_with_a_reason(agent: Agent, server: Any, style: str) -> None:
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    result = await thread.resume(reject("too much"))
    assert result.text == "Not done: the transfer was not approved (too much)."
    assert result.warnings == []
    assert sent(server) == expect(style, pending, {"approved": False, "reason": "too much"})
    assert server.executions == []


async def test_a_reason_the_interrupt_has_no_room_for_is_not_sent(
    agent: Agent, server: Any, style: str
) -> None:
    thread = await interrupted(agent, "cancel my subscription")
    [pending] = thread.pending
    assert pending.tool_name == "cancel_subscription"  # from the tool call its toolCallId names
    assert pending.arguments == SUBSCRIPTION_ARGS
    result = await thread.resume(reject("not now"))
    assert sent(server) == expect(style, pending, {"approved": False})
    assert any("has no 'reason'" in w for w in result.warnings)
    assert result.text == "Not done: the call was not approved (rejected)."


async def test_edit(agent: Agent, server: Any, style: str) -> None:
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    result = await thread.resume(edit(amount=250.0, currency="EUR"))
    edited = {**TRANSFER_ARGS, "amount": 250.0, "currency": "EUR"}
    assert sent(server) == expect(style, pending, {"approved": True, "editedArgs": edited})
    assert server.executions == [("transfer_money", edited)]
    assert result.text == "Done: Transferred 250.00 EUR from checking to savings"


async def test_an_edit_the_interrupt_cannot_carry_is_refused_before_sending(
    agent: Agent, server: Any
) -> None:
    thread = await interrupted(agent, "cancel my subscription")
    before = thread.pending
    requests = len(server.requests)
    with pytest.raises(InvalidDecision, match="no place for edited arguments"):
        await thread.resume(edit(subscription_id="sub_999"))
    assert len(server.requests) == requests
    assert thread.pending == before and not thread.busy
    await thread.resume(approve())
    assert server.executions == [("cancel_subscription", SUBSCRIPTION_ARGS)]


async def test_cancel_then_the_thread_continues(agent: Agent, server: Any, style: str) -> None:
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    result = await thread.resume(cancel())
    # The graph gets the adapter's own cancel marker in both styles.
    if style == "default":
        assert sent(server) == {"command": {CANCELLED: True, "interrupt_id": pending.id}}
    else:
        assert sent(server) == {"resume": [{"interruptId": pending.id, "status": "cancelled"}]}
    assert result.outcome == "success"
    assert result.text == "Not done: the transfer was cancelled."
    assert thread.pending == [] and server.executions == []
    after = await thread.run("hello again")
    assert after.text == "Echo: hello again"


async def test_a_question_is_answered_with_text(agent: Agent, server: Any) -> None:
    thread = await interrupted(agent, "ask me")
    [pending] = thread.pending
    assert pending.tool_name is None
    assert pending.reason == "langgraph:interrupt"
    assert pending.message == "Which account should the refund go to?"
    # A text that looks like JSON still reaches the graph as the text written.
    result = await thread.resume(answer("123"))
    assert server.executions == [("choose_account", {"answer": "123"})]
    assert result.text == "Done: Refund goes to 123"


async def test_an_empty_answer_is_refused_in_the_default_style(external_server: Any) -> None:
    server = external_server("langgraph", "--style", "default")
    server.clear()
    async with Agent(server.url) as agent:
        thread = await interrupted(agent, "ask me")
        requests = len(server.requests)
        with pytest.raises(InvalidDecision, match="empty \\(null\\) answer"):
            await thread.resume(answer(None))
        assert len(server.requests) == requests
        await thread.resume(answer("savings"))
    assert server.executions == [("choose_account", {"answer": "savings"})]


# --- several interrupts -------------------------------------------------------------------------


async def test_two_interrupts_answered_in_one_resume(agent: Agent, server: Any) -> None:
    thread = await interrupted(agent, "two things", count=2)
    transfer, subscription = thread.pending
    assert [transfer.tool_name, subscription.tool_name] == ["transfer_money", "cancel_subscription"]
    result = await thread.resume({transfer.id: approve(), subscription.id: approve()})
    assert result.text == f"Done: {TRANSFER_RESULT} Done: Cancelled subscription sub_123"
    # LangGraph's own resume map in both styles: several resume[] entries fail inside LangGraph.
    assert sent(server) == {
        "command": {transfer.id: {"approved": True}, subscription.id: {"approved": True}}
    }
    # The two calls run as parallel LangGraph tasks: in either order.
    assert sorted(server.executions) == [
        ("cancel_subscription", SUBSCRIPTION_ARGS),
        ("transfer_money", TRANSFER_ARGS),
    ]
    assert thread.pending == []


async def test_two_interrupts_mixed_with_a_cancel(agent: Agent, server: Any) -> None:
    thread = await interrupted(agent, "two things", count=2)
    transfer, subscription = thread.pending
    result = await thread.resume({transfer.id: cancel(), subscription.id: approve()})
    assert sent(server) == {
        "command": {
            transfer.id: {CANCELLED: True, "interrupt_id": transfer.id},
            subscription.id: {"approved": True},
        }
    }
    assert (
        result.text == "Not done: the transfer was cancelled. Done: Cancelled subscription sub_123"
    )
    assert server.executions == [("cancel_subscription", SUBSCRIPTION_ARGS)]


async def test_an_unanswered_interrupt_is_refused(agent: Agent, server: Any) -> None:
    thread = await interrupted(agent, "two things", count=2)
    requests = len(server.requests)
    with pytest.raises(UnansweredInterrupts):
        await thread.resume({thread.pending[0].id: approve()})
    assert len(server.requests) == requests and server.executions == []


# --- unknown ids: the adapter does not check them, the client does ------------------------------


async def test_an_unknown_interrupt_id_is_refused_before_sending(agent: Agent, server: Any) -> None:
    thread = await interrupted(agent, "transfer")
    requests = len(server.requests)
    with pytest.raises(UnknownInterrupt) as error:
        await thread.resume({"f" * 32: approve()})
    assert error.value.unknown == ["f" * 32]
    assert len(server.requests) == requests and server.executions == []
    await thread.resume(approve())
    assert server.executions == [("transfer_money", TRANSFER_ARGS)]


async def test_the_server_would_have_run_a_resume_naming_a_wrong_id(
    agent: Agent,
    server: Any,
    twin: Callable[..., Thread],
    forge_id: Callable[[PendingInterrupt, str], PendingInterrupt],
) -> None:
    """Why the client's check matters: sent anyway (a thread that believes a wrong id), the
    adapter resumes whatever is pending."""
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    forged = twin(thread, pending=[forge_id(pending, "f" * 32)])
    await forged.resume(approve())
    assert server.executions == [("transfer_money", TRANSFER_ARGS)]


# --- a new message while an interrupt is pending ------------------------------------------------


async def test_a_new_message_while_pending_is_refused(agent: Agent, server: Any) -> None:
    thread = await interrupted(agent, "transfer")
    before, messages = thread.pending, thread.messages
    requests = len(server.requests)
    with pytest.raises(UnansweredInterrupts, match="ignores new messages"):
        await thread.run("hello")
    assert len(server.requests) == requests
    assert thread.pending == before and thread.messages == messages and not thread.busy
    result = await thread.resume(approve())
    assert result.text == f"Done: {TRANSFER_RESULT}"


async def test_the_server_ignores_a_new_message_while_paused(
    agent: Agent, server: Any, twin: Callable[..., Thread]
) -> None:
    """Why the refusal: sent anyway, the message is dropped and the interrupt raised again."""
    thread = await interrupted(agent, "transfer")
    forgetful = twin(thread, pending=[])
    result = await forgetful.run("hello")
    assert result.outcome == "interrupt"
    assert [p.id for p in forgetful.pending] == [p.id for p in thread.pending]
    assert "Echo" not in result.text and server.executions == []


# --- transport ----------------------------------------------------------------------------------


async def test_a_slow_step_without_keepalives(agent: Agent, server: Any) -> None:
    result = await agent.thread().run("slow please")  # 1.6 s of silence: this adapter sends none
    assert result.text == "Slow answer." and result.warnings == []
    # No keepalive comment either: the read timeout, not idle_timeout, bounds the silence.
    async with Agent(server.url, timeout=0.5) as impatient:
        thread = impatient.thread()
        with pytest.raises(StreamTimeout):
            await thread.run("slow please")
        assert thread.messages == [] and thread.runs[-1].status == "failed"


# --- Chat: cards and policies do not care which style -------------------------------------------


async def test_chat_with_policies(agent: Agent, server: Any) -> None:
    chat = agent.chat(policy=policies.approve_all(), display=False)
    result = await chat.send("two things")
    assert result.outcome == "success"
    assert [d["tool"] for d in result.decisions] == ["transfer_money", "cancel_subscription"]
    assert len({d["card"] for d in result.decisions}) == 1
    [card] = [item for item in chat.view.items if item["kind"] == "card"]
    assert [
        (i["toolName"], i["mode"], i["canEdit"], i["canGiveReason"]) for i in card["interrupts"]
    ] == [
        ("transfer_money", "tool", True, True),
        ("cancel_subscription", "tool", False, False),
    ]
    assert len(server.executions) == 2

    chat = agent.chat(policy=policies.reject_all(), display=False)
    result = await chat.send("transfer")
    assert result.text == "Not done: the transfer was not approved."
    [tool] = [item for item in chat.view.items if item["kind"] == "tool"]
    assert tool["status"] == "rejected"


async def test_chat_question_card(agent: Agent, server: Any) -> None:
    chat = agent.chat(
        policy=policies.rules({"reason": "langgraph:interrupt", "decision": answer("savings")}),
        display=False,
    )
    result = await chat.send("ask me")
    [card] = [item for item in chat.view.items if item["kind"] == "card"]
    [question] = card["interrupts"]
    assert (
        question["mode"] == "free"
        and question["message"] == "Which account should the refund go to?"
    )
    assert result.text == "Done: Refund goes to savings"


# --- a server that sends no interrupt ids (emit_raw_events=False) -------------------------------


@pytest.fixture
async def no_ids(external_server: Any) -> AsyncIterator[tuple[Agent, Any]]:
    server = external_server("langgraph", "--style", "default", "--no-raw-events")
    server.clear()
    async with Agent(server.url) as agent:
        yield agent, server


async def test_without_ids_one_interrupt_still_works(no_ids: tuple[Agent, Any]) -> None:
    agent, server = no_ids
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    assert pending.id == f"langgraph-{thread.runs[-1].run_id}-1"
    assert pending.tool_name == "transfer_money"
    await thread.resume(approve())
    assert sent(server) == {"command": {"approved": True}}
    assert server.executions == [("transfer_money", TRANSFER_ARGS)]
    thread = await interrupted(agent, "transfer")
    await thread.resume(cancel())
    assert sent(server) == {"command": {CANCELLED: True}}  # no id to name: none invented


async def test_without_ids_several_interrupts_are_refused(no_ids: tuple[Agent, Any]) -> None:
    agent, server = no_ids
    thread = await interrupted(agent, "two things", count=2)
    requests = len(server.requests)
    with pytest.raises(InvalidDecision, match="sent no interrupt ids"):
        await thread.resume({p.id: approve() for p in thread.pending})
    assert len(server.requests) == requests and server.executions == []


async def test_without_ids_a_later_interrupt_is_not_taken_for_an_answered_one(
    no_ids: tuple[Agent, Any],
) -> None:
    agent, server = no_ids
    chat = agent.chat(policy=policies.approve_all(), display=False)
    await chat.send("transfer")
    await chat.send("transfer again")  # a new interrupt, not the answered one raised again
    assert [d["outcome"] for d in chat.audit] == ["success", "success"]
    assert len(server.executions) == 2
