"""The thread's messages as a run sends them back to the server. Pure."""

from __future__ import annotations

from typing import Any

from ag_ui.core import ActivityMessage, AssistantMessage

from .._frameworks.registry import is_synthetic

__all__ = ["OutgoingHistory", "outgoing_history"]


def outgoing_history(messages: list[Any]) -> list[Any]:
    """The thread's messages as sent to the server: synthetic tool calls left out (a server's own
    machinery, see the framework dialects), and activity messages too (they are front-end only,
    never sent to the agent: AG-UI concepts/messages; the TypeScript client drops them the same
    way)."""
    out: list[Any] = []
    for message in messages:
        if isinstance(message, ActivityMessage):
            continue
        if (
            isinstance(message, AssistantMessage)
            and message.tool_calls
            and any(is_synthetic(call.function.name) for call in message.tool_calls)
        ):
            kept = [c for c in message.tool_calls if not is_synthetic(c.function.name)]
            if not kept and not message.content:
                continue
            message = message.model_copy(update={"tool_calls": kept or None})
        out.append(message)
    return out


class OutgoingHistory:
    """:func:`outgoing_history`, remembering the last call: messages that begin with the last
    call's (one list comparison, identity first) reuse its result up to there, so a long
    thread's history is not walked again on every run (tests/state/test_history.py holds it to
    the function)."""

    __slots__ = ("_gave", "_given")

    def __init__(self) -> None:
        self._given: list[Any] = []
        self._gave: list[Any] = []

    def __call__(self, messages: list[Any]) -> list[Any]:
        start = len(self._given)
        if start and len(messages) >= start and messages[:start] == self._given:
            out = [*self._gave, *outgoing_history(messages[start:])]
        else:
            out = outgoing_history(messages)
        self._given, self._gave = list(messages), out
        return list(out)
