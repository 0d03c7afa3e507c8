"""The execution verdict on a decided tool call, from what the thread holds after the resume."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from agui_notebook._decisions.verdict import CallSeen, judge, verified

ARGS = {"from_account": "1234567890", "amount": 500}
HELD = json.dumps(ARGS)


@dataclass
class Result:
    content: Any
    encrypted_value: str | None = None


def verdict(
    decision: str, seen: CallSeen | None, *, edited: Any = None, held: str | None = HELD
) -> Any:
    return judge(
        tool="transfer_money",
        decision=decision,
        proposed=ARGS,
        edited=edited,
        held_text=held,
        seen=seen,
    )


def test_an_approved_call_with_a_result_was_executed() -> None:
    found = verdict("approve", CallSeen(HELD, Result("done")))
    assert found is not None and found.verdict == "executed" and not found.warning
    assert found.text == "Executed: the agent reported a result for transfer_money"


def test_an_approved_call_with_no_result_is_a_warning_that_names_the_tool() -> None:
    found = verdict("approve", CallSeen(HELD, None))
    assert found is not None and found.verdict == "not_reported" and found.warning
    assert found.text == "Approved, but the agent reported no execution of transfer_money"
    assert verdict("approve", None).verdict == "not_reported"  # type: ignore[union-attr]


@pytest.mark.parametrize("decision", ["reject", "cancel"])
def test_a_result_for_a_refused_call_is_unexpected(decision: str) -> None:
    found = verdict(decision, CallSeen(HELD, Result("Transferred 500")))
    assert found is not None and found.verdict == "unexpected" and found.warning
    assert "but the agent reported a result for transfer_money" in found.text
    assert found.detail == "Transferred 500"
    calm = verdict(decision, CallSeen(HELD, None))
    assert calm is not None and calm.verdict == "not_executed" and not calm.warning


def test_a_denial_a_framework_reports_as_a_result_is_no_execution() -> None:
    marker = json.dumps({"pydantic_ai": {"outcome": "denied"}})
    pydantic_ai = verdict("reject", CallSeen(HELD, Result("The tool call was denied.", marker)))
    assert pydantic_ai is not None and pydantic_ai.verdict == "not_executed"
    microsoft = Result("Error: Tool call invocation was rejected by user.")
    assert verdict("reject", CallSeen(HELD, microsoft)).verdict == "not_executed"  # type: ignore[union-attr]
    # ... but reported for an approved call, it is not what was decided.
    approved = verdict("approve", CallSeen(HELD, Result("The tool call was denied.", marker)))
    assert approved is not None and approved.verdict == "unexpected"


def test_a_call_streamed_again_with_other_arguments_is_unexpected() -> None:
    other = json.dumps({**ARGS, "amount": 5000})
    # The spec: a reopened call's arguments append; held + more is not what was approved.
    found = verdict("approve", CallSeen(HELD + other, Result("done")))
    assert found is not None and found.verdict == "unexpected"
    assert (
        found.text
        == "The agent streamed transfer_money again with arguments other than those approved"
    )
    # First streamed in the resumed run (nothing held), with other arguments.
    fresh = verdict("approve", CallSeen(other, Result("done")), held=None)
    assert fresh is not None and fresh.verdict == "unexpected" and "5000" in (fresh.detail or "")


def test_streaming_the_approved_or_edited_arguments_again_is_as_decided() -> None:
    assert verdict("approve", CallSeen(HELD, Result("ok")), held=None).verdict == "executed"  # type: ignore[union-attr]
    edited = {**ARGS, "amount": 250}
    # LangGraph re-sends a held call under its id: held + the edited arguments.
    restated = CallSeen(HELD + json.dumps(edited), Result("ok"))
    assert verdict("edit", restated, edited=edited).verdict == "executed"  # type: ignore[union-attr]
    # An edit whose call comes back with the original arguments was discarded.
    original = verdict("edit", CallSeen(HELD, Result("ok")), edited=edited, held=None)
    assert original is not None and original.verdict == "unexpected"
    assert original.text.endswith("other than those edited")


def test_an_answer_runs_no_tool_and_gets_no_verdict() -> None:
    assert verdict("answer", CallSeen(HELD, Result("x"))) is None


def test_a_verify_hook_confirms_or_names_the_mismatch() -> None:
    executed = verdict("approve", CallSeen(HELD, Result("done")))
    assert executed is not None
    assert verified(executed, "transfer_money", "same_amount", None, None).verdict == "verified"
    mismatch = verified(executed, "transfer_money", "same_amount", "sent 5000, approved 500", None)
    assert mismatch.verdict == "mismatch" and mismatch.warning
    assert mismatch.detail == "sent 5000, approved 500"
    failed = verified(executed, "transfer_money", "same_amount", None, "raised KeyError: 'amount'")
    assert (
        failed.verdict == "executed"
        and failed.detail == "verify same_amount: raised KeyError: 'amount'"
    )
    assert mismatch.to_json() == {
        "verdict": "mismatch",
        "text": "Mismatch: the result of transfer_money is not what was approved (same_amount)",
        "detail": "sent 5000, approved 500",
    }
