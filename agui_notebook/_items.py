"""Events to the view's display items (docs/widget-protocol.md). Pure: no widgets, no I/O.

The view shows one turn of a chat: the user's message, streamed text, tool calls with their
arguments and results, reasoning, cards and errors, in arrival order. Items are plain JSON
dicts; an item is replaced (never mutated) when it changes, so the widget can hand the list to
traitlets cheaply and the front end can reconcile by id.
"""

from __future__ import annotations

import json
from typing import Any

from ._compat import HIDDEN_TOOLS
from ._decisions import APPROVAL_FLAGS
from ._genui import GenUIItems
from ._interrupts import PendingInterrupt
from ._reducer import TextBuffer

__all__ = ["ItemList", "card_interrupt", "json_encoded_value", "summarize_arguments"]


class ItemList:
    """Ordered display items, keyed by id."""

    def __init__(self) -> None:
        self._items: dict[str, dict[str, Any]] = {}
        self._live_text: dict[str, TextBuffer] = {}
        self.dirty = False
        self._counter = 0
        #: Activity messages and A2UI surfaces (their own module: _genui).
        self.genui = GenUIItems()

    # -- reading --------------------------------------------------------------------------

    def snapshot(self) -> list[dict[str, Any]]:
        """The items as JSON-ready dicts (streaming text joined)."""
        for item_id, parts in self._live_text.items():
            joined = parts.value()
            item = self._items[item_id]
            if item["text"] != joined:
                self._items[item_id] = {**item, "text": joined}
        self.dirty = False
        return list(self._items.values())

    def get(self, item_id: str) -> dict[str, Any] | None:
        return self._items.get(item_id)

    def __len__(self) -> int:
        return len(self._items)

    # -- writing --------------------------------------------------------------------------

    def put(self, item: dict[str, Any]) -> None:
        self._items[item["id"]] = item
        self.dirty = True

    def update(self, item_id: str, **changes: Any) -> None:
        item = self._items.get(item_id)
        if item is not None:
            self._items[item_id] = {**item, **changes}
            self.dirty = True

    def new_id(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}-{self._counter}"

    def add_user(self, text: str) -> None:
        self.put({"kind": "user", "id": self.new_id("user"), "text": text})

    def add_error(self, title: str, message: str, hint: str | None = None) -> str:
        item_id = self.new_id("error")
        self.put({"kind": "error", "id": item_id, "title": title, "message": message, "hint": hint})
        return item_id

    def add_notice(self, text: str) -> None:
        self.put({"kind": "notice", "id": self.new_id("notice"), "text": text})

    def apply(self, etype: str, event: Any) -> None:
        """Fold one verified event into the items."""
        if etype in ("TEXT_MESSAGE_START", "REASONING_MESSAGE_START"):
            kind = "reasoning" if etype.startswith("REASONING") else "assistant"
            role = getattr(event, "role", "assistant")
            if kind == "assistant" and role != "assistant":
                kind = "user" if role == "user" else "assistant"
            item_id = f"msg:{event.message_id}"
            existing = self._items.get(item_id)
            text = existing["text"] if existing else ""
            self._live_text[item_id] = TextBuffer(text)
            self.put({"kind": kind, "id": item_id, "text": text, "streaming": True})
        elif etype in ("TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT"):
            parts = self._live_text.get(f"msg:{event.message_id}")
            if parts is not None:
                parts.append(event.delta)
                self.dirty = True
        elif etype in ("TEXT_MESSAGE_END", "REASONING_MESSAGE_END"):
            item_id = f"msg:{event.message_id}"
            parts = self._live_text.pop(item_id, None)
            if parts is not None:
                self.update(item_id, text=parts.value(), streaming=False)
                if not self._items[item_id]["text"] and item_id.startswith("msg:"):
                    # Tool-only turns arrive wrapped in an empty text message (Microsoft).
                    del self._items[item_id]
        elif etype == "TOOL_CALL_START":
            if event.tool_call_name in HIDDEN_TOOLS:
                return
            self._live_text[f"tool:{event.tool_call_id}"] = TextBuffer()
            self.put(
                {
                    "kind": "tool",
                    "id": f"tool:{event.tool_call_id}",
                    "name": event.tool_call_name,
                    "args": None,
                    "argsText": "",
                    "result": None,
                    "resultValue": None,
                    "status": "streaming",
                    "text": "",
                }
            )
        elif etype == "TOOL_CALL_ARGS":
            parts = self._live_text.get(f"tool:{event.tool_call_id}")
            if parts is not None:
                parts.append(event.delta)
                self.dirty = True
        elif etype == "TOOL_CALL_END":
            item_id = f"tool:{event.tool_call_id}"
            parts = self._live_text.pop(item_id, None)
            if parts is not None:
                text = parts.value()
                self.update(item_id, argsText=text, args=_parse(text), status="called", text="")
        elif etype == "TOOL_CALL_RESULT":
            item_id = f"tool:{event.tool_call_id}"
            value = json_encoded_value(event.content)
            if item_id in self._items:
                self.update(item_id, result=event.content, resultValue=value, status="done")
            else:
                self.put(
                    {
                        "kind": "tool",
                        "id": item_id,
                        "name": "(earlier call)",
                        "args": None,
                        "argsText": "",
                        "result": event.content,
                        "resultValue": value,
                        "status": "done",
                        "text": "",
                    }
                )
        elif etype in ("ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA"):
            self.genui.apply(etype, event, self.put)
        elif etype == "RUN_FINISHED":
            outcome = getattr(event, "outcome", None)
            if outcome is not None and outcome.type == "cancelled":
                self.add_notice("The agent stopped this run before it completed (cancelled).")

    def mark_tool(self, tool_call_id: str | None, status: str) -> None:
        if tool_call_id and f"tool:{tool_call_id}" in self._items:
            self.update(f"tool:{tool_call_id}", status=status)


