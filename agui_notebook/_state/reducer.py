"""Events into a thread: messages, tool calls, state and the run's outcome. Pure.

A :class:`RunReducer` starts from the thread's committed :class:`ThreadSnapshot` and never
mutates it: messages and tool calls are replaced, not edited (copy on write), so a run that fails
is discarded by dropping its reducer and the thread is exactly as it was. What a thread holds is
:mod:`.contents`' (re-exported here); a message not built yet is :mod:`.drafts`'.

- Text and reasoning stream into per-message buffers joined when the message ends (or when a view
  asks), so a million deltas cost a list append each.
- ``metadata`` on the events building an item merges into that item key by key, last write
  winning, never recursing (1.1 basic/metadata); tool-call metadata lands on the call itself.
- Messages and tool calls carry the ``subagentRunId`` of the event that opened them; subagent
  invocations are remembered with their names (for grouping and for saying which one asked).
- REASONING_ENCRYPTED_VALUE is stored, opaque, on the message or tool call it names, with its
  ``encryptedValueType`` (replaced together), and travels back in the next run input.
- STATE_SNAPSHOT and STATE_DELTA change the run's :class:`~.shared_state.SharedState` (a
  delta is an RFC 6902 patch applied all or nothing, AG-UI 1.1 events/state).
- MESSAGES_SNAPSHOT reconciles by message id: known ids are replaced in place, new ones are
  appended. Messages it does not mention are kept (servers send partial snapshots), unless
  ``strict``: then they are dropped as the spec says, except activity and reasoning messages
  (unless the snapshot carries some of that role).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pydantic import BaseModel

from .._frameworks import registry
from .._protocol.plain import check_json
from .._protocol.wire import (
    ActivityMessage,
    AssistantMessage,
    ReasoningMessage,
    ToolCall,
    ToolMessage,
    as_message,
)
from .contents import SubagentInfo, ThreadSnapshot, ToolCallInfo
from .drafts import TEXT_ROLES, Draft, TextBuffer, is_assistant, merged_metadata, tool_call
from .shared_state import SharedState, patched

__all__ = ["RunReducer", "SubagentInfo", "ThreadSnapshot", "ToolCallInfo"]


class RunReducer:
    """Applies one run's events on top of a snapshot, without touching the snapshot."""

    def __init__(
        self, base: ThreadSnapshot, warn: Callable[[str], None], *, strict: bool = False
    ) -> None:
        self._warn = warn
        self._strict = strict
        self._messages: dict[str, Any] = dict(base.messages)  # read through ``messages``
        # Work on messages a run does often and nobody reads before it ends, done when they are
        # read, per message in one model copy: the text of ended messages, and closed tool calls
        # to attach to their assistant message (as they stood when they closed). Building these
        # models one event at a time ran pydantic's validators cold between the deltas.
        self._closed: dict[str, str] = {}
        self._unattached: dict[str, list[ToolCallInfo]] = {}
        self._drafts: set[str] = set()  # ids whose message is a Draft
        self._state = SharedState(base.state, warn)
        self.tool_calls: dict[str, ToolCallInfo] = dict(base.tool_calls)
        self._held_calls = base.tool_calls  # what the thread held before this run
        self._restating: dict[str, str] = {}  # reopened held calls -> their held arguments
        self.subagents: dict[str, SubagentInfo] = dict(base.subagents)
        self.touched: dict[str, None] = {}  # message ids this run created or changed, in order
        self._text: dict[str, TextBuffer] = {}
        self._args: dict[str, TextBuffer] = {}
        self.run_id: str | None = None
        self.protocol_version: str | None = None
        self._reset_run()
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
            "REASONING_ENCRYPTED_VALUE": self._encrypted_value,
            "TOOL_CALL_START": self._tool_start,
            "TOOL_CALL_ARGS": self._tool_args,
            "TOOL_CALL_END": self._tool_end,
            "TOOL_CALL_RESULT": self._tool_result,
            "STATE_SNAPSHOT": self._state.snapshot,
            "STATE_DELTA": self._state.delta,
            "MESSAGES_SNAPSHOT": self._messages_snapshot,
            "ACTIVITY_SNAPSHOT": self._activity_snapshot,
            "ACTIVITY_DELTA": self._activity_delta,
            "SUBAGENT_STARTED": self._subagent_started,
            "SUBAGENT_FINISHED": self._subagent_finished,
            "SUBAGENT_ERROR": self._subagent_error,
            "CUSTOM": self._custom,
        }

    def _reset_run(self) -> None:
        """What one run reports; a stream carrying several runs reports its last (1.1)."""
        self.outcome: str | None = None  # set by RUN_FINISHED: success | interrupt | cancelled
        self.interrupts: list[Any] = []
        self._pause_events: list[Any] = []  # CUSTOM events a framework pauses with (registry)
        self.pending_tool_call_ids: list[str] = []
        self.result: Any = None
        self.usage: list[Any] = []
        self.run_metadata: dict[str, Any] | None = None
        self.error: tuple[str, str | None] | None = None  # (message, code) from RUN_ERROR
        self._run_calls: dict[str, None] = {}  # tool calls started by this run, in order
        self._run_results: set[str] = set()

    def apply(self, etype: str, event: Any) -> None:
        handler = self._handlers.get(etype)
        if handler is not None:
            handler(event)

    def extend(self, etype: str, ident: str, deltas: list[str]) -> None:
        """The ``deltas`` of consecutive content (or argument) events without metadata to the
        message (or tool call) ``ident``: :meth:`apply` for each, at once."""
        if etype == "TOOL_CALL_ARGS":
            self._args[ident].extend(deltas)
        else:  # TEXT_MESSAGE_CONTENT, REASONING_MESSAGE_CONTENT
            self._text[ident].extend(deltas)

    # -- reading while streaming ----------------------------------------------------------

    @property
    def messages(self) -> dict[str, Any]:
        """The messages by id, in order, as they stand now (text still streaming aside)."""
        if self._closed or self._unattached or self._drafts:
            self._settle()
        return self._messages

    def text_of(self, message_id: str) -> str:
        """The text of a message so far, including deltas not yet joined."""
        buffer = self._text.get(message_id)
        if buffer is not None:
            return buffer.value()
        text = self._closed.get(message_id)
        if text is not None:
            return text
        message = self._messages.get(message_id)
        content = getattr(message, "content", None)
        return content if isinstance(content, str) else ""

    def snapshot(self) -> ThreadSnapshot:
        """The thread as it stands after this run (open buffers joined)."""
        for message_id in list(self._text):
            self._closed[message_id] = self._text.pop(message_id).value()
        return ThreadSnapshot(
            dict(self.messages), self.state, dict(self.tool_calls), dict(self.subagents)
        )

    def _settle(self, message_id: str | None = None) -> None:
        """Bring one message (or all) up to date: the text of an ended one into its content,
        its closed tool calls into ``tool_calls``, a draft built."""
        if message_id is not None:
            ids = [message_id]
        else:
            ids = [*self._closed, *self._unattached, *self._drafts]
        for mid in ids:
            text = self._closed.pop(mid, None)
            closed = self._unattached.pop(mid, None)
            self._drafts.discard(mid)  # built below, or replaced by a model already
            message = self._messages.get(mid)
            if message is None:
                continue
            update: dict[str, Any] = {}
            if text is not None:
                update["content"] = text
            if closed:
                calls = [] if type(message) is Draft else list(message.tool_calls or [])
                for info in closed:
                    call = tool_call(info)
                    calls = [c for c in calls if c.id != call.id]
                    calls.append(call)
                update["tool_calls"] = calls
            if type(message) is Draft:
                self._messages[mid] = message.build(update)
            elif update:
                self._messages[mid] = message.model_copy(update=update)

    # -- lifecycle ------------------------------------------------------------------------

    def _run_started(self, event: Any) -> None:
        self._reset_run()
        self.run_id = event.run_id
        self.protocol_version = getattr(event, "protocol_version", None)

    def _run_finished(self, event: Any) -> None:
        outcome = event.outcome
        self.result = event.result
        self.usage = list(event.usage or [])
        self.run_metadata = event.metadata
        declared: list[str] = []
        if outcome is None and self._pause_events:
            # A framework's own style (see the dialects): the pause came as CUSTOM events and the
            # run finished with no outcome.
            self.outcome = "interrupt"
            self.interrupts = registry.interrupts_from_custom(self._pause_events, self.run_id)
        elif outcome is None:
            self.outcome = "success"  # absent outcome: success (pre-1.0 servers too)
        else:
            self.outcome = outcome.type
            if outcome.type == "interrupt":
                self.interrupts = list(outcome.interrupts)
            elif outcome.type == "success":
                declared = list(outcome.pending_tool_call_ids or [])
        # Absent or empty does not mean "nothing pending": derive it from the stream
        # (1.1 events/tool-calls, frontend tools). Microsoft's synthetic calls are not calls.
        self.pending_tool_call_ids = declared or [
            c
            for c in self._run_calls
            if c not in self._run_results
            and not registry.is_synthetic(self.tool_calls.get(c, ToolCallInfo(c, "")).name)
        ]

    def _custom(self, event: Any) -> None:
        if registry.is_pause_event(event.name):
            self._pause_events.append(event)

    def _run_error(self, event: Any) -> None:
        self.error = (event.message, event.code)
        self.usage = list(getattr(event, "usage", None) or [])

    # -- text and reasoning ---------------------------------------------------------------

    def _text_start(self, event: Any) -> None:
        mid = event.message_id
        message = self._messages.get(mid)
        if message is None:
            cls = TEXT_ROLES.get(event.role, AssistantMessage)
            kwargs: dict[str, Any] = {"id": mid, "content": ""}
            if getattr(event, "name", None):
                kwargs["name"] = event.name
            if event.subagent_run_id is not None:
                kwargs["subagent_run_id"] = event.subagent_run_id
            self._messages[mid] = Draft(cls, kwargs)
            self._drafts.add(mid)
        self._text[mid] = TextBuffer(self.text_of(mid))  # re-streaming a known id appends (1.1)
        self._closed.pop(mid, None)  # its text is the new buffer's
        self.touched[mid] = None
        if event.metadata:
            self._merge_message_metadata(mid, event.metadata)

    def _reasoning_start(self, event: Any) -> None:
        mid = event.message_id
        if mid not in self._messages:
            kwargs: dict[str, Any] = {"id": mid, "content": ""}
            if event.subagent_run_id is not None:
                kwargs["subagent_run_id"] = event.subagent_run_id
            self._messages[mid] = ReasoningMessage(**kwargs)
        self._text[mid] = TextBuffer(self.text_of(mid))
        self._closed.pop(mid, None)
        self.touched[mid] = None
        if event.metadata:
            self._merge_message_metadata(mid, event.metadata)

    def _text_content(self, event: Any) -> None:
        self._text[event.message_id].append(event.delta)
        if event.metadata:
            self._merge_message_metadata(event.message_id, event.metadata)

    def _text_end(self, event: Any) -> None:
        if event.metadata:
            self._merge_message_metadata(event.message_id, event.metadata)
        self._materialize(event.message_id)

    def _merge_message_metadata(self, message_id: str, metadata: dict[str, Any]) -> None:
        self._build(message_id)
        message = self._messages[message_id]
        merged = merged_metadata(message.metadata, metadata)
        self._messages[message_id] = message.model_copy(update={"metadata": merged})

    def _materialize(self, message_id: str) -> None:
        """An ended message's text, joined now (its deltas would hold many times its size),
        goes into its content when it is read (:meth:`_settle`)."""
        buffer = self._text.pop(message_id, None)
        if buffer is not None:
            self._closed[message_id] = buffer.value()

    def _build(self, message_id: str) -> None:
        """The message's model, if it is a draft, built as it stands (for a handler that
        changes the model itself)."""
        if message_id in self._drafts:
            self._settle(message_id)

    def _encrypted_value(self, event: Any) -> None:
        """Store the opaque artefact where it belongs; the type is replaced with the value."""
        update = {
            "encrypted_value": event.encrypted_value,
            "encrypted_value_type": getattr(event, "encrypted_value_type", None),
        }
        entity = event.entity_id
        if event.subtype == "tool-call":
            info = self.tool_calls.get(entity)
            if info is None:
                self._warn(f"REASONING_ENCRYPTED_VALUE names no known tool call {entity!r}")
                return
            self.tool_calls[entity] = info.evolve(**update)
            self._settle(info.parent_message_id or "")
            parent = self._messages.get(info.parent_message_id or "")
            if isinstance(parent, AssistantMessage) and parent.tool_calls:
                calls = [
                    _retyped(c, ToolCall).model_copy(update=update) if c.id == entity else c
                    for c in parent.tool_calls
                ]
                self._messages[parent.id] = parent.model_copy(update={"tool_calls": calls})
                self.touched[parent.id] = None
            return
        self._build(entity)
        message = self._messages.get(entity)
        if message is None or isinstance(message, ActivityMessage):
            # Activity messages carry no encrypted value by schema: a name for nothing known.
            self._warn(f"REASONING_ENCRYPTED_VALUE names no known message {entity!r}")
            return
        self._messages[entity] = as_message(message).model_copy(update=update)
        self.touched[entity] = None

    # -- tool calls -----------------------------------------------------------------------

    def _tool_start(self, event: Any) -> None:
        tcid = event.tool_call_id
        self._run_calls[tcid] = None
        known = self.tool_calls.get(tcid)
        if known is not None and known.status != "streaming":
            # A closed call reopened by a new TOOL_CALL_START: further arguments append (1.1).
            self.tool_calls[tcid] = known.evolve(
                status="streaming", metadata=merged_metadata(known.metadata, event.metadata)
            )
            self._args[tcid] = TextBuffer(known.arguments_text)
            if tcid in self._held_calls and not self._strict:
                self._restating[tcid] = known.arguments_text
            return
        parent = event.parent_message_id
        if parent is None:
            last = next(reversed(self._messages), None) if self._messages else None
            if last is not None and last in self.touched and is_assistant(self._messages[last]):
                parent = last
            else:
                parent = tcid
        owner = event.subagent_run_id
        if owner is None:
            owner = getattr(self._messages.get(parent), "subagent_run_id", None)  # inherited
        self.tool_calls[tcid] = ToolCallInfo(
            id=tcid,
            name=event.tool_call_name,
            parent_message_id=parent,
            metadata=event.metadata or None,
            subagent_run_id=owner,
        )
        self._args[tcid] = TextBuffer()

    def _tool_args(self, event: Any) -> None:
        self._args[event.tool_call_id].append(event.delta)
        if event.metadata:
            info = self.tool_calls[event.tool_call_id]
            self.tool_calls[info.id] = info.evolve(
                metadata=merged_metadata(info.metadata, event.metadata)
            )

    def _tool_end(self, event: Any) -> None:
        tcid = event.tool_call_id
        buffer = self._args.pop(tcid, None)
        text = buffer.value() if buffer is not None else ""
        held = self._restating.pop(tcid, None)
        if held is not None and registry.restates_arguments(held, text):
            text = held  # LangGraph re-sent the call it already streamed (_compat)
        info = self.tool_calls[tcid]
        try:
            if text.strip():
                check_json(text)  # judged; ToolCallInfo.arguments parses the text when read
        except ValueError:
            # Closing a call says its text is complete, not valid (1.1 events/tool-calls).
            self._warn(f"tool call {tcid} ({info.name}): arguments are not valid JSON")
        except RecursionError:
            self._warn(f"tool call {tcid} ({info.name}): arguments nested too deeply")
        info = info.evolve(
            arguments_text=text,
            status="done" if info.result_message_id else "called",
            metadata=merged_metadata(info.metadata, event.metadata),
        )
        self.tool_calls[tcid] = info
        self._attach_call(info.parent_message_id or tcid, info)

    def _attach_call(self, parent_id: str, info: ToolCallInfo) -> None:
        parent = self._messages.get(parent_id)
        if is_assistant(parent):  # the call joins it when it is read
            self._unattached.setdefault(parent_id, []).append(info)
            self.touched[parent_id] = None
            return
        if parent is not None:
            self._warn(f"tool call {info.id}: parent {parent_id} is not an assistant message")
            parent_id = info.id
        kwargs: dict[str, Any] = {"id": parent_id, "tool_calls": [tool_call(info)]}
        if info.subagent_run_id is not None:
            kwargs["subagent_run_id"] = info.subagent_run_id
        self._settle(parent_id)  # what it replaces, as it stood
        self._messages[parent_id] = AssistantMessage(**kwargs)
        self.touched[parent_id] = None

    def _tool_result(self, event: Any) -> None:
        tcid = event.tool_call_id
        mid = event.message_id
        self._run_results.add(tcid)
        kwargs: dict[str, Any] = {"id": mid, "content": event.content, "tool_call_id": tcid}
        if event.metadata:
            kwargs["metadata"] = dict(event.metadata)
        if event.subagent_run_id is not None:
            kwargs["subagent_run_id"] = event.subagent_run_id
        self._messages[mid] = Draft(ToolMessage, kwargs)
        self._drafts.add(mid)
        self.touched[mid] = None
        info = self.tool_calls.get(tcid)
        if info is not None:
            self.tool_calls[tcid] = info.evolve(
                result=event.content, result_message_id=mid, status="done"
            )

    # -- state and snapshots --------------------------------------------------------------

    @property
    def state(self) -> Any:
        """The state so far (:attr:`.SharedState.value`: whoever reads it may keep it)."""
        return self._state.value

    def patch_together(self, patches: list[list[Any]]) -> bool:
        """:meth:`.SharedState.patch_together`: consecutive STATE_DELTAs as one patch."""
        return self._state.patch_together(patches)

    def _messages_snapshot(self, event: Any) -> None:
        self._settle()  # compared and replaced as they stand
        mentioned: set[str] = set()
        for message in event.messages:
            mentioned.add(message.id)
            if message.id in self._text:
                # Restating a message still streaming: later deltas continue from the restatement.
                content = getattr(message, "content", None)
                self._text[message.id] = TextBuffer(content if isinstance(content, str) else "")
            if (
                not self._strict
                and isinstance(message, ToolMessage)
                and message.id not in self._messages
            ):
                self._replace_result_message(message)
            if self._messages.get(message.id) != message:
                # Restated history the thread already holds is not "produced by this run".
                self.touched[message.id] = None
            self._messages[message.id] = message
            if isinstance(message, AssistantMessage):
                for call in message.tool_calls or ():
                    self._learn_call(call, message)
            elif isinstance(message, ToolMessage):
                info = self.tool_calls.get(message.tool_call_id)
                if info is not None:
                    self.tool_calls[message.tool_call_id] = info.evolve(
                        result=message.content, result_message_id=message.id, status="done"
                    )
        if self._strict:
            self._drop_unmentioned(event.messages, mentioned)

    def _drop_unmentioned(self, snapshot: list[Any], mentioned: set[str]) -> None:
        """The snapshot is the complete set: drop what it does not mention, except client-only
        activity and reasoning messages, unless it carries some of that role (1.1 events/state)."""
        kept_roles = {"activity", "reasoning"} - {m.role for m in snapshot}
        for mid in [m for m in self._messages if m not in mentioned]:
            if self._messages[mid].role in kept_roles:
                continue
            del self._messages[mid]
            self.touched.pop(mid, None)
            self._text.pop(mid, None)

    def _replace_result_message(self, message: ToolMessage) -> None:
        """A snapshot's result for a call the thread already has a result for, under another
        id (Microsoft re-ids them): replace that message in place rather than hold two."""
        for mid, existing in self._messages.items():
            if isinstance(existing, ToolMessage) and existing.tool_call_id == message.tool_call_id:
                self._messages = {
                    (message.id if k == mid else k): (message if k == mid else v)
                    for k, v in self._messages.items()
                }
                self.touched.pop(mid, None)
                return

    def _learn_call(self, call: Any, parent: Any) -> None:
        known = self.tool_calls.get(call.id)
        self.tool_calls[call.id] = ToolCallInfo(
            id=call.id,
            name=call.function.name,
            arguments_text=call.function.arguments,
            parent_message_id=parent.id,
            result=known.result if known else None,
            result_message_id=known.result_message_id if known else None,
            status=known.status if known and known.status == "done" else "called",
            metadata=call.metadata,
            subagent_run_id=parent.subagent_run_id,
            encrypted_value=call.encrypted_value,
            encrypted_value_type=getattr(call, "encrypted_value_type", None),
        )

    def _activity_snapshot(self, event: Any) -> None:
        mid = event.message_id
        existing = self._messages.get(mid)
        if isinstance(existing, ActivityMessage):
            if event.replace is False:
                # Leave content and type as they stand; metadata still merges (1.1 activity).
                update: dict[str, Any] = {}
            else:
                # Content and type replaced, ownership re-minted, metadata kept merging.
                update = {
                    "content": event.content,
                    "activity_type": event.activity_type,
                    "subagent_run_id": event.subagent_run_id,
                }
            update["metadata"] = merged_metadata(existing.metadata, event.metadata)
            self._messages[mid] = existing.model_copy(update=update)
        else:
            kwargs: dict[str, Any] = {
                "id": mid,
                "activity_type": event.activity_type,
                "content": event.content,
            }
            if event.metadata:
                kwargs["metadata"] = dict(event.metadata)
            if event.subagent_run_id is not None:
                kwargs["subagent_run_id"] = event.subagent_run_id
            self._messages[mid] = ActivityMessage(**kwargs)
        self.touched[mid] = None

    def _activity_delta(self, event: Any) -> None:
        existing = self._messages.get(event.message_id)
        if not isinstance(existing, ActivityMessage):
            self._warn(f"ACTIVITY_DELTA for unknown activity {event.message_id}, skipped")
            return
        content = patched(existing.content, event.patch, "ACTIVITY_DELTA", "activity", self._warn)
        if not isinstance(content, dict):
            self._warn(f"ACTIVITY_DELTA for {event.message_id} would make its content a non-object")
            content = existing.content
        self._messages[event.message_id] = existing.model_copy(
            update={
                "content": content,
                "activity_type": event.activity_type,  # a delta may retype its activity (1.1)
                "metadata": merged_metadata(existing.metadata, event.metadata),
            }
        )
        self.touched[event.message_id] = None

    # -- subagents --------------------------------------------------------------------------

    def _subagent_started(self, event: Any) -> None:
        self.subagents[event.subagent_run_id] = SubagentInfo(
            id=event.subagent_run_id,
            name=event.name,
            description=event.description,
            parent_subagent_run_id=event.parent_subagent_run_id,
            parent_tool_call_id=event.parent_tool_call_id,
        )

    def _subagent_finished(self, event: Any) -> None:
        suspended = event.outcome is not None and event.outcome.type == "suspended"
        self._subagent_ended(event.subagent_run_id, "suspended" if suspended else "done", None)

    def _subagent_error(self, event: Any) -> None:
        self._subagent_ended(event.subagent_run_id, "error", event.message)

    def _subagent_ended(self, sid: str, status: str, error: str | None) -> None:
        info = self.subagents.get(sid) or SubagentInfo(id=sid)
        self.subagents[sid] = replace(info, status=status, error=error)


def _retyped(model: Any, cls: type[BaseModel]) -> Any:
    """``model`` as ``cls`` (the 1.1 extension of its ag_ui.core class) when it is not one."""
    return model if isinstance(model, cls) else cls.model_validate(model.model_dump(by_alias=True))
