"""Wire-level behaviour of pydantic-ai's AG-UI adapter (pydantic-ai-slim 2.x, ``AGUIAdapter``).

Plain httpx + httpx-sse, not our client. The default endpoint is the documented stateless one: every
run must carry the conversation, including the assistant message with the pending ``toolCalls``.
"""

from __future__ import annotations

import importlib.metadata
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from tests.servers.pydantic_ai_server import (
    BALANCE_ARGS,
    SUBSCRIPTION_ARGS,
    TRANSFER_ARGS,
    start_server,
)
from tests.servers.wire import (
    WireRun,
    cancelled,
    messages_from_events,
    new_thread_id,
    parse_sse,
    post,
    resolved,
    run_input,
    user,
)

pytestmark = pytest.mark.interop

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
TRANSFER_RESULT = "Transferred 100.00 USD from checking to savings"
RESPONSE_SCHEMA: dict[str, Any] = {
    "properties": {
        "approved": {"type": "boolean"},
        "editedArgs": {"type": "object"},
        "reason": {"type": "string"},
    },
    "required": ["approved"],
    "type": "object",
}
AG_UI_1 = int(importlib.metadata.version("ag-ui-protocol").split(".")[0]) >= 1


@pytest.fixture(scope="module")
def server() -> Iterator[Any]:
    handle = start_server()
    yield handle
    handle.stop()


@pytest.fixture(scope="module")
def stateful() -> Iterator[Any]:
    handle = start_server(stateful=True)
    yield handle
    handle.stop()


@pytest.fixture(autouse=True)
def _clear(server: Any) -> None:
    server.executions.clear()


class Conversation:
    """A stateless thread: the client keeps the messages and sends them with every run."""

    def __init__(self, server: Any, text: str) -> None:
        self.server = server
        self.thread_id = new_thread_id()
        self.messages: list[dict[str, Any]] = [user(text)]
        self.first = self.run()

    def run(self, resume: list[dict[str, Any]] | None = None, **kwargs: Any) -> WireRun:
        run = post(
            self.server.url, run_input(self.thread_id, self.messages, resume=resume, **kwargs)
        )
        assert_lifecycle(run)
        if run.types[-1] == "RUN_FINISHED":
            self.messages += messages_from_events(run.events)
        return run


def assert_lifecycle(run: WireRun) -> None:
    assert run.status == 200
    assert run.headers["content-type"].startswith("text/event-stream")
    assert run.types[0] == "RUN_STARTED"
    assert run.types[-1] in ("RUN_FINISHED", "RUN_ERROR")
    assert run.types.count("RUN_FINISHED") + run.types.count("RUN_ERROR") == 1
    assert "MESSAGES_SNAPSHOT" not in run.types
    if run.types[-1] == "RUN_FINISHED":
        assert run.outcome is not None  # always has one


def assert_run_error(run: WireRun, message_part: str) -> dict[str, Any]:
    assert run.types == ["RUN_STARTED", "RUN_ERROR"]
    error = run.last
    assert "code" not in error  # pydantic-ai's RUN_ERROR carries no code
    assert message_part in error["message"]
    return error


# --- the interrupt ------------------------------------------------------------------------------


def test_transfer_raises_one_tool_call_interrupt_with_exact_shape(server: Any) -> None:
    conversation = Conversation(server, "please transfer 100")
    run = conversation.first
    assert server.executions == []
    assert run.types == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",  # an empty text message *before* the tool call, not around it
        "TEXT_MESSAGE_END",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "RUN_FINISHED",
    ]
    assert all(isinstance(e["timestamp"], int) for e in run.events)
    assert ("protocolVersion" in run.events[0]) is AG_UI_1
    [start] = run.of_type("TOOL_CALL_START")
    call_id = start["toolCallId"]
    assert start["toolCallName"] == "transfer_money"
    assert start["parentMessageId"] == run.of_type("TEXT_MESSAGE_START")[0]["messageId"]
    assert json.loads(run.of_type("TOOL_CALL_ARGS")[0]["delta"]) == TRANSFER_ARGS

    assert run.outcome is not None and run.outcome["type"] == "interrupt"
    [interrupt] = run.interrupts
    assert interrupt == {
        "id": f"int-{call_id}",
        "reason": "tool_call",
        "message": (
            'Approve transfer_money({"from_account":"checking","to_account":"savings",'
            '"amount":100.0,"currency":"USD"})?'
        ),
        "toolCallId": call_id,
        "responseSchema": RESPONSE_SCHEMA,
    }


