"""Wire-level behaviour of LangGraph's AG-UI adapter (ag-ui-langgraph 0.0.47, ``LangGraphAgent``).

Plain httpx + httpx-sse against tests/servers/langgraph/server.py in its own venv, not our client.
What the client's LangGraph compatibility (agui_notebook/_frameworks/langgraph.py) relies on is pinned
here: the default style's ``CUSTOM on_interrupt`` and its ``rawEvent``, how
``forwardedProps.command.resume`` is read, what ``resume[]`` can and cannot carry.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.servers.wire import (
    WireRun,
    cancelled,
    new_thread_id,
    post,
    resolved,
    run_input,
    user,
)

pytestmark = pytest.mark.interop

TRANSFER_ARGS = {
    "from_account": "checking",
    "to_account": "savings",
    "amount": 100.0,
    "currency": "USD",
}
TRANSFER_RESULT = "Transferred 100.00 USD from checking to savings"
LANGGRAPH_ID = re.compile(r"^[0-9a-f]{32}$")


@pytest.fixture(scope="module")
def default(external_server: Any) -> Any:
    return external_server("langgraph", "--style", "default")


@pytest.fixture(scope="module")
def outcome(external_server: Any) -> Any:
    return external_server("langgraph", "--style", "outcome")


@pytest.fixture(scope="module")
def no_raw(external_server: Any) -> Any:
    return external_server("langgraph", "--style", "default", "--no-raw-events")


def start(server: Any, text: str) -> tuple[str, WireRun]:
    thread_id = new_thread_id()
    return thread_id, post(server.url, run_input(thread_id, [user(text)]), timeout=60)


def command(thread_id: str, value: Any, **extra: Any) -> dict[str, Any]:
    body = run_input(thread_id, [])
    body["forwardedProps"] = {"command": {"resume": value}}
    body.update(extra)
    return body


def on_interrupt(run: WireRun) -> list[dict[str, Any]]:
    return [e for e in run.of_type("CUSTOM") if e["name"] == "on_interrupt"]


def test_default_style_ends_with_on_interrupt_and_no_outcome(default: Any) -> None:
    _, run = start(default, "transfer")
    assert run.status == 200
    assert run.types[-2:] == ["CUSTOM", "RUN_FINISHED"]
    assert "outcome" not in run.last  # a client that ignores the CUSTOM event sees a success
    [event] = on_interrupt(run)
    value = json.loads(event["value"])  # a dict value arrives JSON-encoded, as a string
    assert value["tool"] == "transfer_money" and value["arguments"] == TRANSFER_ARGS
    assert value["toolCallId"] == "lg_transfer_money_" + value["toolCallId"].rsplit("_", 1)[1]
    # emit_raw_events defaults to True: rawEvent carries LangGraph's Interrupt, with its id.
    assert LANGGRAPH_ID.match(event["rawEvent"]["id"])
    assert event["rawEvent"]["value"] == value
    # ...and a RAW event for every LangGraph event.
    assert len(run.of_type("RAW")) > 10
    # The tool call streams before the interrupt, under the id the value names.
    [start_event] = run.of_type("TOOL_CALL_START")
    assert start_event["toolCallId"] == value["toolCallId"]
    [args] = run.of_type("TOOL_CALL_ARGS")
    assert json.loads(args["delta"]) == TRANSFER_ARGS


def test_a_string_value_is_sent_as_it_is_not_json_encoded(default: Any) -> None:
    _, run = start(default, "ask me")
    [event] = on_interrupt(run)
    assert event["value"] == "Which account should the refund go to?"
    with pytest.raises(ValueError):
        json.loads(event["value"])


def test_without_raw_events_the_interrupt_has_no_id_on_the_wire(no_raw: Any) -> None:
    _, run = start(no_raw, "transfer")
    [event] = on_interrupt(run)
    assert "rawEvent" not in event
    assert run.of_type("RAW") == []
    assert "outcome" not in run.last


def test_command_resume_answers_the_interrupt(default: Any) -> None:
    default.clear()
    thread_id, _ = start(default, "transfer")
    run = post(default.url, command(thread_id, {"approved": True}), timeout=60)
    assert run.types[-1] == "RUN_FINISHED" and "outcome" not in run.last
    assert run.text == f"Done: {TRANSFER_RESULT}"
    assert default.executions == [("transfer_money", TRANSFER_ARGS)]
    # The resumed run streams the call again under the same id, then its result, whose
    # messageId is the tool call id; MESSAGES_SNAPSHOT then names the result message otherwise.
    assert [e["toolCallId"] for e in run.of_type("TOOL_CALL_START")] == [
        run.of_type("TOOL_CALL_RESULT")[0]["toolCallId"]
    ]
    [result] = run.of_type("TOOL_CALL_RESULT")
    assert result["messageId"] == result["toolCallId"] and result["content"] == TRANSFER_RESULT
    [snapshot] = run.of_type("MESSAGES_SNAPSHOT")
    [tool_message] = [m for m in snapshot["messages"] if m["role"] == "tool"]
    assert tool_message["id"] != result["messageId"]


def test_a_string_command_resume_is_parsed_as_json(default: Any) -> None:
    """So a text answer "123" reaches the graph as the number 123, unless it is JSON-encoded."""
    default.clear()
    thread_id, _ = start(default, "ask me")
    post(default.url, command(thread_id, "123"), timeout=60)
    thread_id, _ = start(default, "ask me")
    post(default.url, command(thread_id, json.dumps("123")), timeout=60)
    thread_id, _ = start(default, "ask me")
    post(default.url, command(thread_id, "savings"), timeout=60)  # not JSON: kept as the string
    assert default.executions == [
        ("choose_account", {"answer": 123}),
        ("choose_account", {"answer": "123"}),
        ("choose_account", {"answer": "savings"}),
    ]


def test_a_null_command_resume_is_no_resume(default: Any) -> None:
    default.clear()
    thread_id, first = start(default, "transfer")
    run = post(default.url, command(thread_id, None), timeout=60)
    assert [e["rawEvent"]["id"] for e in on_interrupt(run)] == [
        e["rawEvent"]["id"] for e in on_interrupt(first)
    ]
    assert default.executions == []


def test_a_new_message_on_a_paused_thread_is_ignored(default: Any) -> None:
    default.clear()
    thread_id, first = start(default, "transfer")
    run = post(default.url, run_input(thread_id, [user("hello")]), timeout=60)
    assert [t for t in run.types if t != "RAW"] == ["RUN_STARTED", "CUSTOM", "RUN_FINISHED"]
    assert on_interrupt(run)[0]["rawEvent"]["id"] == on_interrupt(first)[0]["rawEvent"]["id"]
    assert "Echo" not in run.text and default.executions == []


def test_several_interrupts_carry_distinct_ids(default: Any) -> None:
    default.clear()
    thread_id, run = start(default, "two things")
    events = on_interrupt(run)
    assert len(events) == 2
    ids = [e["rawEvent"]["id"] for e in events]
    assert len(set(ids)) == 2 and all(LANGGRAPH_ID.match(i) for i in ids)
    # LangGraph's own resume map, keyed by interrupt id, answers each one.
    answer = {ids[0]: {"approved": True}, ids[1]: {"approved": False}}
    resumed = post(default.url, command(thread_id, answer), timeout=60)
    assert (
        resumed.text == f"Done: {TRANSFER_RESULT} Not done: the call was not approved (rejected)."
    )
    assert default.executions == [("transfer_money", TRANSFER_ARGS)]


def test_resume_list_with_several_entries_fails_in_langgraph(default: Any) -> None:
    """The adapter turns several resume[] entries into one value ({"__agui_resume_map__": ...});
    LangGraph refuses a single value when several interrupts are pending."""
    default.clear()
    thread_id, run = start(default, "two things")
    ids = [e["rawEvent"]["id"] for e in on_interrupt(run)]
    body = run_input(thread_id, [], resume=[resolved(i, {"approved": True}) for i in ids])
    failed = post(default.url, body, timeout=60)
    assert [t for t in failed.types if t != "RAW"] == ["RUN_STARTED", "RUN_ERROR"]
    assert "multiple pending interrupts" in failed.last["message"]
    assert "code" not in failed.last
    assert default.executions == []
    again = post(default.url, run_input(thread_id, []), timeout=60)
    assert [e["rawEvent"]["id"] for e in on_interrupt(again)] == ids  # still pending


def test_outcome_style_sends_the_event_and_the_outcome(outcome: Any) -> None:
    _, run = start(outcome, "transfer")
    assert run.types[-2:] == ["CUSTOM", "RUN_FINISHED"]
    [event] = on_interrupt(run)
    [interrupt] = run.interrupts
    value = json.loads(event["value"])
    assert interrupt["id"] == event["rawEvent"]["id"]
    assert interrupt["reason"] == "tool_call"
    assert interrupt["message"] == "Approve transfer_money?"
    assert interrupt["toolCallId"] == value["toolCallId"]
    assert interrupt["responseSchema"] == value["responseSchema"]
    assert interrupt["metadata"]["langgraph"]["raw"] == value


def test_outcome_style_string_value_and_default_reason(outcome: Any) -> None:
    _, run = start(outcome, "ask me")
    [interrupt] = run.interrupts
    assert interrupt["reason"] == "langgraph:interrupt"
    assert interrupt["message"] == "Which account should the refund go to?"
    assert "toolCallId" not in interrupt and "responseSchema" not in interrupt


def test_outcome_style_resume_does_not_check_the_interrupt_id(outcome: Any) -> None:
    outcome.clear()
    thread_id, _ = start(outcome, "transfer")
    body = run_input(thread_id, [], resume=[resolved("f" * 32, {"approved": True})])
    run = post(outcome.url, body, timeout=60)
    assert run.text == f"Done: {TRANSFER_RESULT}"
    assert outcome.executions == [("transfer_money", TRANSFER_ARGS)]  # the wrong id resumed it


def test_outcome_style_cancel_reaches_the_graph_as_a_marker(outcome: Any) -> None:
    outcome.clear()
    thread_id, run = start(outcome, "transfer")
    [interrupt] = run.interrupts
    resumed = post(outcome.url, run_input(thread_id, [], resume=[cancelled(interrupt["id"])]))
    assert resumed.text == "Not done: the transfer was cancelled."
    assert outcome.executions == []


def test_resume_list_wins_over_command_resume(outcome: Any) -> None:
    outcome.clear()
    thread_id, run = start(outcome, "transfer")
    [interrupt] = run.interrupts
    body = command(
        thread_id, {"approved": True}, resume=[resolved(interrupt["id"], {"approved": False})]
    )
    resumed = post(outcome.url, body, timeout=60)
    assert resumed.text == "Not done: the transfer was not approved."
    assert outcome.executions == []


def test_json_values_returned_by_a_tool_arrive_json_encoded(default: Any) -> None:
    _, run = start(default, "balance please")
    [result] = run.of_type("TOOL_CALL_RESULT")
    assert isinstance(result["content"], str)
    assert json.loads(result["content"]) == {
        "account": "checking",
        "balance": 1234.56,
        "currency": "USD",
    }


def test_no_keepalive_comments_while_the_graph_is_silent(default: Any) -> None:
    _, run = start(default, "slow please")
    assert run.text == "Slow answer."
    assert run.comments == []
