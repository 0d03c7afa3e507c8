"""Event order verification: the run lifecycle as a small state machine. Pure.

Implements AG-UI 1.1 "Runs and Steps", the streaming pattern and the subagent rules: a stream
opens with RUN_STARTED or RUN_ERROR; messages, tool calls, reasoning and steps open before they
continue and close before RUN_FINISHED; every announced subagent invocation closes before it too;
after RUN_FINISHED only a new RUN_STARTED or a late RUN_ERROR may follow; after RUN_ERROR only a
new RUN_STARTED. Attribution is checked: a continuation tagged with a ``subagentRunId`` other than
its opener's is rejected (an untagged one continues whatever the opener owns). Run-scoped tracking
resets at every RUN_STARTED. A violation is a :class:`ProtocolError`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from .._errors import ProtocolError

__all__ = ["OrderVerifier"]

_OPENERS = {
    "TEXT_MESSAGE_START": ("message", "message_id"),
    "TOOL_CALL_START": ("tool call", "tool_call_id"),
    "REASONING_MESSAGE_START": ("reasoning message", "message_id"),
    "REASONING_START": ("reasoning span", "message_id"),
}
_CONTINUERS = {
    "TEXT_MESSAGE_CONTENT": ("message", "message_id", False),
    "TEXT_MESSAGE_END": ("message", "message_id", True),
    "TOOL_CALL_ARGS": ("tool call", "tool_call_id", False),
    "TOOL_CALL_END": ("tool call", "tool_call_id", True),
    "REASONING_MESSAGE_CONTENT": ("reasoning message", "message_id", False),
    "REASONING_MESSAGE_END": ("reasoning message", "message_id", True),
    "REASONING_END": ("reasoning span", "message_id", True),
}
_MISSING: Any = object()


def _describe(kind: str, ident: Any) -> str:
    if kind == "step":
        name, owner = ident
        return f"step {name!r}" + ("" if owner is None else f" of {_who(owner)}")
    return f"{kind} {ident!r}"


def _same_owner(tag: str | None, owner: Any, index: int, says: Callable[[], str]) -> None:
    """An item attributed to a subagent (``tag``) must be its owner's: else ``says()`` is the error."""
    if tag is not None and tag != owner:
        raise ProtocolError(says(), event_index=index)


def _who(owner: str | None) -> str:
    return "the parent agent" if owner is None else f"subagent {owner!r}"