def test_free_tool_runs_and_run_finishes_with_success_outcome(server: Any) -> None:
    run = Conversation(server, "balance please").first
    assert server.executions == [("check_balance", BALANCE_ARGS)]
    assert run.outcome == {"type": "success"}
    assert run.text == "Done: Balance of checking: 1234.56 USD"


# --- decisions ----------------------------------------------------------------------------------


def test_approve_runs_the_tool_once(server: Any) -> None:
    conversation = Conversation(server, "transfer")
    [interrupt] = conversation.first.interrupts
    payload = {"approved": True}
    jsonschema.validate(payload, interrupt["responseSchema"])
    run = conversation.run([resolved(interrupt["id"], payload)])
    assert server.executions == [("transfer_money", TRANSFER_ARGS)]
    assert run.outcome == {"type": "success"}
    [result] = run.of_type("TOOL_CALL_RESULT")
    assert result["toolCallId"] == interrupt["toolCallId"]
    assert result["content"] == TRANSFER_RESULT
    assert run.text == f"Done: {TRANSFER_RESULT}"


def test_resume_without_the_conversation_fails(server: Any) -> None:
    conversation = Conversation(server, "transfer")
    [interrupt] = conversation.first.interrupts
    run = post(
        server.url,
        run_input(
            conversation.thread_id, [], resume=[resolved(interrupt["id"], {"approved": True})]
        ),
    )
    assert_run_error(run, "Tool call results were provided, but the message history is empty.")
    # Only the user message, without the assistant's toolCalls, is not enough either.
    run = post(
        server.url,
        run_input(
            conversation.thread_id,
            conversation.messages[:1],
            resume=[resolved(interrupt["id"], {"approved": True})],
        ),
    )
    assert_run_error(run, "the message history does not contain a `ModelResponse`")
    assert server.executions == []


def test_replaying_a_resume_runs_the_tool_again(server: Any) -> None:
    """Stateless: nothing remembers the approval was used. A client must never retry a resume."""
    conversation = Conversation(server, "transfer")
    [interrupt] = conversation.first.interrupts
    history = list(conversation.messages)
    entry = resolved(interrupt["id"], {"approved": True})
    conversation.run([entry])
    again = post(server.url, run_input(conversation.thread_id, history, resume=[entry]))
    assert again.of_type("TOOL_CALL_RESULT")[0]["content"] == TRANSFER_RESULT
    assert server.executions == [("transfer_money", TRANSFER_ARGS)] * 2


def test_reject_emits_the_denial_as_a_tool_result(server: Any) -> None:
    conversation = Conversation(server, "transfer")
    [interrupt] = conversation.first.interrupts
    run = conversation.run([resolved(interrupt["id"], {"approved": False})])
    assert server.executions == []
    assert run.types[:3] == ["RUN_STARTED", "TOOL_CALL_RESULT", "REASONING_ENCRYPTED_VALUE"]
    [result] = run.of_type("TOOL_CALL_RESULT")
    assert result["content"] == "The tool call was denied."
    [marker] = run.of_type("REASONING_ENCRYPTED_VALUE")
    assert marker["subtype"] == "message"
    assert marker["entityId"] == result["messageId"]
    assert json.loads(marker["encryptedValue"]) == {"pydantic_ai": {"outcome": "denied"}}
    assert run.outcome == {"type": "success"}
    assert run.text == "The transfer was not approved."


def test_reject_with_reason(server: Any) -> None:
    conversation = Conversation(server, "transfer")
    [interrupt] = conversation.first.interrupts
    payload = {"approved": False, "reason": "Too much"}
    jsonschema.validate(payload, interrupt["responseSchema"])
    run = conversation.run([resolved(interrupt["id"], payload)])
    assert run.of_type("TOOL_CALL_RESULT")[0]["content"] == "Too much"
    assert server.executions == []


def test_edit_with_edited_args_full_replacement(server: Any) -> None:
    conversation = Conversation(server, "transfer")
    [interrupt] = conversation.first.interrupts
    edited = {**TRANSFER_ARGS, "amount": 250.0, "currency": "EUR"}
    payload = {"approved": True, "editedArgs": edited}
    jsonschema.validate(payload, interrupt["responseSchema"])
    run = conversation.run([resolved(interrupt["id"], payload)])
    assert server.executions == [("transfer_money", edited)]
    assert run.text == "Done: Transferred 250.00 EUR from checking to savings"


def test_partial_edited_args_replace_everything_and_fail_validation(server: Any) -> None:
    """The schema only says ``editedArgs: object``; a partial object is accepted on the wire, fully
    replaces the arguments, fails the tool's validation, and the tool does not run (no RUN_ERROR).
    """
    conversation = Conversation(server, "transfer")
    [interrupt] = conversation.first.interrupts
    payload = {"approved": True, "editedArgs": {"amount": 250.0}}
    jsonschema.validate(payload, interrupt["responseSchema"])
    run = conversation.run([resolved(interrupt["id"], payload)])
    assert server.executions == []
    [result] = run.of_type("TOOL_CALL_RESULT")
    assert '"type":"missing","loc":["from_account"]' in result["content"]
    assert run.outcome == {"type": "success"}


