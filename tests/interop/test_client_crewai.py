"""agui_notebook end to end against a CrewAI Flow served by ag-ui-crewai.

The server is tests/servers/crewai/server.py in its own venv: a Flow on a scripted ``BaseLLM``
that pauses in a ``@human_feedback`` method before each call that moves money, the adapter in its
1.1 mode (``emit_interrupt_outcome=True``). What it sends is pinned at the wire level in
test_crewai_wire.py. Here our client drives it: the pause's reviewed output names the tool call,
so it is decided as an approval; the answer reaches the flow as a string; every pause of a thread
has the thread's id, so a second pause is not taken for the first raised again; the adapter does
not check interrupt ids, so the client's own check is the only guard; a new message while the flow
is paused is refused before sending.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from agui_notebook import (
    Agent,
    AlreadyDecided,
    InvalidDecision,
    NothingPending,
    PendingInterrupt,
    RunError,
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
from agui_notebook._decisions.decision import build_resume
from agui_notebook._state.items import card_interrupt

pytestmark = pytest.mark.interop

TRANSFER_ARGS = {
    "from_account": "checking",
    "to_account": "savings",
    "amount": 100.0,
    "currency": "USD",
}
SUBSCRIPTION_ARGS = {"subscription_id": "sub_123"}
BALANCE_ARGS = {"account": "checking"}
TRANSFER_RESULT = "Transferred 100.00 USD from checking to savings"
SUBSCRIPTION_RESULT = "Cancelled subscription sub_123"
BALANCE_RESULT = "Balance of checking: 1234.56 USD"
REISSUE_WARNING = "again after it was answered"


@pytest.fixture(scope="module")
def crewai_server(external_server: Callable[..., Any]) -> Any:
    return external_server("crewai")


@pytest.fixture(autouse=True)
def _clear(crewai_server: Any) -> None:
    crewai_server.clear()


@pytest.fixture
async def agent(crewai_server: Any) -> AsyncIterator[Agent]:
    async with Agent(crewai_server.url, timeout=60.0) as agent:
        yield agent


async def interrupted(agent: Agent, text: str) -> Thread:
    thread = agent.thread()
    result = await thread.run(text)
    assert result.outcome == "interrupt"
    assert len(thread.pending) == 1  # CrewAI pauses a flow once at a time
    assert result.interrupts == thread.pending
    return thread


def last_body(server: Any) -> dict[str, Any]:
    body = server.requests[-1].json
    assert isinstance(body, dict)
    return body


def tool_results(thread: Thread) -> dict[str, Any]:
    return {c.name: c.result for c in thread.tool_calls.values()}


# --- the interrupt and its decisions ------------------------------------------------------------


async def test_approve(agent: Agent, crewai_server: Any) -> None:
    thread = agent.thread()
    first = await thread.run("please transfer 100")
    assert first.outcome == "interrupt"
    [pending] = thread.pending
    # The id is the flow's, which is the thread's.
    assert pending.id == thread.id == pending.metadata["crewai"]["flowId"]  # type: ignore[index]
    assert pending.reason == "crewai:human_feedback"
    assert pending.message == "Approve this call?"
    assert pending.response_schema is None
    assert pending.metadata["crewai"]["methodName"] == "ask_approval"  # type: ignore[index]
    # The reviewed output names the call: decided as an approval of it.
    assert pending.tool_name == "transfer_money"
    assert pending.arguments == TRANSFER_ARGS
    [(call_id, call)] = thread.tool_calls.items()
    assert pending.tool_call_id == call_id and call.name == "transfer_money"
    assert crewai_server.executions == []

    result = await thread.resume(approve())
    assert result.outcome == "success"
    assert result.text == f"Done: {TRANSFER_RESULT}"
    assert result.warnings == []
    assert thread.pending == []
    body = last_body(crewai_server)
    assert body["threadId"] == thread.id and body["runId"] != first.run_id
    assert body["resume"] == [
        {"interruptId": pending.id, "status": "resolved", "payload": {"approved": True}}
    ]
    assert crewai_server.executions == [("transfer_money", TRANSFER_ARGS)]
    assert tool_results(thread) == {"transfer_money": TRANSFER_RESULT}


async def test_reject_with_a_reason(agent: Agent, crewai_server: Any) -> None:
    """No responseSchema: the spec's shape goes, JSON-encoded by the adapter; this flow reads it."""
    thread = await interrupted(agent, "transfer")
    result = await thread.resume(reject("Too much"))
    assert last_body(crewai_server)["resume"][0]["payload"] == {
        "approved": False,
        "reason": "Too much",
    }
    assert result.text == "The transfer was not approved."
    assert result.warnings == []
    assert tool_results(thread) == {"transfer_money": "Too much"}
    assert crewai_server.executions == []