class OrderVerifier:
    """Feed every event (after chunk expansion) in order; raises on the first violation.

    ``known_tool_calls`` are the thread's closed tool calls: a TOOL_CALL_END closing one of them
    again is dropped with a warning instead of failing the run (Microsoft Agent Framework opens its
    re-issue stream with one; see docs/architecture.md). Pass ``()`` for the spec's verdict.
    """

    def __init__(
        self,
        known_tool_calls: Collection[str] = (),
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.phase = "init"  # init | active | finished | failed
        self._known_calls = known_tool_calls
        self._warn = warn
        self._open: dict[tuple[str, Any], str | None] = {}  # (kind, id) -> owner
        self._owners: dict[tuple[str, str], str | None] = {}  # everything opened this run
        self._activities: dict[str, str | None] = {}
        self._subagents: dict[str, str] = {}  # active invocations: id -> name
        self._subagents_done: set[str] = set()
        self._run_id: str | None = None
        self.runs_started = 0

    def check(self, etype: str, event: Any, index: int) -> bool:
        """Raise on a violation; return False for an event to drop (tolerated, warned)."""
        if self.phase != "active":
            return self._closed(etype, event, index)
        continuer = _CONTINUERS.get(etype)
        if continuer is not None:
            return self._continues(
                etype, continuer, getattr(event, continuer[1]), event.subagent_run_id, index
            )
        opener = _OPENERS.get(etype)
        if opener is not None:
            self._opening(etype, event, opener, index)
        elif etype in ("STEP_STARTED", "STEP_FINISHED"):
            self._step(etype, event, index)
        elif etype in ("SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR"):
            self._subagent(etype, event, index)
        elif etype in ("ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA"):
            self._activity(etype, event, index)
        elif etype == "RUN_FINISHED":
            self._finish(event, index)
        elif etype == "RUN_ERROR":
            self.phase = "failed"  # RUN_ERROR ends whatever was open along with the run
        elif etype == "RUN_STARTED":
            raise ProtocolError("RUN_STARTED while a run is active", event_index=index)
        return True

    def _continues(
        self, etype: str, continuer: tuple[str, str, bool], ident: Any, tag: Any, index: int
    ) -> bool:
        """An event continuing (or closing) an open message, tool call or reasoning."""
        kind, _, closes = continuer
        key = (kind, ident)
        owner = self._open.get(key, _MISSING)
        if owner is _MISSING:
            if etype == "TOOL_CALL_END" and ident in self._known_calls:
                if self._warn is not None:
                    self._warn(f"ignored TOOL_CALL_END for tool call {ident!r}, already closed")
                return False
            raise ProtocolError(
                f"{etype} for a {kind} that is not open: {ident!r}", event_index=index
            )
        if tag is not None and tag != owner:
            raise ProtocolError(
                f"{etype} attributed to {_who(tag)} continues {kind} {ident!r}, which "
                f"{_who(owner)} opened",
                event_index=index,
            )
        if closes:
            del self._open[key]
        return True

    # -- lifecycle --------------------------------------------------------------------------

    def _closed(self, etype: str, event: Any, index: int) -> bool:
        phase = self.phase
        if etype == "RUN_STARTED":
            self._start(event)  # a new run on the same stream (1.1 lifecycle: several runs)
            return True
        if etype == "RUN_ERROR" and phase in ("init", "finished"):
            self.phase = "failed"  # a failure before the run began, or a late failure
            return True
        if phase == "init":
            raise ProtocolError(
                f"the stream must begin with RUN_STARTED or RUN_ERROR, not {etype}",
                event_index=index,
            )
        after = "RUN_FINISHED" if phase == "finished" else "RUN_ERROR"
        raise ProtocolError(f"{etype} after {after}", event_index=index)

    def _start(self, event: Any) -> None:
        self.phase = "active"
        self._open.clear()
        self._owners.clear()
        self._activities.clear()
        self._subagents.clear()
        self._subagents_done.clear()
        self._run_id = getattr(event, "run_id", None)
        self.runs_started += 1

    def _finish(self, event: Any, index: int) -> None:
        if self._open:
            still = ", ".join(_describe(k, i) for k, i in list(self._open)[:5])
            raise ProtocolError(f"RUN_FINISHED while still open: {still}", event_index=index)
        if self._subagents:
            active = ", ".join(repr(i) for i in self._subagents)
            raise ProtocolError(
                f"RUN_FINISHED while subagent invocation(s) {active} are still active",
                event_index=index,
            )
        if self._run_id is not None and event.run_id != self._run_id:
            raise ProtocolError(
                f"RUN_FINISHED closes run {event.run_id!r} but the run is {self._run_id!r}",
                event_index=index,
            )
        outcome = getattr(event, "outcome", None)
        if outcome is not None and outcome.type == "interrupt":
            seen: set[str] = set()
            for interrupt in outcome.interrupts:
                if interrupt.id in seen:
                    raise ProtocolError(
                        f"two interrupts share the id {interrupt.id!r}; a resume could not "
                        "answer them apart",
                        event_index=index,
                    )
                seen.add(interrupt.id)
        self.phase = "finished"

    # -- items ------------------------------------------------------------------------------

    def _opening(self, etype: str, event: Any, opener: tuple[str, str], index: int) -> None:
        kind, attr = opener
        ident = getattr(event, attr)
        key = (kind, ident)
        if key in self._open:
            raise ProtocolError(f"{etype} for a {kind} already open: {ident!r}", event_index=index)
        tag = event.subagent_run_id
        owner = tag
        # Reopening an item of this run continues its owner's (1.1 text-messages, tool-calls).
        previous = self._owners.get(key, _MISSING)
        if previous is not _MISSING:
            _same_owner(
                tag,
                previous,
                index,
                lambda: (
                    f"{etype} attributed to {_who(tag)} reopens "
                    f"{kind} {ident!r} of {_who(previous)}"
                ),
            )
            owner = previous
        if etype == "TOOL_CALL_START" and event.parent_message_id is not None:
            # A tool call belongs to the message that carries it (1.1 subagents, ownership).
            parent_id = event.parent_message_id
            parent = self._owners.get(("message", parent_id), _MISSING)
            if parent is not _MISSING:
                _same_owner(
                    tag,
                    parent,
                    index,
                    lambda: (
                        f"tool call {ident!r} is attributed to "
                        f"{_who(tag)} but its message {parent_id!r} belongs to {_who(parent)}"
                    ),
                )
                if tag is None:
                    owner = parent
        self._open[key] = owner
        self._owners[key] = owner

    def _step(self, etype: str, event: Any, index: int) -> None:
        # Steps are per owner: a parent and a subagent may each have one of the same name open,
        # and a STEP_FINISHED closes the one with its own attribution (1.1 subagents).
        tag = event.subagent_run_id
        key = ("step", (event.step_name, tag))
        whose = "" if tag is None else f" of {_who(tag)}"
        if etype == "STEP_STARTED":
            if key in self._open:
                raise ProtocolError(
                    f"STEP_STARTED for a step{whose} already open: {event.step_name!r}",
                    event_index=index,
                )
            self._open[key] = tag
        elif key not in self._open:
            raise ProtocolError(
                f"STEP_FINISHED for a step{whose} that is not open: {event.step_name!r}",
                event_index=index,
            )
        else:
            del self._open[key]

    def _activity(self, etype: str, event: Any, index: int) -> None:
        mid = event.message_id
        tag = event.subagent_run_id
        if etype == "ACTIVITY_SNAPSHOT":
            if event.replace is not False or mid not in self._activities:
                self._activities[mid] = tag  # a replacing snapshot re-mints the owner
            return
        owner = self._activities.get(mid, _MISSING)
        if owner is not _MISSING and tag is not None and tag != owner:
            raise ProtocolError(
                f"ACTIVITY_DELTA attributed to {_who(tag)} amends activity {mid!r} of "
                f"{_who(owner)}",
                event_index=index,
            )

    def _subagent(self, etype: str, event: Any, index: int) -> None:
        sid = event.subagent_run_id
        if etype == "SUBAGENT_STARTED":
            if sid in self._subagents:
                raise ProtocolError(
                    f"SUBAGENT_STARTED for invocation {sid!r}, which is already active",
                    event_index=index,
                )
            if sid in self._subagents_done:
                raise ProtocolError(
                    f"SUBAGENT_STARTED reuses invocation id {sid!r}, finished earlier in this run",
                    event_index=index,
                )
            parent = event.parent_subagent_run_id
            known = parent in self._subagents or parent in self._subagents_done
            if parent is not None and not known:
                raise ProtocolError(
                    f"subagent {sid!r} names parent invocation {parent!r}, which was never "
                    "announced in this run",
                    event_index=index,
                )
            self._subagents[sid] = event.name
            return
        if sid not in self._subagents:
            done = " (it already ended)" if sid in self._subagents_done else ""
            raise ProtocolError(
                f"{etype} for subagent invocation {sid!r}, which is not active{done}",
                event_index=index,
            )
        del self._subagents[sid]
        self._subagents_done.add(sid)
