"""One run's events into its order verifier, its reducer and what it keeps. Pure.

The run loop (``_thread``) reads batches of event texts from the transport and hands them here:

- :meth:`RunFeed.event` takes one parsed event (a model): verified, reduced, counted, kept. A
  run whose events someone iterates goes this way, event by event.
- :meth:`RunFeed.texts` takes a batch of texts when nobody iterates (``Thread.run``), read by
  the parser's batch reader (``EventParser.read``, which counts them): the frequent events stay
  plain (``_protocol.plain``: their decoded JSON, no model), and a run of deltas to one message
  or tool call, with nothing else in between, is verified once and appended in one go
  (consecutive STATE_DELTAs, patched together when they all apply): the same verdicts, at the
  same event indexes, and the same reducer state as event by event, since nothing in such a
  run changes what the next one is checked against.
  ``tests/state/test_feed.py`` holds both ways to each other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from pydantic import BaseModel

from .._protocol.events import EventParser, event_from_text, type_of
from .._protocol.verify import OrderVerifier
from .reducer import RunReducer

__all__ = ["KeptEvents", "RunFeed", "Tally"]


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

    __slots__ = ("_parse", "_parser", "_reducer", "_tally", "_verifier", "kept", "last_type")

    def __init__(
        self,
        parser: EventParser,
        verifier: OrderVerifier,
        reducer: RunReducer,
        kept: KeptEvents,
        tally: Tally,
    ) -> None:
        self._parser = parser
        #: What reads a text that is not plain (the parser, or what texts() was given).
        self._parse: Callable[[str], list[BaseModel]] = parser.parse
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
        self._parse = parse
        self._parser.read(texts if type(texts) is list else list(texts), self)

    # -- what the parser's batch reader hands over (``_protocol.events.Taker``) -------------

    def take_plain(self, etype: str, event: Any, text: str, index: int) -> None:
        """One plain event: verified, reduced, kept as its text."""
        if self._verifier.check(etype, event, index):
            self._reducer.apply(etype, event)
            self._taken(etype, [text])

    def take_deltas(
        self, etype: str, first: Any, index: int, ident: str, deltas: list[str], texts: list[str]
    ) -> None:
        """Deltas to one message or tool call: checked as the first one is (the rest are
        checked against the same state), applied together."""
        self._verifier.check(etype, first, index)  # raises, or passes them all
        self._reducer.extend(etype, ident, deltas)
        self._taken(etype, texts)

    def take_states(self, events: list[Any], texts: list[str], index: int) -> None:
        """Consecutive STATE_DELTAs: checked as the first one is (a delta's verdict depends on
        the run's phase alone), applied in one patch when they all apply and nothing said comes
        between them (else one by one, warnings in order)."""
        self._verifier.check("STATE_DELTA", events[0], index)
        if (
            len(events) > 1
            and not self.kept.fills(len(events))
            and self._reducer.patch_together([event.delta for event in events])
        ):
            self._taken("STATE_DELTA", texts)
            return
        for event, data in zip(events, texts, strict=True):
            self._reducer.apply("STATE_DELTA", event)
            self._taken("STATE_DELTA", [data])

    def take_text(self, text: str) -> None:
        """A text that is not plain: parsed into its events (models), each taken as
        :meth:`event` takes it."""
        for model in self._parse(text):
            self.event(type_of(model), model)

    def _taken(self, etype: str, events: list[Any]) -> None:
        tally = self._tally
        tally.event_count += len(events)
        self.last_type = etype
        if self.kept.add(events):
            tally.warnings.append(f"kept the first {self.kept.cap} events of this run only")
