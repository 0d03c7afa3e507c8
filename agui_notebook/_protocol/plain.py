"""Plain events: the bulk of a stream read as decoded JSON, with no model built. Pure.

Most of a run is deltas (text, tool-call arguments, state patches) and the ends that close
them. A pydantic model per delta costs more than parsing its JSON, so for these types a
message whose decoded object is exactly what the installed ``ag_ui.core`` model accepts as it
is, is taken as it is: the object is the event. "Exactly" is read off the model's own fields
(:func:`_shape`), so another line of ag-ui-protocol gets its own rules:

- every key is a field's wire name (an unknown property goes to the parser, which strips it
  with a warning);
- every value already has the field's type: a JSON string for ``str``, an integer (not a bool,
  within the field's bounds) for ``int``, an object for ``dict``, an array for ``list``,
  anything but null for ``Any``; null, a float for an int, or any value the model would coerce,
  goes to the parser, which accepts or refuses it;
- every required field is present, and a field with any other constraint, or a type outside
  those, sends the whole type (when required) or that key (when optional) to the parser.

The decoder is pydantic-core's (``from_json``), the parser the model's JSON validator is built
on, so values (duplicate keys, big integers, non-finite numbers) come out as the model would
read them. :func:`materialize` builds the model from the object, only when someone asks for it
(an event a consumer iterates, or one kept on the result). ``tests/protocol/test_plain.py``
holds both to :class:`~._events.EventParser`'s own path, event for event.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from json.decoder import scanstring  # type: ignore[attr-defined]  # the C decoder of strings
from typing import Any

import annotated_types
from pydantic import BaseModel
from pydantic_core import from_json

__all__ = [
    "PLAIN_TYPES",
    "PlainEvent",
    "PlainShape",
    "delta_prefix",
    "json_value",
    "materialize",
    "read_delta",
    "shapes",
]

_ANY: Any = object()  # a field of type Any: any value but null
_NONE = type(None)
# Model settings that change nothing about which values a field accepts or what it stores.
_NEUTRAL_CONFIG = frozenset(
    {"extra", "alias_generator", "populate_by_name", "validate_by_name", "validate_by_alias",
     "serialize_by_alias", "title", "json_schema_extra", "protected_namespaces"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class PlainShape:
    """What a plain object of one event type may hold, and how its model would read it."""

    #: Wire name -> the exact Python type its value must have (``_ANY``: anything but None).
    kinds: dict[str, Any]
    #: Wire names that must be present.
    required: frozenset[str]
    #: Wire names of bounded integers -> (lowest, highest).
    bounds: dict[str, tuple[int, int]]
    #: Wire names of literal strings -> the values allowed.
    allowed: dict[str, frozenset[str]]
    #: The model's attribute names -> (wire name, the default when absent).
    attributes: dict[str, tuple[str, Any]]
    #: A further check of the whole object (the patch operations of a STATE_DELTA), if any.
    check: Callable[[dict[str, Any]], bool] | None = None
    #: The required fields and their types, when each is a plain str, int, dict or list; with
    #: ``type``, the common shape's size.
    common: tuple[tuple[str, Any], ...] = ()
    common_size: int = -1

    def fits(self, fields: dict[str, Any]) -> bool:
        """True when the model would take ``fields`` as they are (``type`` checked already)."""
        if len(fields) == self.common_size:
            # The common shape, ``type`` and the required fields: their types are all to check.
            for key, kind in self.common:
                if type(fields.get(key)) is not kind:
                    break
            else:
                return self.check is None or self.check(fields)
        kinds = self.kinds
        for key, value in fields.items():
            kind = kinds.get(key)
            if kind is None:
                return False
            if type(value) is not kind and (kind is not _ANY or value is None):
                return False
        if not self.required <= fields.keys():
            return False
        for key, (low, high) in self.bounds.items():
            value = fields.get(key)
            if value is not None and not low <= value <= high:
                return False
        for key, values in self.allowed.items():
            if key in fields and fields[key] not in values:
                return False
        return self.check is None or self.check(fields)


class PlainEvent:
    """A plain event read the way its model would be: ``event.message_id`` is the object's
    ``messageId``, an absent field its default. So the verifier and the reducer take it as they
    take a model, without one being built (a model per event costs more than its JSON, and
    pydantic's validators for the rarer types run cold in a stream of deltas)."""

    __slots__ = ("_attributes", "fields")

    def __init__(self, fields: dict[str, Any], attributes: dict[str, tuple[str, Any]]) -> None:
        self.fields = fields
        self._attributes = attributes

    def __getattr__(self, name: str) -> Any:
        try:
            wire, default = self._attributes[name]
        except KeyError:
            raise AttributeError(name) from None
        return self.fields.get(wire, default)


class _Rule(typing.NamedTuple):
    kind: Any  # the exact type of a plain value
    bounds: tuple[int, int] | None = None
    allowed: frozenset[str] | None = None


def _field_rule(annotation: Any, metadata: list[Any]) -> _Rule | None:
    """What a field's value must be for the model to take it unchanged, or None."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(annotation) if a is not _NONE]  # null: the parser's
        if len(members) > 1 and str in members and not metadata:
            return _Rule(str)  # a string is the string member's, exactly (the others: the parser)
        if len(members) != 1:
            return None
        annotation = members[0]
    if typing.get_origin(annotation) is typing.Literal:
        values = typing.get_args(annotation)
        if metadata or not all(type(v) is str for v in values):
            return None
        return _Rule(str, allowed=frozenset(values))
    if annotation is int:
        low, high = -(2**1024), 2**1024  # JSON integers: any size, unless bounded
        for item in metadata:
            if isinstance(item, annotated_types.Ge):
                low = int(item.ge)  # type: ignore[call-overload]
            elif isinstance(item, annotated_types.Le):
                high = int(item.le)  # type: ignore[call-overload]
            else:
                return None
        return _Rule(int, (low, high) if metadata else None)
    if metadata:
        return None
    if annotation is str:
        return _Rule(str)
    if annotation is Any:
        return _Rule(_ANY)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is dict and args in ((str, Any), ()):
        return _Rule(dict)
    if origin is list and args in ((Any,), ()):
        return _Rule(list)
    return None


def _shape(
    model: type[BaseModel], check: Callable[[dict[str, Any]], bool] | None = None
) -> PlainShape | None:
    """The plain shape of ``model``'s events, or None when a required field has no plain form,
    or the model transforms what it reads (validators, settings such as whitespace stripping)."""
    decorators = model.__pydantic_decorators__
    if (
        set(model.model_config) - _NEUTRAL_CONFIG
        or decorators.validators
        or decorators.field_validators
        or decorators.root_validators
        or decorators.model_validators
    ):
        return None
    kinds: dict[str, Any] = {"type": str}  # its value is the type the message was read under
    required: set[str] = set()
    bounds: dict[str, tuple[int, int]] = {}
    allowed: dict[str, frozenset[str]] = {}
    attributes: dict[str, tuple[str, Any]] = {}
    for name, info in model.model_fields.items():
        if name == "type":
            continue
        if info.default_factory is not None:
            return None  # a view would share one default among events
        wire = info.alias or name
        attributes[name] = (wire, None if info.is_required() else info.default)
        rule = _field_rule(info.annotation, info.metadata)
        if rule is None:
            if info.is_required():
                return None
            continue  # the key, when present, goes to the parser
        kinds[wire] = rule.kind
        if rule.bounds is not None:
            bounds[wire] = rule.bounds
        if rule.allowed is not None:
            allowed[wire] = rule.allowed
        if info.is_required():
            required.add(wire)
    shape = PlainShape(kinds, frozenset(required), bounds, allowed, attributes, check)
    common = tuple((wire, kinds[wire]) for wire in sorted(required))
    if any(kind is _ANY or wire in bounds or wire in allowed for wire, kind in common):
        return shape
    return dataclasses.replace(shape, common=common, common_size=len(common) + 1)


def shapes(
    models: dict[str, type[BaseModel]], checks: dict[str, Callable[[dict[str, Any]], bool]]
) -> dict[str, PlainShape]:
    """The plain shapes of the types in ``PLAIN_TYPES`` that have one with these models."""
    found = {}
    for etype in PLAIN_TYPES:
        shape = _shape(models[etype], checks.get(etype))
        if shape is not None:
            found[etype] = shape
    return found


#: The types read plain when their shape allows: messages, tool calls and reasoning from start
#: to end, tool results, state deltas and steps (a stream's bulk; the rest are rare).
PLAIN_TYPES = (
    "TEXT_MESSAGE_START",
    "TEXT_MESSAGE_CONTENT",
    "TEXT_MESSAGE_END",
    "TOOL_CALL_START",
    "TOOL_CALL_ARGS",
    "TOOL_CALL_END",
    "TOOL_CALL_RESULT",
    "REASONING_START",
    "REASONING_MESSAGE_START",
    "REASONING_MESSAGE_CONTENT",
    "REASONING_MESSAGE_END",
    "REASONING_END",
    "STATE_DELTA",
    "STEP_STARTED",
    "STEP_FINISHED",
)


def delta_prefix(etype: str, wire: str, ident: str) -> str:
    """How the compact layout (type, the id, the delta; no spaces) begins for a delta of type
    ``etype`` to ``ident`` (``wire``: its key, ``messageId`` or ``toolCallId``)."""
    return f'{{"type":"{etype}","{wire}":{json.dumps(ident)},"delta":"'


def read_delta(data: str, start: int) -> str | None:
    """The JSON string that begins at ``data[start]`` (after its opening quote), decoded, when
    only the closing ``}`` follows it; else None."""
    if data[-1:] != "}":
        return None
    try:
        delta, end = scanstring(data, start, True)  # strict: no raw control characters
    except ValueError:
        return None
    return delta if end == len(data) - 1 else None


def json_value(text: str) -> Any:
    """``json.loads(text)``, read by pydantic-core's parser when it can (a tool call's
    arguments of a few KB, ~1.5x faster); ``json.loads`` itself reads, or refuses, whatever
    that parser does not take (a lone surrogate escape, nesting past its limit)."""
    try:
        return from_json(text)
    except (ValueError, TypeError):
        return json.loads(text)


def materialize(model: type[BaseModel], fields: dict[str, Any]) -> BaseModel:
    """The event model of a plain object (equal to what the parser's own path builds)."""
    return model.model_validate(fields)
