"""Strands Agents through its AG-UI adapter (``ag-ui-strands``): its interrupts, read. Pure.
See docs/compatibility.md, "Strands".

The adapter publishes a Strands interrupt in one of two shapes:

- **Its own tool approval** (a tool configured ``interrupt_on_call``): ``reason: "tool_call"``,
  the tool use's id as ``toolCallId``, ``responseSchema = {approved: boolean}`` and
  ``metadata = {tool_name, tool_input, strandsName}`` (``strandsName`` starts with
  ``ag_ui:tool_call:``). Its hook reads ``approved`` alone, so the schema leaves no place for
  edited arguments and the card says edit is unavailable.
- **A plain interrupt** (``event.interrupt(name, reason=...)`` in a hook, or
  ``tool_context.interrupt(...)`` in a tool): ``reason`` is the interrupt's *name*, no
  ``toolCallId``, no ``responseSchema``, no ``message``, and ``metadata = {"reason": <the reason
  the code raised it with>}``. A hook that gates a tool conventionally puts the tool there:
  ``{tool_name, tool_input, tool_use_id}``. The answer reaches that code as
  ``{"response": payload}`` (a cancel as ``{"cancelled": true}``): what it does with the payload
  is its own, so the spec's ``{"approved", "editedArgs"?, "reason"?}`` is sent, and edits reach
  code that reads ``editedArgs``.

:func:`plain_tool` reads the tool out of a plain interrupt's reason; a reason that is not an
object, or names no tool, still makes a card: it asks a free answer, says the tool is unknown and
shows the reason as it came (:func:`plain_reason`).
"""

from __future__ import annotations

from typing import Any

from .dialect import Described, Dialect, json_or_text

__all__ = ["APPROVAL_PREFIX", "StrandsDialect", "adapter_approval", "plain_reason", "plain_tool"]

#: The native interrupt name prefix of the adapter's own approvals (``metadata.strandsName``).
APPROVAL_PREFIX = "ag_ui:tool_call:"
#: What the adapter names a tool it lost track of (an approval whose reason did not survive).
_UNKNOWN = "unknown"


def _named(value: Any) -> str | None:
    return value if isinstance(value, str) and value and value != _UNKNOWN else None


def adapter_approval(metadata: dict[str, Any] | None) -> tuple[str | None, Any] | None:
    """``(tool name or None, arguments)`` of the adapter's own approval; None if not one.

    When the approval's native reason was lost (the adapter then publishes ``tool_name:
    "unknown"`` and an empty ``tool_input``), the tool is still named by ``strandsName``, and
    the arguments are unknown (None), not empty."""
    if not isinstance(metadata, dict):
        return None
    native = metadata.get("strandsName")
    if not isinstance(native, str) or not native.startswith(APPROVAL_PREFIX):
        return None
    named = _named(metadata.get("tool_name"))
    args = json_or_text(metadata.get("tool_input"))
    if named is None and args in ({}, None):
        args = None
    return named or _named(native[len(APPROVAL_PREFIX) :]), args


def plain_reason(metadata: dict[str, Any] | None) -> tuple[bool, Any]:
    """``(True, reason)`` for a plain Strands interrupt (metadata is ``{"reason": ...}`` alone),
    else ``(False, None)``."""
    if isinstance(metadata, dict) and set(metadata) == {"reason"}:
        return True, metadata["reason"]
    return False, None


def plain_tool(metadata: dict[str, Any] | None) -> tuple[str | None, str, Any] | None:
    """``(tool use id or None, tool name, tool input)`` a plain interrupt's reason names; None when
    it is not a plain interrupt or its reason names no tool."""
    plain, reason = plain_reason(metadata)
    if not plain or not isinstance(reason, dict):
        return None
    name = _named(reason.get("tool_name"))
    if name is None:
        return None
    use_id = reason.get("tool_use_id")
    return (
        use_id if isinstance(use_id, str) and use_id else None,
        name,
        json_or_text(reason.get("tool_input")),
    )


class StrandsDialect(Dialect):
    name = "strands"

    def describe(self, reason: str, metadata: dict[str, Any] | None) -> Described | None:
        approval = adapter_approval(metadata)
        if approval is not None:
            return Described(None, *approval)
        tool = plain_tool(metadata)
        if tool is not None:
            use_id, name, args = tool
            return Described(use_id, name, args, question=f"{reason}: approve {name}?")
        plain, _ = plain_reason(metadata)
        if not plain:
            return None
        return Described(
            None,
            None,
            None,
            question=(
                f"{reason}: the Strands interrupt names no tool (its reason has no tool_name), "
                "so the tool is unknown; the reason is shown as it came. Answer it freely."
            ),
        )

    def reviewed_output(self, reason: str, metadata: dict[str, Any] | None) -> Any:
        if plain_tool(metadata) is not None:
            return None
        plain, raw = plain_reason(metadata)
        return raw if plain else None
