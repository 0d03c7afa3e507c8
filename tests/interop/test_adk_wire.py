"""Wire-level behaviour of Google ADK's AG-UI adapter (ag-ui-adk 0.11.0, google-adk 2.13.0).

Plain httpx + httpx-sse against tests/servers/adk/server.py in its own venv, not our client. What
the client's ADK compatibility (agui_notebook/_frameworks/adk.py) relies on is pinned here: the
interrupt names ADK's ``adk_request_confirmation`` call and carries the gated call in its metadata;
the answer is read as a ``ToolConfirmation`` and anything but an explicit no is a yes; several
answers are paired with their calls through the history; errors come as a bare RUN_ERROR.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.servers.wire import (
    WireRun,
    cancelled,
    messages_from_events,
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
TRANSFER_DONE = '{"result": "Transferred 100.00 USD from checking to savings"}'
REJECTED = '{"error": "This tool call is rejected."}'
ADK_ID = re.compile(r"^adk-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


@pytest.fixture(scope="module")
def server(external_server: Any) -> Any:
    return external_server("adk")


@pytest.fixture(autouse=True)
def _clear(server: Any) -> None:
    server.clear()


def start(server: Any, text: str) -> tuple[str, list[dict[str, Any]], WireRun]:
    """A new thread's first run; returns the thread id, its history and the run."""
    thread_id = new_thread_id()
    messages = [user(text)]
    run = post(server.url, run_input(thread_id, messages), timeout=60)
    return thread_id, messages + messages_from_events(run.events), run


def answer(server: Any, thread_id: str, *entries: dict[str, Any], history: Any = ()) -> WireRun:
    return post(server.url, run_input(thread_id, list(history), resume=list(entries)), timeout=60)


def tool_results(run: WireRun) -> list[str]:
    return [e["content"] for e in run.of_type("TOOL_CALL_RESULT")]


def test_the_interrupt_names_the_confirmation_call_and_carries_the_gated_one(server: Any) -> None:
    _, _, run = start(server, "transfer")
    assert run.types == [
        "RUN_STARTED",
        *["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"] * 2,
        "RUN_FINISHED",
    ]
    transfer, confirmation = run.of_type("TOOL_CALL_START")
    assert transfer["toolCallName"] == "transfer_money"
    assert confirmation["toolCallName"] == "adk_request_confirmation"
    assert ADK_ID.match(transfer["toolCallId"]) and ADK_ID.match(confirmation["toolCallId"])
    [interrupt] = run.interrupts
    assert interrupt["id"] == interrupt["toolCallId"] == confirmation["toolCallId"]
    assert interrupt["reason"] == "confirmation"
    assert "responseSchema" not in interrupt
    assert interrupt["message"].startswith(
        "Please approve or reject the tool call transfer_money()"
    )
    adk = interrupt["metadata"]["adk"]
    assert adk["originalFunctionCall"] == {
        "id": transfer["toolCallId"],
        "name": "transfer_money",
        "args": TRANSFER_ARGS,
    }
    assert adk["toolConfirmation"] == {"hint": interrupt["message"], "confirmed": False}
    # The confirmation call's arguments say the same thing (TOOL_CALL_ARGS of the second call).
    args = json.loads(run.of_type("TOOL_CALL_ARGS")[1]["delta"])
    assert args["originalFunctionCall"] == adk["originalFunctionCall"]
    assert server.executions == []


@pytest.mark.parametrize(
    ("payload", "runs"),
    [
        pytest.param({"confirmed": True}, True, id="confirmed-true"),
        pytest.param({"confirmed": False}, False, id="confirmed-false"),
        pytest.param({"approved": True}, True, id="approved-true"),
        pytest.param({"approved": False}, False, id="approved-false"),
        pytest.param(False, False, id="false"),
        # Anything else is a yes, even a no in another server's words:
        pytest.param({"accepted": False}, True, id="accepted-false-is-a-yes"),
        pytest.param("no", True, id="string-is-a-yes"),
        pytest.param({"approved": True, "editedArgs": {"amount": 250.0}}, True, id="edit-dropped"),
    ],
)
def test_what_the_adapter_reads_as_a_confirmation(server: Any, payload: Any, runs: bool) -> None:
    thread_id, _, run = start(server, "transfer")
    result = answer(server, thread_id, resolved(run.interrupts[0]["id"], payload))
    assert result.types[0] == "RUN_STARTED" and result.types[-1] == "RUN_FINISHED"
    if runs:
        # ...always with the arguments the model proposed.
        assert server.executions == [("transfer_money", TRANSFER_ARGS)]
        assert tool_results(result) == [TRANSFER_DONE]
    else:
        assert server.executions == []
        assert tool_results(result) == [REJECTED]


def test_a_reason_beside_confirmed_fails_inside_adk(server: Any) -> None:
    """ToolConfirmation refuses unknown keys: a reason next to ``confirmed`` is a RUN_ERROR
    (after RUN_STARTED), raised while the run is under way."""
    thread_id, _, run = start(server, "transfer")
    result = answer(
        server, thread_id, resolved(run.interrupts[0]["id"], {"confirmed": False, "reason": "x"})
    )
    assert result.types == ["RUN_STARTED", "RUN_ERROR"]
    error = result.last
    assert error["code"] == "BACKGROUND_EXECUTION_ERROR"
    assert "ToolConfirmation" in error["message"] and "Extra inputs" in error["message"]
    assert server.executions == []


