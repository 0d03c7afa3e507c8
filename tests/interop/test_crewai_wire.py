"""Wire-level behaviour of CrewAI's AG-UI adapter (ag-ui-crewai 1.0.0, crewai 1.15.30).

Plain httpx + httpx-sse against tests/servers/crewai/server.py in its own venv, not our client.
What the client's CrewAI compatibility (agui_notebook/_frameworks/crewai.py) relies on is pinned here:
a pause is one interrupt whose id is the thread's, mirrored in a ``CUSTOM on_interrupt`` event; the
answer reaches the flow as a string; the id in ``resume[]`` is not checked and only the first entry
is read; a new message while paused runs the flow again and leaves the pause waiting.
"""

from __future__ import annotations

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
DONE = "Done: Transferred 100.00 USD from checking to savings"


@pytest.fixture(scope="module")
def server(external_server: Any) -> Any:
    return external_server("crewai")


@pytest.fixture(scope="module")
def default_style(external_server: Any) -> Any:
    return external_server("crewai", "--style", "default")


@pytest.fixture(autouse=True)
def _clear(server: Any) -> None:
    server.clear()


def start(server: Any, text: str, path: str = "") -> tuple[str, WireRun]:
    thread_id = new_thread_id()
    return thread_id, post(server.url + path, run_input(thread_id, [user(text)]), timeout=60)


def answer(server: Any, thread_id: str, *entries: dict[str, Any]) -> WireRun:
    return post(server.url, run_input(thread_id, [], resume=list(entries)), timeout=60)


def final_messages(run: WireRun) -> list[tuple[str, Any]]:
    snapshots = run.of_type("MESSAGES_SNAPSHOT")
    assert snapshots, run.types
    return [(m["role"], m.get("content")) for m in snapshots[-1]["messages"]]


def test_a_pause_is_one_interrupt_under_the_threads_id(server: Any) -> None:
    thread_id, run = start(server, "transfer")
    assert run.types[0] == "RUN_STARTED"
    assert run.types[-2:] == ["CUSTOM", "RUN_FINISHED"]
    [interrupt] = run.interrupts
    assert interrupt["id"] == thread_id
    assert interrupt["reason"] == "crewai:human_feedback"
    assert interrupt["message"] == "Approve this call?"
    assert "toolCallId" not in interrupt and "responseSchema" not in interrupt
    crewai = interrupt["metadata"]["crewai"]
    assert crewai["flowId"] == thread_id and crewai["methodName"] == "ask_approval"
    assert crewai["emit"] is None
    output = crewai["output"]  # what the method returned: here, the proposed call
    assert output["tool"] == "transfer_money" and output["arguments"] == TRANSFER_ARGS
    # The call itself reached the client only in MESSAGES_SNAPSHOT (no TOOL_CALL_* events).
    assert "TOOL_CALL_START" not in run.types
    [call] = run.of_type("MESSAGES_SNAPSHOT")[-1]["messages"][-1]["toolCalls"]
    assert call["id"] == output["toolCallId"]
    # The legacy event carries the same interrupt, as an object.
    [event] = run.of_type("CUSTOM")
    assert event["name"] == "on_interrupt" and event["value"] == interrupt
    assert server.executions == []


def test_outcomes_become_a_string_enum_schema(server: Any) -> None:
    """``@human_feedback(emit=[...])``: the answer must be one of the outcomes (and CrewAI asks an
    LLM to classify it when the flow resumes, so this flow is only started here)."""
    _, run = start(server, "anything", path="outcomes")
    [interrupt] = run.interrupts
    assert interrupt["responseSchema"] == {"type": "string", "enum": ["approved", "rejected"]}
    assert interrupt["metadata"]["crewai"]["emit"] == ["approved", "rejected"]


@pytest.mark.parametrize(
    ("payload", "reply"),
    [
        pytest.param({"approved": True}, DONE, id="object-json-encoded"),
        pytest.param("approve", DONE, id="string-as-is"),
        pytest.param({"approved": False, "reason": "Too much"}, "The transfer was not approved."),
    ],
)
def test_the_answer_reaches_the_flow_as_a_string(server: Any, payload: Any, reply: str) -> None:
    thread_id, _ = start(server, "transfer")
    run = answer(server, thread_id, resolved(thread_id, payload))
    assert run.types[0] == "RUN_STARTED" and run.types[-1] == "RUN_FINISHED"
    assert "outcome" not in run.last
    assert final_messages(run)[-1] == ("assistant", reply)