def json_encoded_value(text: Any) -> Any:
    """The value a JSON-encoded tool result holds (an object, array or string), else None.

    Several frameworks send a tool's structured result as a JSON string (LangGraph's ToolNode
    json.dumps a dict, for one); the view shows the value, with ``result`` keeping the text. Plain
    text, numbers and booleans stay text (they read the same), so None never means "null".
    """
    if not isinstance(text, str) or text.lstrip()[:1] not in ("{", "[", '"'):
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _parse(text: str) -> Any:
    if not text.strip():
        return {}
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def card_interrupt(
    interrupt: PendingInterrupt, args_schema: dict[str, Any] | None
) -> dict[str, Any]:
    """An interrupt as the card shows it."""
    schema = interrupt.response_schema if isinstance(interrupt.response_schema, dict) else None
    props = schema.get("properties") if schema else None
    props = props if isinstance(props, dict) else {}
    # A schema for something other than an object (CrewAI's named outcomes: a string enum) asks
    # for an answer, not an approval payload, even when the interrupt names a tool.
    answers_an_object = schema is None or schema.get("type", "object") == "object"
    is_tool = (
        interrupt.tool_name is not None
        and answers_an_object
        and (not props or any(flag in props for flag in APPROVAL_FLAGS))
    )
    if is_tool:
        mode = "tool"
    elif schema:
        mode = "form"
    else:
        mode = "free"
    if args_schema is None and isinstance(props.get("editedArgs"), dict):
        args_schema = props["editedArgs"]
    can_edit = mode == "tool" and (
        not props
        or "editedArgs" in props
        or any(
            k in props for k in (interrupt.arguments or {}) if isinstance(interrupt.arguments, dict)
        )
    )
    return {
        "id": interrupt.id,
        "reason": interrupt.reason,
        "toolName": interrupt.tool_name,
        "toolCallId": interrupt.tool_call_id,
        "message": interrupt.message,
        "args": interrupt.arguments,
        "argsSchema": args_schema,
        "responseSchema": schema,
        "expiresAt": interrupt.expires_at.isoformat() if interrupt.expires_at else None,
        "mode": mode,
        "canEdit": bool(can_edit),
        "canGiveReason": mode == "tool" and (not props or "reason" in props),
        "reissued": interrupt.reissued,
    }


def summarize_arguments(arguments: Any, limit: int = 120) -> str:
    """``key=value, ...`` for a text form (reprs, audit), cut with a visible marker."""
    if isinstance(arguments, dict):
        text = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
    elif arguments is None:
        text = ""
    else:
        text = repr(arguments)
    if len(text) > limit:
        text = text[:limit] + f"... (+{len(text) - limit} chars)"
    return text
