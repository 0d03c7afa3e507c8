"""SSE message to AG-UI event: the compatibility boundary, enforcement and chunk expansion.

Pure and incremental. The order is the spec's (1.1 basic/processing, "Where middleware sits")::

    producer -> compatibility boundary -> enforcement -> chunk expansion -> verification

- Compatibility: retired shapes are translated, not dropped: ``THINKING_*`` (pre-1.0) become
  ``REASONING_*``; a server that predates ``protocolVersion`` and ``outcome`` is read as 1.0.
- Enforcement: an unknown event type is dropped with a warning; an unknown property or an
  unknown ``outcome`` variant is stripped with a warning naming its path; a known field with a
  value the schema rejects is fatal (:class:`ProtocolError`).
- Expansion: ``*_CHUNK`` events become start/content/end triads.

The models are ``ag_ui.core``'s. Where ag-ui-protocol 0.1.x lacks a 1.x field (``protocolVersion``,
the ``cancelled`` outcome, ``pendingToolCallIds``) a thin subclass adds it, so both lines parse
the same stream into the same values.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Annotated, Any, Literal

from ag_ui.core import events as agui_events
from ag_ui.core import types as agui_types
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from ._errors import ProtocolError

__all__ = [
    "CancelledOutcome",
    "EventParser",
    "InterruptOutcome",
    "RunFinished",
    "RunStarted",
    "SuccessOutcome",
    "type_of",
]

_E = agui_events


class _Wire(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


class SuccessOutcome(_Wire):
    type: Literal["success"] = "success"
    pending_tool_call_ids: list[str] | None = None


class InterruptOutcome(_Wire):
    type: Literal["interrupt"] = "interrupt"
    interrupts: Annotated[list[agui_types.Interrupt], Field(min_length=1)]


class CancelledOutcome(_Wire):
    type: Literal["cancelled"] = "cancelled"


Outcome = Annotated[
    SuccessOutcome | InterruptOutcome | CancelledOutcome, Field(discriminator="type")
]
_OUTCOME_TYPES = frozenset({"success", "interrupt", "cancelled"})


class RunStarted(_E.RunStartedEvent):
    """RUN_STARTED with the 1.x ``protocolVersion`` on either ag-ui-protocol line."""

    protocol_version: str | None = None


class RunFinished(_E.RunFinishedEvent):
    """RUN_FINISHED whose ``outcome`` knows all three 1.x variants on either ag-ui-protocol line."""

    outcome: Outcome | None = None  # type: ignore[assignment]


def _models() -> dict[str, type[BaseModel]]:
    names = {
        "TEXT_MESSAGE_START": "TextMessageStartEvent",
        "TEXT_MESSAGE_CONTENT": "TextMessageContentEvent",
        "TEXT_MESSAGE_END": "TextMessageEndEvent",
        "TEXT_MESSAGE_CHUNK": "TextMessageChunkEvent",
        "TOOL_CALL_START": "ToolCallStartEvent",
        "TOOL_CALL_ARGS": "ToolCallArgsEvent",
        "TOOL_CALL_END": "ToolCallEndEvent",
        "TOOL_CALL_CHUNK": "ToolCallChunkEvent",
        "TOOL_CALL_RESULT": "ToolCallResultEvent",
        "STATE_SNAPSHOT": "StateSnapshotEvent",
        "STATE_DELTA": "StateDeltaEvent",
        "MESSAGES_SNAPSHOT": "MessagesSnapshotEvent",
        "ACTIVITY_SNAPSHOT": "ActivitySnapshotEvent",
        "ACTIVITY_DELTA": "ActivityDeltaEvent",
        "RAW": "RawEvent",
        "CUSTOM": "CustomEvent",
        "RUN_ERROR": "RunErrorEvent",
        "STEP_STARTED": "StepStartedEvent",
        "STEP_FINISHED": "StepFinishedEvent",
        "REASONING_START": "ReasoningStartEvent",
        "REASONING_MESSAGE_START": "ReasoningMessageStartEvent",
        "REASONING_MESSAGE_CONTENT": "ReasoningMessageContentEvent",
        "REASONING_MESSAGE_END": "ReasoningMessageEndEvent",
        "REASONING_MESSAGE_CHUNK": "ReasoningMessageChunkEvent",
        "REASONING_END": "ReasoningEndEvent",
        "REASONING_ENCRYPTED_VALUE": "ReasoningEncryptedValueEvent",
        "SUBAGENT_STARTED": "SubagentStartedEvent",
        "SUBAGENT_FINISHED": "SubagentFinishedEvent",
        "SUBAGENT_ERROR": "SubagentErrorEvent",
    }
    found = {t: getattr(_E, n) for t, n in names.items() if hasattr(_E, n)}
    found["RUN_STARTED"] = RunStarted
    found["RUN_FINISHED"] = RunFinished
    return found


MODELS: dict[str, type[BaseModel]] = _models()

# Events whose fields hold further protocol models (stripped recursively).
_NESTED_MODELS = frozenset({"MESSAGES_SNAPSHOT", "RUN_FINISHED", "RUN_STARTED"})
_PATCH_OPS = frozenset({"add", "remove", "replace", "move", "copy", "test"})


def _patch_problem(op: Any) -> str | None:
    if not isinstance(op, dict):
        return "an operation must be an object"
    kind = op.get("op")
    if kind not in _PATCH_OPS:
        return f"unknown op {kind!r}"
    if not isinstance(op.get("path"), str):
        return "'path' must be a string"
    if kind in ("move", "copy") and not isinstance(op.get("from"), str):
        return f"{kind} needs a string 'from'"
    if kind in ("add", "replace", "test") and "value" not in op:
        return f"{kind} needs a 'value'"
    return None


# Validated straight from JSON text when their type is found near the start of the data.
_FAST = {
    name: MODELS[name]
    for name in (
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "STATE_DELTA",
        "REASONING_MESSAGE_CONTENT",
    )
}
_TYPE_FIELD = re.compile(r'"type"\s*:\s*"([A-Z_]+)"')

# Pre-1.0 THINKING_* events, translated at the compatibility boundary (1.0 retired them).
_THINKING = {
    "THINKING_START": "REASONING_START",
    "THINKING_END": "REASONING_END",
    "THINKING_TEXT_MESSAGE_START": "REASONING_MESSAGE_START",
    "THINKING_TEXT_MESSAGE_CONTENT": "REASONING_MESSAGE_CONTENT",
    "THINKING_TEXT_MESSAGE_END": "REASONING_MESSAGE_END",
}


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        loc = ".".join(str(p) for p in err["loc"]) or "(event)"
        parts.append(f"{loc}: {err['msg']}")
    more = f" (+{exc.error_count() - 3} more)" if exc.error_count() > 3 else ""
    return "; ".join(parts) + more


class EventParser:
    """Turns SSE message data into verified-ready AG-UI events, one message at a time.

    ``warn`` receives a sentence for every dropped event or stripped property.
    """

    def __init__(self, warn: Callable[[str], None]) -> None:
        self._warn = warn
        self._index = 0
        self._thinking_phase = 0
        self._thinking_message = 0
        # Open chunk-expanded element: (kind, id) where kind is "text" | "tool" | "reasoning".
        self._chunk: tuple[str, str] | None = None

    @property
    def index(self) -> int:
        """How many SSE messages have been parsed."""
        return self._index

    def parse(self, data: str) -> list[BaseModel]:
        """Parse one SSE message's data into zero or more events (expansion may add some)."""
        self._index += 1
        # Fast path for the frequent events: validate the JSON text directly (pydantic parses
        # it without building a dict). Anything unusual falls through to the full path below,
        # so errors and warnings are the same either way.
        found = _TYPE_FIELD.search(data, 0, 200)
        if found is not None:
            model = _FAST.get(found.group(1))
            if model is not None:
                try:
                    event = model.model_validate_json(data)
                except ValueError:
                    pass
                else:
                    fast_type = found.group(1)
                    if event.__pydantic_extra__:
                        self._strip_extras(event, fast_type)
                    if fast_type == "STATE_DELTA":
                        self._check_patch(event.delta, fast_type)  # type: ignore[attr-defined]
                    if self._chunk is None:
                        return [event]
                    return [*self._close_chunk(), event]
        try:
            raw = json.loads(data)
        except RecursionError:
            raise ProtocolError("event JSON nested too deeply", event_index=self._index) from None
        except ValueError as exc:
            excerpt = data if len(data) <= 120 else data[:120] + "..."
            raise ProtocolError(
                f"event is not valid JSON ({getattr(exc, 'msg', exc)}): {excerpt!r}",
                event_index=self._index,
            ) from None
        if not isinstance(raw, dict):
            raise ProtocolError(
                f"an event must be a JSON object, got {type(raw).__name__}",
                event_index=self._index,
            )
        etype = raw.get("type")
        if not isinstance(etype, str):
            raise ProtocolError("event has no string 'type'", event_index=self._index)
        if etype in _THINKING:
            raw, etype = self._translate_thinking(raw, etype)
        model = MODELS.get(etype)
        if model is None:
            self._warn(f"dropped an event of unknown type {etype!r}")
            return self._close_chunk()
        if etype == "RUN_FINISHED":
            self._strip_unknown_outcome(raw)
        try:
            event = model.model_validate(raw)
        except ValidationError as exc:
            raise ProtocolError(
                f"malformed {etype}: {_describe(exc)}", event_index=self._index
            ) from None
        except RecursionError:
            raise ProtocolError("event JSON nested too deeply", event_index=self._index) from None
        self._strip_extras(event, etype)
        if etype == "STATE_DELTA":
            self._check_patch(getattr(event, "delta", None) or [], etype)
        elif etype == "ACTIVITY_DELTA":
            self._check_patch(getattr(event, "patch", None) or [], etype)
        return self._expand(event, etype)

    # -- compatibility boundary -----------------------------------------------------------

    def _translate_thinking(self, raw: dict[str, Any], etype: str) -> tuple[dict[str, Any], str]:
        new_type = _THINKING[etype]
        out: dict[str, Any] = {"type": new_type}
        if etype == "THINKING_START":
            self._thinking_phase += 1
        if etype == "THINKING_TEXT_MESSAGE_START":
            self._thinking_message += 1
            out["role"] = "reasoning"
        if etype in ("THINKING_START", "THINKING_END"):
            out["messageId"] = f"thinking-{self._thinking_phase}"
        else:
            out["messageId"] = f"thinking-{self._thinking_phase}-{self._thinking_message}"
        if "delta" in raw:
            out["delta"] = raw["delta"]
        for key in ("timestamp", "rawEvent", "metadata"):
            if key in raw:
                out[key] = raw[key]
        return out, new_type

    # -- enforcement ----------------------------------------------------------------------

    def _strip_unknown_outcome(self, raw: dict[str, Any]) -> None:
        outcome = raw.get("outcome")
        if isinstance(outcome, dict) and outcome.get("type") not in _OUTCOME_TYPES:
            # An optional union member we don't know is stripped; absent means success (1.1).
            self._warn(f"stripped RUN_FINISHED.outcome of unknown type {outcome.get('type')!r}")
            del raw["outcome"]

    def _strip_extras(self, event: BaseModel, etype: str) -> None:
        extra = event.__pydantic_extra__
        if extra:
            for key in list(extra):
                if not (etype == "RUN_STARTED" and key == "protocolVersion"):
                    self._warn(f"stripped unknown property {etype}.{key}")
            extra.clear()
        if etype in _NESTED_MODELS:
            # Stripping reaches all the way down (1.1 processing), except inside JSON Patch
            # operations, whose unknown members RFC 6902 says to ignore, not remove.
            for name in type(event).model_fields:
                self._strip_nested(getattr(event, name, None), f"{etype}.{name}")

    def _strip_nested(self, value: Any, path: str) -> None:
        if isinstance(value, BaseModel):
            extra = value.__pydantic_extra__
            if extra:
                for key in list(extra):
                    self._warn(f"stripped unknown property {path}.{key}")
                extra.clear()
            for name in type(value).model_fields:
                self._strip_nested(getattr(value, name, None), f"{path}.{name}")
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, BaseModel):
                    self._strip_nested(item, f"{path}[{i}]")

    def _check_patch(self, ops: Any, etype: str) -> None:
        """A JSON Patch must be well formed (1.1 events/state): a malformed operation is fatal."""
        for i, op in enumerate(ops):
            data = (
                op.model_dump(by_alias=True, exclude_unset=True)
                if isinstance(op, BaseModel)
                else op
            )
            problem = _patch_problem(data)
            if problem:
                raise ProtocolError(
                    f"malformed {etype} operation [{i}]: {problem}", event_index=self._index
                )

    # -- chunk expansion ------------------------------------------------------------------

    def _close_chunk(self) -> list[BaseModel]:
        if self._chunk is None:
            return []
        kind, ident = self._chunk
        self._chunk = None
        if kind == "text":
            return [_E.TextMessageEndEvent(message_id=ident)]
        if kind == "tool":
            return [_E.ToolCallEndEvent(tool_call_id=ident)]
        return [_E.ReasoningMessageEndEvent(message_id=ident)]

    def _expand(self, event: BaseModel, etype: str) -> list[BaseModel]:
        if etype == "TEXT_MESSAGE_CHUNK":
            return self._expand_chunk(event, "text")
        if etype == "TOOL_CALL_CHUNK":
            return self._expand_chunk(event, "tool")
        if etype == "REASONING_MESSAGE_CHUNK":
            return self._expand_chunk(event, "reasoning")
        if self._chunk is None:
            return [event]
        return [*self._close_chunk(), event]

    def _expand_chunk(self, chunk: Any, kind: str) -> list[BaseModel]:
        ident = chunk.tool_call_id if kind == "tool" else chunk.message_id
        out: list[BaseModel] = []
        continuing = (
            self._chunk is not None
            and self._chunk[0] == kind
            and (ident is None or ident == self._chunk[1])
        )
        if not continuing:
            out.extend(self._close_chunk())
            opener = self._open_chunk(chunk, kind, ident)
            out.append(opener)
            ident = self._chunk[1] if self._chunk else ident
        else:
            assert self._chunk is not None
            ident = self._chunk[1]
        delta = chunk.delta
        if delta:
            if kind == "text":
                out.append(_E.TextMessageContentEvent(message_id=ident, delta=delta))
            elif kind == "tool":
                out.append(_E.ToolCallArgsEvent(tool_call_id=ident, delta=delta))
            else:
                out.append(_E.ReasoningMessageContentEvent(message_id=ident, delta=delta))
        return out

    def _open_chunk(self, chunk: Any, kind: str, ident: str | None) -> BaseModel:
        name = {"text": "TEXT_MESSAGE_CHUNK", "tool": "TOOL_CALL_CHUNK"}.get(
            kind, "REASONING_MESSAGE_CHUNK"
        )
        if not ident:
            key = "toolCallId" if kind == "tool" else "messageId"
            raise ProtocolError(
                f"the first {name} of an element needs {key}", event_index=self._index
            )
        self._chunk = (kind, ident)
        if kind == "text":
            kwargs: dict[str, Any] = {"message_id": ident, "role": chunk.role or "assistant"}
            if chunk.name is not None:
                kwargs["name"] = chunk.name
            return _E.TextMessageStartEvent(**kwargs)
        if kind == "tool":
            if not chunk.tool_call_name:
                raise ProtocolError(
                    "the first TOOL_CALL_CHUNK of a call needs toolCallName",
                    event_index=self._index,
                )
            return _E.ToolCallStartEvent(
                tool_call_id=ident,
                tool_call_name=chunk.tool_call_name,
                parent_message_id=chunk.parent_message_id,
            )
        return _E.ReasoningMessageStartEvent(message_id=ident, role="reasoning")


_TYPE_OF: dict[type[BaseModel], str] = {cls: name for name, cls in MODELS.items()}


def type_of(event: BaseModel) -> str:
    """The wire ``type`` of an event produced by :class:`EventParser` (e.g. ``"RUN_STARTED"``)."""
    return _TYPE_OF[type(event)]