async def test_edit_sends_the_full_replacement(agent: Agent, crewai_server: Any) -> None:
    thread = await interrupted(agent, "transfer")
    result = await thread.resume(edit(amount=250.0, currency="EUR"))
    edited = {**TRANSFER_ARGS, "amount": 250.0, "currency": "EUR"}
    assert last_body(crewai_server)["resume"][0]["payload"] == {
        "approved": True,
        "editedArgs": edited,
    }
    assert crewai_server.executions == [("transfer_money", edited)]
    assert result.text == "Done: Transferred 250.00 EUR from checking to savings"


async def test_cancel_then_the_thread_continues(agent: Agent, crewai_server: Any) -> None:
    """CrewAI cannot abort a pending feedback: the flow resumes with empty feedback, which this
    flow reads as a refusal."""
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    result = await thread.resume(cancel())
    assert last_body(crewai_server)["resume"] == [
        {"interruptId": pending.id, "status": "cancelled"}
    ]
    assert result.outcome == "success"
    assert result.text == "The transfer was not approved."
    assert tool_results(thread) == {"transfer_money": "Cancelled by user."}
    assert thread.pending == []
    assert crewai_server.executions == []
    after = await thread.run("hello again")
    assert after.text == "Echo: hello again"


# --- several calls: one pause at a time, every pause under the thread's id ----------------------


async def test_approval_batched_with_a_free_call(agent: Agent, crewai_server: Any) -> None:
    thread = await interrupted(agent, "batch")
    assert thread.pending[0].tool_name == "transfer_money"
    assert crewai_server.executions == [("check_balance", BALANCE_ARGS)]
    result = await thread.resume(approve())
    assert result.text == f"Done: {BALANCE_RESULT} Done: {TRANSFER_RESULT}"
    assert crewai_server.executions == [
        ("check_balance", BALANCE_ARGS),
        ("transfer_money", TRANSFER_ARGS),
    ]


async def test_two_approvals_come_one_after_the_other_under_one_id(
    agent: Agent, crewai_server: Any
) -> None:
    thread = await interrupted(agent, "two")
    [first] = thread.pending
    assert first.tool_name == "transfer_money"

    second_run = await thread.resume(approve())
    assert second_run.outcome == "interrupt"
    [second] = thread.pending
    assert second.id == first.id == thread.id
    assert second.tool_name == "cancel_subscription" and second.arguments == SUBSCRIPTION_ARGS
    # Not the answered interrupt raised again: a different question under the same (thread) id.
    assert second.reissued is False
    assert not any(REISSUE_WARNING in w for w in second_run.warnings)
    assert crewai_server.executions == [("transfer_money", TRANSFER_ARGS)]

    result = await thread.resume(reject())
    assert result.text == f"Done: {TRANSFER_RESULT} The call was not approved."
    assert thread.pending == []
    assert crewai_server.executions == [("transfer_money", TRANSFER_ARGS)]


async def test_chat_two_approvals_by_policy(agent: Agent, crewai_server: Any) -> None:
    chat = agent.chat(policy=policies.approve_all(), display=False)
    result = await chat.send("two things")
    assert result.outcome == "success"
    assert result.text == f"Done: {TRANSFER_RESULT} Done: {SUBSCRIPTION_RESULT}"
    assert [d["tool"] for d in result.decisions] == ["transfer_money", "cancel_subscription"]
    assert all(d["decidedBy"] == "policy: approve-all" for d in result.decisions)
    assert crewai_server.executions == [
        ("transfer_money", TRANSFER_ARGS),
        ("cancel_subscription", SUBSCRIPTION_ARGS),
    ]


