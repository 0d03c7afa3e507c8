"""Decisions and the resume entries they become. Pure.

``approve()``, ``reject(reason)``, ``edit(**args)``, ``cancel()`` and ``answer(payload)`` say what
a person (or a policy) decided. The payload an agent expects differs per server, so it is shaped
from the interrupt's ``responseSchema`` (AG-UI 1.1 interrupt-resume: "responseSchema describes the
answer's expected shape"):

- the approval flag is ``approved`` (spec, pydantic-ai), ``accepted`` (Microsoft) or ``confirmed``
  (Google ADK's ToolConfirmation) -- whichever the schema has;
- edited arguments go in ``editedArgs`` as a full replacement (the unchanged ones are filled in
  from the proposed call; when those are unknown, the edit must name every argument or it is
  refused), or, when the schema lists the arguments as flat properties (Microsoft), as those
  keys, which the server merges;
- a rejection's reason goes in ``reason`` when the schema has one;
- with no schema at all, the spec's recommended ``{"approved", "editedArgs"?, "reason"?}``.

The payload is validated against the schema before anything is sent.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from ag_ui.core import ResumeEntry

from .._errors import (
    ExpiredInterrupt,
    InvalidDecision,
    NothingPending,
    UnansweredInterrupts,
    UnknownInterrupt,
)
from .interrupts import PendingInterrupt

__all__ = [
    "Decision",
    "Decisions",
    "answer",
    "approve",
    "build_resume",
    "build_resume_entry",
    "cancel",
    "check_decisions",
    "edit",
    "prepare_validators",
    "reject",
]

DecisionKind = Literal["approve", "reject", "edit", "cancel", "answer"]

#: The yes/no key of an approval payload, by the schemas real servers send (or imply).
APPROVAL_FLAGS = ("approved", "accepted", "confirmed")


@dataclass(frozen=True)
class Decision:
    """What was decided for one interrupt. Build with the functions below, not directly."""

    kind: DecisionKind
    reason: str | None = None
    arguments: Mapping[str, Any] | None = None
    payload: Any = None

    def __repr__(self) -> str:
        if self.kind == "reject":
            return f"reject({self.reason!r})" if self.reason else "reject()"
        if self.kind == "edit":
            return f"edit({dict(self.arguments or {})!r})"
        if self.kind == "answer":
            return f"answer({self.payload!r})"
        return f"{self.kind}()"


Decisions = Decision | Mapping[str, Decision]


def approve() -> Decision:
    """Run the tool as proposed."""
    return Decision("approve")


def reject(reason: str | None = None) -> Decision:
    """Do not run the tool; ``reason`` is sent to the agent where its schema has room for it."""
    if reason is not None and not isinstance(reason, str):
        raise TypeError(f"reject() takes a reason as text, e.g. reject('too much'); got {reason!r}")
    return Decision("reject", reason=reason)


def edit(arguments: Mapping[str, Any] | None = None, /, **changes: Any) -> Decision:
    """Run the tool with changed arguments: ``edit(amount=250)`` or ``edit({"amount": 250})``.

    Keys given replace the proposed ones; the others are kept (the agent receives the full set).
    """
    if arguments is not None and not isinstance(arguments, Mapping):
        raise TypeError(
            "edit() takes the changed arguments as keywords, edit(amount=250), or as a dict, "
            f"edit({{'amount': 250}}); got {_describe(arguments)}"
        )
    merged = {**(dict(arguments) if arguments else {}), **changes}
    if not merged:
        raise TypeError("edit() needs at least one argument to change")
    return Decision("edit", arguments=merged)


def cancel() -> Decision:
    """Abandon the interrupt (status "cancelled", no payload)."""
    return Decision("cancel")


def answer(payload: Any) -> Decision:
    """Answer an interrupt that asks for input (``input_required``, forms) with ``payload``."""
    return Decision("answer", payload=payload)


_USAGE = (
    "resume() takes a decision (approve(), reject(reason), edit(**args), cancel(), "
    "answer(payload)) or a dict of them keyed by interrupt id ({thread.pending[0].id: approve()})"
)
_CALLS = {
    "approve": "approve()",
    "accept": "approve()",
    "yes": "approve()",
    "reject": "reject('why')",
    "deny": "reject('why')",
    "no": "reject('why')",
    "edit": "edit(amount=250)",
    "cancel": "cancel()",
    "answer": "answer({...})",
}


def _describe(value: Any) -> str:
    if isinstance(value, str):
        return f"the string {value!r}"
    if value is None or isinstance(value, bool):
        return repr(value)
    return f"a {type(value).__name__} ({value!r:.60})"


def _fix(value: Any) -> str:
    """What the person most likely meant, as code."""
    if isinstance(value, str):
        call = _CALLS.get(value.strip().lower().partition(":")[0])
        if call:
            return f"use {call} (from agui_notebook import {call.partition('(')[0]})"
    if callable(value) and getattr(value, "__name__", None) in _CALLS:
        return f"call it: {value.__name__}()"
    if isinstance(value, bool):
        return "use approve() or reject('why')"
    if isinstance(value, PendingInterrupt):
        return "that is the question, not an answer: {interrupt.id: approve()}"
    if isinstance(value, list | tuple | set):
        return "answer several interrupts with a dict: {interrupt.id: approve(), ...}"
    return "build it with approve(), reject(reason), edit(**args), cancel() or answer(payload)"


def check_decisions(decisions: Any) -> None:
    """Refuse what is not a decision (or a dict of them) with a TypeError naming the slip and
    the fix: ``resume("approve")`` -> use approve(); ``resume(approve)`` -> call it."""
    if isinstance(decisions, Decision):
        return
    if isinstance(decisions, Mapping):
        for key, value in decisions.items():
            if not isinstance(key, str):
                fix = (
                    "use its id: {interrupt.id: approve()}"
                    if isinstance(key, PendingInterrupt)
                    else "the ids are in thread.pending: {thread.pending[0].id: approve()}"
                )
                raise TypeError(
                    f"decisions are keyed by interrupt id (a string), not {_describe(key)}: {fix}"
                )
            if not isinstance(value, Decision):
                raise InvalidDecision(
                    key, f"{_describe(value)} is not a decision: {_fix(value)}", payload=value
                )
        return
    raise TypeError(f"{_describe(decisions)} is not a decision: {_fix(decisions)}. {_USAGE}")


def build_resume(
    pending: list[PendingInterrupt],
    decisions: Decisions,
    *,
    now: datetime | None = None,
) -> tuple[list[ResumeEntry], list[str]]:
    """Resume entries answering every pending interrupt, in their order, and notes to surface.

    Refuses (raises a :class:`ResumeRefused`) before anything is sent when an interrupt would be
    left unanswered, an answer names an unknown interrupt, or an expired one is resolved; a
    value that is not a decision at all is a TypeError naming the fix.
    """
    check_decisions(decisions)
    if not pending:
        raise NothingPending("this thread has no pending interrupt to resume")
    if isinstance(decisions, Decision):
        if len(pending) != 1:
            raise UnansweredInterrupts([p.id for p in pending[1:]])
        by_id: Mapping[str, Decision] = {pending[0].id: decisions}
    else:
        by_id = decisions
    ids = [p.id for p in pending]
    unknown = [k for k in by_id if k not in ids]
    if unknown:
        raise UnknownInterrupt(unknown, ids)
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise UnansweredInterrupts(missing)
    entries: list[ResumeEntry] = []
    notes: list[str] = []
    for interrupt in pending:
        decision = by_id[interrupt.id]
        entry, entry_notes = build_resume_entry(interrupt, decision, now=now)
        entries.append(entry)
        notes.extend(entry_notes)
    return entries, notes


def build_resume_entry(
    interrupt: PendingInterrupt, decision: Decision, *, now: datetime | None = None
) -> tuple[ResumeEntry, list[str]]:
    """One interrupt's resume entry and any notes (e.g. a reason the schema has no room for)."""
    if decision.kind == "cancel":
        return ResumeEntry(interrupt_id=interrupt.id, status="cancelled"), []
    if interrupt.is_expired(now):
        raise ExpiredInterrupt(interrupt.id, interrupt.expires_at_raw or "")
    notes: list[str] = []
    payload = _shape_payload(interrupt, decision, notes)
    _validate(interrupt, payload)
    return ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload=payload), notes