@pytest.mark.parametrize(
    ("payload", "detail"),
    [
        pytest.param({"accepted": True}, "(approved: missing)", id="accepted"),
        pytest.param({"approved": "true"}, "(approved: bool_type)", id="approved-string"),
        pytest.param(None, "(payload: model_type)", id="no-payload"),
    ],
)
def test_payload_not_matching_the_schema_is_a_run_error(
    server: Any, payload: Any, detail: str
) -> None:
    conversation = Conversation(server, "transfer")
    [interrupt] = conversation.first.interrupts
    run = conversation.run([resolved(interrupt["id"], payload)])
    assert_run_error(
        run,
        f"`ResumeEntry` payload for interrupt '{interrupt['id']}' does not match the "
        f"`responseSchema` advertised on the interrupt {detail}.",
    )
    assert server.executions == []
    conversation.run([resolved(interrupt["id"], {"approved": True})])
    assert server.executions == [("transfer_money", TRANSFER_ARGS)]


def test_cancel_is_a_denial_with_its_own_text(server: Any) -> None:
    conversation = Conversation(server, "transfer")
    [interrupt] = conversation.first.interrupts
    run = conversation.run([cancelled(interrupt["id"])])
    assert server.executions == []
    assert run.of_type("TOOL_CALL_RESULT")[0]["content"] == "Cancelled by user."
    assert "REASONING_ENCRYPTED_VALUE" in run.types
    assert run.outcome == {"type": "success"}
    assert run.text == "The transfer was not approved."


# --- several calls ------------------------------------------------------------------------------


def test_batch_runs_the_free_call_at_once_and_interrupts_the_gated_one(server: Any) -> None:
    conversation = Conversation(server, "batch")
    first = conversation.first
    starts = first.of_type("TOOL_CALL_START")
    assert [s["toolCallName"] for s in starts] == ["transfer_money", "check_balance"]
    # No interleaving here: START/ARGS/END per call, in order.
    assert first.types[3:9] == ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"] * 2
    assert server.executions == [("check_balance", BALANCE_ARGS)]
    [balance] = first.of_type("TOOL_CALL_RESULT")
    assert balance["toolCallId"] == starts[1]["toolCallId"]
    [interrupt] = first.interrupts
    assert interrupt["toolCallId"] == starts[0]["toolCallId"]

    run = conversation.run([resolved(interrupt["id"], {"approved": True})])
    assert server.executions == [("check_balance", BALANCE_ARGS), ("transfer_money", TRANSFER_ARGS)]
    assert run.text == f"Done: {TRANSFER_RESULT} Done: Balance of checking: 1234.56 USD"


def test_two_approvals_in_one_run(server: Any) -> None:
    conversation = Conversation(server, "two")
    interrupts = conversation.first.interrupts
    assert [i["id"] for i in interrupts] == [f"int-{i['toolCallId']}" for i in interrupts]
    assert len(interrupts) == 2
    run = conversation.run([resolved(i["id"], {"approved": True}) for i in interrupts])
    # pydantic-ai runs approved tools concurrently: the order of execution is not fixed.
    assert sorted(server.executions) == sorted(
        [
            ("transfer_money", TRANSFER_ARGS),
            ("cancel_subscription", SUBSCRIPTION_ARGS),
        ]
    )
    assert run.text == f"Done: {TRANSFER_RESULT} Done: Cancelled subscription sub_123"


def test_mixed_decisions_work(server: Any) -> None:
    conversation = Conversation(server, "two")
    transfer, subscription = conversation.first.interrupts
    run = conversation.run(
        [
            resolved(transfer["id"], {"approved": True}),
            resolved(subscription["id"], {"approved": False}),
        ]
    )
    assert server.executions == [("transfer_money", TRANSFER_ARGS)]
    assert run.interrupts == []
    assert run.text == f"Done: {TRANSFER_RESULT} The call was not approved."


def test_answering_only_some_interrupts_silently_drops_the_rest(server: Any) -> None:
    conversation = Conversation(server, "two")
    transfer, _ = conversation.first.interrupts
    with pytest.warns(UserWarning, match="unresolved tool call"):
        run = conversation.run([resolved(transfer["id"], {"approved": True})])
    assert server.executions == [("transfer_money", TRANSFER_ARGS)]
    assert run.outcome == {"type": "success"}
    assert [r["toolCallId"] for r in run.of_type("TOOL_CALL_RESULT")] == [transfer["toolCallId"]]