async def test_chat_mixed_decisions_by_rules(agent: Agent, crewai_server: Any) -> None:
    chat = agent.chat(
        policy=policies.rules(
            {"tool": "transfer_money", "decision": "approve"}, default=reject("not this one")
        ),
        display=False,
    )
    result = await chat.send("two things")
    assert result.text == f"Done: {TRANSFER_RESULT} The call was not approved."
    assert [(d["tool"], d["decision"]) for d in result.decisions] == [
        ("transfer_money", "approve"),
        ("cancel_subscription", "reject"),
    ]
    assert crewai_server.executions == [("transfer_money", TRANSFER_ARGS)]


async def test_chat_reject(agent: Agent, crewai_server: Any) -> None:
    chat = agent.chat(policy=policies.reject_all(), display=False)
    result = await chat.send("transfer")
    assert result.outcome == "success"
    assert result.text == "The transfer was not approved."
    [decision] = result.decisions
    assert decision["decision"] == "reject" and decision["outcome"] == "success"
    assert crewai_server.executions == []


# --- ids: the client's check is the only guard --------------------------------------------------


async def test_client_refuses_unknown_and_empty_resumes(agent: Agent, crewai_server: Any) -> None:
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    sent = len(crewai_server.requests)
    with pytest.raises(UnknownInterrupt) as unknown:
        await thread.resume({pending.id: approve(), "nope": approve()})
    assert unknown.value.unknown == ["nope"]
    with pytest.raises(UnknownInterrupt):
        await thread.resume({"nope": approve()})
    assert len(crewai_server.requests) == sent
    assert thread.pending == [pending]
    await thread.resume(approve())
    with pytest.raises(NothingPending):
        await thread.resume(approve())
    assert len(crewai_server.requests) == sent + 1


async def test_server_resumes_whatever_id_it_is_sent(
    agent: Agent,
    crewai_server: Any,
    twin: Callable[..., Thread],
    forge_id: Callable[[PendingInterrupt, str], PendingInterrupt],
) -> None:
    """The adapter resumes the thread's paused flow without looking at the interrupt id: a
    forged id approves the transfer. Why the client refuses ids it does not hold (above)."""
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    forged = twin(thread, pending=[forge_id(pending, "some-other-interrupt")])
    result = await forged.resume(approve())
    assert last_body(crewai_server)["resume"][0]["interruptId"] == "some-other-interrupt"
    assert result.text == f"Done: {TRANSFER_RESULT}"
    assert crewai_server.executions == [("transfer_money", TRANSFER_ARGS)]


async def test_server_refuses_a_resume_with_nothing_paused(
    agent: Agent, crewai_server: Any, twin: Callable[..., Thread]
) -> None:
    """Another thread (or a flow already resumed): RUN_ERROR AGUI_CREWAI_NO_PENDING_FEEDBACK."""
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    other = twin(thread, thread_id="some-other-thread", history=False)
    with pytest.raises(RunError) as error:
        await other.resume(approve())
    assert error.value.code == "AGUI_CREWAI_NO_PENDING_FEEDBACK"
    assert "no paused CrewAI flow" in error.value.message
    assert other.pending == [pending]
    assert crewai_server.executions == []

    stale = twin(thread)  # believes the interrupt is still pending once it has been answered
    await thread.resume(approve())
    # Sharing the store, the client refuses it before sending: the answer's claim is settled.
    assert stale.journal is not None
    with pytest.raises(AlreadyDecided, match="already decided"):
        await stale.resume(approve())
    stale.journal = None  # a client that keeps no store reaches the server, which refuses too
    with pytest.raises(RunError) as again:
        await stale.resume(approve())
    assert again.value.code == "AGUI_CREWAI_NO_PENDING_FEEDBACK"
    assert crewai_server.executions == [("transfer_money", TRANSFER_ARGS)]


