"""Chunk expansion: ``*_CHUNK`` events as start/content/end triads, one stream per lane. Pure.

The stage after enforcement (1.1 basic/processing)::

    producer -> compatibility boundary -> enforcement -> chunk expansion -> verification

A chunk opens an element (a message, a tool call, a reasoning message) or continues the one open
in its lane: the parent agent's, or a subagent's (``subagentRunId``). The lanes are independent;
a chunk with neither an id nor a tag continues the only stream of its kind, and refuses to guess
between several (1.1 streaming, attribution and resolution). What may close a stream is the
streaming pattern's list ("Closing a chunk stream"): some events stand aside, run-level ones close
every lane, a subagent's terminal event closes its own, and anything else closes its lane.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ag_ui.core import events as agui_events
from pydantic import BaseModel

from .._errors import ProtocolError
from . import wire as _wire

__all__ = ["CHUNK_KIND", "OPENERS", "ChunkLanes"]

_E = agui_events

# The id an event's entity is known by, for finding which lane it belongs to.
_IDENT = {
    "TEXT_MESSAGE_START": "message_id",
    "TEXT_MESSAGE_CONTENT": "message_id",
    "TEXT_MESSAGE_END": "message_id",
    "TOOL_CALL_START": "tool_call_id",
    "TOOL_CALL_ARGS": "tool_call_id",
    "TOOL_CALL_END": "tool_call_id",
    "TOOL_CALL_RESULT": "tool_call_id",
    "REASONING_START": "message_id",
    "REASONING_MESSAGE_START": "message_id",
    "REASONING_MESSAGE_CONTENT": "message_id",
    "REASONING_MESSAGE_END": "message_id",
    "REASONING_END": "message_id",
}
#: The events that open an element a later chunk may continue.
OPENERS = frozenset({"TEXT_MESSAGE_START", "TOOL_CALL_START", "REASONING_MESSAGE_START"})
# 1.1 streaming, "Closing a chunk stream": these stand aside from assembly and close nothing...
_STAND_ASIDE = frozenset(
    {"RAW", "ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA", "REASONING_ENCRYPTED_VALUE", "SUBAGENT_STARTED"}
)
# ... these close every lane ...
_RUN_LEVEL = frozenset({"RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "MESSAGES_SNAPSHOT"})
# ... a subagent's terminal event closes its own lane, and anything else closes its lane.
_SUBAGENT_END = frozenset({"SUBAGENT_FINISHED", "SUBAGENT_ERROR"})
#: The chunk events, by the kind of element they assemble.
CHUNK_KIND = {
    "TEXT_MESSAGE_CHUNK": "text",
    "TOOL_CALL_CHUNK": "tool",
    "REASONING_MESSAGE_CHUNK": "reasoning",
}


@dataclass(slots=True)
class _Chunk:
    """An item a chunk stream is assembling, and what its opener established."""

    kind: str  # text | tool | reasoning
    id: str
    role: str = "assistant"
    name: str | None = None
    tool_name: str | None = None
    parent: str | None = None


class ChunkLanes:
    """One stream's open chunk streams, by lane, and who opened what.

    ``lanes`` (None: the parent agent's lane, else a subagentRunId) is only ever changed in
    place, so a parser may hold it to ask, cheaply, whether any stream is open.
    """

    __slots__ = ("lanes", "owners")

    def __init__(self) -> None:
        # Open chunk streams by lane: None is the parent agent's, else a subagentRunId.
        self.lanes: dict[str | None, _Chunk] = {}
        # Entities opened under a subagent tag in this run (an untagged continuation is theirs).
        self.owners: dict[str, str] = {}

    def new_run(self) -> None:
        """A RUN_STARTED: what earlier runs opened under a subagent tag is no one's now."""
        self.owners.clear()

    def note_owner(self, event: Any, etype: str) -> None:
        """An opener (:data:`OPENERS`) tagged with a subagent: an untagged continuation of its
        entity is that subagent's."""
        tag = getattr(event, "subagent_run_id", None)
        if tag is not None:
            self.owners[getattr(event, _IDENT[etype])] = tag

    def closing(self, event: BaseModel, etype: str) -> list[BaseModel]:
        """The synthesized ends of the chunk streams this event closes (1.1 streaming)."""
        if etype in _STAND_ASIDE:
            return []
        if etype in _RUN_LEVEL:
            ends = [_end_of(chunk) for chunk in self.lanes.values()]
            self.lanes.clear()
            return ends
        if etype in _SUBAGENT_END:
            return self._close_lane(getattr(event, "subagent_run_id", None))
        return self._close_lane(self._lane_of(event, etype))

    def _lane_of(self, event: BaseModel, etype: str) -> str | None:
        tag: str | None = getattr(event, "subagent_run_id", None)
        if tag is not None:
            return tag
        attr = _IDENT.get(etype)
        ident = getattr(event, attr) if attr else None
        if ident is None:
            return None
        for lane, chunk in self.lanes.items():
            if chunk.id == ident:
                return lane
        return self.owners.get(ident)

    def _close_lane(self, lane: str | None) -> list[BaseModel]:
        chunk = self.lanes.pop(lane, None)
        return [] if chunk is None else [_end_of(chunk)]

    def expand(self, chunk: Any, kind: str, index: int) -> list[BaseModel]:
        """A ``*_CHUNK`` event (of ``kind``, the stream's ``index``-th) as the events it stands
        for: the end of the stream it closes, the start of the one it opens, its content."""
        ident = chunk.tool_call_id if kind == "tool" else chunk.message_id
        tag = chunk.subagent_run_id
        lane = self._chunk_lane(kind, ident, tag, index)
        current = self.lanes.get(lane)
        out: list[BaseModel] = []
        continuing = (
            current is not None and current.kind == kind and (ident is None or ident == current.id)
        )
        if continuing:
            assert current is not None
            self._check_repeat(current, chunk, kind, index)
            ident = current.id
        else:
            out.extend(self._close_lane(lane))
            out.append(self._open_chunk(chunk, kind, ident, lane, index))
            ident = self.lanes[lane].id
        delta = chunk.delta
        metadata = chunk.metadata if continuing else None
        if delta or metadata:
            # A continuation carrying only metadata still reaches its item (1.1 streaming).
            extra: dict[str, Any] = {}
            if metadata:
                extra["metadata"] = metadata
            if continuing and chunk.raw_event is not None:
                extra["raw_event"] = chunk.raw_event
            if tag is not None:
                extra["subagent_run_id"] = tag
            if kind == "text":
                out.append(_E.TextMessageContentEvent(message_id=ident, delta=delta or "", **extra))
            elif kind == "tool":
                out.append(_E.ToolCallArgsEvent(tool_call_id=ident, delta=delta or "", **extra))
            else:
                out.append(
                    _E.ReasoningMessageContentEvent(message_id=ident, delta=delta or "", **extra)
                )
        return out

    def _chunk_lane(self, kind: str, ident: str | None, tag: str | None, index: int) -> str | None:
        """Which lane a chunk belongs to (1.1 streaming, attribution and resolution)."""
        lanes = self.lanes
        if tag is not None:
            for lane, chunk in lanes.items():
                if lane != tag and chunk.id == ident:
                    raise ProtocolError(
                        f"a chunk attributed to subagent {tag!r} continues {ident!r}, which "
                        f"{_owner_words(lane)} opened",
                        event_index=index,
                    )
            return tag
        if ident is not None:
            for lane, chunk in lanes.items():
                if chunk.id == ident:
                    return lane
            return None
        parent = lanes.get(None)
        if parent is not None and parent.kind == kind:
            return None
        candidates = [lane for lane, chunk in lanes.items() if chunk.kind == kind]
        if len(candidates) > 1:
            raise ProtocolError(
                f"a {_CHUNK_NAME[kind]} with neither an id nor a subagentRunId could continue "
                f"{len(candidates)} subagents' streams; a producer running subagents in parallel "
                "must attribute its chunks",
                event_index=index,
            )
        return candidates[0] if candidates else None

    def _check_repeat(self, current: _Chunk, chunk: Any, kind: str, index: int) -> None:
        """A continuation may repeat its opener's fields only with the same value."""
        name = _CHUNK_NAME[kind]
        conflicts = []
        if kind == "text":
            if chunk.role is not None and chunk.role != current.role:
                conflicts.append(f"role {chunk.role!r} (the message is {current.role!r})")
            if chunk.name is not None and current.name is not None and chunk.name != current.name:
                conflicts.append(f"name {chunk.name!r} (the message is {current.name!r})")
        elif kind == "tool":
            if chunk.tool_call_name is not None and chunk.tool_call_name != current.tool_name:
                conflicts.append(
                    f"toolCallName {chunk.tool_call_name!r} (the call is {current.tool_name!r})"
                )
            parent = chunk.parent_message_id
            if parent is not None and current.parent is not None and parent != current.parent:
                conflicts.append(f"parentMessageId {parent!r} (the call has {current.parent!r})")
        if conflicts:
            raise ProtocolError(
                f"a {name} continuing {current.id!r} repeats a field with another value: "
                + "; ".join(conflicts),
                event_index=index,
            )

    def _open_chunk(
        self, chunk: Any, kind: str, ident: str | None, lane: str | None, index: int
    ) -> BaseModel:
        name = _CHUNK_NAME[kind]
        if not ident:
            key = "toolCallId" if kind == "tool" else "messageId"
            raise ProtocolError(f"the first {name} of an element needs {key}", event_index=index)
        extra: dict[str, Any] = {}
        for attr in ("metadata", "raw_event", "subagent_run_id"):
            value = getattr(chunk, attr, None)
            if value is not None:
                extra[attr] = value
        if lane is not None:
            self.owners[ident] = lane
        if kind == "text":
            role = chunk.role or "assistant"
            self.lanes[lane] = _Chunk("text", ident, role=role, name=chunk.name)
            if chunk.name is not None:
                extra["name"] = chunk.name
            return _wire.TextMessageStart(message_id=ident, role=role, **extra)
        if kind == "tool":
            if not chunk.tool_call_name:
                raise ProtocolError(
                    "the first TOOL_CALL_CHUNK of a call needs toolCallName",
                    event_index=index,
                )
            parent = chunk.parent_message_id
            self.lanes[lane] = _Chunk("tool", ident, tool_name=chunk.tool_call_name, parent=parent)
            if parent is not None:
                extra["parent_message_id"] = parent
            return _E.ToolCallStartEvent(
                tool_call_id=ident, tool_call_name=chunk.tool_call_name, **extra
            )
        self.lanes[lane] = _Chunk("reasoning", ident)
        return _E.ReasoningMessageStartEvent(message_id=ident, role="reasoning", **extra)


_CHUNK_NAME = {
    "text": "TEXT_MESSAGE_CHUNK",
    "tool": "TOOL_CALL_CHUNK",
    "reasoning": "REASONING_MESSAGE_CHUNK",
}


def _owner_words(lane: str | None) -> str:
    return "the parent agent" if lane is None else f"subagent {lane!r}"


def _end_of(chunk: _Chunk) -> BaseModel:
    if chunk.kind == "text":
        return _E.TextMessageEndEvent(message_id=chunk.id)
    if chunk.kind == "tool":
        return _E.ToolCallEndEvent(tool_call_id=chunk.id)
    return _E.ReasoningMessageEndEvent(message_id=chunk.id)
