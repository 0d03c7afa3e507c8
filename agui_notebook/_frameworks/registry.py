"""The frameworks the client knows, asked in one order. Pure.

The core (reducer, interrupts, view items, the thread) calls these functions and never names a
framework. Each function asks every dialect in :data:`DIALECTS` and combines their answers; a
dialect with nothing to say about a question returns the spec's answer (``dialect.Dialect``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ag_ui.core import Interrupt, ResumeEntry

from .adk import AdkDialect
from .crewai import CrewAIDialect
from .dialect import Asked, Described, Dialect, ToolReport
from .flat import FlatDialect
from .langgraph import LangGraphDialect
from .microsoft import MicrosoftDialect
from .pydantic_ai import PydanticAIDialect
from .strands import StrandsDialect

__all__ = [
    "DIALECTS",
    "ToolReport",
    "describe",
    "interrupts_from_custom",
    "is_hidden",
    "is_pause_event",
    "is_same_interrupt",
    "is_synthetic",
    "refuse_new_message",
    "register",
    "restates_arguments",
    "restreamed_arguments",
    "result_outcome",
    "reviewed_output",
    "route_resume",
]

#: In the order they are asked: a more specific reading before a general one (ADK's gated call
#: before flat metadata; Strands' approval, whose arguments are not under flat ``arguments``, before
#: flat metadata too; a CrewAI pause before LangGraph's reading of the same CUSTOM event).
DIALECTS: list[Dialect] = [
    AdkDialect(),
    MicrosoftDialect(),
    StrandsDialect(),
    FlatDialect(),
    CrewAIDialect(),
    LangGraphDialect(),
    PydanticAIDialect(),
]


def register(dialect: Dialect, *, first: bool = False) -> None:
    """Add a dialect (asked last, or ``first``) and forget the cached tool sets."""
    DIALECTS.insert(0, dialect) if first else DIALECTS.append(dialect)
    _tools.clear()


_tools: dict[str, frozenset[str]] = {}


def _union(kind: str) -> frozenset[str]:
    found = _tools.get(kind)
    if found is None:
        found = _tools[kind] = frozenset().union(*(getattr(d, kind) for d in DIALECTS))
    return found


def is_hidden(tool_name: str | None) -> bool:
    """A tool call no view shows (a server's way of asking, not a tool the agent used)."""
    return tool_name in _union("hidden_tools")


def is_synthetic(tool_name: str | None) -> bool:
    """A tool call a server adds beside an approval: never pending, not sent back."""
    return tool_name in _union("synthetic_tools")


def is_pause_event(name: str) -> bool:
    """A CUSTOM event some framework announces a pause with."""
    return name in _union("pause_events")


def describe(reason: str, metadata: dict[str, Any] | None) -> Described | None:
    """The first description that names a tool; else the first description at all."""
    fallback: Described | None = None
    for dialect in DIALECTS:
        found = dialect.describe(reason, metadata)
        if found is not None and found.tool_name is not None:
            return found
        fallback = fallback or found
    return fallback


def interrupts_from_custom(events: Sequence[Any], run_id: str | None) -> list[Interrupt]:
    """The interrupts a run that finished without an outcome announced in pause events."""
    for dialect in DIALECTS:
        found = dialect.interrupts_from_custom(events, run_id)
        if found is not None:
            return found
    return []


def reviewed_output(reason: str, metadata: dict[str, Any] | None) -> Any:
    return next(
        (r for d in DIALECTS if (r := d.reviewed_output(reason, metadata)) is not None), None
    )


def is_same_interrupt(answered: dict[str, Any], raised: dict[str, Any]) -> bool:
    """Whether an interrupt raised under an answered one's id is that one again (the spec: yes,
    unless a framework whose ids name something wider says otherwise)."""
    return all(
        opinion for d in DIALECTS if (opinion := d.is_same_interrupt(answered, raised)) is not None
    )


def refuse_new_message(pending: Sequence[Asked]) -> None:
    """Raise (nothing is sent) when a new message would strand a framework's pause."""
    for dialect in DIALECTS:
        dialect.refuse_new_message(pending)


def route_resume(
    pending: Sequence[Asked], entries: list[ResumeEntry], forwarded_props: Any
) -> tuple[Any, bool]:
    """``(forwardedProps to send, whether resume[] goes on the wire)``: the spec's unless a
    framework wants its answers elsewhere."""
    for dialect in DIALECTS:
        routed = dialect.route_resume(pending, entries, forwarded_props)
        if routed is not None:
            return routed
    return forwarded_props, True


def restates_arguments(held: str, streamed: str) -> bool:
    return any(d.restates_arguments(held, streamed) for d in DIALECTS)


def restreamed_arguments(held: str, text: str) -> str:
    """What a later run streamed for a held call it reopened (``text``: the call's arguments text
    after that run): the first dialect's reading that differs from the spec's, else ``text``."""
    for dialect in DIALECTS:
        found = dialect.restreamed_arguments(held, text)
        if found != text:
            return found
    return text


def result_outcome(result: ToolReport) -> str | None:
    """What a tool result reports when a framework says it is not a run (``"denied"``)."""
    return next((o for d in DIALECTS if (o := d.result_outcome(result)) is not None), None)
