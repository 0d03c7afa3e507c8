"""agui_notebook end to end against Google ADK's AG-UI adapter (ag-ui-adk, ``ADKAgent``).

The server is tests/servers/adk/server.py in its own venv: an ADK ``LlmAgent`` on a scripted
``BaseLlm`` registered for its model name, tools built with ``require_confirmation=True``, the
adapter in its 1.1 mode (``emit_interrupt_outcome=True``). What it sends is pinned at the wire
level in test_adk_wire.py. Here our client drives it: the interrupt names ADK's
``adk_request_confirmation`` call, so the client reads the gated tool call from its metadata and
hides the confirmation call; the answer is ADK's ``ToolConfirmation`` (``confirmed`` yes/no), so an
edit is refused and a reason left out (with a note) before anything is sent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from agui_notebook import (
    Agent,
    InvalidDecision,
    NothingPending,
    PendingInterrupt,
    RunError,
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
from agui_notebook._frameworks.adk import CONFIRMATION_SCHEMA, CONFIRMATION_TOOL

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
#: ADK sends a tool's result JSON-encoded: {"result": ...}, or {"error": ...} when it did not run.
TRANSFER_DONE = '{"result": "Transferred 100.00 USD from checking to savings"}'
REJECTED = '{"error": "This tool call is rejected."}'


@pytest.fixture(scope="module")
def adk_server(external_server: Callable[..., Any]) -> Any:
    return external_server("adk")


@pytest.fixture(autouse=True)
def _clear(adk_server: Any) -> None:
    adk_server.clear()


@pytest.fixture
async def agent(adk_server: Any) -> AsyncIterator[Agent]:
    async with Agent(adk_server.url, timeout=60.0) as agent:
        yield agent


async def interrupted(agent: Agent, text: str, count: int = 1) -> Thread:
    thread = agent.thread()
    result = await thread.run(text)
    assert result.outcome == "interrupt"
    assert len(thread.pending) == count
    assert result.interrupts == thread.pending
    return thread


def last_body(server: Any) -> dict[str, Any]:
    body = server.requests[-1].json
    assert isinstance(body, dict)
    return body


def call_id(thread: Thread, name: str) -> str:
    [found] = [i for i, c in thread.tool_calls.items() if c.name == name]
    return found


def tool_items(chat: Any) -> list[dict[str, Any]]:
    return [item for item in chat.view.items if item["kind"] == "tool"]


# --- the interrupt and its decisions ------------------------------------------------------------


async def test_approve(agent: Agent, adk_server: Any) -> None:
    thread = agent.thread()
    first = await thread.run("please transfer 100")
    assert first.outcome == "interrupt"
    [pending] = thread.pending
    transfer_id = call_id(thread, "transfer_money")
    confirmation_id = call_id(thread, CONFIRMATION_TOOL)
    # The interrupt is ADK's confirmation call; the client names the call it gates.
    assert pending.id == confirmation_id and pending.raw["toolCallId"] == confirmation_id
    assert pending.reason == "confirmation"
    assert pending.tool_call_id == transfer_id
    assert pending.tool_name == "transfer_money"
    assert pending.arguments == TRANSFER_ARGS
    assert pending.response_schema == CONFIRMATION_SCHEMA
    assert "responseSchema" not in pending.raw  # the adapter sends none
    assert adk_server.executions == []

    result = await thread.resume(approve())
    assert result.outcome == "success"
    assert result.text == f"Done: {TRANSFER_RESULT}"
    assert result.warnings == []
    assert thread.pending == []
    body = last_body(adk_server)
    assert body["threadId"] == thread.id and body["runId"] != first.run_id
    assert body["resume"] == [
        {"interruptId": pending.id, "status": "resolved", "payload": {"confirmed": True}}
    ]
    assert adk_server.executions == [("transfer_money", TRANSFER_ARGS)]
    assert thread.tool_calls[transfer_id].result == TRANSFER_DONE
    assert thread.tool_calls[confirmation_id].result is None  # ADK never answers it


async def test_the_confirmation_call_is_hidden_but_sent_back(agent: Agent, adk_server: Any) -> None:
    """The view shows one tool, awaiting, then done; the history the resume carries keeps ADK's
    confirmation call (the adapter pairs several answers with their calls through it)."""
    chat = agent.chat(policy=policies.approve_all(), display=False)
    result = await chat.send("transfer")
    assert result.outcome == "success"
    [tool] = tool_items(chat)
    assert tool["name"] == "transfer_money" and tool["status"] == "done"
    assert tool["result"] == TRANSFER_DONE
    assert tool["resultValue"] == {"result": TRANSFER_RESULT}  # JSON-encoded: shown as the value
    [decision] = result.decisions
    assert decision["tool"] == "transfer_money" and decision["decision"] == "approve"
    sent = [
        c["function"]["name"]
        for m in last_body(adk_server)["messages"]
        for c in m.get("toolCalls") or []
    ]
    assert sent == ["transfer_money", CONFIRMATION_TOOL]


async def test_reject(agent: Agent, adk_server: Any) -> None:
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    result = await thread.resume(reject())
    assert last_body(adk_server)["resume"][0]["payload"] == {"confirmed": False}
    assert result.text == "The transfer was not approved."
    assert result.warnings == []
    assert thread.tool_calls[pending.tool_call_id or ""].result == REJECTED
    assert adk_server.executions == []


async def test_reject_with_a_reason_the_confirmation_has_no_room_for(
    agent: Agent, adk_server: Any
) -> None:
    """ADK's ToolConfirmation has no reason (and refuses unknown keys): the rejection goes
    without it, and the result says so."""
    thread = await interrupted(agent, "transfer")
    result = await thread.resume(reject("Too much"))
    assert last_body(adk_server)["resume"][0]["payload"] == {"confirmed": False}
    assert any("has no 'reason'" in w for w in result.warnings)
    assert result.text == "The transfer was not approved."
    assert adk_server.executions == []


async def test_edit_is_refused_before_sending(agent: Agent, adk_server: Any) -> None:
    """The adapter would run the tool with the proposed arguments whatever the answer carries:
    an edit is refused here, nothing is sent, and the interrupt can still be answered."""
    thread = await interrupted(agent, "transfer")
    before = list(thread.pending)
    sent = len(adk_server.requests)
    with pytest.raises(InvalidDecision, match="no place for edited arguments"):
        await thread.resume(edit(amount=250.0))
    assert len(adk_server.requests) == sent
    assert thread.pending == before
    await thread.resume(approve())
    assert adk_server.executions == [("transfer_money", TRANSFER_ARGS)]


async def test_payloads_the_confirmation_refuses_are_never_sent(
    agent: Agent, adk_server: Any
) -> None:
    """The adapter reads {"accepted": false} (or any shape it does not know) as a yes: such
    answers must not leave the client."""
    thread = await interrupted(agent, "transfer")
    sent = len(adk_server.requests)
    for payload in ({"accepted": False}, {"approved": False}, {"confirmed": "no"}, False):
        with pytest.raises(InvalidDecision):
            await thread.resume(answer(payload))
    assert len(adk_server.requests) == sent
    result = await thread.resume(answer({"confirmed": False}))
    assert result.text == "The transfer was not approved."
    assert adk_server.executions == []


async def test_cancel_is_a_rejection_then_the_thread_continues(
    agent: Agent, adk_server: Any
) -> None:
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    result = await thread.resume(cancel())
    assert last_body(adk_server)["resume"] == [{"interruptId": pending.id, "status": "cancelled"}]
    assert result.outcome == "success"
    assert result.text == "The transfer was not approved."
    assert thread.tool_calls[pending.tool_call_id or ""].result == REJECTED
    assert thread.pending == []
    assert adk_server.executions == []
    after = await thread.run("hello again")
    assert after.text == "Echo: hello again"


# --- several calls ------------------------------------------------------------------------------


async def test_approval_batched_with_a_free_call(agent: Agent, adk_server: Any) -> None:
    """The free call runs at once; the gated one first gets ADK's placeholder result
    ("requires confirmation"), replaced by the real one once approved."""
    thread = await interrupted(agent, "batch")
    [pending] = thread.pending
    assert pending.tool_name == "transfer_money"
    assert adk_server.executions == [("check_balance", BALANCE_ARGS)]
    transfer_id, balance_id = call_id(thread, "transfer_money"), call_id(thread, "check_balance")
    assert "requires confirmation" in (thread.tool_calls[transfer_id].result or "")
    assert thread.tool_calls[balance_id].result == f'{{"result": "{BALANCE_RESULT}"}}'

    result = await thread.resume(approve())
    assert result.text == f"Done: {TRANSFER_RESULT} Done: {BALANCE_RESULT}"
    assert adk_server.executions == [
        ("check_balance", BALANCE_ARGS),
        ("transfer_money", TRANSFER_ARGS),
    ]
    assert thread.tool_calls[transfer_id].result == TRANSFER_DONE


async def test_two_approvals_in_one_run(agent: Agent, adk_server: Any) -> None:
    thread = await interrupted(agent, "two", count=2)
    transfer, subscription = thread.pending
    assert [p.tool_name for p in thread.pending] == ["transfer_money", "cancel_subscription"]
    assert transfer.arguments == TRANSFER_ARGS and subscription.arguments == SUBSCRIPTION_ARGS
    result = await thread.resume({transfer.id: approve(), subscription.id: approve()})
    assert result.text == f"Done: {TRANSFER_RESULT} Done: {SUBSCRIPTION_RESULT}"
    assert [e["interruptId"] for e in last_body(adk_server)["resume"]] == [
        transfer.id,
        subscription.id,
    ]
    assert adk_server.executions == [
        ("transfer_money", TRANSFER_ARGS),
        ("cancel_subscription", SUBSCRIPTION_ARGS),
    ]
    assert thread.pending == []


async def test_mixed_decisions_work_without_reissue(agent: Agent, adk_server: Any) -> None:
    thread = await interrupted(agent, "two", count=2)
    transfer, subscription = thread.pending
    result = await thread.resume({transfer.id: approve(), subscription.id: reject()})
    assert result.outcome == "success"
    assert result.text == f"Done: {TRANSFER_RESULT} The call was not approved."
    assert not any("again after it was answered" in w for w in result.warnings)
    assert thread.pending == []
    assert adk_server.executions == [("transfer_money", TRANSFER_ARGS)]


# --- bad resumes the client refuses itself: nothing is sent -------------------------------------


async def test_client_refuses_incomplete_unknown_and_empty_resumes(
    agent: Agent, adk_server: Any
) -> None:
    thread = await interrupted(agent, "two", count=2)
    transfer, subscription = thread.pending
    before = list(thread.pending)
    sent = len(adk_server.requests)

    with pytest.raises(UnansweredInterrupts) as missing:
        await thread.resume(approve())
    assert missing.value.missing == [subscription.id]
    with pytest.raises(UnansweredInterrupts):
        await thread.resume({transfer.id: approve()})
    with pytest.raises(UnknownInterrupt) as unknown:
        await thread.resume(
            {transfer.id: approve(), subscription.id: approve(), "adk-nope": approve()}
        )
    assert unknown.value.unknown == ["adk-nope"]

    assert len(adk_server.requests) == sent
    assert thread.pending == before
    await thread.resume({transfer.id: approve(), subscription.id: approve()})
    assert len(adk_server.executions) == 2
    with pytest.raises(NothingPending):
        await thread.resume(approve())
    assert len(adk_server.requests) == sent + 1


# --- bad resumes the server refuses: RUN_ERROR codes as RunError, nothing consumed ---------------


async def test_server_refuses_an_unknown_interrupt_id(
    agent: Agent,
    adk_server: Any,
    twin: Callable[..., Thread],
    forge_id: Callable[[PendingInterrupt, str], PendingInterrupt],
) -> None:
    """The adapter answers with a bare RUN_ERROR (no RUN_STARTED before it)."""
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    forged = twin(thread, pending=[forge_id(pending, "adk-00000000-0000-0000-0000-000000000000")])
    forged_before = forged.pending
    messages_before = forged.messages

    with pytest.raises(RunError) as error:
        await forged.resume(approve())
    assert error.value.code == "UNKNOWN_INTERRUPT"
    assert "adk-00000000-0000-0000-0000-000000000000" in error.value.message
    assert forged.pending == forged_before
    assert forged.messages == messages_before
    assert forged.runs[-1].status == "failed"
    assert adk_server.executions == []

    assert thread.pending == [pending]
    result = await thread.resume(approve())
    assert result.text == f"Done: {TRANSFER_RESULT}"
    assert adk_server.executions == [("transfer_money", TRANSFER_ARGS)]


async def test_server_refuses_a_resume_on_the_wrong_thread(
    agent: Agent, adk_server: Any, twin: Callable[..., Thread]
) -> None:
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    other = twin(thread, thread_id="some-other-thread", history=False)

    with pytest.raises(RunError) as error:
        await other.resume(approve())
    assert error.value.code == "UNKNOWN_INTERRUPT"
    assert pending.id in error.value.message
    assert last_body(adk_server)["threadId"] == "some-other-thread"
    assert other.pending == [pending]
    assert adk_server.executions == []

    await thread.resume(approve())
    assert adk_server.executions == [("transfer_money", TRANSFER_ARGS)]


async def test_server_refuses_a_resume_missing_an_answer(
    agent: Agent, adk_server: Any, twin: Callable[..., Thread]
) -> None:
    thread = await interrupted(agent, "two", count=2)
    transfer, subscription = thread.pending
    partial = twin(thread, pending=[transfer])

    with pytest.raises(RunError) as error:
        await partial.resume(approve())
    assert error.value.code == "INTERRUPT_RESUME_INCOMPLETE"
    assert subscription.id in error.value.message
    assert partial.pending == [transfer]
    assert adk_server.executions == []

    await thread.resume({transfer.id: approve(), subscription.id: approve()})
    assert adk_server.executions == [
        ("transfer_money", TRANSFER_ARGS),
        ("cancel_subscription", SUBSCRIPTION_ARGS),
    ]


async def test_a_new_message_while_an_interrupt_is_pending(agent: Agent, adk_server: Any) -> None:
    thread = await interrupted(agent, "transfer")
    before = list(thread.pending)
    messages_before = thread.messages

    with pytest.raises(RunError) as error:
        await thread.run("hello")
    assert error.value.code == "INTERRUPT_RESUME_REQUIRED"
    assert thread.pending == before
    assert thread.messages == messages_before  # the refused message was not committed
    assert thread.runs[-1].status == "failed"

    result = await thread.resume(approve())
    assert result.text == f"Done: {TRANSFER_RESULT}"
    assert adk_server.executions == [("transfer_money", TRANSFER_ARGS)]


# --- transport ----------------------------------------------------------------------------------


async def test_keepalive_comments_keep_a_slow_run_alive(agent: Agent) -> None:
    result = await agent.thread().run("slow please")  # 3 s of ": ping" comments, then text
    assert result.outcome == "success"
    assert result.text == "Slow answer."
    assert result.warnings == []


async def test_keepalive_comments_alone_do_not_reset_the_idle_timeout(adk_server: Any) -> None:
    """Pings every second, 3 s without an event: a 1.5 s idle timeout must fire (if a ping reset
    it, the run would finish)."""
    async with Agent(adk_server.url, idle_timeout=1.5) as agent:
        thread = agent.thread()
        with pytest.raises(StreamTimeout, match="keepalive"):
            await thread.run("slow please")
        assert thread.messages == []
        assert thread.runs[-1].status == "failed"


# --- Chat with a policy (headless) --------------------------------------------------------------


async def test_chat_reject(agent: Agent, adk_server: Any) -> None:
    chat = agent.chat(policy=policies.reject_all(), display=False)
    result = await chat.send("transfer")
    assert result.outcome == "success"
    assert result.text == "The transfer was not approved."
    [decision] = result.decisions
    assert decision["decision"] == "reject" and decision["outcome"] == "success"
    [tool] = tool_items(chat)
    assert tool["name"] == "transfer_money" and tool["status"] == "rejected"
    assert adk_server.executions == []


async def test_chat_two_approvals_on_one_card(agent: Agent, adk_server: Any) -> None:
    chat = agent.chat(policy=policies.approve_all(), display=False)
    result = await chat.send("two things")
    assert result.outcome == "success"
    assert result.text == f"Done: {TRANSFER_RESULT} Done: {SUBSCRIPTION_RESULT}"
    assert [d["tool"] for d in result.decisions] == ["transfer_money", "cancel_subscription"]
    assert len({d["card"] for d in result.decisions}) == 1
    assert [t["name"] for t in tool_items(chat)] == ["transfer_money", "cancel_subscription"]
    assert len(adk_server.executions) == 2


async def test_chat_mixed_decisions_by_rules(agent: Agent, adk_server: Any) -> None:
    chat = agent.chat(
        policy=policies.rules(
            {"tool": "transfer_money", "decision": "approve"}, default=reject("not this one")
        ),
        display=False,
    )
    result = await chat.send("two things")
    assert result.text == f"Done: {TRANSFER_RESULT} The call was not approved."
    assert [d["decision"] for d in result.decisions] == ["approve", "reject"]
    assert adk_server.executions == [("transfer_money", TRANSFER_ARGS)]
    statuses = {t["name"]: t["status"] for t in tool_items(chat)}
    assert statuses == {"transfer_money": "done", "cancel_subscription": "rejected"}
