"""agui_notebook end to end against Microsoft Agent Framework's AG-UI server (agent-framework-ag-ui).

The server is the tutorial's (tests/servers/msaf_server.py), with a scripted model. What it sends is
pinned at the wire level in test_msaf_wire.py; here our client drives it: decisions shaped from the
server's responseSchema, typed errors carrying the server's codes, the synthetic confirm_changes
call, keepalive comments, and the server's re-issue bug surfaced instead of looped on.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import jsonschema
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
from agui_notebook._chat.chat import InterruptReissued
from tests.servers.msaf_server import BALANCE_ARGS, SUBSCRIPTION_ARGS, TRANSFER_ARGS

pytestmark = pytest.mark.interop

INTERRUPT_ID = re.compile(r"^af-call-[0-9a-f]{32}$")
TRANSFER_RESULT = "Transferred 100.00 USD from checking to savings"
BALANCE_RESULT = "Balance of checking: 1234.56 USD"
SUBSCRIPTION_RESULT = "Cancelled subscription sub_123"
REISSUE_WARNING = "again after it was answered"


@pytest.fixture
async def agent(msaf_server: Any) -> AsyncIterator[Agent]:
    async with Agent(msaf_server.url) as agent:
        yield agent


@pytest.fixture(autouse=True)
def _clear(msaf_server: Any) -> None:
    msaf_server.executions.clear()


async def interrupted(agent: Agent, text: str, count: int = 1) -> Thread:
    thread = agent.thread()
    result = await thread.run(text)
    assert result.outcome == "interrupt"
    assert len(thread.pending) == count
    assert result.interrupts == thread.pending
    return thread


def resume_requests(server: Any, since: int) -> list[dict[str, Any]]:
    return [r.json for r in server.requests[since:] if r.json and r.json.get("resume")]


def last_resume(server: Any) -> list[dict[str, Any]]:
    body = server.requests[-1].json
    assert body is not None
    resume: list[dict[str, Any]] = body["resume"]
    return resume


def tool_items(chat: Any) -> list[dict[str, Any]]:
    return [item for item in chat.view.items if item["kind"] == "tool"]


# --- the interrupt and its decisions ------------------------------------------------------------


async def test_approve(agent: Agent, msaf_server: Any) -> None:
    thread = agent.thread()
    first = await thread.run("please transfer 100")
    assert first.outcome == "interrupt"
    [pending] = thread.pending
    assert INTERRUPT_ID.match(pending.id)
    assert pending.reason == "tool_call"
    assert pending.tool_name == "transfer_money"
    assert pending.arguments == TRANSFER_ARGS
    assert pending.tool_call_id is not None and pending.tool_call_id != pending.id
    assert pending.message == "Approve running transfer_money?"
    assert pending.reissued is False
    assert msaf_server.executions == []
    request = msaf_server.requests[-1].json
    assert request["threadId"] == thread.id and "thread_id" not in request

    result = await thread.resume(approve())
    assert result.outcome == "success"
    assert result.text == f"Done: {TRANSFER_RESULT}"
    assert thread.pending == []
    assert msaf_server.executions == [("transfer_money", TRANSFER_ARGS)]
    [entry] = last_resume(msaf_server)
    assert entry == {"interruptId": pending.id, "status": "resolved", "payload": {"approved": True}}
    jsonschema.validate(entry["payload"], pending.response_schema)
    assert msaf_server.requests[-1].json["threadId"] == thread.id
    assert thread.tool_calls[pending.tool_call_id].name == "transfer_money"


async def test_confirm_changes_is_not_a_second_pending_tool(agent: Agent, msaf_server: Any) -> None:
    thread = await interrupted(agent, "transfer")
    # The server streamed two tool calls (transfer_money and the synthetic confirm_changes) ...
    assert sorted(c.name for c in thread.tool_calls.values()) == [
        "confirm_changes",
        "transfer_money",
    ]
    # ... but only one thing waits for an answer.
    [pending] = thread.pending
    assert pending.tool_name == "transfer_money"

    chat = agent.chat(policy=policies.approve_all(), display=False)
    result = await chat.send("transfer")
    assert result.outcome == "success"
    names = [item["name"] for item in tool_items(chat)]
    assert names == ["transfer_money"]
    assert "confirm_changes" not in str(chat.view.items)
    [card] = [item for item in chat.view.items if item["kind"] == "card"]
    assert [i["toolName"] for i in card["interrupts"]] == ["transfer_money"]


async def test_two_approvals_raise_two_interrupts_not_four(agent: Agent) -> None:
    thread = await interrupted(agent, "two things", count=2)
    assert [p.tool_name for p in thread.pending] == ["transfer_money", "cancel_subscription"]
    assert len({p.id for p in thread.pending}) == 2
    chat = agent.chat(policy=policies.approve_all(), display=False)
    await chat.send("two things")
    assert [item["name"] for item in tool_items(chat)] == ["transfer_money", "cancel_subscription"]


async def test_reject(agent: Agent, msaf_server: Any) -> None:
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    result = await thread.resume(reject())
    assert result.outcome == "success"
    assert result.text == "The transfer was not approved."
    assert thread.pending == []
    assert msaf_server.executions == []
    assert last_resume(msaf_server) == [
        {"interruptId": pending.id, "status": "resolved", "payload": {"approved": False}}
    ]


async def test_reject_with_a_reason_the_schema_has_no_room_for(
    agent: Agent, msaf_server: Any
) -> None:
    """The server refuses a ``reason`` key (APPROVAL_RESUME_INVALID); the client leaves it out
    because the responseSchema has none, and says so instead of failing the resume."""
    thread = await interrupted(agent, "transfer")
    assert "reason" not in thread.pending[0].response_schema["properties"]
    result = await thread.resume(reject("too much"))
    assert result.outcome == "success"
    assert result.text == "The transfer was not approved."
    assert last_resume(msaf_server)[0]["payload"] == {"approved": False}
    assert any("has no 'reason'" in w for w in result.warnings)
    assert msaf_server.executions == []


async def test_edit_uses_the_servers_payload_shape(agent: Agent, msaf_server: Any) -> None:
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    schema = pending.response_schema
    assert schema is not None
    assert schema["additionalProperties"] is False
    assert "editedArgs" in schema["properties"] and "arguments" not in schema["properties"]

    result = await thread.resume(edit(amount=250.0, currency="EUR"))
    edited = {**TRANSFER_ARGS, "amount": 250.0, "currency": "EUR"}
    [entry] = last_resume(msaf_server)
    # editedArgs is a full replacement: the unchanged arguments are sent too.
    assert entry["payload"] == {"approved": True, "editedArgs": edited}
    jsonschema.validate(entry["payload"], schema)
    assert msaf_server.executions == [("transfer_money", edited)]
    assert result.text == "Done: Transferred 250.00 EUR from checking to savings"


async def test_payloads_the_schema_refuses_are_never_sent(agent: Agent, msaf_server: Any) -> None:
    thread = await interrupted(agent, "transfer")
    before = list(thread.pending)
    sent = len(msaf_server.requests)
    with pytest.raises(InvalidDecision):
        await thread.resume(edit(amount="lots"))  # amount is a number in the schema
    # Microsoft's documented shape; its own server refuses it (additionalProperties: false).
    with pytest.raises(InvalidDecision):
        await thread.resume(answer({"accepted": True, "arguments": {"amount": 5.0}}))
    assert len(msaf_server.requests) == sent
    assert thread.pending == before
    assert not thread.busy
    await thread.resume(approve())
    assert msaf_server.executions == [("transfer_money", TRANSFER_ARGS)]


async def test_cancel_then_the_thread_continues(agent: Agent, msaf_server: Any) -> None:
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    result = await thread.resume(cancel())
    assert result.outcome == "success"
    assert result.text == ""
    assert thread.pending == []
    assert last_resume(msaf_server) == [{"interruptId": pending.id, "status": "cancelled"}]
    assert msaf_server.executions == []
    after = await thread.run("hello again")
    assert after.text == "Echo: hello again"


# --- several calls ------------------------------------------------------------------------------


async def test_approval_batched_with_a_free_call(agent: Agent, msaf_server: Any) -> None:
    thread = await interrupted(agent, "batch: transfer and balance")
    [pending] = thread.pending
    assert pending.tool_name == "transfer_money"
    assert {c.name for c in thread.tool_calls.values()} >= {"transfer_money", "check_balance"}
    assert msaf_server.executions == []  # the free call waits for the approval too

    result = await thread.resume(approve())
    assert msaf_server.executions == [
        ("transfer_money", TRANSFER_ARGS),
        ("check_balance", BALANCE_ARGS),
    ]
    assert result.outcome == "success"
    assert result.text == f"Done: {TRANSFER_RESULT} Done: {BALANCE_RESULT}"
    results = {c.name: c.result for c in thread.tool_calls.values() if c.result is not None}
    assert results == {"transfer_money": TRANSFER_RESULT, "check_balance": BALANCE_RESULT}


async def test_two_approvals_in_one_run(agent: Agent, msaf_server: Any) -> None:
    thread = await interrupted(agent, "two things", count=2)
    transfer, subscription = thread.pending
    result = await thread.resume({transfer.id: approve(), subscription.id: approve()})
    assert result.outcome == "success"
    assert f"Done: {TRANSFER_RESULT} Done: {SUBSCRIPTION_RESULT}" in result.text
    assert thread.pending == []
    assert msaf_server.executions == [
        ("transfer_money", TRANSFER_ARGS),
        ("cancel_subscription", SUBSCRIPTION_ARGS),
    ]
    assert [e["interruptId"] for e in last_resume(msaf_server)] == [transfer.id, subscription.id]
    assert all(e["payload"] == {"approved": True} for e in last_resume(msaf_server))


async def test_two_approvals_resume_gets_no_phantom_tool_result(
    agent: Agent, msaf_server: Any
) -> None:
    """The resume carries the thread's history, whose assistant message holds both synthetic
    confirm_changes calls (they never get a result). The server strips only the first
    confirm_changes of an assistant message; the second is taken for an abandoned call and given
    a synthetic result, "Tool execution skipped - user provided follow-up message", which the model
    then reports. Nothing in the conversation skipped a tool: the answer must be the two results.
    """
    thread = await interrupted(agent, "two things", count=2)
    result = await thread.resume({p.id: approve() for p in thread.pending})
    confirm_results = [c.result for c in thread.tool_calls.values() if c.name == "confirm_changes"]
    assert confirm_results == [None, None]
    assert result.text == f"Done: {TRANSFER_RESULT} Done: {SUBSCRIPTION_RESULT}"


async def test_two_rejections_in_one_run(agent: Agent, msaf_server: Any) -> None:
    thread = await interrupted(agent, "two things", count=2)
    result = await thread.resume({p.id: reject() for p in thread.pending})
    assert result.text.endswith("The transfer was not approved. The call was not approved.")
    assert thread.pending == []
    assert msaf_server.executions == []


# --- bad resumes the client refuses itself: nothing is sent -------------------------------------


async def test_client_refuses_incomplete_unknown_and_empty_resumes(
    agent: Agent, msaf_server: Any
) -> None:
    thread = await interrupted(agent, "two things", count=2)
    transfer, subscription = thread.pending
    before = list(thread.pending)
    sent = len(msaf_server.requests)

    with pytest.raises(UnansweredInterrupts) as missing:
        await thread.resume(approve())  # one decision, two interrupts
    assert missing.value.missing == [subscription.id]
    with pytest.raises(UnansweredInterrupts):
        await thread.resume({transfer.id: approve()})
    unknown_id = "af-call-" + "0" * 32
    with pytest.raises(UnknownInterrupt) as unknown:
        await thread.resume(
            {transfer.id: approve(), subscription.id: approve(), unknown_id: approve()}
        )
    assert unknown.value.unknown == [unknown_id]

    assert len(msaf_server.requests) == sent
    assert thread.pending == before
    await thread.resume({transfer.id: approve(), subscription.id: approve()})
    assert len(msaf_server.executions) == 2
    with pytest.raises(NothingPending):
        await thread.resume(approve())
    assert len(msaf_server.requests) == sent + 1


# --- bad resumes the server refuses: RUN_ERROR codes as RunError, nothing consumed ---------------


async def test_server_refuses_an_unknown_interrupt_id(
    agent: Agent,
    msaf_server: Any,
    twin: Callable[..., Thread],
    forge_id: Callable[[PendingInterrupt, str], PendingInterrupt],
) -> None:
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    unknown_id = "af-call-" + "f" * 32
    forged = twin(thread, pending=[forge_id(pending, unknown_id)])
    forged_before = forged.pending
    messages_before = forged.messages

    with pytest.raises(RunError) as error:
        await forged.resume(approve())
    assert error.value.code == "APPROVAL_RESUME_NOT_FOUND"
    assert unknown_id in error.value.message
    assert forged.pending == forged_before  # a failed resume changes nothing
    assert forged.messages == messages_before
    assert forged.runs[-1].status == "failed" and forged.runs[-1].error is error.value
    assert msaf_server.executions == []

    assert thread.pending == [pending]
    result = await thread.resume(approve())  # the corrected resume: nothing was consumed
    assert result.text == f"Done: {TRANSFER_RESULT}"
    assert msaf_server.executions == [("transfer_money", TRANSFER_ARGS)]


async def test_server_refuses_a_resume_on_the_wrong_thread(
    agent: Agent, msaf_server: Any, twin: Callable[..., Thread]
) -> None:
    thread = await interrupted(agent, "transfer")
    [pending] = thread.pending
    other = twin(thread, thread_id="some-other-thread", history=False)

    with pytest.raises(RunError) as error:
        await other.resume(approve())
    assert error.value.code == "APPROVAL_RESUME_NOT_FOUND"
    assert pending.id in error.value.message
    assert msaf_server.requests[-1].json["threadId"] == "some-other-thread"
    assert other.pending == [pending]
    assert msaf_server.executions == []

    await thread.resume(approve())
    assert msaf_server.executions == [("transfer_money", TRANSFER_ARGS)]


async def test_server_refuses_a_resume_missing_an_answer(
    agent: Agent, msaf_server: Any, twin: Callable[..., Thread]
) -> None:
    thread = await interrupted(agent, "two things", count=2)
    transfer, subscription = thread.pending
    partial = twin(thread, pending=[transfer])

    with pytest.raises(RunError) as error:
        await partial.resume(approve())
    assert error.value.code == "APPROVAL_RESUME_MISSING_INTERRUPT"
    assert error.value.message == f"Resume omitted pending interruptId '{subscription.id}'."
    assert partial.pending == [transfer]
    assert msaf_server.executions == []

    await thread.resume({transfer.id: approve(), subscription.id: approve()})
    assert msaf_server.executions == [
        ("transfer_money", TRANSFER_ARGS),
        ("cancel_subscription", SUBSCRIPTION_ARGS),
    ]


async def test_a_new_message_while_an_interrupt_is_pending(agent: Agent, msaf_server: Any) -> None:
    thread = await interrupted(agent, "transfer")
    before = list(thread.pending)
    messages_before = thread.messages

    with pytest.raises(RunError) as error:
        await thread.run("hello")
    assert error.value.code == "APPROVAL_RESUME_REQUIRED"
    assert thread.pending == before
    assert thread.messages == messages_before  # the refused message was not committed
    assert thread.runs[-1].status == "failed"

    result = await thread.resume(approve())
    assert result.text == f"Done: {TRANSFER_RESULT}"
    assert msaf_server.executions == [("transfer_money", TRANSFER_ARGS)]


# --- transport ----------------------------------------------------------------------------------


async def test_keepalive_comments_keep_a_slow_run_alive(agent: Agent) -> None:
    thread = agent.thread()
    result = await thread.run("slow please")  # ~1.6 s of CRLF keepalive comments, then text
    assert result.outcome == "success"
    assert result.text == "Slow answer."
    assert result.warnings == []


async def test_keepalive_comments_alone_do_not_reset_the_idle_timeout(msaf_server: Any) -> None:
    async with Agent(msaf_server.url, idle_timeout=0.5) as agent:
        thread = agent.thread()
        with pytest.raises(StreamTimeout, match="keepalive"):
            await thread.run("slow please")
        assert thread.messages == []
        assert thread.runs[-1].status == "failed"


# --- the server's re-issue bug: surfaced, not looped on -----------------------------------------


async def test_reissue_stream_opening_with_tool_call_end_is_tolerated(
    agent: Agent, msaf_server: Any
) -> None:
    """The re-issue stream opens with a TOOL_CALL_END for a call this run never started; the call
    is known to the thread, so the client drops that event with a warning instead of failing."""
    thread = await interrupted(agent, "two things", count=2)
    transfer, subscription = thread.pending
    sent = len(msaf_server.requests)
    result = await thread.resume({transfer.id: approve(), subscription.id: reject()})
    assert len(msaf_server.requests) == sent + 1
    assert result.outcome == "interrupt"
    assert [p.id for p in thread.pending] == [subscription.id]
    assert any(
        w.startswith("ignored TOOL_CALL_END") and subscription.tool_call_id in w
        for w in result.warnings
    )
    assert thread.runs[-1].status == "interrupt"


@pytest.mark.parametrize(
    "refusal", [pytest.param(reject(), id="reject"), pytest.param(cancel(), id="cancel")]
)
async def test_mixed_decisions_reissue_is_surfaced(
    agent: Agent, msaf_server: Any, refusal: Any
) -> None:
    """Approving one of two and refusing the other makes the server raise the refused interrupt
    again (same id), run nothing, and keep the approved one pending but unlisted. The interrupt
    the client just answered comes back: it must be flagged on that very resume."""
    thread = await interrupted(agent, "two things", count=2)
    transfer, subscription = thread.pending

    result = await thread.resume({transfer.id: approve(), subscription.id: refusal})
    assert msaf_server.executions == []
    assert result.outcome == "interrupt"
    [again] = thread.pending
    assert again.id == subscription.id
    assert again.reissued is True
    assert any(REISSUE_WARNING in w and subscription.id in w for w in result.warnings)

    # Answering what the server listed fails: it still waits for the approved one too.
    with pytest.raises(RunError) as error:
        await thread.resume(reject())
    assert error.value.code == "APPROVAL_RESUME_MISSING_INTERRUPT"
    assert transfer.id in error.value.message
    assert thread.pending == [again]
    assert msaf_server.executions == []


async def test_chat_with_a_policy_stops_on_a_reissued_interrupt(
    agent: Agent, msaf_server: Any
) -> None:
    chat = agent.chat(
        policy=policies.rules(
            {"tool": "transfer_money", "decision": "approve"}, default=reject("not this one")
        ),
        display=False,
    )
    sent = len(msaf_server.requests)
    with pytest.raises(InterruptReissued, match="cancel_subscription"):
        await chat.send("two things")
    # One run and one resume: the policy is not asked again for an interrupt it already answered.
    assert len(msaf_server.requests) - sent == 2
    assert len(resume_requests(msaf_server, sent)) == 1
    assert msaf_server.executions == []
    [again] = chat.thread.pending
    assert again.reissued is True and again.tool_name == "cancel_subscription"
    assert any(REISSUE_WARNING in w for w in chat.thread.runs[-1].warnings)


# --- Chat with a policy (headless) --------------------------------------------------------------


async def test_chat_approve(agent: Agent, msaf_server: Any) -> None:
    chat = agent.chat(policy=policies.approve_all(), display=False)
    result = await chat.send("transfer")
    assert result.outcome == "success"
    assert result.text == f"Done: {TRANSFER_RESULT}"
    assert msaf_server.executions == [("transfer_money", TRANSFER_ARGS)]
    [decision] = result.decisions
    assert decision["tool"] == "transfer_money"
    assert decision["decision"] == "approve"
    assert decision["decidedBy"] == "policy: approve-all"
    assert decision["outcome"] == "success"
    [tool] = tool_items(chat)
    assert tool["name"] == "transfer_money" and tool["status"] == "done"
    assert tool["result"] == TRANSFER_RESULT
    assert chat.thread.pending == []


async def test_chat_reject(agent: Agent, msaf_server: Any) -> None:
    chat = agent.chat(policy=policies.reject_all(), display=False)
    result = await chat.send("transfer")
    assert result.outcome == "success"
    assert result.text == "The transfer was not approved."
    assert msaf_server.executions == []
    [decision] = result.decisions
    assert decision["decision"] == "reject" and decision["outcome"] == "success"
    [tool] = tool_items(chat)
    assert tool["name"] == "transfer_money" and tool["status"] == "rejected"
    assert chat.thread.pending == []


async def test_chat_two_approvals_on_one_card(agent: Agent, msaf_server: Any) -> None:
    chat = agent.chat(policy=policies.approve_all(), display=False)
    result = await chat.send("two things")
    assert result.outcome == "success"
    assert f"Done: {TRANSFER_RESULT} Done: {SUBSCRIPTION_RESULT}" in result.text
    assert [d["tool"] for d in result.decisions] == ["transfer_money", "cancel_subscription"]
    assert len({d["card"] for d in result.decisions}) == 1
    assert len(msaf_server.executions) == 2
