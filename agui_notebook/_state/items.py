"""Events to the view's display items (docs/widget-protocol.md). Pure: no widgets, no I/O.

The view shows one turn of a chat: the user's message, streamed text, tool calls with their
arguments and results (content parts included), reasoning, subagents, cards, errors and what a
run reported at its end (token usage, metadata), in arrival order. Items are plain JSON dicts; an
item is replaced (never mutated) when it changes, so the widget can hand the list to traitlets
cheaply and the front end can reconcile by id.

Items built from a subagent's work carry ``subagent`` (its subagentRunId; None for the parent
agent), and each subagent has a ``subagent`` item of its own (created on SUBAGENT_STARTED, or
when its first attributed item arrives unannounced) for the front end to group them under.
Encrypted reasoning values never reach an item: only ``encrypted: true`` says one was kept.
"""

from __future__ import annotations

import json
from typing import Any

from .._decisions.decision import APPROVAL_FLAGS
from .._decisions.interrupts import PendingInterrupt
from .._frameworks import registry
from .drafts import TextBuffer
from .genui import GenUIItems
from .parts import display_parts, parts_text

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
        self._result_of: dict[str, str] = {}  # tool message id -> its tool item id
        self._reasoning: dict[str, str | None] = {}  # reasoning message id -> subagent

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

    def add_tool_call(self, tool_call_id: str, name: str, arguments_text: str) -> None:
        """A call made in an earlier session (a restored thread's pending tool), drawn as its
        events would have drawn it, so the result that comes later finds it."""
        item_id = f"tool:{tool_call_id}"
        if registry.is_hidden(name) or item_id in self._items:
            return
        self.put(_tool_item(item_id, name, None))
        self.update(
            item_id, argsText=arguments_text, args=_parse(arguments_text), status="called", text=""
        )

    def add_notice(self, text: str) -> None:
        self.put({"kind": "notice", "id": self.new_id("notice"), "text": text})

    def apply(self, etype: str, event: Any) -> None:
        """Fold one verified event into the items."""
        handler = _HANDLERS.get(etype)
        if handler is not None:
            handler(self, event)
        elif etype in ("ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA"):
            self.genui.apply(etype, event, self.put)

    def _message_start(self, event: Any, reasoning: bool) -> None:
        role = getattr(event, "role", None)
        kind = "reasoning" if reasoning else ("user" if role == "user" else "assistant")
        item_id = f"msg:{event.message_id}"
        existing = self._items.get(item_id)
        text = existing["text"] if existing else ""
        subagent = existing["subagent"] if existing else self._owner(event.subagent_run_id)
        if reasoning:
            self._reasoning[event.message_id] = subagent
        self._live_text[item_id] = TextBuffer(text)
        item = {"kind": kind, "id": item_id, "text": text, "streaming": True, "subagent": subagent}
        if reasoning:
            item["encrypted"] = bool(existing and existing.get("encrypted"))
        self.put(item)

    def _text_start(self, event: Any) -> None:
        self._message_start(event, reasoning=False)

    def _reasoning_start(self, event: Any) -> None:
        self._message_start(event, reasoning=True)

    def _content(self, event: Any) -> None:
        parts = self._live_text.get(f"msg:{event.message_id}")
        if parts is not None:
            parts.append(event.delta)
            self.dirty = True

    def _message_end(self, event: Any) -> None:
        item_id = f"msg:{event.message_id}"
        parts = self._live_text.pop(item_id, None)
        if parts is not None:
            self.update(item_id, text=parts.value(), streaming=False)
            item = self._items[item_id]
            if not item["text"] and not item.get("encrypted"):
                # Tool-only turns arrive wrapped in an empty text message (Microsoft).
                del self._items[item_id]

    def _tool_start(self, event: Any) -> None:
        if registry.is_hidden(event.tool_call_name):
            return
        item_id = f"tool:{event.tool_call_id}"
        self._live_text[item_id] = TextBuffer()
        subagent = event.subagent_run_id
        if subagent is None and event.parent_message_id is not None:
            parent = self._items.get(f"msg:{event.parent_message_id}")
            subagent = parent["subagent"] if parent else None  # a call is its message's
        self.put(_tool_item(item_id, event.tool_call_name, self._owner(subagent)))

    def _tool_args(self, event: Any) -> None:
        parts = self._live_text.get(f"tool:{event.tool_call_id}")
        if parts is not None:
            parts.append(event.delta)
            self.dirty = True

    def _tool_end(self, event: Any) -> None:
        item_id = f"tool:{event.tool_call_id}"
        parts = self._live_text.pop(item_id, None)
        if parts is not None:
            text = parts.value()
            self.update(item_id, argsText=text, args=_parse(text), status="called", text="")

    def _tool_result(self, event: Any) -> None:
        item_id = f"tool:{event.tool_call_id}"
        self._result_of[event.message_id] = item_id
        result = {
            "result": parts_text(event.content),
            "resultValue": json_encoded_value(event.content),
            "resultParts": display_parts(event.content),
        }
        if item_id in self._items:
            self.update(item_id, status="done", **result)
        else:
            item = _tool_item(item_id, "(earlier call)", self._owner(event.subagent_run_id))
            self.put({**item, "status": "done", **result})

    def _encrypted_value(self, event: Any) -> None:
        """Flag the item whose message or call kept an encrypted value (never the value)."""
        entity = event.entity_id
        if event.subtype == "tool-call":
            item_id = f"tool:{entity}"
        elif entity in self._result_of:
            item_id = self._result_of[entity]
        else:
            item_id = f"msg:{entity}"
            if item_id not in self._items and entity in self._reasoning:
                # Reasoning that was only an encrypted value: still worth a collapsed line.
                self.put(
                    {
                        "kind": "reasoning",
                        "id": item_id,
                        "text": "",
                        "streaming": False,
                        "subagent": self._reasoning[entity],
                        "encrypted": True,
                    }
                )
        self.update(item_id, encrypted=True)

    def _subagent_started(self, event: Any) -> None:
        sid = event.subagent_run_id
        item_id = f"subagent:{sid}"
        fields = {
            "name": event.name,
            "description": event.description,
            "parentSubagentRunId": event.parent_subagent_run_id,
            "parentToolCallId": event.parent_tool_call_id,
            "status": "running",
            "error": None,
        }
        if item_id in self._items:
            self.update(item_id, **fields)  # a suspended invocation continued by a later run
        else:
            self.put(_subagent_item(sid, event.parent_subagent_run_id, **fields))

    def _subagent_finished(self, event: Any) -> None:
        outcome = event.outcome
        status = "suspended" if outcome is not None and outcome.type == "suspended" else "done"
        self._owner(event.subagent_run_id)
        self.update(f"subagent:{event.subagent_run_id}", status=status)

    def _subagent_error(self, event: Any) -> None:
        self._owner(event.subagent_run_id)
        self.update(f"subagent:{event.subagent_run_id}", status="error", error=event.message)

    def _owner(self, subagent: str | None) -> str | None:
        """``subagent``, after making sure it has a group item (a tag may come unannounced)."""
        if subagent is not None and f"subagent:{subagent}" not in self._items:
            self.put(
                _subagent_item(
                    subagent,
                    None,
                    name=None,
                    description=None,
                    parentSubagentRunId=None,
                    parentToolCallId=None,
                    status=None,
                    error=None,
                )
            )
        return subagent

    def _run_finished(self, event: Any) -> None:
        outcome = getattr(event, "outcome", None)
        if outcome is not None and outcome.type == "cancelled":
            self.add_notice("The agent stopped this run before it completed (cancelled).")
        self._run_end(event, outcome.type if outcome is not None else "success")

    def _run_error(self, event: Any) -> None:
        self._run_end(event, "error")

    def _run_end(self, event: Any, outcome: str) -> None:
        """What the server reported at the end of a run: token usage, metadata, a result."""
        usage = [_usage(u) for u in getattr(event, "usage", None) or []]
        metadata = event.metadata if isinstance(event.metadata, dict) else None
        result = getattr(event, "result", None)
        if not (usage or metadata or result is not None):
            return
        run_id = getattr(event, "run_id", None)
        self.put(
            {
                "kind": "run-end",
                "id": f"run-end:{run_id or self.new_id('run')}",
                "runId": run_id,
                "outcome": outcome,
                "usage": usage,
                "totals": _totals(usage),
                "metadata": metadata,
                "result": result,
            }
        )

    def mark_tool(self, tool_call_id: str | None, status: str) -> None:
        if tool_call_id and f"tool:{tool_call_id}" in self._items:
            self.update(f"tool:{tool_call_id}", status=status)