def test_a_cancel_resumes_with_empty_feedback(server: Any) -> None:
    thread_id, _ = start(server, "transfer")
    run = answer(server, thread_id, cancelled(thread_id))
    assert final_messages(run)[-2:] == [
        ("tool", "Cancelled by user."),
        ("assistant", "The transfer was not approved."),
    ]
    assert server.executions == []


def test_the_interrupt_id_is_not_checked_and_only_the_first_entry_counts(server: Any) -> None:
    thread_id, _ = start(server, "transfer")
    run = answer(server, thread_id, resolved("not-an-interrupt", {"approved": True}))
    assert final_messages(run)[-1] == ("assistant", DONE)
    assert len(server.executions) == 1

    thread_id, _ = start(server, "transfer")
    run = answer(
        server,
        thread_id,
        resolved(thread_id, {"approved": False}),
        resolved("other", {"approved": True}),
    )
    assert final_messages(run)[-1] == ("assistant", "The transfer was not approved.")
    assert len(server.executions) == 1


def test_a_second_pause_in_a_thread_has_the_same_id(server: Any) -> None:
    thread_id, run = start(server, "two")
    [first] = run.interrupts
    again = answer(server, thread_id, resolved(thread_id, {"approved": True}))
    [second] = again.interrupts
    assert first["id"] == second["id"] == thread_id
    assert first["metadata"]["crewai"]["output"]["tool"] == "transfer_money"
    assert second["metadata"]["crewai"]["output"]["tool"] == "cancel_subscription"


def test_nothing_to_resume_is_a_run_error(server: Any) -> None:
    run = answer(server, new_thread_id(), resolved("x", {"approved": True}))
    assert run.types == ["RUN_ERROR"]
    assert run.last["code"] == "AGUI_CREWAI_NO_PENDING_FEEDBACK"


def test_a_new_message_while_paused_runs_the_flow_again(server: Any) -> None:
    """Accepted: the flow runs from the start on the new message, and the paused run keeps
    waiting on the server; a later resume still runs the transfer."""
    thread_id, _ = start(server, "transfer")
    run = post(server.url, run_input(thread_id, [user("hello")]), timeout=60)
    assert run.types[-1] == "RUN_FINISHED" and "outcome" not in run.last
    assert final_messages(run)[-1] == ("assistant", "Echo: hello")
    assert server.executions == []
    later = answer(server, thread_id, resolved(thread_id, {"approved": True}))
    assert final_messages(later)[-1] == ("assistant", DONE)
    assert len(server.executions) == 1


def test_no_keepalive_comments(server: Any) -> None:
    _, run = start(server, "slow")
    assert final_messages(run)[-1] == ("assistant", "Slow answer.")
    assert run.comments == []


def test_default_style_ends_with_on_interrupt_and_no_outcome(default_style: Any) -> None:
    """Without ``emit_interrupt_outcome``: the event only, its value the whole interrupt (an
    object, with its id); ``resume[]`` answers it. LangGraph's channel for the same style,
    ``forwardedProps.command.resume``, is ignored: the flow runs again and the pause waits."""
    before = len(default_style.executions)
    thread_id, run = start(default_style, "transfer")
    assert "outcome" not in run.last
    [event] = run.of_type("CUSTOM")
    assert event["name"] == "on_interrupt" and "rawEvent" not in event
    assert event["value"]["id"] == thread_id
    assert event["value"]["reason"] == "crewai:human_feedback"

    body = run_input(thread_id, [])
    body["forwardedProps"] = {"command": {"resume": {"approved": True}}}
    ignored = post(default_style.url, body, timeout=60)
    assert final_messages(ignored)[-1] == ("assistant", "Echo: ")
    assert len(default_style.executions) == before

    resumed = answer(default_style, thread_id, resolved(thread_id, {"approved": True}))
    assert final_messages(resumed)[-1] == ("assistant", DONE)
    assert len(default_style.executions) == before + 1
