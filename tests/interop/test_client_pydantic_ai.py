"""agui_notebook end to end against pydantic-ai's AG-UI adapter (``AGUIAdapter``, pydantic-ai-slim).

The server is tests/servers/pydantic_ai_server.py (a scripted FunctionModel, tools registered with
``requires_approval=True``); what it sends is pinned in test_pydantic_ai_wire.py. Its plain endpoint
keeps no thread state, so every run must carry the conversation: the client sends the thread's
history, including the assistant message with the pending ``toolCalls``. Its interrupt ids are
``int-<toolCallId>``, its responseSchema is ``{approved (required), editedArgs, reason}``, and its
RUN_ERROR carries no ``code``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import jsonschema
import pytest
from ag_ui.core import ToolMessage

from agui_notebook import (
    Agent,
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
from tests.servers.pydantic_ai_server import BALANCE_ARGS, SUBSCRIPTION_ARGS, TRANSFER_ARGS

pytestmark = pytest.mark.interop

TRANSFER_RESULT = "Transferred 100.00 USD from checking to savings"
BALANCE_RESULT = "Balance of checking: 1234.56 USD"
SUBSCRIPTION_RESULT = "Cancelled subscription sub_123"
RESPONSE_SCHEMA: dict[str, Any] = {
    "properties": {
        "approved": {"type": "boolean"},
        "editedArgs": {"type": "object"},
        "reason": {"type": "string"},
    },
    "required": ["approved"],
    "type": "object",
}


@pytest.fixture
async def agent(pydantic_ai_server: Any) -> AsyncIterator[Agent]:
    async with Agent(pydantic_ai_server.url) as agent:
        yield agent


@pytest.fixture(autouse=True)
def _clear(pydantic_ai_server: Any) -> None:
    pydantic_ai_server.executions.clear()


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


def tool_results(thread: Thread) -> dict[str, str]:
    return {m.tool_call_id: m.content for m in thread.messages if isinstance(m, ToolMessage)}


def tool_items(chat: Any) -> list[dict[str, Any]]:
    return [item for item in chat.view.items if item["kind"] == "tool"]


# --- the interrupt and its decisions ------------------------------------------------------------


async def test_approve_sends_the_conversation_with_the_resume(
    agent: Agent, pydantic_ai_server: Any
) -> None:
    thread = agent.thread()
    first = await thread.run("please transfer 100")
    assert first.outcome == "interrupt"
    [pending] = thread.pending
    assert pending.id == f"int-{pending.tool_call_id}"
    assert pending.reason == "tool_call"
    assert pending.tool_name == "transfer_money"
    assert pending.arguments == TRANSFER_ARGS
    assert pending.response_schema == RESPONSE_SCHEMA
    assert pydantic_ai_server.executions == []

    result = await thread.resume(approve())
    assert result.outcome == "success"
    assert result.text == f"Done: {TRANSFER_RESULT}"
    assert thread.pending == []
    assert pydantic_ai_server.executions == [("transfer_money", TRANSFER_ARGS)]
    body = last_body(pydantic_ai_server)
    assert body["threadId"] == thread.id and body["runId"] != first.run_id
    assert body["resume"] == [
        {"interruptId": pending.id, "status": "resolved", "payload": {"approved": True}}
    ]
    jsonschema.validate(body["resume"][0]["payload"], pending.response_schema)
    # Stateless server: the resume carries the user message and the assistant's pending toolCalls.
    roles = [m["role"] for m in body["messages"]]
    assert roles[0] == "user" and "assistant" in roles
    calls = [c for m in body["messages"] for c in m.get("toolCalls") or []]
    assert [c["id"] for c in calls] == [pending.tool_call_id]
    assert tool_results(thread) == {pending.tool_call_id: TRANSFER_RESULT}


async def test_reject(agent: Agent, pydantic_ai_server: Any) -> None:
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    result = await thread.resume(reject())
    assert result.outcome == "success"
    assert result.text == "The transfer was not approved."
    assert pydantic_ai_server.executions == []
    assert last_body(pydantic_ai_server)["resume"][0]["payload"] == {"approved": False}
    # The denial arrives as a tool result followed by REASONING_ENCRYPTED_VALUE: both accepted.
    assert tool_results(thread) == {pending.tool_call_id: "The tool call was denied."}
    assert "REASONING_ENCRYPTED_VALUE" in {e.type for e in result.events}
    assert result.warnings == []
    assert thread.pending == []


async def test_reject_with_a_reason(agent: Agent, pydantic_ai_server: Any) -> None:
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    result = await thread.resume(reject("Too much"))
    assert last_body(pydantic_ai_server)["resume"][0]["payload"] == {
        "approved": False,
        "reason": "Too much",
    }
    assert tool_results(thread) == {pending.tool_call_id: "Too much"}
    assert result.text == "The transfer was not approved."
    assert result.warnings == []
    assert pydantic_ai_server.executions == []


async def test_edit_sends_the_full_replacement(agent: Agent, pydantic_ai_server: Any) -> None:
    """editedArgs replaces the arguments wholesale on this server (a partial object fails the tool's
    validation), so the client sends every argument, edited or not."""
    thread = await interrupted(agent, "transfer")
    result = await thread.resume(edit(amount=250.0, currency="EUR"))
    edited = {**TRANSFER_ARGS, "amount": 250.0, "currency": "EUR"}
    assert last_body(pydantic_ai_server)["resume"][0]["payload"] == {
        "approved": True,
        "editedArgs": edited,
    }
    assert pydantic_ai_server.executions == [("transfer_money", edited)]
    assert result.text == "Done: Transferred 250.00 EUR from checking to savings"


async def test_payloads_the_schema_refuses_are_never_sent(
    agent: Agent, pydantic_ai_server: Any
) -> None:
    thread = await interrupted(agent, "transfer")
    before = list(thread.pending)
    sent = len(pydantic_ai_server.requests)
    with pytest.raises(InvalidDecision):
        await thread.resume(answer({"accepted": True}))  # Microsoft's flag: "approved" required
    with pytest.raises(InvalidDecision):
        await thread.resume(answer({"approved": "yes"}))
    assert len(pydantic_ai_server.requests) == sent
    assert thread.pending == before
    await thread.resume(approve())
    assert pydantic_ai_server.executions == [("transfer_money", TRANSFER_ARGS)]


async def test_cancel(agent: Agent, pydantic_ai_server: Any) -> None:
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    result = await thread.resume(cancel())
    assert last_body(pydantic_ai_server)["resume"] == [
        {"interruptId": pending.id, "status": "cancelled"}
    ]
    assert result.outcome == "success"
    assert tool_results(thread) == {pending.tool_call_id: "Cancelled by user."}
    assert result.text == "The transfer was not approved."
    assert thread.pending == []
    assert pydantic_ai_server.executions == []
    after = await thread.run("hello again")
    assert after.text == "Echo: hello again"


# --- several calls ------------------------------------------------------------------------------


async def test_approval_batched_with_a_free_call(agent: Agent, pydantic_ai_server: Any) -> None:
    thread = agent.thread()
    first = await thread.run("batch")
    assert first.outcome == "interrupt"
    [pending] = thread.pending
    assert pending.tool_name == "transfer_money"
    # The free call runs at once, in the first run.
    assert pydantic_ai_server.executions == [("check_balance", BALANCE_ARGS)]
    balance_id = next(i for i, c in thread.tool_calls.items() if c.name == "check_balance")
    assert tool_results(thread) == {balance_id: BALANCE_RESULT}

    result = await thread.resume(approve())
    assert pydantic_ai_server.executions == [
        ("check_balance", BALANCE_ARGS),
        ("transfer_money", TRANSFER_ARGS),
    ]
    assert result.text == f"Done: {TRANSFER_RESULT} Done: {BALANCE_RESULT}"
    assert tool_results(thread) == {
        balance_id: BALANCE_RESULT,
        pending.tool_call_id: TRANSFER_RESULT,
    }


async def test_two_approvals_in_one_run(agent: Agent, pydantic_ai_server: Any) -> None:
    thread = await interrupted(agent, "two", count=2)
    transfer, subscription = thread.pending
    assert [p.tool_name for p in thread.pending] == ["transfer_money", "cancel_subscription"]
    result = await thread.resume({transfer.id: approve(), subscription.id: approve()})
    assert result.text == f"Done: {TRANSFER_RESULT} Done: {SUBSCRIPTION_RESULT}"
    # pydantic-ai runs approved tools concurrently: the order of execution is not fixed.
    assert sorted(pydantic_ai_server.executions) == sorted(
        [
            ("transfer_money", TRANSFER_ARGS),
            ("cancel_subscription", SUBSCRIPTION_ARGS),
        ]
    )
    assert thread.pending == []


async def test_mixed_decisions_work_without_reissue(agent: Agent, pydantic_ai_server: Any) -> None:
    thread = await interrupted(agent, "two", count=2)
    transfer, subscription = thread.pending
    result = await thread.resume({transfer.id: approve(), subscription.id: reject()})
    assert result.outcome == "success"
    assert result.text == f"Done: {TRANSFER_RESULT} The call was not approved."
    assert thread.pending == []
    assert not any("again after it was answered" in w for w in result.warnings)
    assert pydantic_ai_server.executions == [("transfer_money", TRANSFER_ARGS)]


# --- bad resumes the client refuses itself: nothing is sent -------------------------------------


async def test_client_refuses_incomplete_unknown_and_empty_resumes(
    agent: Agent, pydantic_ai_server: Any
) -> None:
    """This server silently drops unanswered interrupts (the plain endpoint keeps no state), so the
    client's own coverage check is the only guard."""
    thread = await interrupted(agent, "two", count=2)
    transfer, subscription = thread.pending
    before = list(thread.pending)
    sent = len(pydantic_ai_server.requests)

    with pytest.raises(UnansweredInterrupts) as missing:
        await thread.resume({transfer.id: approve()})
    assert missing.value.missing == [subscription.id]
    with pytest.raises(UnansweredInterrupts):
        await thread.resume(approve())
    with pytest.raises(UnknownInterrupt) as unknown:
        await thread.resume(
            {transfer.id: approve(), subscription.id: approve(), "int-nope": approve()}
        )
    assert unknown.value.unknown == ["int-nope"]

    assert len(pydantic_ai_server.requests) == sent
    assert thread.pending == before
    assert pydantic_ai_server.executions == []
    await thread.resume({transfer.id: approve(), subscription.id: approve()})
    with pytest.raises(NothingPending):
        await thread.resume(approve())
    assert len(pydantic_ai_server.requests) == sent + 1


