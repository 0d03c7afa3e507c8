"""Unit tests of LangGraph's compatibility (agui_notebook/_frameworks/langgraph.py) and of JSON-encoded
tool results in the view. Pure: events and interrupts built by hand; the captured streams are in
test_langgraph_transcripts.py, the live server in tests/interop/test_client_langgraph.py."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import CustomEvent, EventType, Interrupt, ResumeEntry

from agui_notebook import InvalidDecision, UnansweredInterrupts
from agui_notebook._decisions.interrupts import PendingInterrupt
from agui_notebook._frameworks.langgraph import (
    interrupts_from_events,
    refuse_new_message,
    route_resume,
    tool_and_message,
)
from agui_notebook._protocol.wire import RunFinished
from agui_notebook._state.items import ItemList, json_encoded_value
from agui_notebook._state.reducer import RunReducer, ThreadSnapshot

ID_A = "a" * 32
ID_B = "b" * 32


def on_interrupt(value: Any, raw: Any = None) -> CustomEvent:
    return CustomEvent(type=EventType.CUSTOM, name="on_interrupt", value=value, raw_event=raw)


def pending(interrupt: Interrupt) -> PendingInterrupt:
    return PendingInterrupt.from_wire(interrupt, run_id="r", tool_calls={})


# --- reading -------------------------------------------------------------------------------------


def test_a_dict_value_reads_like_the_adapters_outcome() -> None:
    value = {
        "reason": "tool_call",
        "message": "Approve?",
        "tool_call_id": "call-1",
        "response_schema": {"type": "object"},
        "expiresAt": "2030-01-01T00:00:00Z",
        "tool": "transfer_money",
        "args": {"amount": 5},
    }
    [interrupt] = interrupts_from_events(
        [on_interrupt('{"ignored": true}', {"id": ID_A, "value": value})]
    )
    assert (
        interrupt.id == ID_A and interrupt.reason == "tool_call" and interrupt.message == "Approve?"
    )
    assert interrupt.tool_call_id == "call-1" and interrupt.response_schema == {"type": "object"}
    assert interrupt.expires_at == "2030-01-01T00:00:00Z"
    assert interrupt.metadata["langgraph"]["raw"] == value  # rawEvent.value wins over value
    it = pending(interrupt)
    assert (it.tool_name, it.arguments) == ("transfer_money", {"amount": 5})


def test_without_raw_event_the_value_is_decoded_or_kept() -> None:
    events = [
        on_interrupt('{"question": "Which one?"}'),
        on_interrupt("Plain question?"),
        on_interrupt("[1, 2]"),
    ]
    first, second, third = interrupts_from_events(events)
    assert [i.id for i in (first, second, third)] == [f"langgraph-interrupt-{n}" for n in (1, 2, 3)]
    assert first.reason == "langgraph:interrupt" and first.message is None
    assert pending(first).message == "Which one?"
    assert second.message == "Plain question?"
    assert pending(third).message == "[1,2]"  # otherwise the value itself is the question
    assert all(i.metadata["agui_notebook"]["idOnWire"] is False for i in (first, second, third))


def test_a_raw_string_that_looks_like_json_stays_a_string() -> None:
    [interrupt] = interrupts_from_events([on_interrupt("123", {"id": ID_A, "value": "123"})])
    assert interrupt.message == "123"


def test_tool_and_message_needs_langgraph_metadata() -> None:
    assert tool_and_message(None) == (None, None, None)
    assert tool_and_message({"other": {}}) == (None, None, None)
    assert tool_and_message({"langgraph": {"raw": {"toolName": "t", "arguments": "{}"}}}) == (
        "t",
        "{}",
        None,
    )


def reducer_after(*events: Any) -> RunReducer:
    reducer = RunReducer(ThreadSnapshot(), lambda _: None)
    for event in events:
        reducer.apply(event.type if isinstance(event.type, str) else event.type.value, event)
    return reducer


def test_no_outcome_after_on_interrupt_is_an_interrupt() -> None:
    reducer = reducer_after(
        on_interrupt("Q?", {"id": ID_A, "value": "Q?"}),
        RunFinished(type=EventType.RUN_FINISHED, thread_id="t", run_id="r"),
    )
    assert reducer.outcome == "interrupt" and [i.id for i in reducer.interrupts] == [ID_A]


def test_with_an_outcome_each_interrupt_counts_once() -> None:
    outcome = {"type": "interrupt", "interrupts": [{"id": ID_A, "reason": "tool_call"}]}
    finished = RunFinished.model_validate(
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": outcome}
    )
    reducer = reducer_after(on_interrupt("Q?", {"id": ID_A, "value": "Q?"}), finished)
    assert [i.id for i in reducer.interrupts] == [ID_A]


def test_other_custom_events_change_nothing() -> None:
    other = CustomEvent(type=EventType.CUSTOM, name="exit", value={})
    reducer = reducer_after(
        other, RunFinished(type=EventType.RUN_FINISHED, thread_id="t", run_id="r")
    )
    assert reducer.outcome == "success" and reducer.interrupts == []


# --- answering -----------------------------------------------------------------------------------


def default_style(*ids: str | None) -> list[PendingInterrupt]:
    events = [on_interrupt("{}", {"id": i, "value": {}} if i else None) for i in ids]
    return [pending(i) for i in interrupts_from_events(events)]


def outcome_style(*ids: str) -> list[PendingInterrupt]:
    return [
        pending(Interrupt(id=i, reason="tool_call", metadata={"langgraph": {"raw": {}}}))
        for i in ids
    ]


def resolved(interrupt: PendingInterrupt, payload: Any) -> ResumeEntry:
    return ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload=payload)


def test_other_servers_and_one_outcome_style_interrupt_use_resume() -> None:
    plain = [pending(Interrupt(id="x", reason="tool_call"))]
    assert route_resume(plain, [resolved(plain[0], {"approved": True})], {"k": 1}) == (
        {"k": 1},
        True,
    )
    one = outcome_style(ID_A)
    assert route_resume(one, [resolved(one[0], {"approved": True})], None) == (None, True)


def test_default_style_answer_goes_in_command_resume_next_to_other_props() -> None:
    [it] = default_style(ID_A)
    props = {"node_name": "n", "command": {"goto": "x"}}
    sent, on_wire = route_resume([it], [resolved(it, {"approved": True})], props)
    assert on_wire is False
    assert sent == {"node_name": "n", "command": {"goto": "x", "resume": {"approved": True}}}
    assert props == {"node_name": "n", "command": {"goto": "x"}}  # the caller's dict untouched
    assert route_resume([it], [resolved(it, "text")], None)[0] == {"command": {"resume": '"text"'}}
    cancelled = ResumeEntry(interrupt_id=it.id, status="cancelled")
    assert route_resume([it], [cancelled], None)[0] == {
        "command": {"resume": {"__agui_cancelled__": True, "interrupt_id": ID_A}}
    }
    with pytest.raises(InvalidDecision, match="null"):
        route_resume([it], [resolved(it, None)], None)


def test_several_interrupts_use_the_id_keyed_map_in_both_styles() -> None:
    for both in (default_style(ID_A, ID_B), outcome_style(ID_A, ID_B)):
        entries = [resolved(both[0], "x"), ResumeEntry(interrupt_id=both[1].id, status="cancelled")]
        sent, on_wire = route_resume(both, entries, {})
        assert on_wire is False
        assert sent == {
            "command": {
                "resume": {ID_A: "x", ID_B: {"__agui_cancelled__": True, "interrupt_id": ID_B}}
            }
        }


def test_several_interrupts_without_ids_are_refused() -> None:
    both = default_style(None, None)
    with pytest.raises(InvalidDecision, match="no interrupt ids"):
        route_resume(both, [resolved(p, {"approved": True}) for p in both], {})
    odd = outcome_style("not-hex", ID_B)  # LangGraph would read the dict as one value
    with pytest.raises(InvalidDecision):
        route_resume(odd, [resolved(p, {"approved": True}) for p in odd], {})


def test_a_new_message_is_refused_only_while_langgraph_waits() -> None:
    refuse_new_message([])
    refuse_new_message([pending(Interrupt(id="x", reason="tool_call"))])
    with pytest.raises(UnansweredInterrupts) as error:
        refuse_new_message(default_style(ID_A))
    assert error.value.missing == [ID_A]


# --- JSON-encoded tool results -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1}', {"a": 1}),
        (" [1, 2]", [1, 2]),
        ('"quoted"', "quoted"),
        ("plain text", None),
        ("123", None),
        ("true", None),
        ("null", None),
        ("{not json", None),
        ("[" * 5000 + "]" * 5000, None),
        (None, None),
    ],
)
def test_json_encoded_value(text: Any, value: Any) -> None:
    assert json_encoded_value(text) == value


def test_a_tool_item_keeps_the_text_and_gains_the_value() -> None:
    from ag_ui.core import ToolCallResultEvent, ToolCallStartEvent

    items = ItemList()
    items.apply(
        "TOOL_CALL_START",
        ToolCallStartEvent(type=EventType.TOOL_CALL_START, tool_call_id="c", tool_call_name="t"),
    )
    items.apply(
        "TOOL_CALL_RESULT",
        ToolCallResultEvent(
            type=EventType.TOOL_CALL_RESULT, message_id="m", tool_call_id="c", content='{"x": [1]}'
        ),
    )
    items.apply(
        "TOOL_CALL_RESULT",
        ToolCallResultEvent(
            type=EventType.TOOL_CALL_RESULT, message_id="n", tool_call_id="d", content="ok"
        ),
    )
    first, second = items.snapshot()
    assert (first["result"], first["resultValue"]) == ('{"x": [1]}', {"x": [1]})
    assert (second["result"], second["resultValue"]) == ("ok", None)
