"""_compat_adk and _compat_crewai: Google ADK's and CrewAI's interrupts, read and answered. Pure.

The ADK streams are the real server's (tests/fixtures/transcripts/adk_*.sse, captured from
tests/servers/adk/server.py); the CrewAI interrupts are built in the shape test_crewai_wire.py pins.
The servers themselves are driven in tests/interop/test_client_{adk,crewai}.py.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import Interrupt

from agui_notebook import InvalidDecision, UnansweredInterrupts, approve, cancel, edit, reject
from agui_notebook._decisions.interrupts import PendingInterrupt
from agui_notebook._frameworks.adk import CONFIRMATION_SCHEMA, CONFIRMATION_TOOL, tool_confirmation
from agui_notebook._frameworks.crewai import pause_from_event, reviewed_call, same_interrupt_again
from agui_notebook._protocol.events import type_of
from agui_notebook._state.items import ItemList, card_interrupt
from tests.thread._streams import (
    ScriptedServer,
    interrupted,
    ok_run,
    run_finished,
    run_started,
    sse,
)

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
TRANSFER_ARGS = {
    "from_account": "checking",
    "to_account": "savings",
    "amount": 100.0,
    "currency": "USD",
}


def transcript(name: str) -> bytes:
    return (TRANSCRIPTS / name).read_bytes()


# --- Google ADK ---------------------------------------------------------------------------------


def adk_metadata(**call: Any) -> dict[str, Any]:
    return {"adk": {"originalFunctionCall": call, "toolConfirmation": {"confirmed": False}}}


@pytest.mark.parametrize(
    ("reason", "metadata"),
    [
        ("tool_call", adk_metadata(id="c1", name="t", args={})),
        ("confirmation", None),
        ("confirmation", {"adk": "x"}),
        ("confirmation", {"adk": {"originalFunctionCall": "x"}}),
        ("confirmation", adk_metadata(name="t", args={})),
        ("confirmation", adk_metadata(id="c1", name=7)),
    ],
)
def test_not_an_adk_confirmation(reason: str, metadata: Any) -> None:
    assert tool_confirmation(reason, metadata) is None


def test_an_adk_confirmation_names_the_gated_call() -> None:
    metadata = adk_metadata(id="c1", name="transfer_money", args={"amount": 1})
    assert tool_confirmation("confirmation", metadata) == ("c1", "transfer_money", {"amount": 1})


async def test_adk_interrupts_read_from_the_real_stream() -> None:
    server = ScriptedServer(transcript("adk_two_interrupt.sse"), ok_run())
    thread = server.agent().thread()
    result = await thread.run("two")
    transfer, subscription = thread.pending
    names = {i: c.name for i, c in thread.tool_calls.items()}
    assert [names[p.id] for p in thread.pending] == [CONFIRMATION_TOOL] * 2
    assert [names[p.tool_call_id or ""] for p in thread.pending] == [
        "transfer_money",
        "cancel_subscription",
    ]
    assert transfer.tool_name == "transfer_money" and transfer.arguments == TRANSFER_ARGS
    assert subscription.arguments == {"subscription_id": "sub_123"}
    assert transfer.response_schema == subscription.response_schema == CONFIRMATION_SCHEMA

    card = card_interrupt(transfer, None)
    assert (card["mode"], card["canEdit"], card["canGiveReason"]) == ("tool", False, False)
    assert card["toolName"] == "transfer_money" and card["toolCallId"] == transfer.tool_call_id
    items = ItemList()
    for event in result.events:
        items.apply(type_of(event), event)
    tools = [item["name"] for item in items.snapshot() if item["kind"] == "tool"]
    assert tools == ["transfer_money", "cancel_subscription"]  # the confirmation calls hidden

    with pytest.raises(InvalidDecision, match="no place for edited arguments"):
        await thread.resume({transfer.id: edit(amount=5.0), subscription.id: approve()})
    assert len(server.bodies) == 1

    answered = await thread.resume({transfer.id: approve(), subscription.id: reject("No")})
    body = server.bodies[1]
    assert [e["payload"] for e in body["resume"]] == [{"confirmed": True}, {"confirmed": False}]
    assert any("has no 'reason'" in w for w in answered.warnings)
    sent = [c["function"]["name"] for m in body["messages"] for c in m.get("toolCalls") or []]
    assert sent.count(CONFIRMATION_TOOL) == 2  # kept in the history: the adapter pairs by them
    # ...all four calls in one assistant message, as the model made them.
    assert [len(m["toolCalls"]) for m in body["messages"] if m.get("toolCalls")] == [4]


async def test_adk_cancel_is_sent_as_cancelled() -> None:
    server = ScriptedServer(transcript("adk_transfer_interrupt.sse"), ok_run())
    thread = server.agent().thread()
    await thread.run("transfer")
    [pending] = thread.pending
    await thread.resume(cancel())
    assert server.bodies[1]["resume"] == [{"interruptId": pending.id, "status": "cancelled"}]


# --- CrewAI -------------------------------------------------------------------------------------


def crewai_interrupt(thread_id: str, output: Any, **fields: Any) -> dict[str, Any]:
    return {
        "id": thread_id,
        "reason": "crewai:human_feedback",
        "message": "Approve this call?",
        "metadata": {
            "crewai": {
                "flowId": thread_id,
                "methodName": "ask_approval",
                "emit": None,
                "output": output,
            }
        },
        **fields,
    }


def paused(thread_id: str, *interrupts: dict[str, Any], run_id: str = "r1") -> bytes:
    return sse(
        run_started(thread_id, run_id),
        run_finished(thread_id, run_id, outcome=interrupted(*interrupts)),
    )


TRANSFER = {"toolCallId": "call_1", "tool": "transfer_money", "arguments": TRANSFER_ARGS}
SUBSCRIPTION = {"tool": "cancel_subscription", "args": {"subscription_id": "sub_123"}}


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (TRANSFER, ("call_1", "transfer_money", TRANSFER_ARGS)),
        (SUBSCRIPTION, (None, "cancel_subscription", {"subscription_id": "sub_123"})),
        ({"toolName": "t"}, (None, "t", None)),
        ({"arguments": {}}, None),
        ("a plain text to review", None),
        (None, None),
    ],
)
def test_reviewed_call(output: Any, expected: Any) -> None:
    metadata = crewai_interrupt("t1", output)["metadata"]
    assert reviewed_call("crewai:human_feedback", metadata) == expected
    assert reviewed_call("tool_call", metadata) is None


def test_same_interrupt_again() -> None:
    first = crewai_interrupt("t1", TRANSFER)
    assert same_interrupt_again(first, copy.deepcopy(first)) is True
    assert same_interrupt_again(first, crewai_interrupt("t1", SUBSCRIPTION)) is False
    # Ids that are not the flow's: the usual rule, the same id is the same interrupt.
    other = crewai_interrupt("t1", SUBSCRIPTION)
    other["id"] = "i-1"
    assert same_interrupt_again(first, other) is True
    assert same_interrupt_again({"id": "x", "reason": "tool_call"}, {"id": "x"}) is True


async def test_crewai_pauses_under_one_id_are_new_unless_identical() -> None:
    server = ScriptedServer()
    thread = server.agent().thread()
    first, second = crewai_interrupt(thread.id, TRANSFER), crewai_interrupt(thread.id, SUBSCRIPTION)
    server.add(paused(thread.id, first), paused(thread.id, second, run_id="r2"))
    server.add(paused(thread.id, second, run_id="r3"))
    await thread.run("two")
    assert thread.pending[0].tool_name == "transfer_money"
    assert thread.pending[0].tool_call_id == "call_1"

    result = await thread.resume(approve())
    [pending] = thread.pending
    assert pending.tool_name == "cancel_subscription" and pending.reissued is False
    assert result.warnings == []

    again = await thread.resume(approve())  # the same question about the same output: a loop
    assert thread.pending[0].reissued is True
    assert any("again after it was answered" in w for w in again.warnings)


async def test_a_new_message_while_a_crewai_flow_is_paused_is_refused() -> None:
    server = ScriptedServer()
    thread = server.agent().thread()
    server.add(paused(thread.id, crewai_interrupt(thread.id, "review this")))
    await thread.run("draft")
    [pending] = thread.pending
    assert pending.tool_name is None and pending.message == "Approve this call?"
    with pytest.raises(UnansweredInterrupts, match="CrewAI flow is paused"):
        await thread.run("hello")
    assert len(server.bodies) == 1


async def test_a_card_shows_what_a_crewai_step_asks_to_review() -> None:
    """An output that names no tool is the card's ``review`` (the form or free answer is about
    it); one that names a tool is shown as that call's arguments, and not twice."""
    server = ScriptedServer()
    thread = server.agent().thread()
    server.add(paused(thread.id, crewai_interrupt(thread.id, {"draft": "Dear customer", "n": 4})))
    await thread.run("write to the customer")
    [pending] = thread.pending
    card = card_interrupt(pending, None)
    assert (card["mode"], card["args"]) == ("free", None)
    assert card["review"] == {"draft": "Dear customer", "n": 4}
    tool = card_interrupt(
        PendingInterrupt.from_wire(
            Interrupt.model_validate(crewai_interrupt("t1", TRANSFER)), run_id="r", tool_calls={}
        ),
        None,
    )
    assert (tool["mode"], tool["args"], tool["review"]) == ("tool", TRANSFER_ARGS, None)
    plain = PendingInterrupt.from_wire(
        Interrupt.model_validate({"id": "i", "reason": "input_required"}), run_id="r", tool_calls={}
    )
    assert card_interrupt(plain, None)["review"] is None


