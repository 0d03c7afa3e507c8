"""The demo's memory: one record per threadId, kept in memory by one app instance.

A record holds the thread's history (as ``ag_ui.core`` messages), its shared state (balances), the
interrupts waiting for an answer, and the ids of the interrupts already answered (so a repeated
resume is recognised and refused instead of running a tool twice).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from ag_ui.core import Interrupt, Message

from . import _bank

JSON = dict[str, Any]

# Stable RUN_ERROR codes. Each of these leaves the thread exactly as it was.
THREAD_NOT_FOUND = "THREAD_NOT_FOUND"
INTERRUPT_PENDING = "INTERRUPT_PENDING"
RESUME_UNKNOWN_INTERRUPT = "RESUME_UNKNOWN_INTERRUPT"
RESUME_DUPLICATE_ENTRY = "RESUME_DUPLICATE_ENTRY"
RESUME_ALREADY_APPLIED = "RESUME_ALREADY_APPLIED"
RESUME_INCOMPLETE = "RESUME_INCOMPLETE"
RESUME_EXPIRED = "RESUME_EXPIRED"
RESUME_INVALID_PAYLOAD = "RESUME_INVALID_PAYLOAD"
DEMO_ERROR = "DEMO_ERROR"
A2UI_INVALID_ACTION = "A2UI_INVALID_ACTION"
A2UI_UNKNOWN_SURFACE = "A2UI_UNKNOWN_SURFACE"
A2UI_SURFACE_CLOSED = "A2UI_SURFACE_CLOSED"
A2UI_UNKNOWN_ACTION = "A2UI_UNKNOWN_ACTION"

ERROR_CODES = (
    THREAD_NOT_FOUND,
    INTERRUPT_PENDING,
    RESUME_UNKNOWN_INTERRUPT,
    RESUME_DUPLICATE_ENTRY,
    RESUME_ALREADY_APPLIED,
    RESUME_INCOMPLETE,
    RESUME_EXPIRED,
    RESUME_INVALID_PAYLOAD,
    DEMO_ERROR,
    A2UI_INVALID_ACTION,
    A2UI_UNKNOWN_SURFACE,
    A2UI_SURFACE_CLOSED,
    A2UI_UNKNOWN_ACTION,
)

ActionKind = Literal["tool", "form", "confirmation"]


@dataclass
class PendingAction:
    """An interrupt the demo raised, with what it will do once answered."""

    interrupt: Interrupt
    kind: ActionKind
    arguments: JSON
    tool_name: str | None = None
    expires_at: datetime | None = None
    #: (subagentRunId, name) when a subagent raised it: the resume continues that invocation.
    subagent: tuple[str, str] | None = None

    @property
    def id(self) -> str:
        return self.interrupt.id

    @property
    def response_schema(self) -> JSON:
        return self.interrupt.response_schema or {}


@dataclass
class SurfaceRecord:
    """An A2UI surface the demo showed on a thread, and what became of it."""

    surface_id: str
    kind: str
    status: Literal["open", "submitted", "cancelled"] = "open"


@dataclass
class ThreadRecord:
    thread_id: str
    state: JSON = field(default_factory=_bank.initial_state)
    messages: list[Message] = field(default_factory=list)
    pending: dict[str, PendingAction] = field(default_factory=dict)  # in the order raised
    answered: set[str] = field(default_factory=set)
    surfaces: dict[str, SurfaceRecord] = field(default_factory=dict)
    #: Encrypted reasoning values issued on this thread (the client must send them back).
    signatures: dict[str, str] = field(default_factory=dict)  # reasoning message id -> value

    def add_messages(self, messages: list[Message]) -> None:
        known = {m.id for m in self.messages}
        self.messages.extend(m for m in messages if m.id not in known)