async def test_a_new_message_while_the_flow_is_paused_is_refused(
    agent: Agent, crewai_server: Any
) -> None:
    thread = await interrupted(agent, "transfer")
    before = list(thread.pending)
    messages_before = thread.messages
    sent = len(crewai_server.requests)
    with pytest.raises(UnansweredInterrupts, match="CrewAI flow is paused") as error:
        await thread.run("hello")
    assert error.value.missing == [before[0].id]
    assert len(crewai_server.requests) == sent
    assert thread.pending == before and thread.messages == messages_before
    result = await thread.resume(approve())
    assert result.text == f"Done: {TRANSFER_RESULT}"


# --- transport ----------------------------------------------------------------------------------


async def test_a_slow_run_without_keepalives(crewai_server: Any) -> None:
    """This adapter sends no keepalive comments; a 1.6 s silence is within the read timeout, and
    the idle timeout (which only counts time filled with keepalives) does not apply."""
    async with Agent(crewai_server.url, timeout=30.0, idle_timeout=0.5) as agent:
        result = await agent.thread().run("slow please")
    assert result.outcome == "success"
    assert result.text == "Slow answer."


# --- named outcomes (@human_feedback(emit=[...])): a string answer ------------------------------


async def test_named_outcomes_take_one_of_them_not_an_approval(crewai_server: Any) -> None:
    """With ``emit`` the interrupt's responseSchema is a string enum: approve(), reject() and
    edit() have no shape there and are refused before sending; the card asks for one of the
    outcomes (a form), not Approve/Reject. Only the first run: resuming asks an LLM (server doc).
    """
    async with Agent(crewai_server.url + "outcomes", timeout=60.0) as agent:
        thread = agent.thread()
        result = await thread.run("anything")
        [pending] = result.interrupts
        assert pending.response_schema == {"type": "string", "enum": ["approved", "rejected"]}
        assert pending.tool_name == "transfer_money"  # the reviewed output names it
        card = card_interrupt(pending, None)
        assert card["mode"] == "form" and card["canEdit"] is False
        sent = len(crewai_server.requests)
        for decision in (approve(), reject("Too much"), edit(amount=1.0), answer("maybe")):
            with pytest.raises(InvalidDecision):
                await thread.resume(decision)
        assert len(crewai_server.requests) == sent
        assert thread.pending == [pending]
    [entry], notes = build_resume(thread.pending, answer("approved"))
    assert entry.payload == "approved" and notes == []


# --- the adapter's default style: CUSTOM on_interrupt only --------------------------------------


async def test_default_style_is_read_from_on_interrupt_and_answered_by_resume(
    external_server: Callable[..., Any],
) -> None:
    """Without ``emit_interrupt_outcome`` the pause is only the ``on_interrupt`` event (whose
    value is the whole interrupt) and RUN_FINISHED has no outcome. It is read as that interrupt,
    and answered by ``resume[]`` (CrewAI ignores LangGraph's ``forwardedProps.command.resume``,
    the channel for the same event name there: test_crewai_wire.py)."""
    server = external_server("crewai", "--style", "default")
    before = len(server.executions)
    async with Agent(server.url, timeout=60.0) as agent:
        thread = agent.thread()
        first = await thread.run("transfer")
        assert first.outcome == "interrupt"
        [pending] = thread.pending
        assert pending.id == thread.id and pending.reason == "crewai:human_feedback"
        assert pending.tool_name == "transfer_money" and pending.arguments == TRANSFER_ARGS
        assert "langgraph" not in (pending.metadata or {})

        result = await thread.resume(approve())
        body = last_body(server)
        assert body["resume"] == [
            {"interruptId": thread.id, "status": "resolved", "payload": {"approved": True}}
        ]
        assert "command" not in body["forwardedProps"]
        assert result.text == f"Done: {TRANSFER_RESULT}"
    assert server.executions[before:] == [("transfer_money", TRANSFER_ARGS)]