_HANDLERS: dict[str, Any] = {
    "TEXT_MESSAGE_START": ItemList._text_start,
    "REASONING_MESSAGE_START": ItemList._reasoning_start,
    "TEXT_MESSAGE_CONTENT": ItemList._content,
    "REASONING_MESSAGE_CONTENT": ItemList._content,
    "TEXT_MESSAGE_END": ItemList._message_end,
    "REASONING_MESSAGE_END": ItemList._message_end,
    "TOOL_CALL_START": ItemList._tool_start,
    "TOOL_CALL_ARGS": ItemList._tool_args,
    "TOOL_CALL_END": ItemList._tool_end,
    "TOOL_CALL_RESULT": ItemList._tool_result,
    "REASONING_ENCRYPTED_VALUE": ItemList._encrypted_value,
    "SUBAGENT_STARTED": ItemList._subagent_started,
    "SUBAGENT_FINISHED": ItemList._subagent_finished,
    "SUBAGENT_ERROR": ItemList._subagent_error,
    "RUN_FINISHED": ItemList._run_finished,
    "RUN_ERROR": ItemList._run_error,
}
_COUNTS = (
    "inputTokens",
    "outputTokens",
    "totalTokens",
    "reasoningTokens",
    "cachedInputTokens",
    "cacheWriteInputTokens",
)


