"""CrewAI's AG-UI adapter (``ag-ui-crewai``): its flow pauses, read. Pure.
See docs/compatibility.md, "CrewAI".

A CrewAI Flow asks a person through a method decorated with ``@human_feedback``; the adapter
suspends the flow and (with ``emit_interrupt_outcome=True``) ends the run with an interrupt:
``reason: "crewai:human_feedback"``, the decorator's ``message``, no ``toolCallId``, a
``responseSchema`` only when the decorator lists outcomes (``emit``: a string enum), and
``metadata.crewai = {flowId, methodName, emit, output}`` where ``output`` is what the method
returned, the thing under review. The answer reaches the flow as a string (an object
JSON-encoded); a cancel reaches it as ``""`` (CrewAI cannot abort a pending feedback).

Without ``emit_interrupt_outcome`` (the adapter's default) the pause is only mirrored in a
``CUSTOM on_interrupt`` event whose value is that whole interrupt, and ``RUN_FINISHED`` has no
outcome; ``resume[]`` answers it all the same (:func:`pause_from_event`). LangGraph's default style
uses the same event name but wants its answer elsewhere; CrewAI ignores that channel.

What the client does about it:

- :func:`reviewed_call`: when the reviewed ``output`` names a tool call (``tool``/``toolName``,
  ``arguments``/``args``, ``toolCallId``: the same keys the LangGraph reading uses), the interrupt
  is shown and decided as an approval of that call.
- :func:`reviewed_output`: any other ``output`` is what the card shows under review, beside the
  question (a form for named outcomes, else a free answer).
- :func:`same_interrupt_again`: the interrupt id is the flow's id, which is the thread's id, so
  *every* pause of a thread has the same id. A new pause after an answer is not the answered
  interrupt raised again unless it is identical to it.
- :func:`refuse_message_while_paused`: a new message while a flow is paused starts another run
  of the flow and leaves the paused one waiting on the server, out of the client's reach:
  refused before anything is sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ag_ui.core import Interrupt
from pydantic import ValidationError

from .._errors import UnansweredInterrupts
from .dialect import Asked, Described, Dialect

__all__ = [
    "REASON",
    "CrewAIDialect",
    "pause_from_event",
    "refuse_message_while_paused",
    "reviewed_call",
    "reviewed_output",
    "same_interrupt_again",
]

REASON = "crewai:human_feedback"


def _section(reason: str, metadata: dict[str, Any] | None) -> dict[str, Any] | None:
    if reason != REASON or not isinstance(metadata, dict):
        return None
    section = metadata.get("crewai")
    return section if isinstance(section, dict) else None


def _first(fields: dict[str, Any], *keys: str) -> Any:
    return next((fields[k] for k in keys if fields.get(k) is not None), None)


def pause_from_event(value: Any) -> Interrupt | None:
    """The interrupt a ``CUSTOM on_interrupt`` event's value is when CrewAI sent it (its default
    style: the whole interrupt, with its own id), else ``None``."""
    if not isinstance(value, dict) or value.get("reason") != REASON:
        return None
    if not isinstance(value.get("id"), str) or _section(REASON, value.get("metadata")) is None:
        return None
    try:
        return Interrupt.model_validate(value)
    except ValidationError:
        return None


def reviewed_call(
    reason: str, metadata: dict[str, Any] | None
) -> tuple[str | None, str, Any] | None:
    """``(tool call id or None, tool name, arguments)`` named by a CrewAI pause's reviewed output;
    ``None`` when it is not a CrewAI pause or its output names no tool."""
    section = _section(reason, metadata)
    output = section.get("output") if section else None
    if not isinstance(output, dict):
        return None
    name = _first(output, "tool", "toolName", "tool_name")
    if not isinstance(name, str):
        return None
    call_id = _first(output, "toolCallId", "tool_call_id")
    return (
        (call_id if isinstance(call_id, str) else None),
        name,
        _first(output, "arguments", "args"),
    )


def reviewed_output(reason: str, metadata: dict[str, Any] | None) -> Any:
    """What a CrewAI pause asks a person to review (its method's ``output``), else ``None``."""
    section = _section(reason, metadata)
    return section.get("output") if section else None


def _thread_scoped(raw: dict[str, Any]) -> bool:
    section = _section(str(raw.get("reason")), raw.get("metadata"))
    return section is not None and section.get("flowId") == raw.get("id")


def same_interrupt_again(answered: dict[str, Any], raised: dict[str, Any]) -> bool:
    """Whether ``raised`` (wire form), under the id of the ``answered`` one, is it again.

    AG-UI ids name one interrupt, so the same id is the same interrupt; CrewAI's name the thread,
    so there only an identical interrupt (same question about the same output) counts.
    """
    if not _thread_scoped(raised):
        return True
    return answered == raised


def refuse_message_while_paused(pending: Sequence[Asked]) -> None:
    """A new message on a thread whose CrewAI flow is paused: refused, nothing is sent."""
    paused = [p.id for p in pending if _section(p.reason, p.metadata) is not None]
    if paused:
        raise UnansweredInterrupts(
            paused,
            detail=(
                "the CrewAI flow is paused for feedback; a new message would start another run of "
                "the flow and leave this one waiting on the server; answer it first (resume, or "
                "cancel()); nothing was sent"
            ),
        )


class CrewAIDialect(Dialect):
    name = "crewai"
    #: CrewAI's default style mirrors a pause in this event, carrying the whole interrupt.
    pause_events = frozenset({"on_interrupt"})

    def describe(self, reason: str, metadata: dict[str, Any] | None) -> Described | None:
        call = reviewed_call(reason, metadata)
        return None if call is None else Described(*call)

    def interrupts_from_custom(
        self, events: Sequence[Any], run_id: str | None
    ) -> list[Interrupt] | None:
        pauses = [pause_from_event(e.value) for e in events]
        return [p for p in pauses if p is not None] if all(pauses) else None

    def reviewed_output(self, reason: str, metadata: dict[str, Any] | None) -> Any:
        return reviewed_output(reason, metadata)

    def is_same_interrupt(self, answered: dict[str, Any], raised: dict[str, Any]) -> bool | None:
        return same_interrupt_again(answered, raised) if _thread_scoped(raised) else None

    def refuse_new_message(self, pending: Sequence[Asked]) -> None:
        refuse_message_while_paused(pending)