def _shape_payload(interrupt: PendingInterrupt, decision: Decision, notes: list[str]) -> Any:
    if decision.kind == "answer":
        return decision.payload
    schema = interrupt.response_schema
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict):
        props = None
    approved = decision.kind != "reject"
    if props is None:
        payload: dict[str, Any] = {"approved": approved}
        if decision.kind == "edit":
            payload["editedArgs"] = _replacement(interrupt, decision, None)
        if decision.kind == "reject" and decision.reason:
            payload["reason"] = decision.reason
        return payload

    required = schema.get("required", []) if isinstance(schema, dict) else []
    flag = _flag_key(props, required)
    if flag is None:
        raise InvalidDecision(
            interrupt.id,
            "this interrupt asks for an answer, not an approval: use answer(...) with a payload "
            "matching its responseSchema",
        )
    payload = {flag: approved}
    if decision.kind == "edit":
        full = _full_arguments(interrupt, decision)
        if "editedArgs" in props:
            payload["editedArgs"] = _replacement(interrupt, decision, props["editedArgs"])
        elif any(key in props for key in full):
            # Arguments as flat properties (Microsoft Agent Framework); the server merges them,
            # so the changed keys alone are enough when the proposed ones are unknown.
            payload.update({k: v for k, v in full.items() if k in props})
            ignored = [k for k in full if k not in props]
            if ignored:
                raise InvalidDecision(
                    interrupt.id, f"the responseSchema has no place for argument(s) {ignored}"
                )
        else:
            raise InvalidDecision(
                interrupt.id, "the responseSchema has no place for edited arguments"
            )
    if decision.kind == "reject" and decision.reason:
        if "reason" in props:
            payload["reason"] = decision.reason
        else:
            notes.append(
                f"interrupt {interrupt.id}: the agent's responseSchema has no 'reason'; "
                "the rejection was sent without it"
            )
    return payload


