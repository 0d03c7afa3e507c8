"""What real servers do that the spec does not say, in one place. Pure.

Microsoft Agent Framework (agent-framework-ag-ui 1.7) adds a synthetic ``confirm_changes`` tool
call beside every approval. It never gets a result and is not a tool to show or to approve
(docs/compatibility.md). Echoed back in a later request's history, the server strips only the
first per message and answers the others with a phantom "Tool execution skipped" result, which
the model then reads; so the history we send leaves them out.

Google ADK's ``adk_request_confirmation`` call (see ``_compat_adk``) is not shown either, but it
stays in the history: that adapter needs it to pair the answers of a resume with their calls.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import ActivityMessage, AssistantMessage

from .adk import CONFIRMATION_TOOL

__all__ = ["HIDDEN_TOOLS", "SYNTHETIC_TOOLS", "outgoing_history", "restates_arguments"]

#: Tool calls a server adds beside an approval: not shown, and left out of the history we send.
SYNTHETIC_TOOLS = frozenset({"confirm_changes"})
#: Tool calls not shown in a view (they are how a server asks, not tools the agent used).
HIDDEN_TOOLS = SYNTHETIC_TOOLS | {CONFIRMATION_TOOL}


def outgoing_history(messages: list[Any]) -> list[Any]:
    """The thread's messages as sent to the server: synthetic tool calls left out, and activity
    messages too (they are front-end only, never sent to the agent: AG-UI concepts/messages; the
    TypeScript client drops them the same way)."""
    out: list[Any] = []
    for message in messages:
        if isinstance(message, ActivityMessage):
            continue
        if (
            isinstance(message, AssistantMessage)
            and message.tool_calls
            and any(call.function.name in SYNTHETIC_TOOLS for call in message.tool_calls)
        ):
            kept = [c for c in message.tool_calls if c.function.name not in SYNTHETIC_TOOLS]
            if not kept and not message.content:
                continue
            message = message.model_copy(update={"tool_calls": kept or None})
        out.append(message)
    return out


def restates_arguments(held: str, streamed: str) -> bool:
    """True when a later run reopened a tool call only to stream its arguments again.

    LangGraph's adapter (ag-ui-langgraph 0.0.47) re-sends TOOL_CALL_START/ARGS/END for a call
    the thread already holds when a run resumes. AG-UI 1.1 says a reopened call's arguments
    append, which would leave ``{...}{...}``: so a reopening whose text is exactly the held text
    again is read as a restatement (a departure, off under ``Agent(strict=True)``).
    """
    return bool(held) and streamed == held + held
