"""Plain events: the bulk of a stream read without building its pydantic models. Pure.

Most of a run is deltas (text, tool-call arguments, state patches) and the starts and ends
around them. A pydantic model per event costs more than its JSON, and the validators of the
rarer types run cold in a stream of deltas (measured: a ``TOOL_CALL_START`` validated in 1.8 us
alone, 7-17 us in a realistic stream). So each of these types also gets a msgspec ``Struct``,
read off the installed ``ag_ui.core`` model's own fields when the package loads (:func:`plain`),
that accepts exactly what the model takes unchanged and nothing else:

- every key is a field's wire name (an unknown property goes to the parser, which strips it
  with a warning);
- every value already has the field's type: a JSON string for ``str`` (or for a union with a
  string member), an integer within the field's bounds for ``int`` (not a bool, not 1.0), one
  of the values of a ``Literal``, an object for ``dict``, an array for ``list``, anything but
  null for ``Any``; null, or a value the model would coerce, goes to the parser;
- every required field is present; a field of any other type or constraint, a validator or a
  setting that transforms what the model reads, and the type has no plain form at all;
- a STATE_DELTA's operations (a list of anything to the model, which the parser checks) are
  ``add``, ``replace`` or ``remove`` at plain pointers, read as operation objects
  (:class:`PatchOperation`) that the patch code takes as it takes their JSON objects: typed
  by the decoder, they need no walk to be checked.

An absent field reads as the model's default, so the verifier and the reducer take a plain
event through the same handlers, by the same attribute names, as a model. msgspec reads JSON
as ``json.loads`` does (duplicate keys: the last; big integers; no NaN, which goes to the
parser). The model itself is built from the event's text only when someone asks for it (an
event kept on the result). ``tests/protocol/test_plain.py`` holds every plain event, and
each attribute, to :class:`~.events.EventParser`'s own path, under both ag-ui-protocol lines.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii as _quoted  # json.dumps of a str, in C
from typing import Annotated, Any, ClassVar, Literal, Union

import annotated_types
import msgspec
from pydantic import BaseModel
from pydantic_core import from_json

__all__ = [
    "DECODE_ERRORS",
    "FREQUENT",
    "PLAIN_PATCH",
    "PLAIN_TYPES",
    "PatchOperation",
    "Plain",
    "check_json",
    "delta_prefix",
    "json_value",
    "plain",
    "plains",
    "read_string",
]

_NONE = type(None)
# Any JSON value but null (a declared field sent as null goes to the parser, which refuses it).
_NOT_NULL = Union[dict[str, Any], list[Any], str, int, float, bool]  # noqa: UP007 - msgspec
# Model settings that change nothing about which values a field accepts or what it stores.
_NEUTRAL_CONFIG = frozenset(
    {"extra", "alias_generator", "populate_by_name", "validate_by_name", "validate_by_alias",
     "serialize_by_alias", "title", "json_schema_extra", "protected_namespaces"}
)  # fmt: skip
# What a text msgspec does not take raises (UnicodeEncodeError: a raw lone surrogate, which a
# stream decoded as UTF-8 never holds).
DECODE_ERRORS = (msgspec.ValidationError, msgspec.DecodeError, UnicodeEncodeError)
#: Decodes one JSON string (quotes included; nothing may follow it) or raises DECODE_ERRORS.
read_string = msgspec.json.Decoder(str).decode
_RAW = msgspec.json.Decoder(msgspec.Raw).decode  # checks a JSON text, builds nothing

#: The frequent event types, in one list: messages, tool calls and reasoning from start to end,
#: tool results, state deltas and steps (a stream's bulk; the rest are rare). Each is read plain
#: when its model allows (:func:`plains`); True: the parser's event-by-event path also validates
#: it straight from its JSON text (``EventParser.parse``, for ``thread.stream()``; held to the
#: full path type by type, ``tests/protocol/test_parse_fast.py``).
FREQUENT: dict[str, bool] = {
    "TEXT_MESSAGE_START": True,
    "TEXT_MESSAGE_CONTENT": True,
    "TEXT_MESSAGE_END": True,
    "TOOL_CALL_START": True,
    "TOOL_CALL_ARGS": True,
    "TOOL_CALL_END": True,
    "TOOL_CALL_RESULT": True,
    "REASONING_START": False,
    "REASONING_MESSAGE_START": False,
    "REASONING_MESSAGE_CONTENT": True,
    "REASONING_MESSAGE_END": False,
    "REASONING_END": False,
    "STATE_DELTA": True,
    "STEP_STARTED": False,
    "STEP_FINISHED": False,
}
#: The types read plain when their model allows: every frequent one.
PLAIN_TYPES = tuple(FREQUENT)


@dataclass(frozen=True, slots=True)
class Plain:
    """How to read one event type plain."""

    #: Decodes a text into the type's Struct (its attributes: the model's), or raises.
    decode: Callable[[str], Any]
    #: The Struct it decodes into (its class attribute ``etype``: the event type).
    struct: type
    #: A further check of the decoded event (a STATE_DELTA's pointers), if any.
    check: Callable[[Any], bool] | None = None


class PatchOperation(msgspec.Struct, tag_field="op", forbid_unknown_fields=True, gc=False):
    """A JSON Patch operation read plain: ``add``, ``replace`` or ``remove`` with no other
    member. ``op``, ``path`` and ``value`` read as the operation's object does; ``move``,
    ``copy``, ``test`` and anything unusual go to the parser (a STATE_DELTA holding one such
    operation is not plain)."""

    op: ClassVar[str]
    path: str


class AddOperation(PatchOperation, tag="add"):
    op: ClassVar[str] = "add"
    value: Any  # null included: RFC 6902 asks for the member, not a non-null one


class ReplaceOperation(PatchOperation, tag="replace"):
    op: ClassVar[str] = "replace"
    value: Any


class RemoveOperation(PatchOperation, tag="remove"):
    op: ClassVar[str] = "remove"


#: What a plain STATE_DELTA's ``delta`` holds (a model's takes any list; the parser checks it).
PLAIN_PATCH = list[Union[AddOperation, ReplaceOperation, RemoveOperation]]  # noqa: UP007


def plain_pointers(event: Any) -> bool:
    """True when every path of a plain STATE_DELTA is a pointer the patch code reads as it is:
    empty, or "/"-led without "~" escapes (any other, valid or not, goes to the parser, which
    judges pointers)."""
    for operation in event.delta:
        path = operation.path
        if path and (path[0] != "/" or "~" in path):
            return False
    return True


def _field_type(annotation: Any, metadata: list[Any]) -> Any:
    """The msgspec type of what a field takes unchanged, or None when it has no plain form."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(annotation) if a is not _NONE]  # null: the parser's
        if len(members) > 1 and str in members and not metadata:
            return str  # a string is the string member's, exactly (the others: the parser)
        if len(members) != 1:
            return None
        annotation = members[0]
    if typing.get_origin(annotation) is typing.Literal:
        values = typing.get_args(annotation)
        if metadata or not all(type(v) is str for v in values):
            return None
        return Literal[values]
    if annotation is int:
        bounds: dict[str, int] = {}
        for item in metadata:
            if isinstance(item, annotated_types.Ge):
                bounds["ge"] = int(item.ge)  # type: ignore[call-overload]
            elif isinstance(item, annotated_types.Le):
                bounds["le"] = int(item.le)  # type: ignore[call-overload]
            else:
                return None
        return Annotated[int, msgspec.Meta(**bounds)] if bounds else int  # type: ignore[call-overload]
    if metadata:
        return None
    if annotation in (str, Any):
        return str if annotation is str else _NOT_NULL
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is dict and args in ((str, Any), ()):
        return dict[str, Any]
    if origin is list and args in ((Any,), ()):
        return list[Any]
    return None