def test_a_cancel_is_a_rejection(server: Any) -> None:
    thread_id, _, run = start(server, "transfer")
    result = answer(server, thread_id, cancelled(run.interrupts[0]["id"]))
    assert tool_results(result) == [REJECTED]
    assert result.text == "The transfer was not approved."
    assert server.executions == []


def one_assistant_message(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The history with the run's tool calls in one assistant message, as the model made them
    (and as the client's reducer groups calls that name no parent message)."""
    calls = [c for m in history for c in m.get("toolCalls") or []]
    rest = [m for m in history if not m.get("toolCalls")]
    return [rest[0], {"id": "assistant-1", "role": "assistant", "toolCalls": calls}, *rest[1:]]


@pytest.mark.parametrize(
    ("history", "ran"),
    [
        pytest.param("one message", ["transfer_money", "cancel_subscription"], id="one-message"),
        pytest.param("a message per call", ["cancel_subscription"], id="message-per-call"),
        pytest.param("no confirmation calls", ["cancel_subscription"], id="no-confirmation-calls"),
        pytest.param("none", ["cancel_subscription"], id="no-history"),
    ],
)
def test_several_answers_are_paired_through_the_history(
    server: Any, history: str, ran: list[str]
) -> None:
    """Two answers in one resume run both calls only when the history holds the assistant
    message with all four calls (two tools, two ``adk_request_confirmation``), as the client
    sends it. Otherwise the adapter takes them as separate submissions: only the last call runs
    and the other is dropped, without an error."""
    thread_id, messages, run = start(server, "two")
    entries = [resolved(i["id"], {"confirmed": True}) for i in run.interrupts]
    sent = one_assistant_message(messages)
    if history == "a message per call":
        sent = messages  # messages_from_events gives each call its own assistant message
    elif history == "no confirmation calls":
        calls = sent[1]["toolCalls"]
        sent[1]["toolCalls"] = [
            c for c in calls if c["function"]["name"] != "adk_request_confirmation"
        ]
    elif history == "none":
        sent = []
    result = answer(server, thread_id, *entries, history=sent)
    assert result.types[-1] == "RUN_FINISHED"
    assert [name for name, _ in server.executions] == ran
    assert result.text.count("Done:") == len(ran)


def test_refusals_come_as_a_bare_run_error(server: Any) -> None:
    """No RUN_STARTED before these RUN_ERRORs; nothing is consumed by them."""
    thread_id, _, run = start(server, "two")
    first, second = (i["id"] for i in run.interrupts)

    unknown = answer(server, thread_id, resolved("adk-nope", {"confirmed": True}))
    assert unknown.types == ["RUN_ERROR"]
    assert unknown.last["code"] == "UNKNOWN_INTERRUPT"
    incomplete = answer(server, thread_id, resolved(first, {"confirmed": True}))
    assert incomplete.types == ["RUN_ERROR"]
    assert incomplete.last["code"] == "INTERRUPT_RESUME_INCOMPLETE"
    assert second in incomplete.last["message"]
    new_message = post(server.url, run_input(thread_id, [user("hello")]))
    assert new_message.types == ["RUN_ERROR"]
    assert new_message.last["code"] == "INTERRUPT_RESUME_REQUIRED"
    wrong_thread = answer(server, new_thread_id(), resolved(first, {"confirmed": True}))
    assert wrong_thread.last["code"] == "UNKNOWN_INTERRUPT"
    assert server.executions == []


def test_a_replayed_resume_is_refused(server: Any) -> None:
    """The spec asks for replay-safe resumes; this adapter refuses the replay (nothing runs
    twice, but the client sees a RUN_ERROR)."""
    thread_id, _, run = start(server, "transfer")
    entry = resolved(run.interrupts[0]["id"], {"confirmed": True})
    assert tool_results(answer(server, thread_id, entry)) == [TRANSFER_DONE]
    replay = answer(server, thread_id, entry)
    assert replay.types == ["RUN_ERROR"] and replay.last["code"] == "UNKNOWN_INTERRUPT"
    assert len(server.executions) == 1


def test_a_batch_sends_a_placeholder_result_for_the_gated_call(server: Any) -> None:
    _, _, run = start(server, "batch")
    assert tool_results(run) == [
        '{"error": "This tool call requires confirmation, please approve or reject."}',
        '{"result": "Balance of checking: 1234.56 USD"}',
    ]
    assert [name for name, _ in server.executions] == ["check_balance"]
    assert len(run.interrupts) == 1


def test_keepalive_comments(server: Any) -> None:
    """sse-starlette's ``: ping - <time>`` comment every second (the server's setting; 15 s by
    default), CRLF-terminated while data frames end in LF."""
    _, _, run = start(server, "slow")
    assert run.text == "Slow answer."
    assert len(run.comments) >= 2
    assert all(re.match(rb"^: ping - \d{4}-\d\d-\d\d ", c) for c in run.comments)
    assert b": ping - " in run.raw and b"\r\n\r\n" in run.raw
    assert run.raw.startswith(b"data: {")
    assert b'"RUN_STARTED"' in run.raw.split(b"\n\n", 1)[0]
