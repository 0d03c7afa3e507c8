"""The thread's messages as a run sends them back to the server. Pure."""

from __future__ import annotations

from typing import Any

from ag_ui.core import ActivityMessage, AssistantMessage

from .._frameworks.registry import is_synthetic

__all__ = ["outgoing_history"]


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
