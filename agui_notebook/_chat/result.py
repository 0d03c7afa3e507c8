"""A chat turn's result, and the words a chat shows: notes, late clicks, error titles.

Pure text and data: nothing here touches a view, a thread or the event loop. The card, the
result's ``repr`` and the audit use these so the same event reads the same everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from .._decisions.decision import Decision
from .._errors import AGUIError
from .._notebook.host import KernelSupport
from .._thread import RunResult
from .._view.transcript import audit_line
from .._view.widget import FrontDecision

__all__ = ["ChatResult", "background_note", "late_click_text"]


@dataclass(frozen=True)
class ChatResult(RunResult):
    """A chat turn's final result, with the decisions taken on the way.

    ``decided_by`` names who decided the turn's last card ("you", "policy: approve-all",
    "rule: always allow <tool>", "timeout: cancel after 600 s"), None if nothing was decided;
    ``timed_out`` is True when a wait for a person ended at its timeout, so its default (cancel or
    reject), not a person, decided. ``completed`` is the success check: the run finished and no
    decision of this turn rejected, cancelled or timed out.
    """

    decisions: list[dict[str, Any]] = field(default_factory=list)
    decided_by: str | None = None
    timed_out: bool = False

    @property
    def completed(self) -> bool:
        """The run finished and what it asked for was neither rejected, cancelled nor timed out."""
        refused = any(
            r["decision"] in ("reject", "cancel") for r in self.decisions if not r.get("late")
        )
        return self.outcome == "success" and not self.timed_out and not refused

    def __repr__(self) -> str:
        head = super().__repr__()
        if self.timed_out:
            head = head.replace(
                f"outcome={self.outcome!r}", f"outcome={self.outcome!r}, timed_out=True", 1
            )
        lines = [head]
        for record in self.decisions:
            lines.append("  " + audit_line(record))
        return "\n".join(lines)


def _fields(result: RunResult) -> dict[str, Any]:
    """A RunResult's fields, to build the ChatResult that extends it (its kept events too)."""
    return {f.name: getattr(result, f.name) for f in fields(RunResult)}


def _failure(exc: AGUIError) -> str:
    code = getattr(exc, "code", None)
    return f"failed: {type(exc).__name__}" + (f" {code}" if code else "")


def _decision_json(decision: Decision) -> dict[str, Any]:
    return {
        "action": decision.kind,
        "reason": decision.reason,
        "args": dict(decision.arguments) if decision.arguments else None,
        "payload": decision.payload,
    }


def _title(exc: BaseException) -> str:
    return {
        "HTTPStatusError": "The server answered with an error",
        "ConnectError": "Cannot reach the agent",
        "StreamTimeout": "The agent went silent",
        "TruncatedRunError": "The run was cut off",
        "ProtocolError": "The agent sent something invalid",
        "RunError": "The agent reported an error",
        "RunAborted": "Aborted",
    }.get(type(exc).__name__, type(exc).__name__)


def background_note(support: KernelSupport) -> str:
    """The card's one note where a click cannot reach the running cell, in plain words."""
    if support.kind == "marimo":
        why = "In marimo a click reaches Python only after the running cell has finished"
        then = "Run `await chat.wait()` in another cell after deciding for the final result."
    else:
        why = (
            f"This kernel ({support.detail}) delivers a click only after the running cell has "
            "finished (ipykernel 7.4 or newer waits in the cell)"
        )
        then = "`await chat.wait()` in a later cell gives the final result."
    return (
        f"{why}, so the cell did not wait: your decision continues the run here, in this "
        f"output. {then}"
    )


_PAST = {
    "approve": "approved",
    "edit": "approved an edit",
    "reject": "rejected",
    "cancel": "cancelled",
    "answer": "answered",
}
_LABEL = {"approve": "Approve", "edit": "Edit", "reject": "Reject", "cancel": "Cancel"}


def late_click_text(
    clicked: dict[str, FrontDecision],
    decided_by: str | None,
    decided: dict[str, Decision] | None,
) -> str:
    """What the card says to a click that came after another decision: "Your Approve arrived
    after the timeout had cancelled; nothing was sent." """
    actions = {d.action for d in clicked.values()}
    label = _LABEL.get(next(iter(actions)), "answer") if len(actions) == 1 else "decisions"
    kinds = {d.kind for d in (decided or {}).values()}
    verb = _PAST.get(next(iter(kinds)), "decided") if len(kinds) == 1 else "decided"
    tail = "nothing was sent"
    if decided_by is None:
        who = "this card stopped waiting"
    elif decided_by.startswith("timeout:"):
        who = f"the timeout had {verb}"
    elif decided_by.startswith("policy:"):
        who = f"the policy {decided_by.removeprefix('policy:').strip()} had {verb}"
    elif decided_by.startswith("rule:"):
        who = f"the rule \u201c{decided_by.removeprefix('rule:').strip()}\u201d had {verb}"
    elif decided_by == "you":
        who = f"another click had {verb}"
        tail = "only that decision was sent"
    elif decided_by == "another resume on this thread":
        who = f"{decided_by} had answered it"
    else:  # a person the click's header named: "Ada Lovelace had approved"
        who = f"{decided_by} had {verb}"
        tail = "only that decision was sent"
    return f"Your {label} arrived after {who}; {tail}."
