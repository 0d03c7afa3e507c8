"""Events into a thread: messages, tool calls, state and the run's outcome. Pure.

A :class:`RunReducer` starts from the thread's committed :class:`ThreadSnapshot` and never
mutates it: messages and tool calls are replaced, not edited (copy on write), so a run that fails
is discarded by dropping its reducer and the thread is exactly as it was.

- Text and reasoning stream into per-message buffers joined when the message ends (or when a view
  asks), so a million deltas cost a list append each.
- STATE_DELTA is an RFC 6902 patch applied all-or-nothing; on failure the prior state is kept
  and a warning says why (AG-UI 1.1 events/state).
- MESSAGES_SNAPSHOT reconciles by message id: known ids are replaced in place, new ones are
  appended, and messages it does not mention are kept (servers send partial snapshots).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import jsonpatch
import jsonpointer
from ag_ui.core import (
    ActivityMessage,
    AssistantMessage,
    DeveloperMessage,
    FunctionCall,
    ReasoningMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from pydantic import BaseModel

from ._compat_crewai import pause_from_event
from ._compat_langgraph import ON_INTERRUPT, interrupts_from_events
from ._patch import apply_patch

__all__ = ["RunReducer", "ThreadSnapshot", "ToolCallInfo"]

_TEXT_ROLES: dict[str, type[BaseModel]] = {
    "assistant": AssistantMessage,
    "user": UserMessage,
    "system": SystemMessage,
    "developer": DeveloperMessage,
}


class TextBuffer:
    """Streamed text: deltas appended cheaply, folded into blocks so memory tracks the text.

    A plain list of deltas costs ~60 bytes per delta on top of the text (a million 4-character
    deltas held 20x the text); folding every 512 deltas keeps the overhead to the last few.
    """

    __slots__ = ("blocks", "small")

    def __init__(self, initial: str = "") -> None:
        self.blocks: list[str] = [initial] if initial else []
        self.small: list[str] = []

    def append(self, delta: str) -> None:
        small = self.small
        small.append(delta)
        if len(small) >= 512:
            self.blocks.append("".join(small))
            small.clear()

    def value(self) -> str:
        if self.small:
            self.blocks.append("".join(self.small))
            self.small.clear()
        if len(self.blocks) > 1:
            self.blocks = ["".join(self.blocks)]
        return self.blocks[0] if self.blocks else ""


@dataclass(frozen=True)
class ToolCallInfo:
    """A tool call as the thread knows it: arguments parsed, result attached."""

    id: str
    name: str
    arguments_text: str = ""
    #: The parsed arguments (usually a dict); None while streaming or when they do not parse.
    arguments: Any = None
    parent_message_id: str | None = None
    result: str | None = None
    result_message_id: str | None = None
    #: "streaming" while arguments arrive, "called" once complete, "done" with a result.
    status: str = "streaming"


@dataclass
class ThreadSnapshot:
    """The committed contents of a thread."""

    messages: dict[str, Any] = field(default_factory=dict)  # id -> ag_ui.core message, in order
    state: Any = None
    tool_calls: dict[str, ToolCallInfo] = field(default_factory=dict)


class RunReducer:
    """Applies one run's events on top of a snapshot, without touching the snapshot."""

    def __init__(self, base: ThreadSnapshot, warn: Callable[[str], None]) -> None:
        self._warn = warn
        self.messages: dict[str, Any] = dict(base.messages)
        self.state: Any = base.state
        self.tool_calls: dict[str, ToolCallInfo] = dict(base.tool_calls)
        self.touched: dict[str, None] = {}  # message ids this run created or changed, in order
        self._text: dict[str, TextBuffer] = {}
        self._args: dict[str, TextBuffer] = {}
        self.outcome: str | None = None  # set by RUN_FINISHED: success | interrupt | cancelled
        self.interrupts: list[Any] = []
        self._langgraph_interrupts: list[Any] = []  # CUSTOM on_interrupt events (_compat_langgraph)
        self.pending_tool_call_ids: list[str] = []
        self.result: Any = None
        self.error: tuple[str, str | None] | None = None  # (message, code) from RUN_ERROR
        self.run_id: str | None = None
        self.protocol_version: str | None = None
        self._handlers: dict[str, Callable[[Any], None]] = {
            "RUN_STARTED": self._run_started,
            "RUN_FINISHED": self._run_finished,
            "RUN_ERROR": self._run_error,
            "TEXT_MESSAGE_START": self._text_start,
            "TEXT_MESSAGE_CONTENT": self._text_content,
            "TEXT_MESSAGE_END": self._text_end,
            "REASONING_MESSAGE_START": self._reasoning_start,
            "REASONING_MESSAGE_CONTENT": self._text_content,
            "REASONING_MESSAGE_END": self._text_end,
            "TOOL_CALL_START": self._tool_start,
            "TOOL_CALL_ARGS": self._tool_args,
            "TOOL_CALL_END": self._tool_end,
            "TOOL_CALL_RESULT": self._tool_result,
            "STATE_SNAPSHOT": self._state_snapshot,
            "STATE_DELTA": self._state_delta,
            "MESSAGES_SNAPSHOT": self._messages_snapshot,
            "ACTIVITY_SNAPSHOT": self._activity_snapshot,
            "ACTIVITY_DELTA": self._activity_delta,
            "CUSTOM": self._custom,
        }

    def apply(self, etype: str, event: Any) -> None:
        handler = self._handlers.get(etype)
        if handler is not None:
            handler(event)

    # -- reading while streaming ----------------------------------------------------------

    def text_of(self, message_id: str) -> str:
        """The text of a message so far, including deltas not yet joined."""
        buffer = self._text.get(message_id)
        if buffer is not None:
            return buffer.value()
        message = self.messages.get(message_id)
        content = getattr(message, "content", None)
        return content if isinstance(content, str) else ""

    def snapshot(self) -> ThreadSnapshot:
        """The thread as it stands after this run (open buffers joined)."""
        for message_id in list(self._text):
            self._materialize(message_id)
        return ThreadSnapshot(dict(self.messages), self.state, dict(self.tool_calls))

    # -- lifecycle ------------------------------------------------------------------------

    def _run_started(self, event: Any) -> None:
        self.run_id = event.run_id
        self.protocol_version = getattr(event, "protocol_version", None)

    def _run_finished(self, event: Any) -> None:
        outcome = event.outcome
        self.result = event.result
        if outcome is None and self._langgraph_interrupts:
            # LangGraph's default style: the interrupts came as CUSTOM events, no outcome.
            self.outcome = "interrupt"
            # CrewAI's default style sends the same event, carrying the interrupt itself.
            crewai = [pause_from_event(e.value) for e in self._langgraph_interrupts]
            if all(crewai):
                self.interrupts = crewai
            else:
                self.interrupts = interrupts_from_events(self._langgraph_interrupts, self.run_id)
        elif outcome is None:
            self.outcome = "success"  # absent outcome: success (pre-1.0 servers too)
        else:
            self.outcome = outcome.type
            if outcome.type == "interrupt":
                self.interrupts = list(outcome.interrupts)
            elif outcome.type == "success":
                self.pending_tool_call_ids = list(outcome.pending_tool_call_ids or [])

    def _custom(self, event: Any) -> None:
        if event.name == ON_INTERRUPT:
            self._langgraph_interrupts.append(event)

    def _run_error(self, event: Any) -> None:
        self.error = (event.message, event.code)

    # -- text and reasoning ---------------------------------------------------------------

    def _text_start(self, event: Any) -> None:
        mid = event.message_id
        if mid not in self.messages:
            cls = _TEXT_ROLES.get(event.role, AssistantMessage)
            kwargs: dict[str, Any] = {"id": mid, "content": ""}
            if getattr(event, "name", None):
                kwargs["name"] = event.name
            self.messages[mid] = cls(**kwargs)
        self._text[mid] = TextBuffer(self.text_of(mid))  # re-streaming a known id appends (1.1)
        self.touched[mid] = None

    def _reasoning_start(self, event: Any) -> None:
        mid = event.message_id
        if mid not in self.messages:
            self.messages[mid] = ReasoningMessage(id=mid, content="")
        self._text[mid] = TextBuffer(self.text_of(mid))
        self.touched[mid] = None

    def _text_content(self, event: Any) -> None:
        self._text[event.message_id].append(event.delta)

    def _text_end(self, event: Any) -> None:
        self._materialize(event.message_id)

    def _materialize(self, message_id: str) -> None:
        buffer = self._text.pop(message_id, None)
        if buffer is None:
            return
        message = self.messages[message_id]
        self.messages[message_id] = message.model_copy(update={"content": buffer.value()})

    # -- tool calls -----------------------------------------------------------------------

    def _tool_start(self, event: Any) -> None:
        tcid = event.tool_call_id
        parent = event.parent_message_id
        if parent is None:
            last = next(reversed(self.messages), None) if self.messages else None
            if (
                last is not None
                and last in self.touched
                and isinstance(self.messages[last], AssistantMessage)
            ):
                parent = last
            else:
                parent = tcid
        self.tool_calls[tcid] = ToolCallInfo(
            id=tcid, name=event.tool_call_name, parent_message_id=parent
        )
        self._args[tcid] = TextBuffer()

    def _tool_args(self, event: Any) -> None:
        self._args[event.tool_call_id].append(event.delta)

    def _tool_end(self, event: Any) -> None:
        tcid = event.tool_call_id
        buffer = self._args.pop(tcid, None)
        text = buffer.value() if buffer is not None else ""
        info = self.tool_calls[tcid]
        arguments: Any = None
        try:
            arguments = json.loads(text) if text.strip() else {}
        except ValueError:
            # Closing a call says its text is complete, not valid (1.1 events/tool-calls).
            self._warn(f"tool call {tcid} ({info.name}): arguments are not valid JSON")
        except RecursionError:
            self._warn(f"tool call {tcid} ({info.name}): arguments nested too deeply")
        self.tool_calls[tcid] = replace(
            info, arguments_text=text, arguments=arguments, status="called"
        )
        self._attach_call(
            info.parent_message_id or tcid,
            ToolCall(id=tcid, function=FunctionCall(name=info.name, arguments=text)),
        )

    def _attach_call(self, parent_id: str, call: ToolCall) -> None:
        parent = self.messages.get(parent_id)
        if not isinstance(parent, AssistantMessage):
            if parent is not None:
                self._warn(f"tool call {call.id}: parent {parent_id} is not an assistant message")
                parent_id = call.id
            parent = AssistantMessage(id=parent_id, tool_calls=[])
        calls = [c for c in (parent.tool_calls or []) if c.id != call.id]
        calls.append(call)
        self.messages[parent_id] = parent.model_copy(update={"tool_calls": calls})
        self.touched[parent_id] = None

    def _tool_result(self, event: Any) -> None:
        tcid = event.tool_call_id
        mid = event.message_id
        self.messages[mid] = ToolMessage(id=mid, content=event.content, tool_call_id=tcid)
        self.touched[mid] = None
        info = self.tool_calls.get(tcid)
        if info is not None:
            self.tool_calls[tcid] = replace(
                info, result=event.content, result_message_id=mid, status="done"
            )

    # -- state and snapshots --------------------------------------------------------------

    def _state_snapshot(self, event: Any) -> None:
        self.state = event.snapshot

    def _state_delta(self, event: Any) -> None:
        try:
            self.state = apply_patch(self.state, _ops(event.delta))
        except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as exc:
            self._warn(f"STATE_DELTA not applied, state kept as it was: {exc}")
        except (TypeError, KeyError, IndexError, AttributeError) as exc:
            self._warn(
                f"STATE_DELTA not applied, state kept as it was: {type(exc).__name__}: {exc}"
            )

    def _messages_snapshot(self, event: Any) -> None:
        for message in event.messages:
            if message.id in self._text:
                # Restating a message still streaming: later deltas continue from the restatement.
                content = getattr(message, "content", None)
                self._text[message.id] = TextBuffer(content if isinstance(content, str) else "")
            if isinstance(message, ToolMessage) and message.id not in self.messages:
                self._replace_result_message(message)
            if self.messages.get(message.id) != message:
                # Restated history the thread already holds is not "produced by this run".
                self.touched[message.id] = None
            self.messages[message.id] = message
            if isinstance(message, AssistantMessage):
                for call in message.tool_calls or ():
                    self._learn_call(call, message.id)
            elif isinstance(message, ToolMessage):
                info = self.tool_calls.get(message.tool_call_id)
                if info is not None:
                    self.tool_calls[message.tool_call_id] = replace(
                        info, result=message.content, result_message_id=message.id, status="done"
                    )

    def _replace_result_message(self, message: ToolMessage) -> None:
        """A snapshot's result for a call the thread already has a result for, under another
        id (Microsoft re-ids them): replace that message in place rather than hold two."""
        for mid, existing in self.messages.items():
            if isinstance(existing, ToolMessage) and existing.tool_call_id == message.tool_call_id:
                self.messages = {
                    (message.id if k == mid else k): (message if k == mid else v)
                    for k, v in self.messages.items()
                }
                self.touched.pop(mid, None)
                return

    def _learn_call(self, call: ToolCall, parent_id: str) -> None:
        known = self.tool_calls.get(call.id)
        try:
            arguments = json.loads(call.function.arguments) if call.function.arguments else {}
        except (ValueError, RecursionError):
            arguments = None
        self.tool_calls[call.id] = ToolCallInfo(
            id=call.id,
            name=call.function.name,
            arguments_text=call.function.arguments,
            arguments=arguments,
            parent_message_id=parent_id,
            result=known.result if known else None,
            result_message_id=known.result_message_id if known else None,
            status=known.status if known and known.status == "done" else "called",
        )

    def _activity_snapshot(self, event: Any) -> None:
        mid = event.message_id
        existing = self.messages.get(mid)
        # Omitted ``replace`` means true (AG-UI 1.1); ag-ui-protocol 1.0.0 parses it as None.
        if isinstance(existing, ActivityMessage) and event.replace is False:
            return
        self.messages[mid] = ActivityMessage(
            id=mid, activity_type=event.activity_type, content=event.content
        )
        self.touched[mid] = None

    def _activity_delta(self, event: Any) -> None:
        existing = self.messages.get(event.message_id)
        if not isinstance(existing, ActivityMessage):
            self._warn(f"ACTIVITY_DELTA for unknown activity {event.message_id}")
            return
        try:
            content = apply_patch(existing.content, _ops(event.patch))
        except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException, TypeError) as exc:
            self._warn(f"ACTIVITY_DELTA not applied: {exc}")
            return
        self.messages[event.message_id] = existing.model_copy(update={"content": content})
        self.touched[event.message_id] = None


def _ops(patch: list[Any]) -> list[Any]:
    """JSON Patch operations as plain dicts (ag-ui-protocol 1.x parses them into models)."""
    return [
        op.model_dump(mode="json", by_alias=True, exclude_unset=True)
        if isinstance(op, BaseModel)
        else op
        for op in patch
    ]