# --- bad resumes the server refuses: RUN_ERROR (no code) as RunError, nothing consumed ----------


@pytest.mark.parametrize(
    ("unknown_id", "message"),
    [
        pytest.param(
            "int-nope",
            "Tool call results were provided, but the message history does not contain a "
            "`ModelResponse`.",
            id="int-prefixed",
        ),
        pytest.param(
            "nope",
            "ResumeEntry.interrupt_id 'nope' does not start with the expected 'int-' prefix",
            id="no-prefix",
        ),
    ],
)
async def test_server_refuses_an_unknown_interrupt_id(
    agent: Agent,
    pydantic_ai_server: Any,
    twin: Callable[..., Thread],
    forge_id: Callable[[PendingInterrupt, str], PendingInterrupt],
    unknown_id: str,
    message: str,
) -> None:
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    forged = twin(thread, pending=[forge_id(pending, unknown_id)])
    forged_before = forged.pending
    messages_before = forged.messages

    # With an "int-" id the server first strips the unanswered call from the history, warning.
    warns = pytest.warns(UserWarning, match="unresolved tool call")
    expect_warning = warns if unknown_id.startswith("int-") else contextlib.nullcontext()
    with expect_warning, pytest.raises(RunError) as error:
        await forged.resume(approve())
    assert error.value.code is None  # pydantic-ai's RUN_ERROR carries no code
    assert message in error.value.message
    assert forged.pending == forged_before
    assert forged.messages == messages_before
    assert forged.runs[-1].status == "failed"
    assert pydantic_ai_server.executions == []

    assert thread.pending == [pending]
    result = await thread.resume(approve())
    assert result.text == f"Done: {TRANSFER_RESULT}"
    assert pydantic_ai_server.executions == [("transfer_money", TRANSFER_ARGS)]


