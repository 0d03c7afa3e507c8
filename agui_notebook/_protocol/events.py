"""Event texts to AG-UI events: the parser, which runs the stages in order. Pure, incremental.

The order is the spec's (1.1 basic/processing, "Where middleware sits")::

    producer -> compatibility boundary -> enforcement -> chunk expansion -> verification

:class:`EventParser` takes each SSE message's data through the first three (:mod:`.compat`,
:mod:`.enforce`, :mod:`.chunks`); the order verifier (:mod:`.verify`) comes after it. It has two
entry points:

- :meth:`EventParser.parse`: one text into its events (models), for a run whose events someone
  iterates (``thread.stream()``). The frequent events (:data:`.plain.FREQUENT`) are validated
  straight from their JSON text; anything unusual takes the full path (``json.loads``,
  compatibility, pruning, ``model_validate``, enforcement), with the same errors and warnings.
- :meth:`EventParser.read`: a batch of texts, for a run nobody iterates (``Thread.run``): the
  frequent events stay plain (:mod:`.plain`: their decoded JSON, no model), counted here and
  handed to a :class:`Taker` (a run of deltas to one thing, and consecutive STATE_DELTAs,
  together); any other text is handed over as it is, for :meth:`~EventParser.parse`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from .._errors import ProtocolError
from . import plain as _plain
from .chunks import CHUNK_KIND, OPENERS, ChunkLanes
from .compat import THINKING, ThinkingTranslator, version_warning
from .enforce import NESTED_MODELS, Enforcer, describe, patch_clean, prune
from .wire import EVENT_MODELS

__all__ = ["EventParser", "Taker", "event_from_text", "type_of"]

Warn = Callable[[str], None]

# The frequent types validated straight from JSON text when their type is found near the start.
_FAST = {name: EVENT_MODELS[name] for name, from_text in _plain.FREQUENT.items() if from_text}
_TYPE_FIELD = re.compile(r'"type"\s*:\s*"([A-Z_]+)"')
# Their validators, called directly: ``model_validate_json`` is a Python wrapper around them.
_FAST_JSON = {name: model.__pydantic_validator__.validate_json for name, model in _FAST.items()}
# Servers serialise ``type`` first; then the name is the text up to the next quote.
_TYPE_FIRST = '{"type":"'
_TYPE_FIRST_SPACED = '{"type": "'

# How to read each frequent type plain with the installed models: one at a time, a batch of
# them in one decode, and the further checks of those that have one (by Struct).
_PLAIN = _plain.plains(EVENT_MODELS)
_BATCH = _plain.batch_decoder(_PLAIN)
_CHECKS = {way.struct: way.check for way in _PLAIN.values() if way.check is not None}

# Deltas that may run together: type -> what they continue (attribute, wire name).
_RUNS = {
    "TEXT_MESSAGE_CONTENT": ("message_id", "messageId"),
    "REASONING_MESSAGE_CONTENT": ("message_id", "messageId"),
    "TOOL_CALL_ARGS": ("tool_call_id", "toolCallId"),
}

_TYPE_OF: dict[type[BaseModel], str] = {cls: name for name, cls in EVENT_MODELS.items()}


class Taker(Protocol):
    """What :meth:`EventParser.read` hands a batch to, in stream order, each piece as soon as
    it is read: a text the taker parses may open a chunk stream, which the events after it may
    close (then they are not plain)."""

    def take_plain(self, etype: str, event: Any, text: str, index: int) -> None:
        """One plain event of type ``etype``, the stream's ``index``-th."""

    def take_deltas(
        self, etype: str, first: Any, index: int, ident: str, deltas: list[str], texts: list[str]
    ) -> None:
        """Consecutive plain deltas of type ``etype`` to one message or tool call ``ident``,
        none with metadata, all with the subagent tag of ``first`` (the first one, the stream's
        ``index``-th): their ``deltas``, and their ``texts``."""

    def take_states(self, events: list[Any], texts: list[str], index: int) -> None:
        """Consecutive plain STATE_DELTAs (their ``texts``), the first the ``index``-th."""

    def take_text(self, text: str) -> None:
        """A text that is not plain, for :meth:`EventParser.parse` (which counts it)."""


