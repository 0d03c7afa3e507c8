"""Enforcement: what this client does not know removed, what the schema refuses refused. Pure.

The stage after the compatibility boundary (1.1 basic/processing)::

    producer -> compatibility boundary -> enforcement -> chunk expansion -> verification

- A union member this client does not know (an outcome, a content part or its source, a JSON
  Patch op, a message role, an encrypted-value subtype) is removed from the event's JSON before
  validation, with a warning naming its path (:func:`prune`; a required one drops the event).
- An unknown property is stripped from the validated models all the way down, with a warning
  (:func:`strip_unknown`), except inside JSON Patch operations and open objects.
- A known field with a value the schema rejects is fatal (:class:`ProtocolError`), ``null``
  included, but for the fields the schema lets be null (:data:`NULL_OK`) and three an older
  Python SDK sent as null (:data:`NULL_TOLERATED`, a departure, off under ``strict``).
- A JSON Patch must be well formed (:func:`patch_problem`, :func:`patch_clean`).

:class:`Enforcer` holds one parser's settings (its warnings, ``strict``); the same functions
guard the outgoing run input (:mod:`.run_input`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ValidationError

from .._errors import ProtocolError
from . import wire as _wire
from .compat import upgrade_binary

__all__ = [
    "NESTED_MODELS",
    "NULL_OK",
    "NULL_TOLERATED",
    "Enforcer",
    "describe",
    "null_field",
    "patch_clean",
    "patch_problem",
    "prune",
    "prune_messages",
    "refuse_null",
    "strip_extra",
    "strip_unknown",
]

Warn = Callable[[str], None]

#: Events whose fields hold further protocol models (enforced recursively).
NESTED_MODELS = frozenset(
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

#: Fields the schema lets carry a JSON null (any JSON value) ...
NULL_OK = frozenset({("CUSTOM", "value"), ("RAW", "event"), ("STATE_SNAPSHOT", "snapshot")})
#: ... and the three optional fields an older Python SDK sent as null, which AG-UI's TypeScript
#: client tolerates as absent (a departure, off under strict; docs/architecture.md).
NULL_TOLERATED = NULL_OK | {
    ("TOOL_CALL_START", "parent_message_id"),
    ("TOOL_CALL_CHUNK", "parent_message_id"),
    ("RUN_FINISHED", "outcome"),
}


def describe(exc: ValidationError) -> str:
    """What a validation error says, in a sentence: the first three problems and their paths."""
    parts = []
    for err in exc.errors()[:3]:
        loc = ".".join(str(p) for p in err["loc"]) or "(event)"
        parts.append(f"{loc}: {err['msg']}")
    more = f" (+{exc.error_count() - 3} more)" if exc.error_count() > 3 else ""
    return "; ".join(parts) + more


# -- JSON Patch ---------------------------------------------------------------------------------


def _is_pointer(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    if value == "" or (value[0] == "/" and "~" not in value):
        return True  # the common case, without the regex
    return _POINTER.fullmatch(value) is not None


def patch_problem(op: Any) -> str | None:
    """What makes ``op`` a malformed RFC 6902 operation, or None when it is well formed."""
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


def patch_clean(ops: Any) -> bool:
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
        if not isinstance(op, BaseModel) and patch_problem(op) is not None:
            return False
    return True


# -- unknown union members, pruned from the JSON before validation -----------------------------

_DROP: Any = object()  # what a judge returns for a member it drops


def _filter(items: Any, path: str, warn: Warn, judge: Callable[[Any, str, Warn], Any]) -> None:
    """The list ``items`` (in place) as ``judge`` keeps its members: each given with its path,
    returned (perhaps replaced) or ``_DROP`` (warned by the judge). Not a list: left for
    validation to refuse."""
    if isinstance(items, list):
        kept = [judge(item, f"{path}[{i}]", warn) for i, item in enumerate(items)]
        items[:] = [item for item in kept if item is not _DROP]


def _patch_op(op: Any, path: str, warn: Warn) -> Any:
    """An op RFC 6902 does not define is an unknown union member: dropped from the list (1.1
    basic/patterns/snapshots). A missing or non-string op stays, to fail as malformed."""
    kind = op.get("op") if isinstance(op, dict) else None
    if isinstance(kind, str) and kind not in _PATCH_OPS:
        warn(f"dropped {path}: JSON Patch op {kind!r} is not RFC 6902's")
        return _DROP
    return op


def _part(part: Any, path: str, warn: Warn) -> Any:
    """A content part of unknown type is dropped; a media part whose source type is unknown is
    dropped whole (its source is required); a legacy binary part is upgraded."""
    if not isinstance(part, dict):
        return part
    kind = part.get("type")
    if kind == "binary":
        upgraded = upgrade_binary(part)
        if upgraded is None:
            warn(f"dropped {path}: a legacy binary part with no data or url")
            return _DROP
        part = upgraded
        kind = part["type"]
    if isinstance(kind, str) and kind not in _wire.PART_TYPES:
        warn(f"dropped {path}: content part of unknown type {kind!r}")
        return _DROP
    # A text part has no source: one it carries is an unknown property, stripped.
    source = part.get("source") if kind != "text" else None
    source_kind = source.get("type") if isinstance(source, dict) else None
    if isinstance(source_kind, str) and source_kind not in _wire.SOURCE_TYPES:
        warn(f"dropped {path}: {kind} part whose source type {source_kind!r} is unknown")
        return _DROP
    return part


def _message(message: Any, path: str, warn: Warn) -> Any:
    if isinstance(message, dict):
        role = message.get("role")
        if isinstance(role, str) and role not in _wire.ROLES:
            warn(f"dropped {path}: message of unknown role {role!r}")
            return _DROP
        if role in ("user", "tool"):
            _filter(message.get("content"), f"{path}.content", warn, _part)
    return message


def prune_messages(messages: Any, path: str, warn: Warn) -> None:
    """Messages of unknown role dropped, and the unknown content parts of the rest."""
    _filter(messages, path, warn, _message)


def _strip_outcome(raw: dict[str, Any], etype: str, known: frozenset[str], warn: Warn) -> None:
    outcome = raw.get("outcome")
    kind = outcome.get("type") if isinstance(outcome, dict) else None
    if isinstance(kind, str) and kind not in known:
        # An optional union member we don't know is stripped; absent means success (1.1).
        warn(f"stripped {etype}.outcome of unknown type {kind!r}")
        del raw["outcome"]


def prune(etype: str, raw: dict[str, Any], warn: Warn) -> bool:
    """Remove the union members this client does not know; False drops the whole event."""
    if etype == "RUN_FINISHED":
        _strip_outcome(raw, etype, _wire.OUTCOME_TYPES, warn)
    elif etype == "SUBAGENT_FINISHED":
        _strip_outcome(raw, etype, _wire.SUBAGENT_OUTCOME_TYPES, warn)
    elif etype == "STATE_DELTA":
        _filter(raw.get("delta"), "STATE_DELTA.delta", warn, _patch_op)
    elif etype == "ACTIVITY_DELTA":
        _filter(raw.get("patch"), "ACTIVITY_DELTA.patch", warn, _patch_op)
    elif etype == "TOOL_CALL_RESULT":
        _filter(raw.get("content"), "TOOL_CALL_RESULT.content", warn, _part)
    elif etype == "MESSAGES_SNAPSHOT":
        prune_messages(raw.get("messages"), "MESSAGES_SNAPSHOT.messages", warn)
    elif etype == "RUN_STARTED" and isinstance(raw.get("input"), dict):
        prune_messages(raw["input"].get("messages"), "RUN_STARTED.input.messages", warn)
    elif etype == "REASONING_ENCRYPTED_VALUE":
        subtype = raw.get("subtype")
        if isinstance(subtype, str) and subtype not in _wire.ENCRYPTED_SUBTYPES:
            # Required position: the event that carried it goes (1.1 events/reasoning).
            warn(f"dropped a REASONING_ENCRYPTED_VALUE of unknown subtype {subtype!r}")
            return False
    return True


# -- unknown properties and nulls, on the validated models ------------------------------------


def null_field(
    model: BaseModel, etype: str | None, allowed: frozenset[tuple[str, str]] = NULL_TOLERATED
) -> str | None:
    """The first declared field sent as an explicit null where the schema forbids it."""
    fields = type(model).model_fields
    for name in model.model_fields_set:
        if name in fields and getattr(model, name) is None and (etype, name) not in allowed:
            return fields[name].alias or name
    return None


def strip_extra(model: BaseModel, path: str, warn: Warn) -> None:
    """``model``'s unknown properties stripped (each warned), not its fields' ones."""
    extra = model.__pydantic_extra__
    if extra:
        for key in list(extra):
            warn(f"stripped unknown property {path}.{key}")
        extra.clear()


def refuse_null(
    model: BaseModel,
    path: str,
    etype: str | None = None,
    nulls: frozenset[tuple[str, str]] = NULL_TOLERATED,
) -> None:
    """A declared field of ``model`` (at ``path``, in an event of type ``etype``) sent as null
    where the schema forbids it is fatal."""
    null = null_field(model, etype, nulls)
    if null is not None:
        raise ProtocolError(f"malformed {path}: {null} is null (leave an absent field out)")


def strip_unknown(
    value: Any,
    path: str,
    warn: Warn,
    *,
    top: str | None = None,
    nulls: frozenset[tuple[str, str]] = NULL_TOLERATED,
) -> None:
    """Strip unknown properties all the way down (1.1 processing), except inside JSON Patch
    operations and open objects (metadata, activity content), which are not models here; a
    declared field sent as null is fatal."""
    if isinstance(value, BaseModel):
        strip_extra(value, path, warn)
        refuse_null(value, path, top, nulls)
        for name in type(value).model_fields:
            child = getattr(value, name, None)
            if isinstance(child, BaseModel | list):
                strip_unknown(child, f"{path}.{name}", warn)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, BaseModel):
                strip_unknown(item, f"{path}[{i}]", warn)


class Enforcer:
    """One parser's enforcement of its validated events: its warnings, and which nulls it
    tolerates (``strict`` refuses the nulls older servers send where a field should be absent).
    Errors name the event by the index given."""

    __slots__ = ("_nulls", "_warn")

    def __init__(self, warn: Warn, *, strict: bool = False) -> None:
        self._warn = warn
        self._nulls = NULL_OK if strict else NULL_TOLERATED

    def enforce(self, event: BaseModel, etype: str, index: int) -> None:
        """Unknown properties stripped (warned), declared fields sent as null refused: the
        same verdict and words on both paths of :meth:`.EventParser.parse`."""
        try:
            if etype in NESTED_MODELS:
                strip_unknown(event, etype, self._warn, top=etype, nulls=self._nulls)
            else:
                strip_extra(event, etype, self._warn)
                self.refuse_nulls(event, etype, index)
        except ProtocolError as exc:
            if exc.event_index is not None:  # refuse_nulls: already says which event
                raise
            raise ProtocolError(str(exc), event_index=index) from None

    def refuse_nulls(self, event: BaseModel, etype: str, index: int) -> None:
        """A declared field of the event itself sent as null is fatal (unless tolerated)."""
        null = null_field(event, etype, self._nulls)
        if null is not None:
            raise ProtocolError(
                f"malformed {etype}: {null} is null (an absent field is left out, not null)",
                event_index=index,
            )

    def check_patch(self, ops: Any, etype: str, index: int) -> None:
        """A JSON Patch must be well formed (1.1 events/state): a malformed operation is fatal.
        Operations ag-ui-protocol 1.x parsed into models were checked by the package."""
        for i, op in enumerate(ops):
            problem = None if isinstance(op, BaseModel) else patch_problem(op)
            if problem:
                raise ProtocolError(
                    f"malformed {etype} operation [{i}]: {problem}", event_index=index
                )
