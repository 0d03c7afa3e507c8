"""The seam a framework's quirks plug into: :class:`Dialect`, and what it reads and returns. Pure.

A dialect answers the questions the core asks about a server whose behaviour the AG-UI spec does
not say: which tool an interrupt is about, which tool calls are the server's own machinery, how a
pause announced in CUSTOM events reads as interrupts, how an answer must travel, what to refuse
before sending. Every method's default is "nothing special", so a dialect overrides only what its
framework does. The core asks :mod:`~agui_notebook._frameworks.registry`, which asks each dialect.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ag_ui.core import Interrupt, ResumeEntry

__all__ = ["Asked", "Described", "Dialect", "ToolReport", "json_or_text"]


class Asked(Protocol):
    """What a dialect reads of a pending interrupt (a ``PendingInterrupt`` or a wire ``Interrupt``)."""

    @property
    def id(self) -> str: ...

    @property
    def reason(self) -> str: ...

    @property
    def metadata(self) -> dict[str, Any] | None: ...


class ToolReport(Protocol):
    """What a dialect reads of a tool result the thread holds (an ag_ui.core ``ToolMessage``)."""

    @property
    def content(self) -> Any: ...

    @property
    def encrypted_value(self) -> str | None: ...


@dataclass(frozen=True)
class Described:
    """The tool call an interrupt asks about, as a server's own metadata names it."""

    #: The tool call's id (None: the interrupt's own ``toolCallId`` stands).
    tool_call_id: str | None
    tool_name: str | None
    arguments: Any
    #: A question to show when the interrupt carries no ``message``.
    question: str | None = None
    #: The answer's contract when the interrupt carries no ``responseSchema``.
    response_schema: dict[str, Any] | None = None


class Dialect:
    """A framework with nothing special about it: every answer is the spec's.

    Subclass it in a module of its own, override what the framework does, and add an instance to
    ``registry.DIALECTS``.
    """

    #: A short name for messages and docs.
    name = "spec"
    #: Tool calls not shown in a view (how a server asks, not tools the agent used).
    hidden_tools: frozenset[str] = frozenset()
    #: Tool calls a server adds beside an approval: not shown, never pending, left out of the
    #: history sent back.
    synthetic_tools: frozenset[str] = frozenset()
    #: CUSTOM event names that announce a pause in the run (read by :meth:`interrupts_from_custom`).
    pause_events: frozenset[str] = frozenset()

    def describe(self, reason: str, metadata: dict[str, Any] | None) -> Described | None:
        """The tool call an interrupt asks about, from this framework's metadata; None if not its."""
        return None

    def interrupts_from_custom(
        self, events: Sequence[Any], run_id: str | None
    ) -> list[Interrupt] | None:
        """The interrupts a run that finished with no outcome stands for, from the CUSTOM events
        of :attr:`pause_events` it sent; None when they are not this framework's."""
        return None

    def reviewed_output(self, reason: str, metadata: dict[str, Any] | None) -> Any:
        """What an interrupt asks a person to review besides a tool call; None if nothing."""
        return None

    def is_same_interrupt(self, answered: dict[str, Any], raised: dict[str, Any]) -> bool | None:
        """Whether ``raised`` (wire form), under the id of the ``answered`` one, is it again;
        None: no opinion (AG-UI ids name one interrupt, so then the same id is the same one)."""
        return None

    def refuse_new_message(self, pending: Sequence[Asked]) -> None:
        """Raise (nothing is sent) when a new message would strand this framework's pause."""

    def route_resume(
        self, pending: Sequence[Asked], entries: list[ResumeEntry], forwarded_props: Any
    ) -> tuple[Any, bool] | None:
        """``(forwardedProps, whether resume[] goes on the wire)`` when this framework wants its
        answers elsewhere; None: the spec's ``resume[]``."""
        return None

    def restates_arguments(self, held: str, streamed: str) -> bool:
        """True when a later run reopened a held tool call only to stream its arguments again."""
        return False

    def restreamed_arguments(self, held: str, text: str) -> str:
        """The arguments a later run streamed for a held call it reopened, given the call's text
        before (``held``) and after (``text``). The spec: a reopened call's arguments append, so
        the call's arguments are the whole text."""
        return text

    def result_outcome(self, result: ToolReport) -> str | None:
        """What a tool result reports when it is not a run of the tool: ``"denied"`` for a
        denial or cancel the server sends as a result; None: a result, as the spec reads it."""
        return None


def json_or_text(value: Any) -> Any:
    """A string that is JSON, parsed; anything else as it is (servers send arguments both ways)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