# --- bad resumes --------------------------------------------------------------------------------


def test_unknown_interrupt_id(server: Any) -> None:
    conversation = Conversation(server, "transfer")
    [interrupt] = conversation.first.interrupts
    with pytest.warns(UserWarning, match="unresolved tool call"):
        run = conversation.run([resolved("int-nope", {"approved": True})])
    assert_run_error(run, "the message history does not contain a `ModelResponse`")
    run = conversation.run([resolved("nope", {"approved": True})])
    assert_run_error(
        run, "ResumeEntry.interrupt_id 'nope' does not start with the expected 'int-' prefix"
    )
    conversation.run([resolved(interrupt["id"], {"approved": True})])
    assert server.executions == [("transfer_money", TRANSFER_ARGS)]


def test_any_thread_id_works_when_the_conversation_is_sent(server: Any) -> None:
    conversation = Conversation(server, "transfer")
    [interrupt] = conversation.first.interrupts
    conversation.thread_id = new_thread_id()
    conversation.run([resolved(interrupt["id"], {"approved": True})])
    assert server.executions == [("transfer_money", TRANSFER_ARGS)]


def test_new_message_while_pending_is_accepted_and_abandons_the_call(server: Any) -> None:
    conversation = Conversation(server, "transfer")
    conversation.messages.append(user("hello"))
    run = conversation.run()
    assert server.executions == []
    assert run.outcome == {"type": "success"}
    assert run.text == (
        "Not done (interrupted): The tool call was interrupted before a result was produced."
    )


def test_http_level_errors(server: Any) -> None:
    body = run_input(new_thread_id(), [user("hi")])
    with httpx.Client(timeout=30) as client:
        response = client.post(
            server.url, content=json.dumps(body), headers={"Accept": "text/event-stream"}
        )
        assert response.status_code == 415
        assert response.json() == {
            "detail": "Expected `Content-Type: application/json`, got no content type"
        }
        del body["runId"]
        response = client.post(server.url, json=body, headers={"Accept": "text/event-stream"})
        assert response.status_code == 422
        assert response.json()[0]["loc"] == ["runId"]


# --- with a conversation store (server-held history) --------------------------------------------


def test_stateful_resume_needs_no_messages(stateful: Any) -> None:
    stateful.executions.clear()
    thread_id = new_thread_id()
    first = post(stateful.url, run_input(thread_id, [user("transfer")]))
    [saved] = first.of_type("CUSTOM")
    assert saved["name"] == "pydantic_ai_conversation_saved"
    assert saved["value"]["conversation_id"] == thread_id
    [interrupt] = first.interrupts
    run = post(
        stateful.url,
        run_input(thread_id, [], resume=[resolved(interrupt["id"], {"approved": True})]),
    )
    assert stateful.executions == [("transfer_money", TRANSFER_ARGS)]
    assert run.text == f"Done: {TRANSFER_RESULT}"


def test_stateful_missing_answer_and_unknown_id_are_run_errors(stateful: Any) -> None:
    stateful.executions.clear()
    thread_id = new_thread_id()
    first = post(stateful.url, run_input(thread_id, [user("two")]))
    transfer, subscription = first.interrupts
    run = post(
        stateful.url,
        run_input(thread_id, [], resume=[resolved(transfer["id"], {"approved": True})]),
    )
    assert_run_error(run, "Tool call results need to be provided for all deferred tool calls.")
    run = post(
        stateful.url, run_input(thread_id, [], resume=[resolved("int-zzz", {"approved": True})])
    )
    assert_run_error(
        run,
        "The request answers 1 tool call(s) that the stored conversation is not waiting on: 'zzz'.",
    )
    assert stateful.executions == []
    post(
        stateful.url,
        run_input(
            thread_id, [], resume=[resolved(i["id"], {"approved": True}) for i in first.interrupts]
        ),
    )
    # pydantic-ai runs approved tools concurrently: the order of execution is not fixed.
    assert sorted(name for name, _ in stateful.executions) == [
        "cancel_subscription",
        "transfer_money",
    ]
    assert subscription["toolCallId"].startswith("pyd_cancel_subscription_")


def test_saved_transcripts_parse() -> None:
    files = sorted(TRANSCRIPTS.glob("pydantic_ai_*.sse"))
    assert len(files) >= 8
    for path in files:
        events = parse_sse(path.read_bytes())
        assert events[0]["type"] == "RUN_STARTED", path.name
        assert events[-1]["type"] in ("RUN_FINISHED", "RUN_ERROR"), path.name