class EventParser:
    """Turns SSE message data into verified-ready AG-UI events, in stream order.

    ``warn`` receives a sentence for every dropped event or stripped property. ``strict`` refuses
    the nulls older servers send where a field should be absent (:data:`.enforce.NULL_TOLERATED`).
    """

    def __init__(self, warn: Warn, *, strict: bool = False) -> None:
        self._warn = warn
        self._enforcer = Enforcer(warn, strict=strict)
        self._thinking = ThinkingTranslator()
        self._chunks = ChunkLanes()
        self._lanes = self._chunks.lanes  # the same dict, changed in place: is a stream open
        self._index = 0

    @property
    def in_chunk(self) -> bool:
        """True while a chunk stream is open (the next event may close it)."""
        return bool(self._lanes)

    @property
    def index(self) -> int:
        """How many SSE messages have been parsed."""
        return self._index

    # -- one text -------------------------------------------------------------------------

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
        if etype == "STATE_DELTA" and not patch_clean(event.delta):  # type: ignore[attr-defined]
            return self._slow(data)  # unknown ops pruned, malformed ones refused there
        if event.__pydantic_extra__ or etype in NESTED_MODELS:
            self._enforcer.enforce(event, etype, self._index)
        elif "null" in data:
            self._enforcer.refuse_nulls(event, etype, self._index)
        if etype in OPENERS:
            self._chunks.note_owner(event, etype)
        if not self._lanes:
            return [event]
        return [*self._chunks.closing(event, etype), event]

    def _slow(self, data: str) -> list[BaseModel]:
        index = self._index
        try:
            raw = json.loads(data)
        except RecursionError:
            raise ProtocolError("event JSON nested too deeply", event_index=index) from None
        except ValueError as exc:
            excerpt = data if len(data) <= 120 else data[:120] + "..."
            raise ProtocolError(
                f"event is not valid JSON ({getattr(exc, 'msg', exc)}): {excerpt!r}",
                event_index=index,
            ) from None
        if not isinstance(raw, dict):
            raise ProtocolError(
                f"an event must be a JSON object, got {type(raw).__name__}", event_index=index
            )
        etype = raw.get("type")
        if not isinstance(etype, str):
            raise ProtocolError("event has no string 'type'", event_index=index)
        if etype in THINKING:
            raw, etype = self._thinking.translate(raw, etype, self._warn)
        model = EVENT_MODELS.get(etype)
        if model is None:
            self._warn(f"dropped an event of unknown type {etype!r}")
            return []  # dropped before anything sees it: it closes no chunk stream either
        if not prune(etype, raw, self._warn):
            return []
        try:
            event = model.model_validate(raw)
        except ValidationError as exc:
            raise ProtocolError(f"malformed {etype}: {describe(exc)}", event_index=index) from None
        except RecursionError:
            raise ProtocolError("event JSON nested too deeply", event_index=index) from None
        enforcer = self._enforcer
        enforcer.enforce(event, etype, index)
        if etype == "STATE_DELTA":
            enforcer.check_patch(getattr(event, "delta", None) or [], etype, index)
        elif etype == "ACTIVITY_DELTA":
            enforcer.check_patch(getattr(event, "patch", None) or [], etype, index)
        elif etype == "RUN_STARTED":
            self._chunks.new_run()
            note = version_warning(getattr(event, "protocol_version", None))
            if note:
                self._warn(note)
        elif etype in OPENERS:
            self._chunks.note_owner(event, etype)
        kind = CHUNK_KIND.get(etype)
        if kind is not None:
            return self._chunks.expand(event, kind, index)
        if not self._lanes:
            return [event]
        return [*self._chunks.closing(event, etype), event]

    # -- a batch of texts -------------------------------------------------------------------

    def read(self, texts: list[str], taker: Taker) -> None:
        """The batch ``texts``, in order, handed to ``taker``: its plain events (counted here)
        one by one, a run of deltas to one thing and consecutive STATE_DELTAs together, and
        every other text as it is (for :meth:`parse`, the taker's, perhaps behind a credential
        guard).

        A batch of only plain events is decoded in one call (:meth:`parse_plains`); otherwise
        each text is read alone (:meth:`parse_plain`), and a run of deltas in the compact
        layout by its prefix alone (:meth:`parse_deltas`)."""
        if len(texts) > 1:
            events = self.parse_plains(texts)
            if events is not None:
                self._read_decoded(texts, events, taker)
                return
        self._read_each(texts, 0, taker)

    def _read_decoded(self, texts: list[str], events: list[Any], taker: Taker) -> None:
        """:meth:`read` of a batch :meth:`parse_plains` decoded (``events[i]``: ``texts[i]``'s,
        None where the type's check leaves it to :meth:`parse`)."""
        at, count = 0, len(texts)
        while at < count:
            event = events[at]
            if event is None:
                taker.take_text(texts[at])  # parsed, and any error worded, there
                at += 1
                if self._lanes:  # what follows may close the chunk stream it opened
                    self._read_each(texts, at, taker)
                    return
                continue
            etype = event.etype
            start = at
            at += 1
            runs = _RUNS.get(etype)
            if runs is not None and not event.metadata:
                attr = runs[0]
                ident, tag = getattr(event, attr), event.subagent_run_id
                deltas = [event.delta]
                while at < count:  # _Run.add's rule, inline: such runs are most of a stream
                    other = events[at]
                    if (
                        other is None
                        or other.etype != etype
                        or getattr(other, attr) != ident
                        or other.subagent_run_id != tag
                        or other.metadata
                    ):
                        break
                    deltas.append(other.delta)
                    at += 1
                index = self._index + 1
                self._index += at - start
                taker.take_deltas(etype, event, index, ident, deltas, texts[start:at])
            elif etype == "STATE_DELTA":
                while at < count:
                    other = events[at]
                    if other is None or other.etype != "STATE_DELTA":
                        break
                    at += 1
                index = self._index + 1
                self._index += at - start
                taker.take_states(events[start:at], texts[start:at], index)
            else:
                self._index += 1
                if etype in OPENERS:
                    self._chunks.note_owner(event, etype)
                taker.take_plain(etype, event, texts[start], self._index)

    def _read_each(self, texts: list[str], at: int, taker: Taker) -> None:
        """:meth:`read` of ``texts[at:]``, one text at a time."""
        parse_plain = self.parse_plain
        run: _Run | None = None  # what the next text may continue
        count = len(texts)
        while at < count:
            data = texts[at]
            at += 1
            found = parse_plain(data)  # counted when plain
            if run is None or found is None or not run.add(found[0], found[1], data):
                if run is not None:
                    run.hand_to(taker)
                    run = None
                if found is None:
                    taker.take_text(data)
                    continue
                etype, event = found
                if etype != "STATE_DELTA" and (etype not in _RUNS or event.metadata):
                    taker.take_plain(etype, event, data, self._index)
                    continue
                run = _Run(etype, event, data, self._index)
            if run.prefix is not None:  # the same layout again: only the deltas read
                end = self.parse_deltas(texts, at, run.prefix, run.deltas)
                run.texts.extend(texts[at:end])
                at = end
        if run is not None:
            run.hand_to(taker)

    # -- the batch reader's steps (each held to parse() by tests/protocol/test_plain.py) ------

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
        if etype in OPENERS:
            self._chunks.note_owner(event, etype)
        return etype, event

    def parse_plains(self, texts: list[str]) -> list[Any] | None:
        """The events of ``texts`` when every one is of a plain type, decoded in one call as a
        JSON array (a realistic stream: ~5% fewer instructions than a call per text), each what
        :meth:`parse_plain` reads for it, or None in its place where the type's check leaves it
        to :meth:`parse`. None when one is not plain: then each text goes its own way. Counts
        nothing (:meth:`read` counts what it hands over); each event's type is its Struct's
        ``etype``."""
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


