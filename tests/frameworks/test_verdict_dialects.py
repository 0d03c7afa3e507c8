"""What a framework says after a decision, read through the dialect seam (pure): a denial it
reports as a tool result, a call it streams again on resume."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agui_notebook._frameworks import registry
from agui_notebook._frameworks.microsoft import REJECTED_TEXT
from agui_notebook._frameworks.pydantic_ai import marked_outcome


@dataclass
class Report:
    content: Any
    encrypted_value: str | None = None


def test_pydantic_ai_marks_a_denial_on_the_result_message() -> None:
    marker = json.dumps({"pydantic_ai": {"outcome": "denied"}})
    assert registry.result_outcome(Report("The tool call was denied.", marker)) == "denied"
    assert registry.result_outcome(Report("Cancelled by user.", marker)) == "denied"
    failed = json.dumps({"pydantic_ai": {"outcome": "failed"}})
    assert marked_outcome(failed) == "failed"
    assert registry.result_outcome(Report("boom", failed)) is None  # a failed run still ran
    # The marker, not the text, decides: the same words without it are a result.
    assert registry.result_outcome(Report("The tool call was denied.")) is None
    assert marked_outcome("not json with pydantic_ai") is None
    assert marked_outcome(json.dumps({"pydantic_ai": "denied"})) is None


def test_microsoft_answers_a_rejection_with_a_tool_message_that_says_so() -> None:
    assert registry.result_outcome(Report(REJECTED_TEXT)) == "denied"
    assert registry.result_outcome(Report("Transferred 100.00 USD")) is None


def test_langgraph_restarts_a_reopened_calls_arguments() -> None:
    held = json.dumps({"amount": 100})
    edited = json.dumps({"amount": 250})
    assert registry.restreamed_arguments(held, held + edited) == edited
    # Nothing held, or a text that does not continue the held one: the spec's reading.
    assert registry.restreamed_arguments("", edited) == edited
    assert registry.restreamed_arguments(held, edited) == edited


def test_the_demo_reports_a_refused_call_with_a_result_that_says_so() -> None:
    assert registry.result_outcome(Report('{"ok": false, "status": "rejected"}')) == "denied"
    assert registry.result_outcome(Report('{"ok": false, "status": "cancelled"}')) == "denied"
    assert registry.result_outcome(Report('{"ok": true, "status": "rejected"}')) is None
    assert registry.result_outcome(Report('{"ok": false, "status": "failed"}')) is None
