"""Whether what ran is what was decided: one execution verdict per decided tool call. Pure.

After a resumed run, each tool call a card decided is judged from what the thread holds for it
then: its arguments (streamed again?) and its result (reported?). The verdicts:

==================  ===========================================================================
``executed``        approved (or edited), and the server reported a result for the call
                    (TOOL_CALL_RESULT, or a tool message with its ``toolCallId``)
``not_reported``    approved, but the run ended with no result for it: a warning, never silent
``unexpected``      a result arrived for a call that was rejected or cancelled, or the server
                    streamed the call again with arguments other than those approved or edited
``not_executed``    rejected or cancelled, and no result (or only the server's note of the
                    denial) came back: as decided
``verified``        executed, and the chat's ``verify`` hook confirmed the result
``mismatch``        executed, and the ``verify`` hook returned a reason it does not match
==================  ===========================================================================

What a framework does differently goes through the dialect seam (``_frameworks.registry``): a
denial reported as a tool result (pydantic-ai, Microsoft Agent Framework), a call re-streamed on
resume (LangGraph). Nothing here names a framework.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from .._frameworks import registry
from .._frameworks.registry import ToolReport

__all__ = ["VERDICTS", "CallSeen", "Execution", "Verdict", "judge", "verified"]

Verdict = Literal["executed", "not_reported", "unexpected", "not_executed", "verified", "mismatch"]
VERDICTS: tuple[Verdict, ...] = (
    "executed",
    "not_reported",
    "unexpected",
    "not_executed",
    "verified",
    "mismatch",
)
#: Verdicts a card shows as a warning (the rest are as decided).
WARNINGS = frozenset({"not_reported", "unexpected", "mismatch"})


@dataclass(frozen=True)
class CallSeen:
    """What the thread holds for a tool call after the resumed run."""

    #: The call's arguments text (None: the thread holds no such call).
    arguments_text: str | None
    #: The result the server reported for the call (None: none).
    result: ToolReport | None


@dataclass(frozen=True)
class Execution:
    """The verdict on one decided tool call, and the line the card shows for it."""

    verdict: Verdict
    text: str
    #: Why, when there is more to say: the hook's reason, the arguments streamed again.
    detail: str | None = None

    @property
    def warning(self) -> bool:
        return self.verdict in WARNINGS

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "text": self.text, "detail": self.detail}


def judge(
    *,
    tool: str | None,
    decision: str,
    proposed: Any,
    edited: Any,
    held_text: str | None,
    seen: CallSeen | None,
) -> Execution | None:
    """The verdict on a call decided ``decision`` (approve, edit, reject, cancel; None for an
    answer, which runs no tool). ``proposed``: the arguments asked about; ``edited``: an edit's
    arguments; ``held_text``: the call's arguments text before the resume (None: not held)."""
    if decision not in ("approve", "edit", "reject", "cancel"):
        return None
    name = tool or "the tool call"
    result = seen.result if seen is not None else None
    denied = result is not None and registry.result_outcome(result) == "denied"
    if decision in ("reject", "cancel"):
        done = "Rejected" if decision == "reject" else "Cancelled"
        if result is not None and not denied:
            return Execution(
                "unexpected",
                f"{done}, but the agent reported a result for {name}",
                _clip(_text(result.content)),
            )
        return Execution("not_executed", f"{done}: the agent reported no execution of {name}")
    approved = edited if decision == "edit" else proposed
    restreamed = _restreamed(held_text, seen)
    if restreamed is not None and not _same(restreamed, approved):
        which = "edited" if decision == "edit" else "approved"
        return Execution(
            "unexpected",
            f"The agent streamed {name} again with arguments other than those {which}",
            f"streamed: {_clip(restreamed)}",
        )
    if result is None:
        return Execution("not_reported", f"Approved, but the agent reported no execution of {name}")
    if denied:
        return Execution(
            "unexpected",
            f"Approved, but the agent reported {name} as denied",
            _clip(_text(result.content)),
        )
    return Execution("executed", f"Executed: the agent reported a result for {name}")


def verified(
    execution: Execution, tool: str | None, hook: str, reason: Any, error: str | None
) -> Execution:
    """``execution`` (``executed``) after the ``verify`` hook named ``hook``: None from the hook
    confirms it, a reason is a mismatch; a hook that failed (``error``) leaves it executed, with
    the failure."""
    name = tool or "the tool call"
    if error is not None:
        return Execution(execution.verdict, execution.text, f"verify {hook}: {error}")
    if reason is None:
        return Execution(
            "verified", f"Verified by {hook}: the result of {name} is what was approved"
        )
    return Execution(
        "mismatch",
        f"Mismatch: the result of {name} is not what was approved ({hook})",
        _clip(_text(reason)),
    )


def _restreamed(held_text: str | None, seen: CallSeen | None) -> str | None:
    """The arguments text the resumed run streamed for the call, when it streamed any."""
    if seen is None or seen.arguments_text is None:
        return None
    if held_text is None:
        return seen.arguments_text  # first streamed in the resumed run
    if seen.arguments_text == held_text:
        return None  # not reopened, or restated as held
    return registry.restreamed_arguments(held_text, seen.arguments_text)


def _same(text: str, approved: Any) -> bool:
    """Whether the streamed arguments text is the approved (or edited) arguments."""
    try:
        value = json.loads(text) if text.strip() else {}
    except ValueError:
        return False
    return bool(value == approved)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def _clip(text: str, limit: int = 300) -> str:
    return (
        text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit:,} more characters)"
    )