async def test_server_refuses_a_resume_on_a_thread_without_the_conversation(
    agent: Agent, pydantic_ai_server: Any, twin: Callable[..., Thread]
) -> None:
    """No thread state on the server: the "wrong thread" is one whose history lacks the call."""
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    other = twin(thread, thread_id="some-other-thread", history=False)

    with pytest.raises(RunError) as error:
        await other.resume(approve())
    assert error.value.code is None
    assert (
        error.value.message == "Tool call results were provided, but the message history is empty."
    )
    assert last_body(pydantic_ai_server)["threadId"] == "some-other-thread"
    assert other.pending == [pending]
    assert pydantic_ai_server.executions == []

    await thread.resume(approve())
    assert pydantic_ai_server.executions == [("transfer_money", TRANSFER_ARGS)]


async def test_stateless_server_silently_drops_a_missing_answer(
    agent: Agent, pydantic_ai_server: Any, twin: Callable[..., Thread]
) -> None:
    """Why the client's coverage check matters: sent anyway, the incomplete resume "succeeds"."""
    thread = await interrupted(agent, "two", count=2)
    transfer, _ = thread.pending
    partial = twin(thread, pending=[transfer])
    with pytest.warns(UserWarning, match="unresolved tool call"):
        result = await partial.resume(approve())
    assert result.outcome == "success"
    assert partial.pending == []
    assert pydantic_ai_server.executions == [("transfer_money", TRANSFER_ARGS)]


