"""Event order verification: the run lifecycle as a small state machine. Pure.

Implements AG-UI 1.1 "Runs and Steps" and the streaming patterns: a stream opens with
RUN_STARTED or RUN_ERROR; messages, tool calls, reasoning and steps open before they continue and
close before RUN_FINISHED; after RUN_FINISHED only a new RUN_STARTED or a late RUN_ERROR may
follow; after RUN_ERROR only a new RUN_STARTED. A violation is a :class:`ProtocolError`.
"""

from __future__ import annotations

from ._errors import ProtocolError

__all__ = ["OrderVerifier"]

_OPENERS = {
    "TEXT_MESSAGE_START": ("message", "message_id"),
    "TOOL_CALL_START": ("tool call", "tool_call_id"),
    "REASONING_MESSAGE_START": ("reasoning message", "message_id"),
    "REASONING_START": ("reasoning phase", "message_id"),
    "STEP_STARTED": ("step", "step_name"),
}
_CONTINUERS = {
    "TEXT_MESSAGE_CONTENT": ("message", "message_id", False),
    "TEXT_MESSAGE_END": ("message", "message_id", True),
    "TOOL_CALL_ARGS": ("tool call", "tool_call_id", False),
    "TOOL_CALL_END": ("tool call", "tool_call_id", True),
    "REASONING_MESSAGE_CONTENT": ("reasoning message", "message_id", False),
    "REASONING_MESSAGE_END": ("reasoning message", "message_id", True),
    "REASONING_END": ("reasoning phase", "message_id", True),
    "STEP_FINISHED": ("step", "step_name", True),
}


class OrderVerifier:
    """Feed every event (after chunk expansion) in order; raises on the first violation."""

    def __init__(self, known_tool_calls: object = (), warn: object = None) -> None:
        self.phase = "init"  # init | active | finished | failed
        # Tolerance for servers that close, again, a tool call the thread already holds
        # (Microsoft Agent Framework does after mixed decisions): dropped with a warning.
        self._known_calls = known_tool_calls
        self._warn = warn
        self._open: dict[tuple[str, str], None] = {}
        self.runs_started = 0

    def check(self, etype: str, event: object, index: int) -> bool:
        """Raise on a violation; return False for an event to drop (tolerated, warned)."""
        phase = self.phase
        if phase != "active":
            if etype == "RUN_STARTED":
                self._start()
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

        if etype in _CONTINUERS:
            kind, attr, closes = _CONTINUERS[etype]
            key = (kind, getattr(event, attr))
            if key not in self._open:
                if etype == "TOOL_CALL_END" and key[1] in self._known_calls:  # type: ignore[operator]
                    if callable(self._warn):
                        self._warn(
                            f"ignored TOOL_CALL_END for tool call {key[1]!r}, already closed"
                        )
                    return False
                raise ProtocolError(
                    f"{etype} for a {kind} that is not open: {key[1]!r}", event_index=index
                )
            if closes:
                del self._open[key]
        elif etype in _OPENERS:
            kind, attr = _OPENERS[etype]
            key = (kind, getattr(event, attr))
            if key in self._open:
                raise ProtocolError(
                    f"{etype} for a {kind} already open: {key[1]!r}", event_index=index
                )
            self._open[key] = None
        elif etype == "RUN_FINISHED":
            if self._open:
                still = ", ".join(f"{k} {i!r}" for k, i in list(self._open)[:5])
                raise ProtocolError(f"RUN_FINISHED while still open: {still}", event_index=index)
            self.phase = "finished"
        elif etype == "RUN_ERROR":
            self._open.clear()  # RUN_ERROR ends whatever was open along with the run
            self.phase = "failed"
        elif etype == "RUN_STARTED":
            raise ProtocolError("RUN_STARTED while a run is active", event_index=index)
        return True

    def _start(self) -> None:
        self.phase = "active"
        self._open.clear()
        self.runs_started += 1
