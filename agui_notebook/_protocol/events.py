"""SSE message to AG-UI event: the compatibility boundary, enforcement and chunk expansion.

Pure and incremental. The order is the spec's (1.1 basic/processing, "Where middleware sits")::

    producer -> compatibility boundary -> enforcement -> chunk expansion -> verification

- Compatibility: retired shapes are translated, not dropped: ``THINKING_*`` (pre-1.0) become
  ``REASONING_*``; the legacy ``binary`` content part becomes an image/audio/video/document part;
  a server that predates ``protocolVersion`` and ``outcome`` is read as 1.0. The models are
  ``ag_ui.core``'s, extended where the installed line lags 1.1 in :mod:`._wire`.
- Enforcement: an unknown event type is dropped with a warning; an unknown property, or a union
  member this client does not know (an outcome, a content part or its source, a JSON Patch op, a
  message role, an encrypted-value subtype), is stripped with a warning naming its path; a known
  field with a value the schema rejects (``null`` included) is fatal (:class:`ProtocolError`).
  A producer's newer or unreadable ``protocolVersion`` gets a warning.
- Expansion: ``*_CHUNK`` events become start/content/end triads, one open chunk stream per lane
  (the parent agent's, or a subagent's); what may close a stream is the streaming pattern's list.

The same boundary guards what goes out: :func:`enforce_input` strips unknown material from a run
input (with a warning) and refuses a malformed one before anything is sent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ag_ui.core import events as agui_events
from pydantic import BaseModel, ValidationError

from .._errors import ProtocolError
from . import plain as _plain
from . import wire as _wire
from .wire import (
    CancelledOutcome,
    InterruptOutcome,
    RunFinished,
    RunStarted,
    SuccessOutcome,
)

__all__ = [
    "CLIENT_VERSION",
    "CancelledOutcome",
    "EventParser",
    "InputCache",
    "InterruptOutcome",
    "RunFinished",
    "RunStarted",
    "SuccessOutcome",
    "encode_run_input",
    "enforce_input",
    "enforce_run_input",
    "event_from_text",
    "type_of",
    "version_warning",
]

_E = agui_events
Warn = Callable[[str], None]

#: The AG-UI version this client implements and declares in every RunAgentInput.
CLIENT_VERSION = "1.1"


def _models() -> dict[str, type[BaseModel]]:
    names = {
        "TEXT_MESSAGE_CONTENT": "TextMessageContentEvent",
        "TEXT_MESSAGE_END": "TextMessageEndEvent",
        "TEXT_MESSAGE_CHUNK": "TextMessageChunkEvent",
        "TOOL_CALL_START": "ToolCallStartEvent",
        "TOOL_CALL_ARGS": "ToolCallArgsEvent",
        "TOOL_CALL_END": "ToolCallEndEvent",
        "TOOL_CALL_CHUNK": "ToolCallChunkEvent",
        "STATE_SNAPSHOT": "StateSnapshotEvent",
        "STATE_DELTA": "StateDeltaEvent",
        "ACTIVITY_DELTA": "ActivityDeltaEvent",
        "RAW": "RawEvent",
        "CUSTOM": "CustomEvent",
        "STEP_STARTED": "StepStartedEvent",
        "STEP_FINISHED": "StepFinishedEvent",
        "REASONING_START": "ReasoningStartEvent",
        "REASONING_MESSAGE_START": "ReasoningMessageStartEvent",
        "REASONING_MESSAGE_CONTENT": "ReasoningMessageContentEvent",
        "REASONING_MESSAGE_END": "ReasoningMessageEndEvent",
        "REASONING_MESSAGE_CHUNK": "ReasoningMessageChunkEvent",
        "REASONING_END": "ReasoningEndEvent",
        "SUBAGENT_STARTED": "SubagentStartedEvent",
        "SUBAGENT_FINISHED": "SubagentFinishedEvent",
        "SUBAGENT_ERROR": "SubagentErrorEvent",
    }
    found: dict[str, type[BaseModel]] = {t: getattr(_E, n) for t, n in names.items()}
    found.update(
        {
            "TEXT_MESSAGE_START": _wire.TextMessageStart,
            "TOOL_CALL_RESULT": _wire.ToolCallResult,
            "MESSAGES_SNAPSHOT": _wire.MessagesSnapshot,
            "ACTIVITY_SNAPSHOT": _wire.ActivitySnapshot,
            "REASONING_ENCRYPTED_VALUE": _wire.ReasoningEncryptedValue,
            "RUN_STARTED": RunStarted,
            "RUN_FINISHED": RunFinished,
            "RUN_ERROR": _wire.RunError,
        }
    )
    return found


MODELS: dict[str, type[BaseModel]] = _models()

# Events whose fields hold further protocol models (enforced recursively).
_NESTED_MODELS = frozenset(
    {
        "MESSAGES_SNAPSHOT",
        "RUN_FINISHED",
        "RUN_STARTED",
        "RUN_ERROR",
        "SUBAGENT_FINISHED",
        "TOOL_CALL_RESULT",  # content parts
    }
)
_PATCH_OPS = frozenset({"add", "remove", "replace", "move", "copy", "test"})
_POINTER = re.compile(r"(/([^/~]|~[01])*)*")

# Fields the schema lets carry a JSON null (any JSON value) ...
_NULL_OK = frozenset({("CUSTOM", "value"), ("RAW", "event"), ("STATE_SNAPSHOT", "snapshot")})
# ... and the three optional fields an older Python SDK sent as null, which AG-UI's TypeScript
# client tolerates as absent (a departure, off under strict; docs/architecture.md).
_NULL_TOLERATED = _NULL_OK | {
    ("TOOL_CALL_START", "parent_message_id"),
    ("TOOL_CALL_CHUNK", "parent_message_id"),
    ("RUN_FINISHED", "outcome"),
}

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
# Their validators, called directly: ``model_validate_json`` is a Python wrapper around them.
_FAST_JSON = {name: model.__pydantic_validator__.validate_json for name, model in _FAST.items()}
# Servers serialise ``type`` first; then the name is the text up to the next quote.
_TYPE_FIRST = '{"type":"'
_TYPE_FIRST_SPACED = '{"type": "'

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
_OPENERS = frozenset({"TEXT_MESSAGE_START", "TOOL_CALL_START", "REASONING_MESSAGE_START"})
# 1.1 streaming, "Closing a chunk stream": these stand aside from assembly and close nothing...
_STAND_ASIDE = frozenset(
    {"RAW", "ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA", "REASONING_ENCRYPTED_VALUE", "SUBAGENT_STARTED"}
)
# ... these close every lane ...
_RUN_LEVEL = frozenset({"RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "MESSAGES_SNAPSHOT"})
# ... a subagent's terminal event closes its own lane, and anything else closes its lane.
_SUBAGENT_END = frozenset({"SUBAGENT_FINISHED", "SUBAGENT_ERROR"})
_CHUNK_KIND = {
    "TEXT_MESSAGE_CHUNK": "text",
    "TOOL_CALL_CHUNK": "tool",
    "REASONING_MESSAGE_CHUNK": "reasoning",
}

# Pre-1.0 THINKING_* events, translated at the compatibility boundary (1.0 retired them).
_THINKING = {
    "THINKING_START": "REASONING_START",
    "THINKING_END": "REASONING_END",
    "THINKING_TEXT_MESSAGE_START": "REASONING_MESSAGE_START",
    "THINKING_TEXT_MESSAGE_CONTENT": "REASONING_MESSAGE_CONTENT",
    "THINKING_TEXT_MESSAGE_END": "REASONING_MESSAGE_END",
}
_VERSION = re.compile(r"(\d+)\.(\d+)")


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        loc = ".".join(str(p) for p in err["loc"]) or "(event)"
        parts.append(f"{loc}: {err['msg']}")
    more = f" (+{exc.error_count() - 3} more)" if exc.error_count() > 3 else ""
    return "; ".join(parts) + more


def version_warning(declared: str | None) -> str | None:
    """A warning for a producer's ``protocolVersion`` newer than ours or unreadable (1.1
    basic/versioning: proceed, and warn). Versions compare numerically: 1.10 is newer than 1.9."""
    if declared is None:
        return None
    found = _VERSION.fullmatch(declared)
    if found is None:
        return (
            f"the server declares protocolVersion {declared!r}, which is not a MAJOR.MINOR "
            f"version; proceeding as AG-UI {CLIENT_VERSION}"
        )
    major, minor = (int(n) for n in CLIENT_VERSION.split("."))
    if (int(found[1]), int(found[2])) > (major, minor):
        return (
            f"the server speaks AG-UI {declared}, newer than this client's {CLIENT_VERSION}: "
            "proceeding; what this client does not know is dropped or stripped with a warning "
            "(upgrade agui-notebook to use it)"
        )
    return None


# -- enforcement of unknown union members (on JSON before validation) ------------------------


def _is_pointer(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    if value == "" or (value[0] == "/" and "~" not in value):
        return True  # the common case, without the regex
    return _POINTER.fullmatch(value) is not None


def _patch_problem(op: Any) -> str | None:
    if not isinstance(op, dict):
        return "an operation must be an object"
    kind = op.get("op")
    if kind not in _PATCH_OPS:
        return f"unknown op {kind!r}"
    if not _is_pointer(op.get("path")):
        return "'path' must be a JSON Pointer string"
    if kind in ("move", "copy") and not _is_pointer(op.get("from")):
        return f"{kind} needs a JSON Pointer 'from'"
    if kind in ("add", "replace", "test") and "value" not in op:
        return f"{kind} needs a 'value'"
    return None


def _prune_patch(ops: Any, path: str, warn: Warn) -> None:
    """An op RFC 6902 does not define is an unknown union member: drop it from the list (1.1
    basic/patterns/snapshots). A missing or non-string op stays, to fail as malformed."""
    if not isinstance(ops, list):
        return
    kept = []
    for i, op in enumerate(ops):
        kind = op.get("op") if isinstance(op, dict) else None
        if isinstance(kind, str) and kind not in _PATCH_OPS:
            warn(f"dropped {path}[{i}]: JSON Patch op {kind!r} is not RFC 6902's")
            continue
        kept.append(op)
    ops[:] = kept


_BINARY_KINDS = (("image/", "image"), ("audio/", "audio"), ("video/", "video"))


def _upgrade_binary(part: dict[str, Any]) -> dict[str, Any] | None:
    """The legacy ``binary`` part (retired in 1.0) as the media part that replaced it."""
    mime = part.get("mimeType")
    if not isinstance(mime, str):
        return None
    if isinstance(part.get("data"), str):
        source: dict[str, Any] = {"type": "data", "value": part["data"], "mimeType": mime}
    elif isinstance(part.get("url"), str):
        source = {"type": "url", "value": part["url"], "mimeType": mime}
    else:
        return None  # a bare id names nothing 1.1 can carry
    kind = next((k for prefix, k in _BINARY_KINDS if mime.startswith(prefix)), "document")
    upgraded: dict[str, Any] = {"type": kind, "source": source}
    if isinstance(part.get("filename"), str):
        upgraded["metadata"] = {"filename": part["filename"]}
    return upgraded


def _prune_parts(parts: Any, path: str, warn: Warn) -> None:
    """Content parts: an unknown part type is dropped from the list; a media part whose source
    type is unknown is dropped whole (its source is required)."""
    if not isinstance(parts, list):
        return
    kept = []
    for i, part in enumerate(parts):
        if isinstance(part, dict):
            kind = part.get("type")
            if kind == "binary":
                upgraded = _upgrade_binary(part)
                if upgraded is None:
                    warn(f"dropped {path}[{i}]: a legacy binary part with no data or url")
                    continue
                part = upgraded
                kind = part["type"]
            if isinstance(kind, str) and kind not in _wire.PART_TYPES:
                warn(f"dropped {path}[{i}]: content part of unknown type {kind!r}")
                continue
            # A text part has no source: one it carries is an unknown property, stripped.
            source = part.get("source") if kind != "text" else None
            source_kind = source.get("type") if isinstance(source, dict) else None
            if isinstance(source_kind, str) and source_kind not in _wire.SOURCE_TYPES:
                warn(
                    f"dropped {path}[{i}]: {kind} part whose source type {source_kind!r} is unknown"
                )
                continue
        kept.append(part)
    parts[:] = kept


def _prune_messages(messages: Any, path: str, warn: Warn) -> None:
    if not isinstance(messages, list):
        return
    kept = []
    for i, message in enumerate(messages):
        if isinstance(message, dict):
            role = message.get("role")
            if isinstance(role, str) and role not in _wire.ROLES:
                warn(f"dropped {path}[{i}]: message of unknown role {role!r}")
                continue
            if role in ("user", "tool"):
                _prune_parts(message.get("content"), f"{path}[{i}].content", warn)
        kept.append(message)
    messages[:] = kept


def _strip_outcome(raw: dict[str, Any], etype: str, known: frozenset[str], warn: Warn) -> None:
    outcome = raw.get("outcome")
    kind = outcome.get("type") if isinstance(outcome, dict) else None
    if isinstance(kind, str) and kind not in known:
        # An optional union member we don't know is stripped; absent means success (1.1).
        warn(f"stripped {etype}.outcome of unknown type {kind!r}")
        del raw["outcome"]


def _prune(etype: str, raw: dict[str, Any], warn: Warn) -> bool:
    """Remove the union members this client does not know; False drops the whole event."""
    if etype == "RUN_FINISHED":
        _strip_outcome(raw, etype, _wire.OUTCOME_TYPES, warn)
    elif etype == "SUBAGENT_FINISHED":
        _strip_outcome(raw, etype, _wire.SUBAGENT_OUTCOME_TYPES, warn)
    elif etype == "STATE_DELTA":
        _prune_patch(raw.get("delta"), "STATE_DELTA.delta", warn)
    elif etype == "ACTIVITY_DELTA":
        _prune_patch(raw.get("patch"), "ACTIVITY_DELTA.patch", warn)
    elif etype == "TOOL_CALL_RESULT":
        _prune_parts(raw.get("content"), "TOOL_CALL_RESULT.content", warn)
    elif etype == "MESSAGES_SNAPSHOT":
        _prune_messages(raw.get("messages"), "MESSAGES_SNAPSHOT.messages", warn)
    elif etype == "RUN_STARTED" and isinstance(raw.get("input"), dict):
        _prune_messages(raw["input"].get("messages"), "RUN_STARTED.input.messages", warn)
    elif etype == "REASONING_ENCRYPTED_VALUE":
        subtype = raw.get("subtype")
        if isinstance(subtype, str) and subtype not in _wire.ENCRYPTED_SUBTYPES:
            # Required position: the event that carried it goes (1.1 events/reasoning).
            warn(f"dropped a REASONING_ENCRYPTED_VALUE of unknown subtype {subtype!r}")
            return False
    return True


# -- enforcement on the validated models -------------------------------------------------------


def _null_field(
    model: BaseModel, etype: str | None, allowed: frozenset[tuple[str, str]] = _NULL_TOLERATED
) -> str | None:
    """The first declared field sent as an explicit null where the schema forbids it."""
    fields = type(model).model_fields
    for name in model.model_fields_set:
        if name in fields and getattr(model, name) is None and (etype, name) not in allowed:
            return fields[name].alias or name
    return None


def strip_unknown(
    value: Any,
    path: str,
    warn: Warn,
    *,
    top: str | None = None,
    nulls: frozenset[tuple[str, str]] = _NULL_TOLERATED,
) -> None:
    """Strip unknown properties all the way down (1.1 processing), except inside JSON Patch
    operations and open objects (metadata, activity content), which are not models here; a
    declared field sent as null is fatal."""
    if isinstance(value, BaseModel):
        extra = value.__pydantic_extra__
        if extra:
            for key in list(extra):
                warn(f"stripped unknown property {path}.{key}")
            extra.clear()
        null = _null_field(value, top, nulls)
        if null is not None:
            raise ProtocolError(f"malformed {path}: {null} is null (leave an absent field out)")
        for name in type(value).model_fields:
            child = getattr(value, name, None)
            if isinstance(child, BaseModel | list):
                strip_unknown(child, f"{path}.{name}", warn)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, BaseModel):
                strip_unknown(item, f"{path}[{i}]", warn)


def enforce_input(body: dict[str, Any], warn: Warn) -> dict[str, Any]:
    """The run input as it will be sent: unknown material stripped (with a warning), a malformed
    known value refused before anything is sent (1.1 processing, "Outgoing material")."""
    _prune_messages(body.get("messages"), "RunAgentInput.messages", warn)
    try:
        model = _wire.RunAgentInput.model_validate(body)
    except ValidationError as exc:
        raise ProtocolError(
            f"the run input is malformed, nothing was sent: {_describe(exc)}"
        ) from None
    strip_unknown(model, "RunAgentInput", warn)
    out: dict[str, Any] = model.model_dump(mode="json", by_alias=True)
    return out


_MARK = "\x00"  # stands for a message's path in the warnings an InputCache keeps


@dataclass(slots=True)
class _Enforced:
    """What enforcing one message established: its warnings (``_MARK`` for its path), whether
    it is kept, and what is sent for it."""

    source: BaseModel
    pruned: list[str]
    kept: bool
    raw: dict[str, Any]
    out: dict[str, Any] | None = None
    stripped: list[str] | None = None
    encoded: bytes | None = None  # out as compact JSON, once the body was encoded


class InputCache:
    """What :func:`enforce_run_input` established for each outgoing message, by identity.

    A thread's messages are replaced, never changed in place, when they change: a message
    enforced in an earlier run (the same object, or an equal one of the same type under the same
    id, as a MESSAGES_SNAPSHOT brings back) is sent as it was then (its warnings said again, at
    its position now) instead of being dumped, validated and stripped once more. Only the
    messages of the latest run are kept.
    """

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: _Run | None = None

    def __len__(self) -> int:
        return len(self._last.entries) if self._last is not None else 0

    @property
    def _entries(self) -> dict[object, _Enforced]:
        return self._last.entries if self._last is not None else {}


def _same(a: BaseModel, b: BaseModel) -> bool:
    """Whether ``b`` dumps as ``a`` does: the same type, values and unknown properties (what
    pydantic's ``==`` compares)."""
    return type(a) is type(b) and a == b


def _enforce_one(message: BaseModel) -> _Enforced:
    raw = message.model_dump(mode="json", by_alias=True)
    pruned: list[str] = []
    holder = [raw]
    _prune_messages(holder, _MARK, pruned.append)
    return _Enforced(message, pruned, bool(holder), raw)


@dataclass(slots=True)
class _Run:
    """What the latest run's messages gave: a run whose messages begin with them starts there."""

    messages: list[BaseModel]
    entries: dict[object, _Enforced]
    ordered: list[_Enforced]
    pruned: list[str]  # the pruning warnings, as said
    stripped: list[str]  # the messages' stripping warnings, as said
    sent: list[dict[str, Any]] | None = None  # the body's "messages" list, as returned
    #: (n, the JSON texts of ordered[:n] joined by ",", as bytes): handed on while the next run's
    #: ordered list begins with this one's, so a long history is joined once, not every run.
    joined: tuple[int, bytes] | None = None


def _cached_enforce(
    body: dict[str, Any], messages: list[BaseModel], cache: InputCache, warn: Warn
) -> tuple[dict[str, Any], _Run]:
    last = cache._last
    start = len(last.messages) if last is not None else 0
    # The history as the last run sent it, then what is new: one comparison (by identity first,
    # in C), and the last run's work is this one's up to there, warnings included.
    if last is not None and len(messages) >= start and messages[:start] == last.messages:
        entries = dict(last.entries)
        ordered, pruned = list(last.ordered), list(last.pruned)
        old: dict[object, _Enforced] = {}
        joined = last.joined
    else:
        start = 0
        entries, ordered, pruned = {}, [], []
        old = last.entries if last is not None else {}
        joined = None
    prefix = len(ordered)
    for i in range(start, len(messages)):
        message = messages[i]
        key = getattr(message, "id", None)
        if not isinstance(key, str) or key in entries:
            key = id(message)  # no id, or the id twice: by identity alone
        entry = old.get(key)
        if entry is None or (entry.source is not message and not _same(entry.source, message)):
            entry = _enforce_one(message)
        entries[key] = entry
        here = f"RunAgentInput.messages[{i}]"
        for text in entry.pruned:
            pruned.append(text.replace(f"{_MARK}[0]", here, 1))
        if entry.kept:
            ordered.append(entry)
    for text in pruned:
        warn(text)
    fresh = [e for e in ordered[prefix:] if e.out is None]
    model = _wire.RunAgentInput.model_validate({**body, "messages": [e.raw for e in fresh]})
    for entry, validated in zip(fresh, model.messages, strict=True):
        said: list[str] = []
        strip_unknown(validated, _MARK, said.append)
        entry.stripped = said
    stripped = list(last.stripped) if last is not None and prefix else []
    for j in range(prefix, len(ordered)):
        for text in ordered[j].stripped or ():
            stripped.append(text.replace(_MARK, f"RunAgentInput.messages[{j}]", 1))
    # strip_unknown(model, "RunAgentInput", warn), with the messages' warnings at their place.
    extra = model.__pydantic_extra__
    if extra:
        for key in list(extra):
            warn(f"stripped unknown property RunAgentInput.{key}")
        extra.clear()
    null = _null_field(model, None)
    if null is not None:
        raise ProtocolError(f"malformed RunAgentInput: {null} is null (leave an absent field out)")
    for name in type(model).model_fields:
        if name == "messages":
            for text in stripped:
                warn(text)
            continue
        child = getattr(model, name, None)
        if isinstance(child, BaseModel | list):
            strip_unknown(child, f"RunAgentInput.{name}", warn)
    out: dict[str, Any] = model.model_dump(mode="json", by_alias=True)
    for entry, dumped in zip(fresh, out["messages"], strict=True):
        entry.out = dumped
    sent = out["messages"] = [e.out for e in ordered]
    return out, _Run(list(messages), entries, ordered, pruned, stripped, sent, joined)


def enforce_run_input(
    body: dict[str, Any], messages: list[BaseModel], cache: InputCache, warn: Warn
) -> dict[str, Any]:
    """:func:`enforce_input` of ``{**body, "messages": [m.model_dump(...) for m in messages]}``,
    the same output, warnings and errors, with what ``cache`` holds for a message object
    reused: a long thread's history is enforced once, not on every run
    (``tests/protocol/test_enforce_cached.py`` holds it to :func:`enforce_input`).

    The returned body shares the cached messages' dicts: encode it, do not change it.
    """
    said: list[str] = []
    try:
        out, run = _cached_enforce(body, messages, cache, said.append)
    except (ValidationError, ProtocolError):
        # The general code says what is wrong, exactly as it would have.
        dumped = [m.model_dump(mode="json", by_alias=True) for m in messages]
        return enforce_input({**body, "messages": dumped}, warn)
    cache._last = run
    for text in said:
        warn(text)
    return out


def encode_run_input(body: dict[str, Any], cache: InputCache) -> bytes:
    """``json.dumps(body, separators=(",", ":")).encode()``, the same bytes, with each message's
    JSON text kept in ``cache`` when ``body`` is the latest :func:`enforce_run_input` gave: a long
    history is encoded once, not on every run."""
    last = cache._last
    sent = last.sent if last is not None else None
    if (
        last is None
        or sent is None
        or len(sent) != len(last.ordered)  # grown since: the general encoding
        or body.get("messages") is not sent
    ):
        return json.dumps(body, separators=(",", ":")).encode()
    done, joined = last.joined or (0, b"")
    texts = [joined] if done else []
    for entry in last.ordered[done:]:
        if entry.encoded is None:
            entry.encoded = json.dumps(entry.out, separators=(",", ":")).encode()
        texts.append(entry.encoded)
    joined = b",".join(texts)
    last.joined = (len(last.ordered), joined)
    # What the encoder writes for a dict of string keys: "{" key ":" value, joined by "," "}".
    pieces: list[bytes] = []
    sep = "{"
    for key, value in body.items():
        pieces.append((sep + json.dumps(key) + ":").encode())
        sep = ","
        if key == "messages":
            pieces += (b"[", joined, b"]")
        else:
            pieces.append(json.dumps(value, separators=(",", ":")).encode())
    pieces.append(b"}" if pieces else b"{}")
    return b"".join(pieces)


# -- chunk lanes -------------------------------------------------------------------------------


@dataclass(slots=True)
class _Chunk:
    """An item a chunk stream is assembling, and what its opener established."""

    kind: str  # text | tool | reasoning
    id: str
    role: str = "assistant"
    name: str | None = None
    tool_name: str | None = None
    parent: str | None = None


class EventParser:
    """Turns SSE message data into verified-ready AG-UI events, one message at a time.

    ``warn`` receives a sentence for every dropped event or stripped property. ``strict`` refuses
    the nulls older servers send where a field should be absent (see ``_NULL_TOLERATED``).
    """

    def __init__(self, warn: Warn, *, strict: bool = False) -> None:
        self._warn = warn
        self._nulls = _NULL_OK if strict else _NULL_TOLERATED
        self._index = 0
        self._thinking_phase = 0
        self._thinking_message = 0
        # Open chunk streams by lane: None is the parent agent's, else a subagentRunId.
        self._lanes: dict[str | None, _Chunk] = {}
        # Entities opened under a subagent tag in this run (an untagged continuation is theirs).
        self._owners: dict[str, str] = {}

    @property
    def in_chunk(self) -> bool:
        """True while a chunk stream is open (the next event may close it)."""
        return bool(self._lanes)

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
        etype = data[9 : data.find('"', 9)] if data.startswith(_TYPE_FIRST) else ""
        validate = _FAST_JSON.get(etype)
        own_type = validate is not None  # the object's first key: its own type, not a nested one
        if validate is None:  # a name found by the prefix is the search's first match too
            found = _TYPE_FIELD.search(data, 0, 200)
            if found is not None:
                etype = found.group(1)
                validate = _FAST_JSON.get(etype)
        if validate is None:
            return self._slow(data)
        try:
            event: BaseModel = validate(data)
        except ValueError:
            return self._slow(data)
        if not own_type and "type" not in event.model_fields_set:
            return self._slow(data)  # the search found a nested type; the model's default hid it
        if etype == "STATE_DELTA" and not _patch_clean(event.delta):  # type: ignore[attr-defined]
            return self._slow(data)  # unknown ops pruned, malformed ones refused there
        if event.__pydantic_extra__ or etype in _NESTED_MODELS:
            self._enforce(event, etype)
        elif "null" in data:
            self._refuse_nulls(event, etype)
        if etype in _OPENERS:
            self._note_owner(event, etype)
        if not self._lanes:
            return [event]
        return [*self._closing(event, etype), event]

    def parse_plain(self, data: str) -> tuple[str, Any] | None:
        """``(type, event)`` when ``data`` is a plain event (:mod:`.plain`: read as its model
        would be, without one) that :meth:`parse` would return as that one event, unchanged: no
        chunk stream is open for it to close. None leaves ``data`` to :meth:`parse`."""
        if self._lanes:
            return None
        if data.startswith(_TYPE_FIRST):
            etype = data[9 : data.find('"', 9)]
        elif data.startswith(_TYPE_FIRST_SPACED):  # json.dumps' default separators
            etype = data[10 : data.find('"', 10)]
        else:
            return None
        way = _PLAIN.get(etype)
        if way is None:
            return None
        try:
            event = way.decode(data)
        except _plain.DECODE_ERRORS:
            return None  # the full path reads it, and words any error
        if way.check is not None and not way.check(event):
            return None
        self._index += 1
        if etype in _OPENERS:
            self._note_owner(event, etype)
        return etype, event

    def parse_plains(self, texts: list[str]) -> list[Any] | None:
        """The events of ``texts`` when every one is of a plain type, decoded in one call as a
        JSON array (a realistic stream: ~5% fewer instructions than a call per
        text), each what :meth:`parse_plain` reads for it, or None in its place where the
        type's check leaves it to :meth:`parse`. None when one is not plain: then each text
        goes its own way. Counts nothing (the taker says what it took: :meth:`count_plain`);
        each event's type is its Struct's ``etype``."""
        if self._lanes:
            return None
        try:
            events = _BATCH(_json_array(texts))
        except _plain.DECODE_ERRORS:
            return None
        # The few events with a check, found by a comprehension (a loop over all cost more).
        for i in [i for i, event in enumerate(events) if type(event) in _CHECKS]:
            if not _CHECKS[type(events[i])](events[i]):
                events[i] = None
        return events

    def count_plain(self, etype: str, event: Any, count: int = 1) -> None:
        """``count`` plain events of type ``etype``, from :meth:`parse_plains`, taken in order
        (``event``, the first, may open a message or tool call)."""
        self._index += count
        if etype in _OPENERS:
            self._note_owner(event, etype)

    def parse_deltas(self, texts: list[str], start: int, prefix: str, out: list[str]) -> int:
        """The deltas of ``texts[start:]``, appended to ``out`` in turn, while each text is
        exactly ``prefix`` (from :func:`.plain.delta_prefix`), a JSON string and ``}``: the
        plain event ``{"type", id, "delta"}`` that prefix names, read without decoding the rest
        (a run of deltas repeats everything but the delta). Returns the index of the first text
        it leaves to :meth:`parse_plain` (``len(texts)`` when it took them all). One call for a
        run of deltas: the run's events cost their decoding, not a call each."""
        if self._lanes:
            return start
        cut = len(prefix) - 1  # the delta's opening quote
        read, end, count = _plain.read_string, start, len(texts)
        while end < count:
            data = texts[end]
            if not data.startswith(prefix) or data[-1:] != "}":
                break
            try:
                out.append(read(data[cut:-1]))  # one string, no more
            except _plain.DECODE_ERRORS:
                break
            end += 1
        self._index += end - start
        return end

    def _slow(self, data: str) -> list[BaseModel]:
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
            return []  # dropped before anything sees it: it closes no chunk stream either
        if not _prune(etype, raw, self._warn):
            return []
        try:
            event = model.model_validate(raw)
        except ValidationError as exc:
            raise ProtocolError(
                f"malformed {etype}: {_describe(exc)}", event_index=self._index
            ) from None
        except RecursionError:
            raise ProtocolError("event JSON nested too deeply", event_index=self._index) from None
        self._enforce(event, etype)
        if etype == "STATE_DELTA":
            self._check_patch(getattr(event, "delta", None) or [], etype)
        elif etype == "ACTIVITY_DELTA":
            self._check_patch(getattr(event, "patch", None) or [], etype)
        elif etype == "RUN_STARTED":
            self._owners.clear()
            note = version_warning(getattr(event, "protocol_version", None))
            if note:
                self._warn(note)
        elif etype in _OPENERS:
            self._note_owner(event, etype)
        kind = _CHUNK_KIND.get(etype)
        if kind is not None:
            return self._expand_chunk(event, kind)
        if not self._lanes:
            return [event]
        return [*self._closing(event, etype), event]

    # -- compatibility boundary -----------------------------------------------------------

    def _translate_thinking(self, raw: dict[str, Any], etype: str) -> tuple[dict[str, Any], str]:
        new_type = _THINKING[etype]
        # Everything else travels on, so enforcement judges (and names) what it does not know.
        out: dict[str, Any] = {k: v for k, v in raw.items() if k not in ("type", "title")}
        out["type"] = new_type
        if etype == "THINKING_START":
            self._thinking_phase += 1
            if raw.get("title"):
                # REASONING_START has no title: a lossy translation says so (1.1 versioning).
                self._warn("THINKING_START.title was dropped: REASONING_START has no title")
        if etype == "THINKING_TEXT_MESSAGE_START":
            self._thinking_message += 1
            out["role"] = "reasoning"
        if etype in ("THINKING_START", "THINKING_END"):
            out["messageId"] = f"thinking-{self._thinking_phase}"
        else:
            out["messageId"] = f"thinking-{self._thinking_phase}-{self._thinking_message}"
        return out, new_type

    # -- enforcement ----------------------------------------------------------------------

    def _enforce(self, event: BaseModel, etype: str) -> None:
        """Unknown properties stripped (warned), declared fields sent as null refused: the
        same verdict and words on both paths of :meth:`parse`."""
        try:
            if etype in _NESTED_MODELS:
                strip_unknown(event, etype, self._warn, top=etype, nulls=self._nulls)
            else:
                self._strip_top(event, etype)
        except ProtocolError as exc:
            if exc.event_index is not None:  # _refuse_nulls: already says which event
                raise
            raise ProtocolError(str(exc), event_index=self._index) from None

    def _strip_top(self, event: BaseModel, etype: str) -> None:
        extra = event.__pydantic_extra__
        if extra:
            for key in list(extra):
                self._warn(f"stripped unknown property {etype}.{key}")
            extra.clear()
        self._refuse_nulls(event, etype)

    def _refuse_nulls(self, event: BaseModel, etype: str) -> None:
        null = _null_field(event, etype, self._nulls)
        if null is not None:
            raise ProtocolError(
                f"malformed {etype}: {null} is null (an absent field is left out, not null)",
                event_index=self._index,
            )

    def _check_patch(self, ops: Any, etype: str) -> None:
        """A JSON Patch must be well formed (1.1 events/state): a malformed operation is fatal.
        Operations ag-ui-protocol 1.x parsed into models were checked by the package."""
        for i, op in enumerate(ops):
            problem = None if isinstance(op, BaseModel) else _patch_problem(op)
            if problem:
                raise ProtocolError(
                    f"malformed {etype} operation [{i}]: {problem}", event_index=self._index
                )

    def _note_owner(self, event: Any, etype: str) -> None:
        tag = getattr(event, "subagent_run_id", None)
        if tag is not None:
            self._owners[getattr(event, _IDENT[etype])] = tag

    # -- chunk expansion ------------------------------------------------------------------

    def _closing(self, event: BaseModel, etype: str) -> list[BaseModel]:
        """The synthesized ends of the chunk streams this event closes (1.1 streaming)."""
        if etype in _STAND_ASIDE:
            return []
        if etype in _RUN_LEVEL:
            ends = [_end_of(chunk) for chunk in self._lanes.values()]
            self._lanes.clear()
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
        for lane, chunk in self._lanes.items():
            if chunk.id == ident:
                return lane
        return self._owners.get(ident)

    def _close_lane(self, lane: str | None) -> list[BaseModel]:
        chunk = self._lanes.pop(lane, None)
        return [] if chunk is None else [_end_of(chunk)]

    def _expand_chunk(self, chunk: Any, kind: str) -> list[BaseModel]:
        ident = chunk.tool_call_id if kind == "tool" else chunk.message_id
        tag = chunk.subagent_run_id
        lane = self._chunk_lane(kind, ident, tag)
        current = self._lanes.get(lane)
        out: list[BaseModel] = []
        continuing = (
            current is not None and current.kind == kind and (ident is None or ident == current.id)
        )
        if continuing:
            assert current is not None
            self._check_repeat(current, chunk, kind)
            ident = current.id
        else:
            out.extend(self._close_lane(lane))
            out.append(self._open_chunk(chunk, kind, ident, lane))
            ident = self._lanes[lane].id
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

    def _chunk_lane(self, kind: str, ident: str | None, tag: str | None) -> str | None:
        """Which lane a chunk belongs to (1.1 streaming, attribution and resolution)."""
        lanes = self._lanes
        if tag is not None:
            for lane, chunk in lanes.items():
                if lane != tag and chunk.id == ident:
                    raise ProtocolError(
                        f"a chunk attributed to subagent {tag!r} continues {ident!r}, which "
                        f"{_owner_words(lane)} opened",
                        event_index=self._index,
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
                event_index=self._index,
            )
        return candidates[0] if candidates else None

    def _check_repeat(self, current: _Chunk, chunk: Any, kind: str) -> None:
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
                event_index=self._index,
            )

    def _open_chunk(self, chunk: Any, kind: str, ident: str | None, lane: str | None) -> BaseModel:
        name = _CHUNK_NAME[kind]
        if not ident:
            key = "toolCallId" if kind == "tool" else "messageId"
            raise ProtocolError(
                f"the first {name} of an element needs {key}", event_index=self._index
            )
        extra: dict[str, Any] = {}
        for attr in ("metadata", "raw_event", "subagent_run_id"):
            value = getattr(chunk, attr, None)
            if value is not None:
                extra[attr] = value
        if lane is not None:
            self._owners[ident] = lane
        if kind == "text":
            role = chunk.role or "assistant"
            self._lanes[lane] = _Chunk("text", ident, role=role, name=chunk.name)
            if chunk.name is not None:
                extra["name"] = chunk.name
            return _wire.TextMessageStart(message_id=ident, role=role, **extra)
        if kind == "tool":
            if not chunk.tool_call_name:
                raise ProtocolError(
                    "the first TOOL_CALL_CHUNK of a call needs toolCallName",
                    event_index=self._index,
                )
            parent = chunk.parent_message_id
            self._lanes[lane] = _Chunk("tool", ident, tool_name=chunk.tool_call_name, parent=parent)
            if parent is not None:
                extra["parent_message_id"] = parent
            return _E.ToolCallStartEvent(
                tool_call_id=ident, tool_call_name=chunk.tool_call_name, **extra
            )
        self._lanes[lane] = _Chunk("reasoning", ident)
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