async def test_stateful_server_refuses_a_resume_missing_an_answer(
    pydantic_ai_stateful_server: Any, twin: Callable[..., Thread]
) -> None:
    server = pydantic_ai_stateful_server
    server.executions.clear()
    async with Agent(server.url) as agent:
        thread = await interrupted(agent, "two", count=2)
        transfer, subscription = thread.pending
        partial = twin(thread, pending=[transfer])

        with pytest.raises(RunError) as error:
            await partial.resume(approve())
        assert error.value.code is None
        assert "Tool call results need to be provided for all deferred tool calls." in str(
            error.value
        )
        assert partial.pending == [transfer]
        assert server.executions == []

        result = await thread.resume({transfer.id: approve(), subscription.id: approve()})
        assert result.text == f"Done: {TRANSFER_RESULT} Done: {SUBSCRIPTION_RESULT}"
        # pydantic-ai runs approved tools concurrently: the order of execution is not fixed.
        assert sorted(name for name, _ in server.executions) == [
            "cancel_subscription",
            "transfer_money",
        ]


async def test_a_new_message_while_an_interrupt_is_pending(
    agent: Agent, pydantic_ai_server: Any
) -> None:
    """Accepted silently by this server: the pending call is abandoned, the thread moves on."""
    thread = await interrupted(agent, "transfer")
    result = await thread.run("hello")
    assert result.outcome == "success"
    assert result.text == (
        "Not done (interrupted): The tool call was interrupted before a result was produced."
    )
    assert thread.pending == []
    assert pydantic_ai_server.executions == []
    with pytest.raises(NothingPending):
        await thread.resume(approve())


# --- transport ----------------------------------------------------------------------------------


async def test_a_slow_run_without_keepalives(pydantic_ai_server: Any) -> None:
    """This server sends no keepalive comments; a 1.6 s silence is within the read timeout, and
    the idle timeout (which only counts time filled with keepalives) does not apply."""
    async with Agent(pydantic_ai_server.url, timeout=10.0, idle_timeout=0.5) as agent:
        result = await agent.thread().run("slow please")
    assert result.outcome == "success"
    assert result.text == "Slow answer."


# --- Chat with a policy (headless) --------------------------------------------------------------


async def test_chat_approve(agent: Agent, pydantic_ai_server: Any) -> None:
    chat = agent.chat(policy=policies.approve_all(), display=False)
    result = await chat.send("batch")
    assert result.outcome == "success"
    assert result.text == f"Done: {TRANSFER_RESULT} Done: {BALANCE_RESULT}"
    [decision] = result.decisions
    assert decision["tool"] == "transfer_money"
    assert decision["decidedBy"] == "policy: approve-all"
    assert decision["outcome"] == "success"
    assert [(t["name"], t["status"]) for t in tool_items(chat)] == [
        ("transfer_money", "done"),
        ("check_balance", "done"),
    ]
    assert chat.thread.pending == []


async def test_chat_reject(agent: Agent, pydantic_ai_server: Any) -> None:
    chat = agent.chat(policy=policies.reject_all("Not today"), display=False)
    result = await chat.send("transfer")
    assert result.outcome == "success"
    assert result.text == "The transfer was not approved."
    assert pydantic_ai_server.executions == []
    [decision] = result.decisions
    assert decision["decision"] == "reject" and decision["rejectReason"] == "Not today"
    [tool] = tool_items(chat)
    assert tool["name"] == "transfer_money"
    assert tool["result"] == "Not today"
    assert last_body(pydantic_ai_server)["resume"][0]["payload"] == {
        "approved": False,
        "reason": "Not today",
    }


async def test_chat_mixed_decisions_by_rules(agent: Agent, pydantic_ai_server: Any) -> None:
    chat = agent.chat(
        policy=policies.rules(
            {"tool": "transfer_money", "decision": "approve"}, default=reject("not this one")
        ),
        display=False,
    )
    sent = len(pydantic_ai_server.requests)
    result = await chat.send("two")
    assert result.outcome == "success"
    assert len(pydantic_ai_server.requests) - sent == 2
    assert [(d["tool"], d["decision"]) for d in result.decisions] == [
        ("transfer_money", "approve"),
        ("cancel_subscription", "reject"),
    ]
    assert pydantic_ai_server.executions == [("transfer_money", TRANSFER_ARGS)]
