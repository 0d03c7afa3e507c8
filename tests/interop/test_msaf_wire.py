"""Wire-level behaviour of Microsoft Agent Framework's AG-UI server (agent-framework-ag-ui 1.7).

Plain httpx + httpx-sse, not our client: these tests pin what the real server sends and accepts, so
the client can be written (and later tested) against facts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.servers.msaf_server import BALANCE_ARGS, SUBSCRIPTION_ARGS, TRANSFER_ARGS, start_server
from tests.servers.wire import (
    WireRun,
    cancelled,
    new_thread_id,
    parse_sse,
    post,
    resolved,
    run_input,
    user,
)

pytestmark = pytest.mark.interop

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
INTERRUPT_ID = re.compile(r"^af-call-[0-9a-f]{32}$")
TRANSFER_RESULT = "Transferred 100.00 USD from checking to savings"

# The exact responseSchema the server advertises for transfer_money.
TRANSFER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approved": {
            "type": "boolean",
            "description": "Whether the requested tool call is approved.",
        },
        "accepted": {"type": "boolean", "description": "Legacy alias for approved."},
        "from_account": {
            "type": "string",
            "description": "Optional edited value for the 'from_account' tool argument.",
        },
        "to_account": {
            "type": "string",
            "description": "Optional edited value for the 'to_account' tool argument.",
        },
        "amount": {
            "type": "number",
            "description": "Optional edited value for the 'amount' tool argument.",
        },
        "currency": {
            "type": "string",
            "description": "Optional edited value for the 'currency' tool argument.",
        },
        "editedArgs": {
            "type": "object",
            "description": "Full replacement of the tool arguments. Not merged.",
            "properties": {
                "from_account": {"type": "string"},
                "to_account": {"type": "string"},
                "amount": {"type": "number"},
                "currency": {"type": "string"},
            },
            "required": ["from_account", "to_account", "amount", "currency"],
            "additionalProperties": False,
        },
    },
    "anyOf": [{"required": ["approved"]}, {"required": ["accepted"]}],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def server() -> Iterator[Any]:
    handle = start_server(keepalive_seconds=1)
    yield handle
    handle.stop()


@pytest.fixture(autouse=True)
def _clear(server: Any) -> None:
    server.executions.clear()


def start(server: Any, text: str) -> tuple[str, WireRun]:
    thread_id = new_thread_id()
    run = post(server.url, run_input(thread_id, [user(text)]))
    assert_lifecycle(run)
    return thread_id, run


def resume(server: Any, thread_id: str, entries: list[dict[str, Any]]) -> WireRun:
    run = post(server.url, run_input(thread_id, [], resume=entries))
    assert_lifecycle(run)
    return run


def assert_lifecycle(run: WireRun) -> None:
    """HTTP 200, an event stream, RUN_STARTED first, and RUN_FINISHED or RUN_ERROR last."""
    assert run.status == 200
    assert run.headers["content-type"].startswith("text/event-stream")
    assert run.types[0] == "RUN_STARTED"
    assert run.types[-1] in ("RUN_FINISHED", "RUN_ERROR")
    assert run.types.count("RUN_FINISHED") + run.types.count("RUN_ERROR") == 1


def assert_run_error(run: WireRun, code: str) -> dict[str, Any]:
    assert run.types == ["RUN_STARTED", "RUN_ERROR"]
    error = run.last
    assert error["code"] == code
    assert isinstance(error["message"], str) and error["message"]
    return error


def approve_transfer(server: Any, thread_id: str, interrupt_id: str) -> None:
    """A corrected resume after a failed one: the interrupt was not consumed."""
    run = resume(server, thread_id, [resolved(interrupt_id, {"approved": True})])
    assert run.outcome is None
    assert [e["content"] for e in run.of_type("TOOL_CALL_RESULT")] == [TRANSFER_RESULT]
    assert server.executions == [("transfer_money", TRANSFER_ARGS)]


# --- the interrupt ------------------------------------------------------------------------------


def test_transfer_raises_one_tool_call_interrupt_with_exact_shape(server: Any) -> None:
    _, run = start(server, "please transfer 100")
    assert server.executions == []
    assert run.types == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",  # an empty assistant message wraps the tool calls
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "CUSTOM",
        "TOOL_CALL_START",  # the synthetic confirm_changes call
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TEXT_MESSAGE_END",
        "MESSAGES_SNAPSHOT",
        "RUN_FINISHED",
    ]
    assert run.of_type("TEXT_MESSAGE_CONTENT") == []
    starts = run.of_type("TOOL_CALL_START")
    assert [s["toolCallName"] for s in starts] == ["transfer_money", "confirm_changes"]
    transfer_call_id = starts[0]["toolCallId"]
    args = run.of_type("TOOL_CALL_ARGS")
    assert json.loads(args[0]["delta"]) == TRANSFER_ARGS  # a JSON string on the wire

    assert run.outcome is not None and run.outcome["type"] == "interrupt"
    [interrupt] = run.interrupts
    assert INTERRUPT_ID.match(interrupt["id"])
    assert interrupt["id"] != transfer_call_id
    assert set(interrupt) == {"id", "reason", "message", "toolCallId", "responseSchema", "metadata"}
    assert interrupt["reason"] == "tool_call"
    assert interrupt["message"] == "Approve running transfer_money?"
    assert interrupt["toolCallId"] == transfer_call_id
    assert interrupt["responseSchema"] == TRANSFER_SCHEMA
    function_call = {
        "call_id": transfer_call_id,
        "name": "transfer_money",
        "arguments": TRANSFER_ARGS,
    }
    assert interrupt["metadata"] == {
        "agent_framework": {
            "type": "function_approval_request",
            "function_call": function_call,
            "value": {"type": "function_approval_request", "function_call": function_call},
        }
    }

    [custom] = run.of_type("CUSTOM")
    assert custom["name"] == "function_approval_request"
    assert custom["value"] == {"id": interrupt["id"], "function_call": function_call}

    # The confirm_changes call is not an interrupt and never gets a result.
    confirm_id = starts[1]["toolCallId"]
    assert confirm_id not in {i["toolCallId"] for i in run.interrupts}
    confirm_args = json.loads(args[1]["delta"])
    assert confirm_args == {
        "function_name": "transfer_money",
        "function_call_id": transfer_call_id,
        "function_arguments": TRANSFER_ARGS,
        "steps": [{"description": "Execute transfer_money", "status": "enabled"}],
    }
    assert run.of_type("TOOL_CALL_RESULT") == []

    [snapshot] = run.of_type("MESSAGES_SNAPSHOT")
    assert [m["role"] for m in snapshot["messages"]] == ["user", "assistant"]
    tool_calls = snapshot["messages"][1]["toolCalls"]
    assert [c["function"]["name"] for c in tool_calls] == ["transfer_money", "confirm_changes"]


def test_free_tool_runs_without_interrupt_and_run_has_no_outcome(server: Any) -> None:
    _, run = start(server, "what is my balance")
    assert run.outcome is None  # a normal end carries no outcome at all
    assert "outcome" not in run.last
    assert server.executions == [("check_balance", BALANCE_ARGS)]
    assert run.text == "Done: Balance of checking: 1234.56 USD"
    assert run.of_type("CUSTOM") == []


def test_text_only_run(server: Any) -> None:
    _, run = start(server, "hello")
    assert run.types == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "MESSAGES_SNAPSHOT",
        "RUN_FINISHED",
    ]
    assert run.text == "Echo: hello"


# --- decisions ----------------------------------------------------------------------------------


def test_approve_runs_the_tool_once(server: Any) -> None:
    thread_id, first = start(server, "transfer")
    [interrupt] = first.interrupts
    payload = {"approved": True}
    jsonschema.validate(payload, interrupt["responseSchema"])
    run = resume(server, thread_id, [resolved(interrupt["id"], payload)])
    assert server.executions == [("transfer_money", TRANSFER_ARGS)]
    assert run.outcome is None
    [result] = run.of_type("TOOL_CALL_RESULT")
    assert result["toolCallId"] == interrupt["toolCallId"]
    assert result["content"] == TRANSFER_RESULT
    assert run.text == f"Done: {TRANSFER_RESULT}"
    # Without thread history on the server, the snapshot holds only this run's messages.
    [snapshot] = run.of_type("MESSAGES_SNAPSHOT")
    assert [m["role"] for m in snapshot["messages"]] == ["tool", "assistant"]
    assert snapshot["messages"][0]["id"] == f"approval-response-{interrupt['id']}"


def test_accepted_alias_approves(server: Any) -> None:
    thread_id, first = start(server, "transfer")
    [interrupt] = first.interrupts
    resume(server, thread_id, [resolved(interrupt["id"], {"accepted": True})])
    assert server.executions == [("transfer_money", TRANSFER_ARGS)]


def test_replaying_a_consumed_approval_replays_the_result_without_running_again(
    server: Any,
) -> None:
    thread_id, first = start(server, "transfer")
    [interrupt] = first.interrupts
    entry = resolved(interrupt["id"], {"approved": True})
    resume(server, thread_id, [entry])
    again = resume(server, thread_id, [entry])
    assert again.types == ["RUN_STARTED", "TOOL_CALL_RESULT", "RUN_FINISHED"]
    assert again.of_type("TOOL_CALL_RESULT")[0]["content"] == TRANSFER_RESULT
    assert server.executions == [("transfer_money", TRANSFER_ARGS)]


def test_reject_emits_no_tool_result_and_does_not_run(server: Any) -> None:
    thread_id, first = start(server, "transfer")
    [interrupt] = first.interrupts
    run = resume(server, thread_id, [resolved(interrupt["id"], {"approved": False})])
    assert server.executions == []
    assert run.of_type("TOOL_CALL_RESULT") == []
    assert run.outcome is None
    assert run.text == "The transfer was not approved."
    [snapshot] = run.of_type("MESSAGES_SNAPSHOT")
    tool_message = snapshot["messages"][0]
    assert tool_message["role"] == "tool"
    assert tool_message["toolCallId"] == interrupt["toolCallId"]
    assert tool_message["content"] == "Error: Tool call invocation was rejected by user."


def test_reject_with_reason_is_refused_by_the_schema_and_the_server(server: Any) -> None:
    thread_id, first = start(server, "transfer")
    [interrupt] = first.interrupts
    payload = {"approved": False, "reason": "too much"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(payload, interrupt["responseSchema"])
    error = assert_run_error(
        resume(server, thread_id, [resolved(interrupt["id"], payload)]), "APPROVAL_RESUME_INVALID"
    )
    assert "unsupported edited arguments" in error["message"]
    approve_transfer(server, thread_id, interrupt["id"])


def test_edit_with_edited_args_full_replacement(server: Any) -> None:
    thread_id, first = start(server, "transfer")
    [interrupt] = first.interrupts
    edited = {**TRANSFER_ARGS, "amount": 250.0, "currency": "EUR"}
    payload = {"approved": True, "editedArgs": edited}
    jsonschema.validate(payload, interrupt["responseSchema"])
    run = resume(server, thread_id, [resolved(interrupt["id"], payload)])
    assert server.executions == [("transfer_money", edited)]
    assert run.text == "Done: Transferred 250.00 EUR from checking to savings"


def test_edit_with_flat_argument_properties_merges(server: Any) -> None:
    thread_id, first = start(server, "transfer")
    [interrupt] = first.interrupts
    payload = {"approved": True, "amount": 300.0}
    jsonschema.validate(payload, interrupt["responseSchema"])
    resume(server, thread_id, [resolved(interrupt["id"], payload)])
    assert server.executions == [("transfer_money", {**TRANSFER_ARGS, "amount": 300.0})]


def test_partial_edited_args_is_invalid_response(server: Any) -> None:
    thread_id, first = start(server, "transfer")
    [interrupt] = first.interrupts
    payload = {"approved": True, "editedArgs": {"amount": 1.0}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(payload, interrupt["responseSchema"])
    error = assert_run_error(
        resume(server, thread_id, [resolved(interrupt["id"], payload)]),
        "APPROVAL_RESUME_INVALID_RESPONSE",
    )
    assert "full replacement" in error["message"]
    assert server.executions == []
    approve_transfer(server, thread_id, interrupt["id"])


def test_wrongly_typed_edit_is_invalid_response(server: Any) -> None:
    thread_id, first = start(server, "transfer")
    [interrupt] = first.interrupts
    assert_run_error(
        resume(
            server, thread_id, [resolved(interrupt["id"], {"approved": True, "amount": "lots"})]
        ),
        "APPROVAL_RESUME_INVALID_RESPONSE",
    )
    approve_transfer(server, thread_id, interrupt["id"])


def test_documented_accepted_arguments_shape_is_rejected(server: Any) -> None:
    thread_id, first = start(server, "transfer")
    [interrupt] = first.interrupts
    payload = {"accepted": True, "arguments": {"amount": 5.0}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(payload, interrupt["responseSchema"])
    assert_run_error(
        resume(server, thread_id, [resolved(interrupt["id"], payload)]), "APPROVAL_RESUME_INVALID"
    )
    assert server.executions == []
    approve_transfer(server, thread_id, interrupt["id"])


def test_cancel_emits_only_run_started_and_finished_and_unblocks_the_thread(server: Any) -> None:
    thread_id, first = start(server, "transfer")
    [interrupt] = first.interrupts
    run = resume(server, thread_id, [cancelled(interrupt["id"])])
    assert run.types == ["RUN_STARTED", "RUN_FINISHED"]
    assert run.outcome is None
    assert server.executions == []
    after = post(server.url, run_input(thread_id, [user("hello again")]))
    assert after.text == "Echo: hello again"


# --- several calls ------------------------------------------------------------------------------


def test_batch_with_a_free_call_interrupts_only_the_gated_one_and_defers_both(server: Any) -> None:
    thread_id, first = start(server, "batch: transfer and balance")
    starts = first.of_type("TOOL_CALL_START")
    assert [s["toolCallName"] for s in starts] == [
        "transfer_money",
        "check_balance",
        "confirm_changes",
    ]
    # The calls of one batch interleave: START A, START B, END A, (approval), END B.
    ends = [e["toolCallId"] for e in first.of_type("TOOL_CALL_END")]
    assert ends == [starts[0]["toolCallId"], starts[2]["toolCallId"], starts[1]["toolCallId"]]
    [interrupt] = first.interrupts
    assert interrupt["toolCallId"] == starts[0]["toolCallId"]
    # The free call does not run before the approval either.
    assert server.executions == []
    assert first.of_type("TOOL_CALL_RESULT") == []

    run = resume(server, thread_id, [resolved(interrupt["id"], {"approved": True})])
    assert server.executions == [
        ("transfer_money", TRANSFER_ARGS),
        ("check_balance", BALANCE_ARGS),
    ]
    assert [r["toolCallId"] for r in run.of_type("TOOL_CALL_RESULT")] == [
        starts[0]["toolCallId"],
        starts[1]["toolCallId"],
    ]


def test_two_approvals_in_one_run(server: Any) -> None:
    thread_id, first = start(server, "two things")
    interrupts = first.interrupts
    assert len(interrupts) == 2
    assert len({i["id"] for i in interrupts}) == 2
    assert all(INTERRUPT_ID.match(i["id"]) for i in interrupts)
    assert [i["metadata"]["agent_framework"]["function_call"]["name"] for i in interrupts] == [
        "transfer_money",
        "cancel_subscription",
    ]
    assert [c["value"]["id"] for c in first.of_type("CUSTOM")] == [i["id"] for i in interrupts]
    names = [s["toolCallName"] for s in first.of_type("TOOL_CALL_START")]
    assert names.count("confirm_changes") == 2

    run = resume(server, thread_id, [resolved(i["id"], {"approved": True}) for i in interrupts])
    assert server.executions == [
        ("transfer_money", TRANSFER_ARGS),
        ("cancel_subscription", SUBSCRIPTION_ARGS),
    ]
    assert run.outcome is None
    assert run.text == f"Done: {TRANSFER_RESULT} Done: Cancelled subscription sub_123"


def test_two_rejections_in_one_run(server: Any) -> None:
    thread_id, first = start(server, "two things")
    run = resume(
        server, thread_id, [resolved(i["id"], {"approved": False}) for i in first.interrupts]
    )
    assert server.executions == []
    assert run.outcome is None
    assert run.text == "The transfer was not approved. The call was not approved."


@pytest.mark.parametrize(
    "decisions",
    [
        pytest.param(({"approved": True}, {"approved": False}), id="approve-reject"),
        pytest.param(({"approved": False}, {"approved": True}), id="reject-approve"),
        pytest.param(({"approved": True}, None), id="approve-cancel"),
    ],
)
def test_mixed_decisions_reissue_the_refused_interrupt_forever(
    server: Any, decisions: tuple[dict[str, Any] | None, ...]
) -> None:
    """Server bug: after mixed decisions it re-issues the non-approved interrupt, runs nothing, and
    keeps the approved one pending but unlisted. A client must surface the re-issued id, not loop.
    """
    thread_id, first = start(server, "two things")
    ids = [i["id"] for i in first.interrupts]
    entries = [
        cancelled(iid) if decision is None else resolved(iid, decision)
        for iid, decision in zip(ids, decisions, strict=True)
    ]
    refused = ids[[d != {"approved": True} for d in decisions].index(True)]
    approved = ids[decisions.index({"approved": True})]
    for _ in range(2):
        run = resume(server, thread_id, entries)
        assert [i["id"] for i in run.interrupts] == [refused]  # the same id again
        assert server.executions == []
        # The stream opens with a TOOL_CALL_END for a call this run never started.
        assert run.types[1] == "TOOL_CALL_END"
        assert run.of_type("TOOL_CALL_START")[0]["toolCallName"] == "confirm_changes"
    # Answering only the re-issued interrupt fails: the approved one is still pending.
    error = assert_run_error(
        resume(server, thread_id, [resolved(refused, {"approved": False})]),
        "APPROVAL_RESUME_MISSING_INTERRUPT",
    )
    assert approved in error["message"]
    # Approving both by their original ids finally runs both.
    resume(server, thread_id, [resolved(iid, {"approved": True}) for iid in ids])
    assert sorted(name for name, _ in server.executions) == [
        "cancel_subscription",
        "transfer_money",
    ]


def test_cancelling_both_of_two(server: Any) -> None:
    thread_id, first = start(server, "two things")
    run = resume(server, thread_id, [cancelled(i["id"]) for i in first.interrupts])
    assert run.types == ["RUN_STARTED", "RUN_FINISHED"]
    assert server.executions == []


# --- bad resumes: typed errors, nothing consumed ------------------------------------------------


def test_resume_missing_an_answer(server: Any) -> None:
    thread_id, first = start(server, "two things")
    first_id, second_id = (i["id"] for i in first.interrupts)
    error = assert_run_error(
        resume(server, thread_id, [resolved(first_id, {"approved": True})]),
        "APPROVAL_RESUME_MISSING_INTERRUPT",
    )
    assert error["message"] == f"Resume omitted pending interruptId '{second_id}'."
    assert server.executions == []
    resume(server, thread_id, [resolved(i["id"], {"approved": True}) for i in first.interrupts])
    assert len(server.executions) == 2


def test_resume_with_unknown_interrupt_id(server: Any) -> None:
    thread_id, first = start(server, "transfer")
    [interrupt] = first.interrupts
    unknown = "af-call-" + "0" * 32
    error = assert_run_error(
        resume(server, thread_id, [resolved(unknown, {"approved": True})]),
        "APPROVAL_RESUME_NOT_FOUND",
    )
    assert error["message"] == f"No pending interrupt found for resume interruptId '{unknown}'."
    approve_transfer(server, thread_id, interrupt["id"])


def test_resume_on_the_wrong_thread(server: Any) -> None:
    thread_id, first = start(server, "transfer")
    [interrupt] = first.interrupts
    error = assert_run_error(
        resume(server, new_thread_id(), [resolved(interrupt["id"], {"approved": True})]),
        "APPROVAL_RESUME_NOT_FOUND",
    )
    assert interrupt["id"] in error["message"]
    approve_transfer(server, thread_id, interrupt["id"])


def test_new_message_while_an_interrupt_is_pending(server: Any) -> None:
    thread_id, first = start(server, "transfer")
    [interrupt] = first.interrupts
    error = assert_run_error(
        post(server.url, run_input(thread_id, [user("hello")])), "APPROVAL_RESUME_REQUIRED"
    )
    assert error["message"] == "Pending interrupts require a resume entry for every interruptId."
    approve_transfer(server, thread_id, interrupt["id"])


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        pytest.param([], "Resume payload must include at least one interrupt entry.", id="empty"),
        pytest.param(
            [{"status": "resolved", "payload": {"approved": "yes"}}],
            "must include a boolean accepted value",
            id="approved-not-bool",
        ),
        pytest.param(
            [{"status": "resolved"}], "must include a boolean accepted value", id="no-payload"
        ),
        pytest.param(
            [{"status": "resolved", "payload": {"approved": True}}] * 2,
            "Resume includes duplicate interruptId",
            id="duplicate",
        ),
    ],
)
def test_invalid_resumes(server: Any, entries: list[dict[str, Any]], message: str) -> None:
    thread_id, first = start(server, "transfer")
    [interrupt] = first.interrupts
    entries = [{"interruptId": interrupt["id"], **entry} for entry in entries]
    error = assert_run_error(resume(server, thread_id, entries), "APPROVAL_RESUME_INVALID")
    assert message in error["message"]
    approve_transfer(server, thread_id, interrupt["id"])


# --- transport ----------------------------------------------------------------------------------


def test_keepalive_comments_end_in_crlf_while_data_frames_end_in_lf(server: Any) -> None:
    _, run = start(server, "slow please")
    assert run.text == "Slow answer."
    assert b": keepalive\r\n\r\n" in run.raw
    assert run.comments and all(c == b": keepalive" for c in run.comments)
    data_frames = [f for f in run.raw.split(b"\n\n") if f.startswith(b"data:")]
    assert data_frames and all(b"\r" not in f for f in data_frames)
    assert run.raw.startswith(b"data: {")  # "data: " with a space, compact JSON


def test_snake_case_and_missing_protocol_version_are_accepted(server: Any) -> None:
    body = run_input(new_thread_id(), [user("hi")])
    del body["protocolVersion"]
    assert post(server.url, body).text == "Echo: hi"
    snake = {"thread_id": "t-snake", "run_id": "r-snake", "messages": [user("hi")]}
    run = post(server.url, snake)
    assert run.events[0] == {"type": "RUN_STARTED", "threadId": "t-snake", "runId": "r-snake"}


def test_requests_are_recorded(server: Any) -> None:
    before = len(server.requests)
    thread_id, _ = start(server, "hi")
    recorded = server.requests[before]
    assert recorded.path == "/" and recorded.status == 200
    assert recorded.json["threadId"] == thread_id


def test_saved_transcripts_parse() -> None:
    files = sorted(TRANSCRIPTS.glob("msaf_*.sse"))
    assert len(files) >= 10
    for path in files:
        events = parse_sse(path.read_bytes())
        assert events[0]["type"] == "RUN_STARTED", path.name
        assert events[-1]["type"] in ("RUN_FINISHED", "RUN_ERROR"), path.name
