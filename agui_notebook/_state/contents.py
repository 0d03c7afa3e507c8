"""What a thread holds: its snapshot, its tool calls, its subagent invocations. Pure.

The reducer (:mod:`.reducer`) starts a run from a :class:`ThreadSnapshot` and gives one back;
stores keep them (``_store``), the view and policies read them. Frozen where a run replaces
rather than edits (a :class:`ToolCallInfo` is evolved into a new one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._protocol.plain import json_value

__all__ = ["SubagentInfo", "ThreadSnapshot", "ToolCallInfo"]


@dataclass(frozen=True)
class ToolCallInfo:
    """A tool call as the thread knows it: its arguments (parsed when read), result attached."""

    id: str
    name: str
    arguments_text: str = ""
    parent_message_id: str | None = None
    #: The result's content: a string, or a list of content parts (ag_ui.core models).
    result: Any = None
    result_message_id: str | None = None
    #: "streaming" while arguments arrive, "called" once complete, "done" with a result.
    status: str = "streaming"
    #: Metadata merged from the call's TOOL_CALL_* events (last write wins per key).
    metadata: dict[str, Any] | None = None
    #: The subagent invocation that made the call (None: the parent agent).
    subagent_run_id: str | None = None
    #: An opaque reasoning artefact the server attached to the call, returned with it.
    encrypted_value: str | None = None
    encrypted_value_type: str | None = None

    @property
    def arguments(self) -> Any:
        """The parsed arguments (usually a dict); None while streaming or when they do not
        parse. Read from :attr:`arguments_text` each time: a thread keeps the text, not the
        objects of every call's arguments for the cyclic collector to walk."""
        if self.status == "streaming":
            return None
        text = self.arguments_text
        try:
            return json_value(text) if text.strip() else {}
        except (ValueError, RecursionError):
            return None

    def evolve(self, **changes: Any) -> ToolCallInfo:
        """``dataclasses.replace(self, **changes)`` without its per-call look at the fields
        (~3x faster; a run does this for every tool call it closes and every result)."""
        if not changes.keys() <= _TOOL_CALL_FIELDS:
            raise TypeError(
                f"ToolCallInfo has no field {sorted(changes.keys() - _TOOL_CALL_FIELDS)}"
            )
        new = object.__new__(ToolCallInfo)
        values = new.__dict__  # frozen only guards attribute assignment
        values.update(self.__dict__)
        values.update(changes)
        return new


_TOOL_CALL_FIELDS = frozenset(ToolCallInfo.__dataclass_fields__)


@dataclass(frozen=True)
class SubagentInfo:
    """One subagent invocation, as announced by SUBAGENT_STARTED (or only seen in tags)."""

    id: str
    name: str | None = None
    description: str | None = None
    parent_subagent_run_id: str | None = None
    parent_tool_call_id: str | None = None
    #: "running", "done", "suspended" (awaiting outside input) or "error".
    status: str = "running"
    error: str | None = None


@dataclass
class ThreadSnapshot:
    """The committed contents of a thread."""

    messages: dict[str, Any] = field(default_factory=dict)  # id -> message model, in order
    state: Any = None
    tool_calls: dict[str, ToolCallInfo] = field(default_factory=dict)
    subagents: dict[str, SubagentInfo] = field(default_factory=dict)
