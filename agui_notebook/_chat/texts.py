"""The words a chat shows, each written once: error titles, the outcome a failed resume leaves in
the audit, what a late click is told, and the note on a card a click cannot reach in time.

Pure text: nothing here touches a view, a thread or the event loop. The card, the result's
``repr``, the streamer and the audit use these so the same event reads the same everywhere.
"""

from __future__ import annotations

from .._decisions.decided_by import DecidedBy
from .._decisions.decision import Decision
from .._errors import AGUIError
from .._notebook.host import KernelSupport
from .._view.widget import FrontDecision

__all__ = ["PAST_TENSE", "background_note", "error_title", "failure_outcome", "late_click_text"]


def error_title(exc: BaseException) -> str:
    """The one-line title a card or an error item gives ``exc``."""
    return {
        "HTTPStatusError": "The server answered with an error",
        "ConnectError": "Cannot reach the agent",
        "StreamTimeout": "The agent went silent",
        "TruncatedRunError": "The run was cut off",
        "ProtocolError": "The agent sent something invalid",
        "RunError": "The agent reported an error",
        "RunAborted": "Aborted",
    }.get(type(exc).__name__, type(exc).__name__)


def failure_outcome(exc: AGUIError) -> str:
    """The audit's outcome of a resume that failed: "failed: HTTPStatusError 503"."""
    code = getattr(exc, "code", None)
    return f"failed: {type(exc).__name__}" + (f" {code}" if code else "")


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


#: A decision's kind as a past tense: "the timeout had cancelled".
PAST_TENSE = {
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
    after the timeout had cancelled; nothing was sent." ``decided_by`` is the card's shown
    decider (:attr:`DecidedBy.shown`)."""
    actions = {d.action for d in clicked.values()}
    label = _LABEL.get(next(iter(actions)), "answer") if len(actions) == 1 else "decisions"
    kinds = {d.kind for d in (decided or {}).values()}
    verb = PAST_TENSE.get(next(iter(kinds)), "decided") if len(kinds) == 1 else "decided"
    tail = "nothing was sent"
    by = DecidedBy.from_text(decided_by) if decided_by is not None else None
    if by is None:
        who = "this card stopped waiting"
    elif by.kind == "timeout":
        who = f"the timeout had {verb}"
    elif by.kind == "policy":
        who = f"the policy {by.name} had {verb}"
    elif by.kind == "rule":
        who = f"the rule \u201c{by.name}\u201d had {verb}"
    elif by.kind == "resume":
        who = f"{by.text} had answered it"
    else:  # a person: another click here, or one the click's header named ("Ada Lovelace")
        who = f"another click had {verb}" if by.is_you else f"{by.text} had {verb}"
        tail = "only that decision was sent"
    return f"Your {label} arrived after {who}; {tail}."