def _patch_clean(ops: Any) -> bool:
    """True when every operation is a well-formed RFC 6902 one (models were checked already)."""
    for op in ops:
        if type(op) is dict:
            # The common shape first: add or replace with a value, or remove, at a plain path.
            path = op.get("path")
            kind = op.get("op")
            if (
                type(path) is str
                and (path == "" or (path[0] == "/" and "~" not in path))
                and (kind == "remove" or (kind in ("add", "replace") and "value" in op))
            ):
                continue
        if not isinstance(op, BaseModel) and _patch_problem(op) is not None:
            return False
    return True


_TYPE_OF: dict[type[BaseModel], str] = {cls: name for name, cls in MODELS.items()}

# How to read each frequent type plain with the installed models: one at a time, a batch of
# them in one decode, and the further checks of those that have one (by Struct).
_PLAIN = _plain.plains(MODELS)
_BATCH = _plain.batch_decoder(_PLAIN)
_CHECKS = {way.struct: way.check for way in _PLAIN.values() if way.check is not None}


def _json_array(texts: list[str]) -> str:
    """``"[" + ",".join(texts) + "]"``, copied once: the brackets go on the end texts, not
    around the joined whole (a batch is tens of KB)."""
    if len(texts) < 2:
        return "[" + "".join(texts) + "]"
    return ",".join(["[" + texts[0], *texts[1:-1], texts[-1] + "]"])


def event_from_text(data: str) -> BaseModel:
    """The event model of a text :meth:`EventParser.parse_plain` (or ``parse_deltas``) took."""
    fields = _plain.json_value(data)  # json.loads for what pydantic-core's parser refuses
    return MODELS[fields["type"]].model_validate(fields)


def type_of(event: BaseModel) -> str:
    """The wire ``type`` of an event produced by :class:`EventParser` (e.g. ``"RUN_STARTED"``)."""
    return _TYPE_OF[type(event)]