def plain(
    etype: str,
    model: type[BaseModel],
    narrowed: dict[str, Any] | None = None,
    check: Callable[[Any], bool] | None = None,
) -> Plain | None:
    """How to read ``model``'s events plain, or None when a required field has no plain form
    or the model transforms what it reads (validators, settings such as whitespace stripping).
    ``narrowed``: field -> a narrower type for a field whose model takes any list (a value
    outside it goes to the parser), ``check``: what that type leaves open."""
    decorators = model.__pydantic_decorators__
    if (
        set(model.model_config) - _NEUTRAL_CONFIG
        or decorators.validators
        or decorators.field_validators
        or decorators.root_validators
        or decorators.model_validators
    ):
        return None
    fields: list[tuple[Any, ...]] = []
    narrowed_any = False  # the check goes with the narrowed type
    rename: dict[str, str] = {}
    for name, info in model.model_fields.items():
        if name == "type":
            continue  # the tag
        if info.default_factory is not None:
            return None  # an event would share one default object with every other
        kind = _field_type(info.annotation, info.metadata)
        if narrowed and name in narrowed and kind == list[Any]:
            kind = narrowed[name]
            narrowed_any = True
        if kind is None:
            return None  # the handlers read every attribute: a field the Struct lacks breaks them
        rename[name] = info.alias or name
        # An optional field reads as the model's default when absent; its type leaves null out.
        fields.append((name, kind) if info.is_required() else (name, kind, info.default))
    struct = msgspec.defstruct(
        model.__name__ + "Plain",
        fields,
        kw_only=True,
        rename=rename,
        tag_field="type",
        tag=etype,
        forbid_unknown_fields=True,
        gc=False,  # decoded from JSON: in no reference cycle, so nothing for the collector
        namespace={"etype": etype},
    )
    return Plain(msgspec.json.Decoder(struct).decode, struct, check if narrowed_any else None)


