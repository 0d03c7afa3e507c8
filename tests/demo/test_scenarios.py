"""The scripted agent, without any I/O: DemoAgent.run(RunAgentInput) -> events."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from demo_wire import TRANSFER, Run, body, cancelled, counter_ids, resolved, run_input

from agui_notebook.demo import DemoOptions
from agui_notebook.demo._emit import Pause
from agui_notebook.demo._scenarios import DemoAgent

NOW = datetime(2030, 1, 1, 12, 0, 0, tzinfo=timezone.utc)


@pytest.fixture
def agent() -> DemoAgent:
    return DemoAgent(DemoOptions(text_delay=0), new_id=counter_ids())


def say(agent: DemoAgent, thread: str, text: str, run_id: str = "run-1", **kw: Any) -> Run:
    return Run.from_steps(agent.run(run_input(thread, text, run_id=run_id), now=kw.get("now", NOW)))


def resume(
    agent: DemoAgent,
    thread: str,
    entries: list[dict[str, Any]],
    run_id: str = "run-2",
    now: datetime = NOW,
) -> Run:
    return Run.from_steps(agent.run(run_input(thread, resume=entries, run_id=run_id), now=now))


def assert_refused(run: Run, code: str) -> str:
    assert run.types == ["RUN_STARTED", "RUN_ERROR"]
    assert run.error["code"] == code
    return str(run.error["message"])


# --- every run -----------------------------------------------------------------------------------


def test_every_run_declares_the_protocol_and_publishes_state_first(agent: DemoAgent) -> None:
    run = say(agent, "t", "hello")
    assert run.events[0] == {
        "type": "RUN_STARTED",
        "threadId": "t",
        "runId": "run-1",
        "protocolVersion": "1.0",
    }
    assert run.events[1]["type"] == "STATE_SNAPSHOT"
    assert run.events[1]["snapshot"]["balances"]["1234567890"] == 2500.0
    assert run.events[-1]["outcome"] == {"type": "success"}


def test_unknown_messages_get_the_help_text(agent: DemoAgent) -> None:
    run = say(agent, "t", "hello there")
    for example in ("Transfer $500", "Schedule a payment", "Quick transfer", "Hostile"):
        assert example in run.text


def test_the_same_conversation_gives_the_same_events() -> None:
    def conversation() -> list[dict[str, Any]]:
        agent = DemoAgent(DemoOptions(text_delay=0), new_id=counter_ids())
        first = say(agent, "t", "two transfers")
        ids = [i["id"] for i in first.interrupts]
        second = resume(agent, "t", [resolved(ids[0], {"approved": True}), cancelled(ids[1])])
        return first.events + second.events

    assert conversation() == conversation()


def test_a_multimodal_user_message_is_read_by_its_text_parts(agent: DemoAgent) -> None:
    data = run_input("t", "x").model_dump(by_alias=True)
    data["messages"][0]["content"] = [{"type": "text", "text": "what is my balance"}]
    run = Run.from_steps(agent.run(type(run_input("t", "x")).model_validate(data), now=NOW))
    assert "The balance of account 1234567890 is 2,500.00 USD." in run.text


# --- tool_call approvals -------------------------------------------------------------------------


def test_transfer_streams_the_call_then_interrupts(agent: DemoAgent) -> None:
    run = say(agent, "t", TRANSFER)
    (interrupt,) = run.interrupts
    (start,) = run.of_type("TOOL_CALL_START")
    (text_start,) = run.of_type("TEXT_MESSAGE_START")
    arguments = {
        "from_account": "1234567890",
        "to_account": "0987654321",
        "amount": 500.0,
        "currency": "USD",
    }
    assert start["toolCallName"] == "transfer_money"
    assert start["parentMessageId"] == text_start["messageId"]
    assert run.tool_args(start["toolCallId"]) == arguments
    assert interrupt["id"].startswith("int-")
    assert interrupt["reason"] == "tool_call"
    assert interrupt["toolCallId"] == start["toolCallId"]
    assert interrupt["metadata"] == {"toolName": "transfer_money", "arguments": arguments}
    assert "expiresAt" not in interrupt
    schema = interrupt["responseSchema"]
    assert schema["required"] == ["approved"]
    assert schema["additionalProperties"] is False
    assert set(schema["properties"]) == {"approved", "editedArgs", "reason"}
    assert schema["properties"]["editedArgs"]["required"] == [
        "from_account",
        "to_account",
        "amount",
    ]
    assert agent.executions == []


@pytest.mark.parametrize(
    ("text", "arguments"),
    [
        (
            "send money: 75.5 EUR from 1111222233 to 0987654321",
            {
                "from_account": "1111222233",
                "to_account": "0987654321",
                "amount": 75.5,
                "currency": "EUR",
            },
        ),
        (
            "transfer £1,200 to 0987654321 from 1234567890",
            {
                "from_account": "0987654321",
                "to_account": "1234567890",
                "amount": 1200.0,
                "currency": "GBP",
            },
        ),
        (
            "transfer some money",
            {
                "from_account": "1234567890",
                "to_account": "0987654321",
                "amount": 100.0,
                "currency": "USD",
            },
        ),
    ],
)
def test_transfer_arguments_are_read_from_the_text(
    agent: DemoAgent, text: str, arguments: dict[str, Any]
) -> None:
    (interrupt,) = say(agent, "t", text).interrupts
    assert interrupt["metadata"]["arguments"] == arguments


def test_approve_runs_the_tool_once_and_says_so(agent: DemoAgent) -> None:
    (interrupt,) = say(agent, "t", TRANSFER).interrupts
    run = resume(agent, "t", [resolved(interrupt["id"], {"approved": True})])
    assert run.text == (
        "Transferred 500.00 USD from 1234567890 to 0987654321. New balance: 2,000.00 USD."
    )
    (result,) = run.of_type("TOOL_CALL_RESULT")
    assert result["toolCallId"] == interrupt["toolCallId"]
    assert run.of_type("STATE_DELTA")[0]["delta"] == [
        {"op": "replace", "path": "/balances/1234567890", "value": 2000.0},
        {"op": "replace", "path": "/balances/0987654321", "value": 1500.0},
    ]
    # The answered call is put in view (MESSAGES_SNAPSHOT) before its result.
    assert run.types.index("MESSAGES_SNAPSHOT") < run.types.index("TOOL_CALL_RESULT")
    assert run.outcome == {"type": "success"}
    assert agent.executions == [
        {
            "tool": "transfer_money",
            "thread_id": "t",
            "arguments": {
                "from_account": "1234567890",
                "to_account": "0987654321",
                "amount": 500.0,
                "currency": "USD",
            },
        }
    ]
    assert agent.threads["t"].state["balances"]["1234567890"] == 2000.0


def test_reject_with_a_reason_runs_nothing(agent: DemoAgent) -> None:
    (interrupt,) = say(agent, "t", TRANSFER).interrupts
    run = resume(agent, "t", [resolved(interrupt["id"], {"approved": False, "reason": "too much"})])
    assert run.text == (
        "OK, I did not transfer 500.00 USD from 1234567890 to 0987654321. Reason: too much"
    )
    assert '"status": "rejected"' in run.of_type("TOOL_CALL_RESULT")[0]["content"]
    assert run.of_type("STATE_DELTA") == []
    assert agent.executions == []


def test_edited_arguments_replace_the_original_ones(agent: DemoAgent) -> None:
    (interrupt,) = say(agent, "t", TRANSFER).interrupts
    edited = {"from_account": "1111222233", "to_account": "1234567890", "amount": 250}
    run = resume(agent, "t", [resolved(interrupt["id"], {"approved": True, "editedArgs": edited})])
    assert run.text == (
        "With your changes: Transferred 250.00 USD from 1111222233 to "
        "1234567890. New balance: 4,750.00 USD."
    )
    assert agent.executions == [{"tool": "transfer_money", "arguments": edited, "thread_id": "t"}]


def test_cancel_runs_nothing(agent: DemoAgent) -> None:
    (interrupt,) = say(agent, "t", TRANSFER).interrupts
    run = resume(agent, "t", [cancelled(interrupt["id"])])
    assert run.text.startswith("Cancelled: nothing was done")
    assert agent.executions == []
    assert run.outcome == {"type": "success"}


def test_a_failing_tool_reports_its_failure(agent: DemoAgent) -> None:
    (interrupt,) = say(agent, "t", "transfer $9000 from 1234567890 to 0987654321").interrupts
    run = resume(agent, "t", [resolved(interrupt["id"], {"approved": True})])
    assert run.text.startswith("The transfer failed: insufficient funds in 1234567890")
    assert len(agent.executions) == 1
    assert run.of_type("STATE_DELTA") == []


def test_cancel_subscription_needs_approval_and_updates_state(agent: DemoAgent) -> None:
    (interrupt,) = say(agent, "t", "please cancel subscription for the gym").interrupts
    assert interrupt["metadata"] == {
        "toolName": "cancel_subscription",
        "arguments": {"subscription_id": "sub_gym"},
    }
    run = resume(agent, "t", [resolved(interrupt["id"], {"approved": True})])
    assert run.of_type("STATE_DELTA")[0]["delta"] == [
        {"op": "replace", "path": "/subscriptions/sub_gym/status", "value": "cancelled"}
    ]
    assert "Cancelled City Gym (sub_gym)" in run.text


def test_check_balance_runs_inside_the_run_without_approval(agent: DemoAgent) -> None:
    run = say(agent, "t", "What is the balance of 0987654321?")
    assert run.interrupts == []
    (start,) = run.of_type("TOOL_CALL_START")
    (result,) = run.of_type("TOOL_CALL_RESULT")
    assert start["toolCallName"] == "check_balance"
    assert result["toolCallId"] == start["toolCallId"]
    assert run.types.index("TOOL_CALL_END") < run.types.index("TOOL_CALL_RESULT")
    assert "The balance of account 0987654321 is 1,000.00 USD." in run.text
    assert agent.executions == [
        {"tool": "check_balance", "arguments": {"account": "0987654321"}, "thread_id": "t"}
    ]


def test_pay_bills_mixes_a_free_call_and_an_approval(agent: DemoAgent) -> None:
    run = say(agent, "t", "pay bills")
    starts = run.of_type("TOOL_CALL_START")
    assert [s["toolCallName"] for s in starts] == ["transfer_money", "check_balance"]
    assert starts[0]["parentMessageId"] == starts[1]["parentMessageId"]
    (interrupt,) = run.interrupts
    assert interrupt["toolCallId"] == starts[0]["toolCallId"]
    assert [e["tool"] for e in agent.executions] == ["check_balance"]
    resume(agent, "t", [resolved(interrupt["id"], {"approved": True})])
    assert [e["tool"] for e in agent.executions] == ["check_balance", "transfer_money"]


def test_two_approvals_in_one_run_finished(agent: DemoAgent) -> None:
    run = say(agent, "t", "two transfers please")
    first, second = run.interrupts
    assert first["metadata"]["toolName"] == "transfer_money"
    assert second["metadata"]["toolName"] == "cancel_subscription"
    assert first["id"] != second["id"]
    after = resume(
        agent,
        "t",
        [
            resolved(first["id"], {"approved": False, "reason": "no"}),
            resolved(second["id"], {"approved": True}),
        ],
    )
    assert after.text.splitlines() == [
        "OK, I did not transfer 200.00 USD from 1234567890 to 0987654321. Reason: no",
        "Cancelled StreamFlix (sub_streamflix); you save 15.99 USD a month.",
    ]
    assert [e["tool"] for e in agent.executions] == ["cancel_subscription"]


# --- other interrupt kinds -----------------------------------------------------------------------


def test_schedule_asks_for_a_form(agent: DemoAgent) -> None:
    run = say(agent, "t", "Schedule a payment")
    (interrupt,) = run.interrupts
    assert interrupt["reason"] == "input_required"
    assert "toolCallId" not in interrupt
    schema = interrupt["responseSchema"]
    assert schema["properties"]["date"] == {"type": "string", "format": "date", "title": "Date"}
    assert schema["properties"]["amount"]["minimum"] == 0
    assert schema["properties"]["frequency"]["enum"] == ["once", "weekly", "monthly"]
    assert schema["required"] == ["date", "amount"]
    answer = {"date": "2030-02-01", "amount": 80, "memo": "rent", "frequency": "monthly"}
    after = resume(agent, "t", [resolved(interrupt["id"], answer)])
    assert after.text == (
        "Scheduled a monthly payment of 80.00 USD starting 2030-02-01 (memo: rent)."
    )
    assert agent.threads["t"].state["scheduled"] == [{**answer, "amount": 80.0}]
    assert after.of_type("STATE_DELTA")[0]["delta"][0]["path"] == "/scheduled/-"


@pytest.mark.parametrize(
    ("payload", "path"),
    [
        ({"date": "2030-02-01", "amount": -1}, "payload/amount"),
        ({"date": "next friday", "amount": 10}, "payload/date"),
        ({"amount": 10}, "payload"),
        ({"date": "2030-02-01", "amount": 10, "tip": 1}, "payload"),
        (None, "payload"),
    ],
)
def test_an_invalid_form_answer_names_the_path_and_keeps_the_interrupt(
    agent: DemoAgent, payload: Any, path: str
) -> None:
    (interrupt,) = say(agent, "t", "schedule").interrupts
    message = assert_refused(
        resume(agent, "t", [resolved(interrupt["id"], payload)]), "RESUME_INVALID_PAYLOAD"
    )
    assert f"at {path}:" in message
    assert list(agent.threads["t"].pending) == [interrupt["id"]]
    good = resume(agent, "t", [cancelled(interrupt["id"])], run_id="run-3")
    assert good.text == "Cancelled: nothing was scheduled."


def test_expiring_interrupt(agent: DemoAgent) -> None:
    agent.options = DemoOptions(text_delay=0, expires_in=30)
    (interrupt,) = say(agent, "t", "quick transfer").interrupts
    assert interrupt["expiresAt"] == "2030-01-01T12:00:30.000Z"
    late = NOW + timedelta(seconds=30)
    message = assert_refused(
        resume(agent, "t", [resolved(interrupt["id"], {"approved": True})], now=late),
        "RESUME_EXPIRED",
    )
    assert "can only be cancelled" in message
    assert list(agent.threads["t"].pending) == [interrupt["id"]]
    run = resume(agent, "t", [cancelled(interrupt["id"])], run_id="run-3", now=late)
    assert run.text.startswith("Cancelled: nothing was done")
    assert agent.executions == []


def test_an_expiring_interrupt_answered_in_time_runs(agent: DemoAgent) -> None:
    (interrupt,) = say(agent, "t", "quick transfer").interrupts
    early = NOW + timedelta(seconds=59)
    run = resume(agent, "t", [resolved(interrupt["id"], {"approved": True})], now=early)
    assert run.text.startswith("Transferred 50.00 USD")


def test_close_account_asks_for_confirmation(agent: DemoAgent) -> None:
    (interrupt,) = say(agent, "t", "close account 1111222233").interrupts
    assert interrupt["reason"] == "confirmation"
    assert interrupt["metadata"] == {
        "action": "close_account",
        "arguments": {"account": "1111222233"},
    }
    run = resume(agent, "t", [resolved(interrupt["id"], {"approved": True})])
    assert run.text == "Closed account 1111222233."
    assert "1111222233" not in agent.threads["t"].state["balances"]


# --- streaming shapes ----------------------------------------------------------------------------


def test_reasoning_comes_before_the_answer(agent: DemoAgent) -> None:
    run = say(agent, "t", "think about my savings")
    reasoning = [t for t in run.types if t.startswith("REASONING")]
    assert reasoning[0] == "REASONING_START" and reasoning[-1] == "REASONING_END"
    assert "REASONING_MESSAGE_CONTENT" in reasoning
    assert run.types.index("REASONING_END") < run.types.index("TEXT_MESSAGE_START")
    assert run.text.startswith("Across your 3 accounts you hold 8,500.00 USD.")


def test_text_is_paced_by_text_delay() -> None:
    agent = DemoAgent(DemoOptions(text_delay=0.25, chunk_words=3))
    steps = agent.run(run_input("t", "tell me a long story"), now=NOW)
    pauses = [s for s in steps if isinstance(s, Pause)]
    run = Run.from_steps(steps)
    contents = run.of_type("TEXT_MESSAGE_CONTENT")
    assert len(run.text.split()) > 400
    assert all(len(c["delta"].split()) <= 3 for c in contents)
    assert len(pauses) == len(contents) - 1
    assert {p.seconds for p in pauses} == {0.25}


def test_no_pauses_without_a_delay(agent: DemoAgent) -> None:
    assert not any(isinstance(s, Pause) for s in agent.run(run_input("t", "story"), now=NOW))


def test_deliberate_error(agent: DemoAgent) -> None:
    run = say(agent, "t", "show me an error")
    assert run.events[-1]["type"] == "RUN_ERROR"
    assert run.error["code"] == "DEMO_ERROR"
    assert "RUN_FINISHED" not in run.types
    assert say(agent, "t", "hello", run_id="run-2").outcome == {"type": "success"}


def test_hostile_payloads(agent: DemoAgent) -> None:
    run = say(agent, "t", "hostile")
    (interrupt,) = run.interrupts
    arguments = interrupt["metadata"]["arguments"]
    assert arguments["payee_name"] == "<img src=x onerror=alert(1)>"
    assert arguments["note"] == "<script>window.__pwned=1</script>"
    assert arguments["website"] == "javascript:alert(1)"
    assert len(arguments["reference"]) == 5000
    depth, node = 0, arguments["details"]
    while isinstance(node, dict):
        depth, node = depth + 1, node.get("child")
    assert depth == 30
    assert "<img src=x onerror=alert(1)>" in interrupt["message"]
    assert "<script>" in run.text
    (start,) = run.of_type("TOOL_CALL_START")
    assert run.tool_args(start["toolCallId"]) == arguments


# --- resume rules and refusals -------------------------------------------------------------------


def test_a_new_message_while_pending_is_refused(agent: DemoAgent) -> None:
    (interrupt,) = say(agent, "t", TRANSFER).interrupts
    history = list(agent.threads["t"].messages)
    message = assert_refused(say(agent, "t", "hello", run_id="run-2"), "INTERRUPT_PENDING")
    assert interrupt["id"] in message
    assert agent.threads["t"].messages == history
    assert list(agent.threads["t"].pending) == [interrupt["id"]]


def test_resume_on_an_unknown_thread(agent: DemoAgent) -> None:
    assert_refused(resume(agent, "nope", [cancelled("int-1")]), "THREAD_NOT_FOUND")
    assert "nope" not in agent.threads


def test_unknown_interrupt_leaves_pending_as_is(agent: DemoAgent) -> None:
    (interrupt,) = say(agent, "t", TRANSFER).interrupts
    assert_refused(resume(agent, "t", [cancelled("int-bogus")]), "RESUME_UNKNOWN_INTERRUPT")
    assert list(agent.threads["t"].pending) == [interrupt["id"]]


def test_an_incomplete_resume_consumes_nothing(agent: DemoAgent) -> None:
    first, second = say(agent, "t", "two transfers").interrupts
    message = assert_refused(
        resume(agent, "t", [resolved(first["id"], {"approved": True})]), "RESUME_INCOMPLETE"
    )
    assert second["id"] in message
    assert agent.executions == []
    assert list(agent.threads["t"].pending) == [first["id"], second["id"]]
    resume(
        agent,
        "t",
        [resolved(first["id"], {"approved": True}), cancelled(second["id"])],
        run_id="run-3",
    )
    assert [e["tool"] for e in agent.executions] == ["transfer_money"]


def test_a_repeated_resume_does_not_run_the_tool_twice(agent: DemoAgent) -> None:
    (interrupt,) = say(agent, "t", TRANSFER).interrupts
    entries = [resolved(interrupt["id"], {"approved": True})]
    resume(agent, "t", entries)
    assert_refused(resume(agent, "t", entries, run_id="run-3"), "RESUME_ALREADY_APPLIED")
    assert len(agent.executions) == 1
    assert say(agent, "t", "hello", run_id="run-4").outcome == {"type": "success"}


def test_two_entries_for_one_interrupt(agent: DemoAgent) -> None:
    (interrupt,) = say(agent, "t", TRANSFER).interrupts
    assert_refused(
        resume(agent, "t", [cancelled(interrupt["id"]), cancelled(interrupt["id"])]),
        "RESUME_DUPLICATE_ENTRY",
    )
    assert list(agent.threads["t"].pending) == [interrupt["id"]]


@pytest.mark.parametrize(
    ("payload", "path"),
    [
        ({"accepted": True}, "payload"),  # Microsoft's documented key is not in this schema
        ({"approved": "yes"}, "payload/approved"),
        (
            {
                "approved": True,
                "editedArgs": {"from_account": "1", "to_account": "0987654321", "amount": 5},
            },
            "payload/editedArgs/from_account",
        ),
        ({"approved": True, "editedArgs": {"amount": 5}}, "payload/editedArgs"),
        (
            {
                "approved": True,
                "editedArgs": {
                    "from_account": "1234567890",
                    "to_account": "0987654321",
                    "amount": 0,
                },
            },
            "payload/editedArgs/amount",
        ),
        ("yes", "payload"),
    ],
)
def test_invalid_approval_payloads(agent: DemoAgent, payload: Any, path: str) -> None:
    (interrupt,) = say(agent, "t", TRANSFER).interrupts
    message = assert_refused(
        resume(agent, "t", [resolved(interrupt["id"], payload)]), "RESUME_INVALID_PAYLOAD"
    )
    assert interrupt["id"] in message and f"at {path}:" in message
    assert agent.executions == []
    assert list(agent.threads["t"].pending) == [interrupt["id"]]


def test_unknown_options_are_refused() -> None:
    with pytest.raises(TypeError, match="text_dealy"):
        DemoOptions.from_kwargs(text_dealy=0)


# --- AG-UI 1.1 material: content parts, a subagent, encrypted reasoning -------------------------


def test_statement_result_is_text_an_inline_png_and_a_csv_document(agent: DemoAgent) -> None:
    import base64

    run = say(agent, "t", "show my statement")
    (result,) = run.of_type("TOOL_CALL_RESULT")
    text, image, document = result["content"]
    assert text == {"type": "text", "text": "Statement for 1234567890: 2,500.00 USD."}
    assert image["source"]["mimeType"] == "image/png"
    assert base64.b64decode(image["source"]["value"]).startswith(b"\x89PNG\r\n\x1a\n")
    assert image["metadata"]["title"] == "Balances by account"
    assert document["source"]["mimeType"] == "text/csv"
    csv = base64.b64decode(document["source"]["value"]).decode()
    assert csv.splitlines()[:2] == ["account,balance_usd", "1234567890,2500.00"]
    assert document["metadata"]["filename"] == "statement-1234567890.csv"
    assert run.events[-1]["outcome"] == {"type": "success"}


def test_delegate_runs_a_subagent_whose_approval_names_it(agent: DemoAgent) -> None:
    run = say(agent, "t", "delegate a transfer of $75 from 1234567890 to 0987654321")
    (started,) = run.of_type("SUBAGENT_STARTED")
    (finished,) = run.of_type("SUBAGENT_FINISHED")
    (interrupt,) = run.interrupts
    sid = started["subagentRunId"]
    assert started["name"] == "payments"
    assert finished == {
        "type": "SUBAGENT_FINISHED",
        "subagentRunId": sid,
        "outcome": {"type": "suspended", "interruptIds": [interrupt["id"]]},
    }
    assert interrupt["subagentRunId"] == sid
    inside = run.events[run.events.index(started) + 1 : run.events.index(finished)]
    assert {e["type"] for e in inside} >= {"TEXT_MESSAGE_START", "TOOL_CALL_START"}
    assert all(e.get("subagentRunId") == sid for e in inside if e["type"].endswith("_START"))
    (start,) = run.of_type("TOOL_CALL_START")
    assert start["toolCallId"] == interrupt["toolCallId"] and agent.executions == []

    after = resume(agent, "t", [resolved(interrupt["id"], {"approved": True})])
    (again,) = after.of_type("SUBAGENT_STARTED")
    assert again["subagentRunId"] == sid  # the suspended invocation continues
    (result,) = after.of_type("TOOL_CALL_RESULT")
    assert result["subagentRunId"] == sid
    assert after.of_type("SUBAGENT_FINISHED") == [
        {"type": "SUBAGENT_FINISHED", "subagentRunId": sid}
    ]
    assert "The payments specialist reports: Transferred 75.00 USD" in after.text
    assert [e["tool"] for e in agent.executions] == ["transfer_money"]


def test_private_reasoning_carries_an_encrypted_value_and_counts_returns(agent: DemoAgent) -> None:
    run = say(agent, "t", "think privately about my savings")
    (value,) = run.of_type("REASONING_ENCRYPTED_VALUE")
    (start,) = run.of_type("REASONING_MESSAGE_START")
    assert value["subtype"] == "message" and value["entityId"] == start["messageId"]
    assert value["encryptedValueType"] == "demo.reasoning-signature"
    assert "returned intact: 0 of 0" in run.text

    data = run_input("t", "think privately again", run_id="run-2").model_dump(by_alias=True)
    reasoning = {
        "id": start["messageId"],
        "role": "reasoning",
        "content": "x",
        "encryptedValue": value["encryptedValue"],
        "encryptedValueType": value["encryptedValueType"],
    }
    data["messages"].insert(0, reasoning)
    second = Run.from_steps(agent.run(type(run_input("t", "x")).model_validate(data), now=NOW))
    assert "returned intact: 1 of 1" in second.text

    tampered = dict(reasoning, encryptedValue="forged")
    data["messages"][0] = tampered
    data["runId"] = "run-3"
    third = Run.from_steps(agent.run(type(run_input("t", "x")).model_validate(data), now=NOW))
    assert "returned intact: 0 of 2" in third.text


def test_a_resume_snapshot_carries_earlier_content_parts_as_parts(agent: DemoAgent) -> None:
    """The MESSAGES_SNAPSHOT a resume sends holds the statement's tool message with its list of
    parts: it is serialized as a 1.1 message (no "expected str" warning, nothing rewritten)."""
    import warnings

    (statement,) = say(agent, "t", "show my statement").of_type("TOOL_CALL_RESULT")
    (interrupt,) = say(agent, "t", TRANSFER, run_id="run-2").interrupts
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # pydantic warns when a model does not fit its field
        after = resume(agent, "t", [resolved(interrupt["id"], {"approved": True})], "run-3")
    (snapshot,) = after.of_type("MESSAGES_SNAPSHOT")
    [tool] = [m for m in snapshot["messages"] if m.get("toolCallId") == statement["toolCallId"]]
    assert tool["role"] == "tool" and tool["content"] == statement["content"]


def test_a_resume_that_sent_the_whole_thread_gets_no_messages_snapshot() -> None:
    """A client that sent the thread as the demo holds it has every message: a snapshot of the
    whole thread after each resume would cost it the history again (issue 28). One that sent
    none, less, or a message changed gets the snapshot."""

    def resume_sending(sent: Any) -> Run:
        agent = DemoAgent(DemoOptions(text_delay=0), new_id=counter_ids())  # the same ids each time
        (interrupt,) = say(agent, "t", TRANSFER).interrupts
        held = [m.model_dump(mode="json", by_alias=True) for m in agent.threads["t"].messages]
        data = body("t", resume=[resolved(interrupt["id"], {"approved": True})], run_id="run-2")
        data["messages"] = sent(held)
        run = Run.from_steps(agent.run(type(run_input("t")).model_validate(data), now=NOW))
        assert run.of_type("TOOL_CALL_RESULT")[0]["toolCallId"] == interrupt["toolCallId"]
        assert run.outcome == {"type": "success"}
        return run

    assert "MESSAGES_SNAPSHOT" not in resume_sending(lambda held: held).types
    for sent in (
        lambda held: [],
        lambda held: held[:-1],
        lambda held: [*held[:-1], {**held[-1], "content": "something else"}],
        lambda held: held[::-1],
    ):
        assert "MESSAGES_SNAPSHOT" in resume_sending(sent).types