def _tool_item(item_id: str, name: str, subagent: str | None) -> dict[str, Any]:
    return {
        "kind": "tool",
        "id": item_id,
        "name": name,
        "args": None,
        "argsText": "",
        "result": None,
        "resultValue": None,
        "resultParts": None,
        "status": "streaming",
        "text": "",
        "subagent": subagent,
        "encrypted": False,
    }


def _subagent_item(sid: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    return {
        "kind": "subagent",
        "id": f"subagent:{sid}",
        "subagentRunId": sid,
        **fields,
        "subagent": parent,  # nested under the invocation that spawned it
    }


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


def _usage(entry: Any) -> dict[str, Any]:
    data = entry.model_dump(mode="json", by_alias=True) if hasattr(entry, "model_dump") else entry
    return {k: v for k, v in dict(data).items() if v is not None}


def _totals(usage: list[dict[str, Any]]) -> dict[str, int | None]:
    """Sums over the entries that report each count; None where none does (absent is not 0)."""
    totals: dict[str, int | None] = {}
    for key in ("inputTokens", "outputTokens", "totalTokens"):
        values = [u[key] for u in usage if isinstance(u.get(key), int)]
        totals[key] = sum(values) if values else None
    return totals


def _parse(text: str) -> Any:
    if not text.strip():
        return {}
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _edit_note(mode: str, can_edit: bool, props: dict[str, Any]) -> str | None:
    """Why a tool call's card has no Edit: the server's answer has no place for arguments."""
    if mode != "tool" or can_edit:
        return None
    return (
        "Edit is unavailable: this server's answer (its responseSchema: "
        f"{', '.join(sorted(props)) or 'nothing'}) has no place for edited arguments, so an edit "
        "could not reach the tool. Approve or reject the call as proposed."
    )


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
        "editNote": _edit_note(mode, bool(can_edit), props),
        "canGiveReason": mode == "tool" and (not props or "reason" in props),
        "reissued": interrupt.reissued,
        # A form or free answer about something with no arguments to show (a CrewAI step's
        # output): the thing under review, shown beside the question.
        "review": (
            registry.reviewed_output(interrupt.reason, interrupt.metadata)
            if mode != "tool" and interrupt.arguments is None
            else None
        ),
        # Raised inside a subagent: which one asked (its run id, and its name when announced).
        "subagentRunId": interrupt.subagent_run_id,
        "subagentName": interrupt.subagent_name,
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
