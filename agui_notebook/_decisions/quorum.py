"""Several approvers: counting approvals of one card until enough different people agree. Pure.

``agent.chat(approvals=N)``: an approval goes out only once ``N`` different people approved the
same arguments. The rules, in :func:`count`:

- an approval by someone who already approved counts once;
- an edit restarts the count on the edited arguments, the editor being its first approver (an
  edit with the very arguments already being counted is an approval of them);
- an Approve click while edited arguments are being counted approves those (the card shows them);
- a click that approves nothing (every decision a reject or a cancel) decides at once, whoever
  makes it: one "no" is enough.

A click that approves one interrupt and rejects another is an approval of that whole set and is
counted like one. The count keeps who approved, in order, for the card and the audit.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from .audit import canonical_json
from .decision import Decision, edit
from .identity import Person

__all__ = [
    "Approvals",
    "Count",
    "Step",
    "check_approvals",
    "count",
    "count_text",
    "missing_text",
    "needed_for",
]


Approvals = int | Mapping[str, int]


def check_approvals(approvals: object) -> Approvals:
    """``approvals`` as a count of approvers, or per tool (``{"transfer_*": 2}``: tool-name
    globs as policies.rules matches them; tools no glob matches need 1); ValueError naming the
    fix otherwise."""
    if isinstance(approvals, Mapping):
        for pattern, needed in approvals.items():
            if not isinstance(pattern, str):
                raise ValueError(
                    f"approvals per tool are keyed by tool-name globs, got {pattern!r}"
                )
            _check_count(needed, f"approvals[{pattern!r}]")
        return dict(approvals)
    return _check_count(approvals, "approvals")


def _check_count(approvals: object, name: str) -> int:
    if isinstance(approvals, bool) or not isinstance(approvals, int) or approvals < 1:
        raise ValueError(
            f"{name} must be a whole number of people, 1 or more (got {approvals!r}): "
            "approvals=1 sends on the first Approve, approvals=2 needs two different people "
            '(per tool: approvals={"transfer_*": 2})'
        )
    return approvals


def needed_for(approvals: Approvals, tools: Iterable[str | None]) -> int:
    """Approvers a card needs: the most any of its tools needs (the first matching glob)."""
    if isinstance(approvals, int):
        return approvals
    most = 1
    for tool in tools:
        for pattern, needed in approvals.items():
            if tool is not None and fnmatch.fnmatchcase(tool, pattern):
                most = max(most, needed)
                break
    return most


@dataclass(frozen=True)
class Count:
    """The approvals gathered so far for one set of decisions."""

    needed: int
    decisions: Mapping[str, Decision]
    approvers: tuple[Person, ...] = field(default=())

    @property
    def done(self) -> bool:
        return len(self.approvers) >= self.needed


@dataclass(frozen=True)
class Step:
    """What one click did: ``send`` these decisions now, or ``wait`` with the new count."""

    action: Literal["send", "wait", "again"]
    count: Count | None
    decisions: Mapping[str, Decision] | None = None


def _approves(decisions: Mapping[str, Decision]) -> bool:
    return any(d.kind in ("approve", "edit", "answer") for d in decisions.values())


def _key(decisions: Mapping[str, Decision]) -> str:
    return canonical_json(
        {
            i: [d.kind, dict(d.arguments or {}), d.payload, d.reason]
            for i, d in sorted(decisions.items())
        }
    )


def _onto(count: Count, clicked: Mapping[str, Decision]) -> Mapping[str, Decision]:
    """A plain Approve while edited arguments are counted approves those edited arguments."""
    out: dict[str, Decision] = {}
    for interrupt_id, decision in clicked.items():
        held = count.decisions.get(interrupt_id)
        if decision.kind == "approve" and held is not None and held.kind == "edit":
            out[interrupt_id] = edit(dict(held.arguments or {}))
        else:
            out[interrupt_id] = decision
    return out


def count(
    current: Count | None, needed: int, person: Person, clicked: Mapping[str, Decision]
) -> Step:
    """Apply one person's click to the count of a card.

    ``send``: these decisions go out now (enough approvals, or a reject/cancel). ``wait``: the
    approval was counted, more are needed. ``again``: this person had already approved these
    arguments; nothing changed.
    """
    if not _approves(clicked):
        return Step("send", None, dict(clicked))
    if current is not None:
        clicked = _onto(current, clicked)
    if current is None or _key(current.decisions) != _key(clicked):
        fresh = Count(needed, dict(clicked), (person,))
        return Step("send" if fresh.done else "wait", fresh, dict(clicked) if fresh.done else None)
    if any(p.username == person.username for p in current.approvers):
        return Step("again", current)
    more = Count(needed, current.decisions, (*current.approvers, person))
    return Step("send" if more.done else "wait", more, dict(more.decisions) if more.done else None)


def count_text(current: Count) -> str:
    """The card's words for the count: "1 of 2 approvals: Ada"."""
    names = ", ".join(p.shown for p in current.approvers)
    return f"{len(current.approvers)} of {current.needed} approvals: {names}"


def missing_text(current: Count) -> str:
    """The card's words for the approvals still needed: "one more approval is needed" ("" when
    there are enough)."""
    missing = current.needed - len(current.approvers)
    if missing <= 0:
        return ""
    return "one more approval is needed" if missing == 1 else f"{missing} more approvals are needed"
