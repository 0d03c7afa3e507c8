"""One run's events into its order verifier, its reducer and what it keeps. Pure.

The run loop (``_thread``) reads batches of event texts from the transport and hands them here:

- :meth:`RunFeed.event` takes one parsed event (a model): verified, reduced, counted, kept. A
  run whose events someone iterates goes this way, event by event.
- :meth:`RunFeed.texts` takes a batch of texts when nobody iterates (``Thread.run``): the
  frequent events stay plain (``_protocol.plain``: their decoded JSON, no model), and a run of
  deltas to one message or tool call, with nothing else in between, is verified once and
  appended in one go: the same verdicts, at the same event indexes, and the same reducer state
  as event by event, since nothing in such a run changes what the next one is checked against.
  ``tests/state/test_feed.py`` holds both ways to each other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from pydantic import BaseModel

from .._protocol.events import EventParser, event_from_plain, type_of
from .._protocol.verify import OrderVerifier
from .reducer import RunReducer

__all__ = ["KeptEvents", "RunFeed", "Tally"]

Plain = tuple[str, dict[str, Any]]
# Deltas that may run together: type -> the wire name of what they continue.
_RUNS = {
    "TEXT_MESSAGE_CONTENT": "messageId",
    "REASONING_MESSAGE_CONTENT": "messageId",
    "TOOL_CALL_ARGS": "toolCallId",
}


class Tally(Protocol):
    """Where a run's count of events and its warnings go (the run's record)."""

    event_count: int
    warnings: list[str]


class KeptEvents:
    """The events a run keeps, in order, up to ``cap`` (None: all): models, and plain events
    ``(type, object)`` that become models the first time someone reads them."""

    __slots__ = ("_built", "cap", "items", "overflowed")

    def __init__(self, cap: int | None = None) -> None:
        self.cap = cap
        self.items: list[BaseModel | Plain] = []
        self.overflowed = False  # an event past the cap arrived
        self._built = 0  # items before this index are models

    def add(self, items: list[Any]) -> bool:
        """Keep what fits of ``items``; True the first time one does not fit."""
        room = len(items) if self.cap is None else self.cap - len(self.items)
        if room >= len(items):
            self.items.extend(items)
            return False
        self.items.extend(items[: max(room, 0)])
        first, self.overflowed = not self.overflowed, True
        return first

    def models(self) -> list[BaseModel]:
        items = self.items
        for i in range(self._built, len(items)):
            item = items[i]
            if type(item) is tuple:
                items[i] = event_from_plain(*item)
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
        parse_plain = self._parser.parse_plain
        check_plain = self._verifier.check_plain
        apply_plain = self._reducer.apply_plain
        run: list[Plain] = []  # consecutive deltas to one thing, not yet verified or applied
        run_type = run_ident = run_tag = None
        run_index = 0
        for data in texts:
            found = parse_plain(data)
            if found is not None:
                etype, fields = found
                wire = _RUNS.get(etype)
                if wire is not None and not fields.get("metadata"):
                    ident, tag = fields[wire], fields.get("subagentRunId")
                    if run and etype == run_type and ident == run_ident and tag == run_tag:
                        run.append(found)
                        continue
                    if run:
                        self._run(run, run_index)
                    run = [found]
                    run_type, run_ident, run_tag = etype, ident, tag
                    run_index = self._parser.index
                    continue
                if run:
                    self._run(run, run_index)
                    run = []
                if check_plain(etype, fields, self._parser.index):
                    apply_plain(etype, fields)
                    self._taken(etype, [found])
                continue
            if run:
                self._run(run, run_index)
                run = []
            for event in parse(data):
                self.event(type_of(event), event)
        if run:
            self._run(run, run_index)

    def _run(self, run: list[Plain], index: int) -> None:
        """Deltas to one message or tool call, the first at event ``index``: checked as the
        first one is (the rest are checked against the same state), applied together."""
        etype, fields = run[0]
        self._verifier.check_plain(etype, fields, index)  # raises, or lets all of them pass
        self._reducer.extend_plain(etype, fields, [f["delta"] for _, f in run])
        self._taken(etype, run)

    def _taken(self, etype: str, events: list[Any]) -> None:
        tally = self._tally
        tally.event_count += len(events)
        self.last_type = etype
        if self.kept.add(events):
            tally.warnings.append(f"kept the first {self.kept.cap} events of this run only")
