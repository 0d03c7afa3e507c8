"""Resuming a thread: check the resume list, then act on every decision exactly once.

Spec: patterns/interrupt-resume ("Resuming" and its producer error handling). The demo keeps the
interrupted run's checkpoint, so it can tell what a defective resume left out, and it chooses the
strict option the spec allows: it rejects the input before doing anything (RUN_STARTED, RUN_ERROR)
and keeps every interrupt open, so a corrected resume still works. Checks, in order:

===========================  ==================================================================
code                         when
===========================  ==================================================================
THREAD_NOT_FOUND             the threadId was never seen by this app
RESUME_DUPLICATE_ENTRY       two entries answer the same interrupt
RESUME_ALREADY_APPLIED       an entry answers an interrupt that an earlier resume already
                             answered (a repeated resume: the tool does not run twice)
RESUME_UNKNOWN_INTERRUPT     an entry names an interrupt this thread never raised (stricter
                             than the spec's SHOULD-ignore, so client bugs show up)
RESUME_INCOMPLETE            a pending interrupt has no entry (omission is not abandonment)
RESUME_EXPIRED               a ``resolved`` entry answers an interrupt past its ``expiresAt``
                             (an expired interrupt can only be cancelled)
RESUME_INVALID_PAYLOAD       a ``resolved`` payload fails the ``responseSchema`` the interrupt
                             advertised (the message names the JSON path)
===========================  ==================================================================
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import jsonpatch
from ag_ui.core import ResumeEntry

from . import _bank
from ._emit import RunScript
from ._threads import (
    RESUME_ALREADY_APPLIED,
    RESUME_DUPLICATE_ENTRY,
    RESUME_EXPIRED,
    RESUME_INCOMPLETE,
    RESUME_INVALID_PAYLOAD,
    RESUME_UNKNOWN_INTERRUPT,
    PendingAction,
    ThreadRecord,
)

JSON = dict[str, Any]


class ExecutionLog(Protocol):
    def record_execution(self, thread_id: str, tool: str, arguments: JSON) -> None: ...


@dataclass(frozen=True)
class Refusal:
    """Why a run is refused: a stable RUN_ERROR ``code`` and a message for people."""

    code: str
    message: str


def check_resume(
    record: ThreadRecord, entries: Sequence[ResumeEntry], now: datetime
) -> Refusal | None:
    """Why this resume list cannot be applied to ``record``, or None if it can."""
    ids = [entry.interrupt_id for entry in entries]
    duplicates = sorted(i for i, n in Counter(ids).items() if n > 1)
    if duplicates:
        message = f"Interrupt(s) answered twice: {_ids(duplicates)}."
        return Refusal(RESUME_DUPLICATE_ENTRY, message)
    replayed = [i for i in ids if i in record.answered]
    if replayed:
        return Refusal(
            RESUME_ALREADY_APPLIED,
            (
                f"Interrupt(s) {_ids(replayed)} were already answered by an earlier resume; "
                "nothing was run again."
            ),
        )
    unknown = [i for i in ids if i not in record.pending]
    if unknown:
        return Refusal(
            RESUME_UNKNOWN_INTERRUPT,
            (
                f"Thread {record.thread_id} has no pending interrupt {_ids(unknown)}; "
                f"pending: {_ids(list(record.pending)) or 'none'}."
            ),
        )
    missing = [i for i in record.pending if i not in ids]
    if missing:
        return Refusal(
            RESUME_INCOMPLETE,
            (f"Every pending interrupt must be answered in one resume; missing: {_ids(missing)}."),
        )
    for entry in entries:
        if entry.status != "resolved":
            continue
        action = record.pending[entry.interrupt_id]
        if action.expires_at is not None and now >= action.expires_at:
            return Refusal(
                RESUME_EXPIRED,
                (
                    f"Interrupt {entry.interrupt_id} expired at {action.interrupt.expires_at}; "
                    "it can only be cancelled now."
                ),
            )
        problem = payload_problem(action.response_schema, entry.payload)
        if problem:
            return Refusal(
                RESUME_INVALID_PAYLOAD,
                (f"Resume payload for interrupt {entry.interrupt_id} is invalid: {problem}"),
            )
    return None


def load_validator() -> None:
    """Import jsonschema now (a server starting), not at the first resume: see payload_problem."""
    import jsonschema  # noqa: F401


def payload_problem(schema: JSON, payload: Any) -> str | None:
    """The first way ``payload`` breaks ``schema`` ("at payload/editedArgs/amount: ...")."""
    import jsonschema  # here, not at import: its IRI checker compiles a grammar (about a second)

    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    error = jsonschema.exceptions.best_match(validator.iter_errors(payload))
    if error is None:
        return None
    path = "/".join(["payload", *(str(part) for part in error.absolute_path)])
    message = error.message if len(error.message) <= 200 else error.message[:200] + "…"
    return f"at {path}: {message}"


def apply_resume(
    record: ThreadRecord,
    entries: Sequence[ResumeEntry],
    script: RunScript,
    log: ExecutionLog,
    sent: Sequence[Any] = (),
) -> None:
    """Consume every pending interrupt and act on its decision; stream what happened.

    ``sent``: the request's messages. A client that sent the thread as the demo holds it has
    every message already; the others get a MESSAGES_SNAPSHOT of the whole thread first.
    """
    decisions = {entry.interrupt_id: entry for entry in entries}
    actions = list(record.pending.values())
    record.pending.clear()
    record.answered.update(decisions)
    # The tool calls being answered were made in an earlier run: the snapshot puts them in this
    # run's view, so the TOOL_CALL_RESULTs below refer to known calls. Sent to a client that
    # already holds them, it would cost it the whole thread again on every resume.
    if not _holds(sent, record.messages):
        script.messages_snapshot(record.messages)
    script.state_snapshot(record.state)
    lines = []
    for action in actions:
        if action.subagent is None:
            lines.append(_act(action, decisions[action.id], record, script, log))
            continue
        # Raised inside a subagent: the same invocation continues (spec: events/subagents).
        subagent_run_id, name = action.subagent
        with script.subagent(subagent_run_id, name):
            line = _act(action, decisions[action.id], record, script, log)
            script.say(line)
        lines.append(f"The {name} specialist reports: {line}")
    script.say("\n".join(lines))
    script.finish()


def _holds(sent: Sequence[Any], messages: Sequence[Any]) -> bool:
    """Whether ``sent`` has each of ``messages``, equal as JSON, in the same order."""
    if len(sent) < len(messages):
        return False
    by_id = {getattr(m, "id", None): m for m in sent}
    order = [m.id for m in messages]
    ours = set(order)
    if [i for i in (getattr(m, "id", None) for m in sent) if i in ours] != order:
        return False
    for message in messages:
        theirs = by_id.get(message.id)
        if theirs is None or _dumped(theirs) != _dumped(message):
            return False
    return True


def _dumped(message: Any) -> Any:
    return message.model_dump(mode="json", by_alias=True, exclude_none=True)


def _act(
    action: PendingAction,
    entry: ResumeEntry,
    record: ThreadRecord,
    script: RunScript,
    log: ExecutionLog,
) -> str:
    """Carry out one decision; return the sentence that reports it."""
    payload: JSON = entry.payload if isinstance(entry.payload, dict) else {}
    decision = (
        "cancelled"
        if entry.status == "cancelled"
        else ("approved" if payload.get("approved") is True else "rejected")
    )
    answer = {"form": _answer_form, "confirmation": _answer_confirmation}.get(
        action.kind, _answer_tool_call
    )
    return answer(action, decision, payload, record, script, log)


def _answer_form(
    action: PendingAction,
    decision: str,
    payload: JSON,
    record: ThreadRecord,
    script: RunScript,
    log: ExecutionLog,
) -> str:
    if decision == "cancelled":
        return "Cancelled: nothing was scheduled."
    outcome = _bank.schedule_payment(payload, record.state)  # the form's answer, validated
    log.record_execution(record.thread_id, "schedule_payment", payload)
    _apply(outcome.patch, record, script)
    return outcome.summary


def _answer_confirmation(
    action: PendingAction,
    decision: str,
    payload: JSON,
    record: ThreadRecord,
    script: RunScript,
    log: ExecutionLog,
) -> str:
    account = str(action.arguments["account"])
    if decision == "cancelled":
        return f"Cancelled: nothing was done; account {account} stays open."
    if decision == "rejected":
        return f"OK, account {account} stays open.{_reason(payload)}"
    outcome = _bank.close_account(account, record.state)
    log.record_execution(record.thread_id, "close_account", {"account": account})
    _apply(outcome.patch, record, script)
    return outcome.summary


def _answer_tool_call(
    action: PendingAction,
    decision: str,
    payload: JSON,
    record: ThreadRecord,
    script: RunScript,
    log: ExecutionLog,
) -> str:
    name, tool_call_id = action.tool_name or "", action.interrupt.tool_call_id or ""
    what = _bank.describe_call(name, action.arguments)
    if decision != "approved":
        # The call still gets a result, so the thread's history has no dangling tool call.
        result: JSON = {"ok": False, "status": decision}
        if decision == "rejected" and payload.get("reason"):
            result["reason"] = payload["reason"]
        script.tool_result(tool_call_id, result)
        if decision == "cancelled":
            return f"Cancelled: nothing was done (I did not {what})."
        return f"OK, I did not {what}.{_reason(payload)}"
    edited = payload.get("editedArgs")
    arguments = edited if isinstance(edited, dict) else action.arguments  # a full replacement
    outcome = _bank.execute(name, arguments, record.state)
    log.record_execution(record.thread_id, name, arguments)
    script.tool_result(tool_call_id, outcome.result)
    _apply(outcome.patch, record, script)
    return f"With your changes: {outcome.summary}" if isinstance(edited, dict) else outcome.summary


def _apply(patch: list[JSON], record: ThreadRecord, script: RunScript) -> None:
    if patch:
        record.state = jsonpatch.apply_patch(record.state, patch)
        script.state_delta(patch)


def _reason(payload: JSON) -> str:
    reason = payload.get("reason")
    return f" Reason: {reason}" if reason else " (No reason given.)"


def _ids(ids: Sequence[str]) -> str:
    return ", ".join(json.dumps(i) for i in ids)
