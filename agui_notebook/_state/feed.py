"""One run's events into its order verifier, its reducer and what it keeps. Pure.

The run loop (``_thread``) reads batches of event texts from the transport and hands them here:

- :meth:`RunFeed.event` takes one parsed event (a model): verified, reduced, counted, kept. A
  run whose events someone iterates goes this way, event by event.
- :meth:`RunFeed.texts` takes a batch of texts when nobody iterates (``Thread.run``): the
  frequent events stay plain (``_protocol.plain``: their decoded JSON, no model; a batch of
  only those is decoded in one call), and a run of deltas to one message or tool call, with
  nothing else in between, is verified once and appended in one go: the same verdicts, at the
  same event indexes, and the same reducer state as event by event, since nothing in such a
  run changes what the next one is checked against.
  ``tests/state/test_feed.py`` holds both ways to each other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from pydantic import BaseModel

from .._protocol.events import EventParser, event_from_text, type_of
from .._protocol.plain import delta_prefix
from .._protocol.verify import OrderVerifier
from .reducer import RunReducer

__all__ = ["KeptEvents", "RunFeed", "Tally"]

# Deltas that may run together: type -> what they continue (attribute, wire name).
_RUNS = {
    "TEXT_MESSAGE_CONTENT": ("message_id", "messageId"),
    "REASONING_MESSAGE_CONTENT": ("message_id", "messageId"),
    "TOOL_CALL_ARGS": ("tool_call_id", "toolCallId"),
}


class Tally(Protocol):
    """Where a run's count of events and its warnings go (the run's record)."""

    event_count: int
    warnings: list[str]


class KeptEvents:
    """The events a run keeps, in order, up to ``cap`` (None: all): models, and the texts of
    plain events, which become models the first time someone reads them. A text, unlike its
    decoded object, is nothing the cyclic collector walks: a run that keeps thousands of
    objects until it ends sets off full collections of the whole heap."""

    __slots__ = ("_built", "cap", "items", "overflowed")

    def __init__(self, cap: int | None = None) -> None:
        self.cap = cap
        self.items: list[BaseModel | str] = []
        self.overflowed = False  # an event past the cap arrived
        self._built = 0  # items before this index are models

    def fills(self, count: int) -> bool:
        """True when ``count`` more events would go past the cap for the first time."""
        return not self.overflowed and self.cap is not None and len(self.items) + count > self.cap

    def add(self, items: list[Any]) -> bool:
        """Keep what fits of ``items``; True the first time one does not."""
        if self.overflowed:
            return False  # full: what comes after the cap is not kept
        if self.cap is None or len(self.items) + len(items) <= self.cap:
            self.items.extend(items)
            return False
        self.items.extend(items[: max(self.cap - len(self.items), 0)])
        first, self.overflowed = not self.overflowed, True
        return first

    def models(self) -> list[BaseModel]:
        items = self.items
        for i in range(self._built, len(items)):
            item = items[i]
            if type(item) is str:
                items[i] = event_from_text(item)
        self._built = len(items)
        return items  # type: ignore[return-value]  # every item is a model now


class RunFeed:
    """A run's parser, verifier and reducer, fed in order; counts into ``tally``."""

    __slots__ = ("_parser", "_reducer", "_tally", "_verifier", "kept", "last_type")

    def __init__(
        self,
        parser: EventParser,
        verifier: OrderVerifier,
        reducer: RunReducer,
        kept: KeptEvents,
        tally: Tally,
    ) -> None:
        self._parser = parser
        self._verifier = verifier
        self._reducer = reducer
        self._tally = tally
        self.kept = kept
        #: The type of the last event taken (for saying where a stream broke).
        self.last_type: str | None = None

    def event(self, etype: str, event: BaseModel) -> bool:
        """Verify, reduce and keep one event; False when the verifier drops it (warned)."""
        if not self._verifier.check(etype, event, self._parser.index):
            return False
        self._reducer.apply(etype, event)
        self._taken(etype, [event])
        return True

    def texts(self, texts: Iterable[str], parse: Callable[[str], list[BaseModel]]) -> None:
        """Every text of a batch, in order, with nobody iterating the events; ``parse`` reads
        what is not plain (the parser's own path, perhaps behind a credential guard)."""
        parser = self._parser
        texts = texts if type(texts) is list else list(texts)
        if len(texts) > 1:
            events = parser.parse_plains(texts)
            if events is not None:
                self._plains(texts, events, parse)
                return
        parse_plain, parse_deltas = parser.parse_plain, parser.parse_deltas
        check, apply = self._verifier.check, self._reducer.apply
        run: _Run | None = None  # consecutive deltas to one thing, not yet verified or applied
        states: list[Any] = []  # consecutive STATE_DELTAs, not yet verified or applied
        states_at = 0  # the first one's index
        at, count = 0, len(texts)
        while at < count:
            data = texts[at]
            at += 1
            found = parse_plain(data)
            if found is not None and found[0] == "STATE_DELTA":
                if run is not None:
                    self._run(run)
                    run = None
                if not states:
                    states_at = parser.index
                states.append((found[1], data))
                continue
            if states:
                self._states(states, states_at)
                states = []
            if found is not None:
                etype, event = found
                attr = _RUNS.get(etype)
                if attr is not None and not event.metadata:
                    if run is None or not run.continues(etype, event):
                        if run is not None:
                            self._run(run)
                        run = _Run(etype, event, parser.index)
                    run.deltas.append(event.delta)
                    run.texts.append(data)
                    if run.prefix is not None:  # the same layout again: only the deltas read
                        end = parse_deltas(texts, at, run.prefix, run.deltas)
                        run.texts.extend(texts[at:end])
                        at = end
                    continue
                if run is not None:
                    self._run(run)
                    run = None
                if check(etype, event, parser.index):
                    apply(etype, event)
                    self._taken(etype, [data])
                continue
            if run is not None:
                self._run(run)
                run = None
            for model in parse(data):
                self.event(type_of(model), model)
        if run is not None:
            self._run(run)
        if states:
            self._states(states, states_at)

    def _plains(
        self, texts: list[str], events: list[Any], parse: Callable[[str], list[BaseModel]]
    ) -> None:
        """A batch :meth:`EventParser.parse_plains` read (``events[i]``: ``texts[i]``'s, None
        where the parser must read it): taken as :meth:`texts` takes each plain event, a run
        of deltas and consecutive STATE_DELTAs together, the parser told what it took."""
        parser = self._parser
        check, apply = self._verifier.check, self._reducer.apply
        at, count = 0, len(texts)
        while at < count:
            event = events[at]
            if event is None:  # a check refused it: the parser reads it, and words any error
                for model in parse(texts[at]):
                    self.event(type_of(model), model)
                at += 1
                if parser.in_chunk:  # what follows may close a chunk stream: event by event
                    self.texts(texts[at:], parse)
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
                while at < count:
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
                first_index = parser.index + 1
                parser.count_plain(etype, event, at - start)
                self._deltas(etype, event, first_index, ident, deltas, texts[start:at])
                continue
            if etype == "STATE_DELTA":
                states = [(event, texts[start])]
                while at < count:
                    other = events[at]
                    if other is None or other.etype != "STATE_DELTA":
                        break
                    states.append((other, texts[at]))
                    at += 1
                first_index = parser.index + 1
                parser.count_plain(etype, event, at - start)
                self._states(states, first_index)
                continue
            parser.count_plain(etype, event)
            if check(etype, event, parser.index):
                apply(etype, event)
                self._taken(etype, [texts[start]])

    def _run(self, run: _Run) -> None:
        self._deltas(run.etype, run.first, run.index, run.ident, run.deltas, run.texts)

    def _deltas(
        self, etype: str, first: Any, index: int, ident: str, deltas: list[str], texts: list[str]
    ) -> None:
        """Deltas to one message or tool call ``ident`` (their texts ``texts``), the first
        (``first``) at event ``index``: checked as the first one is (the rest are checked
        against the same state), applied together."""
        self._verifier.check(etype, first, index)  # raises, or passes them all
        self._reducer.extend(etype, ident, deltas)
        self._taken(etype, texts)

    def _states(self, states: list[tuple[Any, str]], index: int) -> None:
        """Consecutive STATE_DELTAs, the first at event ``index``: checked as the first one is
        (a delta's verdict depends on the run's phase alone), applied in one patch when they
        all apply and nothing said comes between them (else one by one, warnings in order)."""
        self._verifier.check("STATE_DELTA", states[0][0], index)
        if (
            len(states) > 1
            and not self.kept.fills(len(states))
            and self._reducer.patch_together([event.delta for event, _ in states])
        ):
            self._taken("STATE_DELTA", [data for _, data in states])
            return
        for event, data in states:
            self._reducer.apply("STATE_DELTA", event)
            self._taken("STATE_DELTA", [data])

    def _taken(self, etype: str, events: list[Any]) -> None:
        tally = self._tally
        tally.event_count += len(events)
        self.last_type = etype
        if self.kept.add(events):
            tally.warnings.append(f"kept the first {self.kept.cap} events of this run only")


class _Run:
    """Consecutive deltas to one message or tool call, with one subagent tag (or none)."""

    __slots__ = ("deltas", "etype", "first", "ident", "index", "prefix", "tag", "texts")

    def __init__(self, etype: str, first: Any, index: int) -> None:
        attr, wire = _RUNS[etype]
        self.etype = etype
        self.first = first  # what the verifier checks
        self.ident = getattr(first, attr)
        self.tag = first.subagent_run_id
        self.index = index  # the first event's index
        self.deltas: list[str] = []
        self.texts: list[str] = []  # what the result keeps of them
        #: How the next delta's text begins when it repeats the compact layout (untagged).
        self.prefix = None if self.tag is not None else delta_prefix(etype, wire, self.ident)

    def continues(self, etype: str, event: Any) -> bool:
        return (
            etype == self.etype
            and getattr(event, _RUNS[etype][0]) == self.ident
            and event.subagent_run_id == self.tag
        )
