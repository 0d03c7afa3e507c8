"""Streamed text scrubbed across its deltas: a secret split between two is caught. Pure.

:class:`~.secrets.Scrubber` cleans each SSE message's data before it is parsed, but a streamed
text (a message's deltas, a tool call's arguments) can split a secret across events (``"sk-li"``,
``"ve-1234567"``): each delta would pass alone. :class:`DeltaGuard` holds back a delta's tail
that could begin a secret until the next delta (or the stream's end) shows whether it does, and
judges a short secret's token edges with the characters on both sides. :class:`EventGuard` does
this for one response's events: the client's (models, after ``EventParser.parse``) or a
recording's (wire dicts).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .secrets import Scrubber

__all__ = ["DeltaGuard", "EventGuard"]


class DeltaGuard:
    """Scrubs streamed text (deltas keyed by message or tool call) across delta boundaries.

    A tail that could begin a secret waits for the next delta (or the stream's end); a short
    secret's token edges are judged with the characters on both sides, even in other deltas.
    """

    def __init__(self, scrubber: Scrubber) -> None:
        self._scrubber = scrubber
        self._held: dict[Any, str] = {}
        self._shown: dict[Any, str] = {}  # the last characters shown, for token edges

    def passes(self, delta: str) -> bool:
        """True when a delta whose event held no secret form can go out as it is, untracked:
        nothing is held, no short secret needs its edges, and its end cannot begin a secret."""
        scrubber = self._scrubber
        return not (self._held or scrubber.has_short or delta.endswith(scrubber.tails))

    @property
    def held(self) -> bool:
        """Some stream has a tail waiting for its next delta."""
        return bool(self._held)

    def feed(self, key: Any, delta: str, *, clean: bool = False) -> str:
        """The part of ``delta`` (after what was held) that can be shown now, scrubbed.

        ``clean``: ``delta`` holds no secret form at all (its event's data had none).
        """
        scrubber = self._scrubber
        held = self._held.pop(key, None) if self._held else None
        if held is None and clean and not scrubber.holdback(delta):
            if scrubber.has_short:  # its token edges may need what was shown
                shown = delta if len(delta) > 1 else self._shown.get(key, "") + delta
                self._shown[key] = shown[-2:]
            return delta
        text = delta if held is None else held + delta
        cut = len(text) - scrubber.holdback(text)
        if not scrubber.has_short and not scrubber.might_contain(text):
            out = text[:cut]  # no secret in it, and no token edges to judge
        else:
            shown = self._shown.get(key, "")
            out, cut = scrubber.scrub_head(shown, text, cut)
            if cut:
                self._shown[key] = (shown + text[:cut])[-2:]
        if cut < len(text):
            self._held[key] = text[cut:]
        return out

    def flush(self, key: Any) -> str:
        """The held text of a stream that ended, scrubbed."""
        text = self._held.pop(key, "")
        shown = self._shown.pop(key, "")  # (only kept when a short secret needs it)
        return self._scrubber.scrub_head(shown, text, len(text))[0] if text else ""

    def held_keys(self) -> list[Any]:
        return list(self._held)


# Streamed texts: the delta events and the events that end their stream, with the stream's
# kind (text and reasoning message ids share one space, tool call ids another) and its id field.
_DELTAS = {
    "TEXT_MESSAGE_CONTENT": ("message", "message_id"),
    "REASONING_MESSAGE_CONTENT": ("message", "message_id"),
    "TOOL_CALL_ARGS": ("tool", "tool_call_id"),
}
_ENDS = {
    "TEXT_MESSAGE_END": ("message", "message_id"),
    "REASONING_MESSAGE_END": ("message", "message_id"),
    "TOOL_CALL_END": ("tool", "tool_call_id"),
}
_WIRE_ID = {"message_id": "messageId", "tool_call_id": "toolCallId"}


class EventGuard:
    """One response's events, scrubbed: each SSE message's data before ``parse``, then streamed
    deltas across event boundaries (a held tail is sent before the event that ends its stream,
    or before RUN_FINISHED / RUN_ERROR).

    Events are ``ag_ui.core`` models (the client; ``parse`` is ``EventParser.parse`` and
    ``type_of`` names an event) or, with ``wire=True``, wire dicts (a recording).
    """

    def __init__(
        self,
        scrubber: Scrubber,
        parse: Callable[[str], list[Any]],
        type_of: Callable[[Any], Any],
        *,
        wire: bool = False,
    ) -> None:
        self._scrubber = scrubber
        self._parse = parse
        self._type_of = type_of
        self._wire = wire
        self._deltas = DeltaGuard(scrubber)
        self._last: dict[tuple[str, Any], Any] = {}  # stream -> its latest delta event

    def parse(self, data: str) -> list[Any]:
        scrubber = self._scrubber
        if scrubber.might_contain(data):
            return self.apply(self._parse(scrubber.json_text(data, keep_streamed=True)))
        events = self._parse(data)
        if len(events) == 1 and not (self._deltas._held or scrubber.has_short):
            # The common case, kept cheap: nothing is held, so only a streamed text whose end
            # could begin a secret needs the guard (other events have no str delta).
            delta = getattr(events[0], "delta", None)
            if delta.__class__ is not str or not delta.endswith(scrubber.tails):
                return events
        return self.apply(events, clean=True)

    def apply(self, events: list[Any], *, clean: bool = False) -> list[Any]:
        """``events`` (from one SSE message) with streamed deltas guarded; ``clean``: that
        message held no secret form."""
        out: list[Any] = []
        passes = self._deltas.passes
        for event in events:
            etype = self._type_of(event)
            stream = _DELTAS.get(etype)
            if stream is not None:
                delta = event.get("delta") if self._wire else event.delta
                if not isinstance(delta, str) or (clean and passes(delta)):
                    out.append(event)  # as it is (malformed: the parser says so)
                    continue
                key = (stream[0], self._get(event, stream[1]))
                self._last[key] = event
                text = self._deltas.feed(key, delta, clean=clean)
                if text:
                    out.append(event if text == delta else self._with_delta(event, text))
                continue
            stream = _ENDS.get(etype)
            if stream is not None:
                self._flush((stream[0], self._get(event, stream[1])), out)
            elif etype in ("RUN_FINISHED", "RUN_ERROR"):
                for key in self._deltas.held_keys():
                    self._flush(key, out)
            out.append(event)
        return out

    def _flush(self, key: tuple[str, Any], out: list[Any]) -> None:
        text = self._deltas.flush(key)
        template = self._last.pop(key, None)
        if text and template is not None:
            out.append(self._with_delta(template, text, copy=True))

    def _get(self, event: Any, name: str) -> Any:
        if self._wire:
            return event.get(_WIRE_ID.get(name, name)) if isinstance(event, dict) else None
        return getattr(event, name, None)

    def _with_delta(self, event: Any, text: str, *, copy: bool = False) -> Any:
        if self._wire:
            return {**event, "delta": text}
        if copy:
            return event.model_copy(update={"delta": text})
        # The parser's fresh object, seen by no one yet: set the field in place, without
        # pydantic's __setattr__ (no validation is wanted, and this runs for many deltas).
        event.__dict__["delta"] = text
        return event
