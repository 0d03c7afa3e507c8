"""A chat turn's result: the run's result with the decisions taken on the way. Pure data.

The words a chat shows (error titles, late clicks, notes) are ``texts``'.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from .._thread import RunResult
from .._view.transcript import audit_line

__all__ = ["ChatResult", "chat_result"]


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


def chat_result(run: RunResult, **chat: Any) -> ChatResult:
    """``run`` as a chat turn's result (its kept events too), with the chat's own fields
    (``decisions``, ``decided_by``, ``timed_out``; ``warnings`` to replace the run's)."""
    return ChatResult(**{**{f.name: getattr(run, f.name) for f in fields(RunResult)}, **chat})