async def test_named_outcomes_are_a_form_not_an_approval() -> None:
    """CrewAI's ``emit`` schema, from the real stream: a string answer, refused as an approval."""
    server = ScriptedServer(transcript("crewai_outcomes_interrupt.sse"))
    thread = server.agent().thread()
    await thread.run("anything")
    [pending] = thread.pending
    assert pending.response_schema == {"type": "string", "enum": ["approved", "rejected"]}
    assert pending.tool_name == "transfer_money"
    assert card_interrupt(pending, None)["mode"] == "form"
    for decision in (approve(), reject(), edit(amount=1.0)):
        with pytest.raises(InvalidDecision):
            await thread.resume(decision)
    assert len(server.bodies) == 1


@pytest.mark.parametrize(
    "value",
    [
        {"id": "t1", "reason": "langgraph:interrupt", "metadata": {"crewai": {}}},
        {"reason": "crewai:human_feedback", "metadata": {"crewai": {}}},
        {"id": "t1", "reason": "crewai:human_feedback"},
        {"id": "t1", "reason": "crewai:human_feedback", "metadata": {"crewai": {}}, "message": 5},
        '{"id": "t1", "reason": "crewai:human_feedback"}',  # LangGraph sends dict values encoded
    ],
)
def test_not_a_crewai_pause_event(value: Any) -> None:
    assert pause_from_event(value) is None


async def test_crewai_default_style_is_read_from_on_interrupt() -> None:
    """CrewAI's default style: the pause only in ``CUSTOM on_interrupt``, whose value is the whole
    interrupt; answered by resume[] (not LangGraph's forwardedProps.command.resume)."""
    server = ScriptedServer()
    thread = server.agent().thread()
    pause = crewai_interrupt(thread.id, TRANSFER)
    server.add(
        sse(
            run_started(thread.id),
            {"type": "CUSTOM", "name": "on_interrupt", "value": pause},
            run_finished(thread.id),
        ),
        ok_run(),
    )
    result = await thread.run("transfer")
    assert result.outcome == "interrupt"
    [pending] = thread.pending
    assert pending.id == thread.id and pending.tool_name == "transfer_money"
    await thread.resume(approve())
    body = server.bodies[1]
    assert body["resume"] == [
        {"interruptId": thread.id, "status": "resolved", "payload": {"approved": True}}
    ]
    assert "command" not in body["forwardedProps"]