def _flag_key(props: Mapping[str, Any], required: Any) -> str | None:
    candidates = [k for k in APPROVAL_FLAGS if k in props]
    if not candidates:
        return None
    for key in candidates:
        if isinstance(required, list) and key in required:
            return key
    return candidates[0]


def _full_arguments(interrupt: PendingInterrupt, decision: Decision) -> dict[str, Any]:
    base = interrupt.arguments if isinstance(interrupt.arguments, dict) else {}
    return {**base, **dict(decision.arguments or {})}


def _replacement(interrupt: PendingInterrupt, decision: Decision, schema: Any) -> dict[str, Any]:
    """The full argument set for ``editedArgs``, which replaces the call's arguments (AG-UI
    interrupt-resume). Never a silent partial set: when the proposed arguments are unknown,
    the edit must name every argument the schema declares, else it is refused."""
    changes = dict(decision.arguments or {})
    if isinstance(interrupt.arguments, dict):
        return {**interrupt.arguments, **changes}
    declared = schema.get("properties") if isinstance(schema, dict) else None
    if isinstance(declared, dict) and declared and set(declared) <= set(changes):
        return changes
    missing = sorted(set(declared) - set(changes)) if isinstance(declared, dict) else []
    detail = f" (missing: {', '.join(missing)})" if missing else ""
    raise InvalidDecision(
        interrupt.id,
        "the tool call's proposed arguments are unknown, so edit() cannot fill in the ones you "
        f"did not change{detail}, and editedArgs replaces them all. Send the complete set: "
        "answer({'approved': True, 'editedArgs': {...every argument...}})",
        payload=changes,
    )


def _validate(interrupt: PendingInterrupt, payload: Any) -> None:
    validator = _validator_of(interrupt)
    if validator is None:
        return  # no schema, or the server's is itself broken: nothing trustworthy to check against
    errors = sorted(validator.iter_errors(payload), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(payload)"
        raise InvalidDecision(interrupt.id, f"{where}: {first.message}", payload=payload)


def prepare_validators(interrupts: list[PendingInterrupt]) -> None:
    """Make the validators of these interrupts' schemas now, so a later decision does not wait
    for them: the first one imports jsonschema, whose IRI format checker compiles a grammar
    (about a second) when rfc3987-syntax is installed, as every Jupyter server install has it."""
    for interrupt in interrupts:
        _validator_of(interrupt)


def _validator_of(interrupt: PendingInterrupt) -> Any:
    """The validator of the interrupt's schema; None without one, or when it is broken."""
    schema = interrupt.response_schema
    if not isinstance(schema, dict) or not schema:
        return None
    return _validator(json.dumps(schema, sort_keys=True))


@functools.lru_cache(maxsize=256)
def _validator(schema_json: str) -> Any:
    """A checked validator per schema (checking a schema costs milliseconds; servers repeat them)."""
    import jsonschema  # here, not at import: see prepare_validators

    schema = json.loads(schema_json)
    try:
        validator_cls = jsonschema.validators.validator_for(schema)
        validator_cls.check_schema(schema)
    except jsonschema.SchemaError:
        return None
    return validator_cls(schema, format_checker=validator_cls.FORMAT_CHECKER)
