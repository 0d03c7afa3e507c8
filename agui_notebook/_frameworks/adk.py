"""Google ADK's AG-UI adapter (``ag-ui-adk``): its tool confirmations, read. Pure.
See docs/compatibility.md, "Google ADK".

ADK pauses a tool built with ``require_confirmation=True`` by calling its own long-running tool
``adk_request_confirmation``. With ``emit_interrupt_outcome=True`` the adapter reports that call as
an interrupt (``reason: "confirmation"``) whose ``id`` and ``toolCallId`` are the *confirmation*
call's, not the tool's; the tool it gates is in ``metadata.adk.originalFunctionCall``
(``{id, name, args}``). So :func:`tool_confirmation` names the gated call, its tool and its
arguments, and the confirmation call itself is hidden from views (it never gets a result). It stays
in the history sent back: the adapter pairs several answers in one resume through it.

The adapter sends no ``responseSchema``; the answer it expects is ADK's ``ToolConfirmation``
(``confirmed``, and an optional ``payload`` for tools that ask for one). It reads every other
answer as a *yes* except ``false``, ``{"approved": false}`` and ``{"confirmed": false}``:
``{"accepted": false}`` would run the tool. ``editedArgs`` and a ``reason`` are dropped: the tool
runs with the arguments the model proposed, a rejection carries ADK's fixed text.
:data:`CONFIRMATION_SCHEMA` is that contract, so decisions are shaped and checked against it like
any schema: approve -> ``{"confirmed": true}``, reject -> ``{"confirmed": false}`` (a reason is
left out, with a note), edit -> refused before anything is sent. A cancel is sent as ``status: "cancelled"``, which the
adapter turns into ``confirmed: false``.
"""

from __future__ import annotations

from typing import Any

from .dialect import Described, Dialect

__all__ = ["CONFIRMATION_SCHEMA", "CONFIRMATION_TOOL", "AdkDialect", "tool_confirmation"]

#: ADK's built-in long-running tool that pauses a call until it is confirmed.
CONFIRMATION_TOOL = "adk_request_confirmation"

#: ``google.adk.tools.ToolConfirmation`` as an answer (``hint`` is the question, not the answer).
#: ``additionalProperties: false`` as in ADK's model (``extra="forbid"``).
CONFIRMATION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Google ADK tool confirmation (ToolConfirmation): confirmed yes or no",
    "properties": {
        "confirmed": {"type": "boolean"},
        "payload": {"description": "only for tools that ask for data with their confirmation"},
    },
    "required": ["confirmed"],
    "additionalProperties": False,
}


def tool_confirmation(reason: str, metadata: dict[str, Any] | None) -> tuple[str, str, Any] | None:
    """``(tool call id, tool name, arguments)`` of the call an ADK confirmation interrupt gates.

    ``None`` for any other interrupt (other reasons, or metadata without a well-formed
    ``adk.originalFunctionCall``).
    """
    if reason != "confirmation" or not isinstance(metadata, dict):
        return None
    adk = metadata.get("adk")
    call = adk.get("originalFunctionCall") if isinstance(adk, dict) else None
    if not isinstance(call, dict):
        return None
    call_id, name = call.get("id"), call.get("name")
    if not isinstance(call_id, str) or not isinstance(name, str):
        return None
    return call_id, name, call.get("args")


class AdkDialect(Dialect):
    name = "google-adk"
    #: The confirmation call is how ADK asks, not a tool the agent used: hidden, but kept in the
    #: history sent back (the adapter pairs a resume's answers with their calls through it).
    hidden_tools = frozenset({CONFIRMATION_TOOL})

    def describe(self, reason: str, metadata: dict[str, Any] | None) -> Described | None:
        gated = tool_confirmation(reason, metadata)
        if gated is None:
            return None
        call_id, name, args = gated
        return Described(call_id, name, args, response_schema=CONFIRMATION_SCHEMA)