class _Run:
    """Plain events :meth:`EventParser._read_each` holds while the next text may continue
    them: deltas to one message or tool call, or STATE_DELTAs (``events``)."""

    __slots__ = ("deltas", "etype", "events", "first", "ident", "index", "prefix", "texts")

    def __init__(self, etype: str, first: Any, text: str, index: int) -> None:
        self.etype = etype
        self.first = first
        self.index = index
        self.texts = [text]
        self.events: list[Any] | None = None
        self.deltas: list[str] = []
        self.ident: str = ""
        #: How a delta continuing the run begins in the compact layout (untagged ones only).
        self.prefix: str | None = None
        if etype == "STATE_DELTA":
            self.events = [first]
            return
        attr, wire = _RUNS[etype]
        self.ident = getattr(first, attr)
        self.deltas.append(first.delta)
        if first.subagent_run_id is None:
            self.prefix = _plain.delta_prefix(etype, wire, self.ident)

    def add(self, etype: str, event: Any, text: str) -> bool:
        """The plain event ``event`` (of ``etype``, its text ``text``) added to the run when it
        continues it; False when it does not."""
        if self.events is not None:
            if etype != "STATE_DELTA":
                return False
            self.events.append(event)
        elif (
            etype != self.etype
            or event.metadata
            or getattr(event, _RUNS[etype][0]) != self.ident
            or event.subagent_run_id != self.first.subagent_run_id
        ):
            return False
        else:
            self.deltas.append(event.delta)
        self.texts.append(text)
        return True

    def hand_to(self, taker: Taker) -> None:
        """The run, to the taker's method for its kind."""
        if self.events is not None:
            taker.take_states(self.events, self.texts, self.index)
        else:
            taker.take_deltas(
                self.etype, self.first, self.index, self.ident, self.deltas, self.texts
            )


def _json_array(texts: list[str]) -> str:
    """``"[" + ",".join(texts) + "]"``, copied once: the brackets go on the end texts, not
    around the joined whole (a batch is tens of KB)."""
    if len(texts) < 2:
        return "[" + "".join(texts) + "]"
    return ",".join(["[" + texts[0], *texts[1:-1], texts[-1] + "]"])


def event_from_text(data: str) -> BaseModel:
    """The event model of a text :meth:`EventParser.read` handed over as a plain event."""
    fields = _plain.json_value(data)  # json.loads for what pydantic-core's parser refuses
    return EVENT_MODELS[fields["type"]].model_validate(fields)


def type_of(event: BaseModel) -> str:
    """The wire ``type`` of an event produced by :class:`EventParser` (e.g. ``"RUN_STARTED"``)."""
    return _TYPE_OF[type(event)]