def plains(models: dict[str, type[BaseModel]]) -> dict[str, Plain]:
    """How to read each type of ``PLAIN_TYPES`` that has a plain form with these models."""
    found = {}
    for etype in PLAIN_TYPES:
        way = plain(etype, models[etype], *_NARROWED.get(etype, ()))
        if way is not None:
            found[etype] = way
    return found


def batch_decoder(found: dict[str, Plain]) -> Callable[[str], list[Any]]:
    """Decodes a JSON array of plain events of any of ``found``'s types (by their ``type``)
    into their Structs in one call, or raises DECODE_ERRORS."""
    structs = tuple(way.struct for way in found.values())
    if not structs:  # models with no plain form: no batch is plain
        return _no_plain_batch
    return msgspec.json.Decoder(list[Union[structs]]).decode  # type: ignore[valid-type]  # noqa: UP007


def _no_plain_batch(text: str) -> list[Any]:
    raise msgspec.ValidationError("no event type has a plain form")


# Per type: fields read narrower than the model's (when it takes any list), and the check of
# what the narrower type leaves open.
_NARROWED: dict[str, tuple[dict[str, Any], Callable[[Any], bool]]] = {
    "STATE_DELTA": ({"delta": PLAIN_PATCH}, plain_pointers),
}


def delta_prefix(etype: str, wire: str, ident: str) -> str:
    """How the compact layout (type, the id, the delta; no spaces) begins for a delta of type
    ``etype`` to ``ident`` (``wire``: its key, ``messageId`` or ``toolCallId``)."""
    return f'{{"type":"{etype}","{wire}":{_quoted(ident)},"delta":"'


def check_json(text: str) -> None:
    """Raise what ``json.loads(text)`` raises (ValueError, RecursionError), building nothing
    when the text is valid (msgspec reads it as raw JSON: ~7x cheaper than parsing it). A
    text that is not ASCII goes as its UTF-8 bytes: given the str, msgspec would have Python
    keep a UTF-8 copy on it for as long as the text lives (a tool call's arguments: the
    thread's), and making that copy costs more than encoding."""
    try:
        _RAW(text if text.isascii() else text.encode())
    except (*DECODE_ERRORS, RecursionError):
        json_value(text)  # what msgspec refuses (NaN, a lone surrogate escape): json.loads judges


def json_value(text: str) -> Any:
    """``json.loads(text)``, read by pydantic-core's parser when it can (a tool call's
    arguments of a few KB, ~1.5x faster); ``json.loads`` itself reads, or refuses, whatever
    that parser does not take (a lone surrogate escape, nesting past its limit)."""
    try:
        return from_json(text)
    except (ValueError, TypeError):
        return json.loads(text)
