"""Build one run's event script: ``ag_ui.core`` events in wire order, with pauses between deltas.

Pure: a ``RunScript`` only appends to lists. The app turns ``Pause`` into sleeping and events into
SSE frames. The messages a run adds to its thread are collected alongside, so the thread history and
what was streamed can never disagree.

Works with ag-ui-protocol 0.1.22 and 1.x: fields missing from 0.1.22 (``protocolVersion``) go in as
extra keys, which those models keep and serialise; 1.1 shapes neither line models (content parts on
a tool result, ``encryptedValueType``) use the client's own extensions (``agui_notebook._protocol.wire``).

Inside ``with script.subagent(id, name):`` everything the script emits is attributed to that
subagent invocation (``subagentRunId``), between SUBAGENT_STARTED and SUBAGENT_FINISHED.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ag_ui.core import (
    ActivityDeltaEvent,
    ActivitySnapshotEvent,
    AssistantMessage,
    BaseEvent,
    FunctionCall,
    Interrupt,
    Message,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    SubagentFinishedEvent,
    SubagentStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCall,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
)

from .._protocol import wire as _wire
from ._options import DemoOptions

PROTOCOL_VERSION = "1.0"

JSON = dict[str, Any]
NewId = Callable[[str], str]


@dataclass(frozen=True)
class Pause:
    """Wait this many seconds before the next event (pacing, like a model producing tokens)."""

    seconds: float


Step = BaseEvent | Pause


@dataclass(frozen=True)
class PlannedCall:
    """A tool call the assistant makes: streamed as TOOL_CALL_START/ARGS/END."""

    id: str
    name: str
    arguments: JSON


def split_text(text: str, words_per_chunk: int) -> list[str]:
    """Deltas whose concatenation is ``text``; never an empty one (validator rule AGUI105)."""
    words = re.findall(r"\S+\s*", text)
    return ["".join(words[i : i + words_per_chunk]) for i in range(0, len(words), words_per_chunk)]


class RunScript:
    """The events of one run, plus the messages it adds to the thread."""

    def __init__(self, thread_id: str, run_id: str, options: DemoOptions, new_id: NewId) -> None:
        self.thread_id, self.run_id = thread_id, run_id
        self.options, self.new_id = options, new_id
        self.steps: list[Step] = []
        self.messages: list[Message] = []
        #: The subagent invocation the script is speaking for (None: the parent agent).
        self.speaker: str | None = None

    @contextmanager
    def subagent(
        self, subagent_run_id: str, name: str, *, suspended_on: Sequence[str] | None = None
    ) -> Iterator[None]:
        """Attribute what is emitted inside to one subagent invocation (spec: events/subagents).

        ``suspended_on`` ends the segment as suspended, awaiting those interrupts.
        """
        self.steps.append(
            SubagentStartedEvent(
                subagent_run_id=subagent_run_id,
                name=name,
                description=f"The {name} specialist",
            )
        )
        self.speaker = subagent_run_id
        try:
            yield
        finally:
            self.speaker = None
        finished: JSON = {"subagentRunId": subagent_run_id}
        if suspended_on is not None:
            finished["outcome"] = {"type": "suspended", "interruptIds": list(suspended_on)}
        self.steps.append(SubagentFinishedEvent.model_validate(finished))

    def _tag(self) -> JSON:
        return {} if self.speaker is None else {"subagent_run_id": self.speaker}

    # --- lifecycle (spec: events/lifecycle) --------------------------------------------------

    def start(self) -> None:
        self.steps.append(
            RunStartedEvent.model_validate(
                {
                    "threadId": self.thread_id,
                    "runId": self.run_id,
                    "protocolVersion": PROTOCOL_VERSION,
                }
            )
        )

    def finish(self, interrupts: Sequence[Interrupt] = ()) -> None:
        # RUN_FINISHED always says why it ended (spec: patterns/interrupt-resume).
        outcome: RunFinishedInterruptOutcome | RunFinishedSuccessOutcome = (
            RunFinishedInterruptOutcome(interrupts=list(interrupts))
            if interrupts
            else RunFinishedSuccessOutcome()
        )
        self.steps.append(
            RunFinishedEvent(thread_id=self.thread_id, run_id=self.run_id, outcome=outcome)
        )

    def fail(self, code: str, message: str) -> None:
        self.steps.append(RunErrorEvent(message=message, code=code))

    # --- state and history (spec: events/state) ----------------------------------------------

    def state_snapshot(self, state: JSON) -> None:
        self.steps.append(StateSnapshotEvent(snapshot=json.loads(json.dumps(state))))

    def state_delta(self, patch: list[JSON]) -> None:
        if patch:
            self.steps.append(StateDeltaEvent(delta=json.loads(json.dumps(patch)), **self._tag()))

    def messages_snapshot(self, messages: Sequence[Message]) -> None:
        # As 1.1 messages: a tool message's content may be a list of parts (ag_ui.core says str).
        wire = [_wire.as_message(m) for m in messages]
        self.steps.append(_wire.MessagesSnapshot(messages=wire))

    # --- content ------------------------------------------------------------------------------

    def say(self, text: str, tool_calls: Sequence[PlannedCall] = ()) -> str:
        """One assistant message: its text streamed, then its tool calls. Returns its id."""
        message_id = self.new_id("msg")
        self._stream_text(message_id, text)
        self.steps.append(TextMessageEndEvent(message_id=message_id))
        for call in tool_calls:
            self._stream_tool_call(call, parent_message_id=message_id)
        self.messages.append(
            AssistantMessage(
                id=message_id,
                role="assistant",
                content=text,
                **self._tag(),
                tool_calls=[
                    ToolCall(
                        id=call.id,
                        type="function",
                        function=FunctionCall(name=call.name, arguments=json.dumps(call.arguments)),
                    )
                    for call in tool_calls
                ]
                or None,
            )
        )
        return message_id

    def say_partially(self, text: str) -> None:
        """Start a message and stop mid-way (the run then fails: its text is debris)."""
        self._stream_text(self.new_id("msg"), text)

    def reason(self, text: str, *, signature: tuple[str, str] | None = None) -> str:
        """A reasoning block (spec: events/reasoning); not kept in the thread history unless it
        is ``signature``-d: (encryptedValue, encryptedValueType), an opaque artefact the client
        must keep with the message and send back (REASONING_ENCRYPTED_VALUE)."""
        reasoning_id = self.new_id("reasoning")
        self.steps.append(ReasoningStartEvent(message_id=reasoning_id))
        self.steps.append(ReasoningMessageStartEvent(message_id=reasoning_id, role="reasoning"))
        for i, delta in enumerate(split_text(text, self.options.chunk_words)):
            self._pace(i)
            self.steps.append(ReasoningMessageContentEvent(message_id=reasoning_id, delta=delta))
        self.steps.append(ReasoningMessageEndEvent(message_id=reasoning_id))
        if signature is not None:
            value, kind = signature
            self.steps.append(
                _wire.ReasoningEncryptedValue(
                    subtype="message",
                    entity_id=reasoning_id,
                    encrypted_value=value,
                    encrypted_value_type=kind,
                )
            )
            self.messages.append(
                _wire.ReasoningMessage(
                    id=reasoning_id,
                    content=text,
                    encrypted_value=value,
                    encrypted_value_type=kind,
                )
            )
        self.steps.append(ReasoningEndEvent(message_id=reasoning_id))
        return reasoning_id

    def tool_result(self, tool_call_id: str, result: JSON) -> None:
        message_id = self.new_id("msg")
        content = json.dumps(result)
        self.steps.append(
            ToolCallResultEvent(
                message_id=message_id,
                tool_call_id=tool_call_id,
                content=content,
                role="tool",
                **self._tag(),
            )
        )
        self.messages.append(
            ToolMessage(
                id=message_id,
                role="tool",
                content=content,
                tool_call_id=tool_call_id,
                **self._tag(),
            )
        )

    def tool_result_parts(self, tool_call_id: str, parts: list[JSON]) -> None:
        """A result that is a list of content parts (spec: events/tool-calls, result content)."""
        message_id = self.new_id("msg")
        self.steps.append(
            _wire.ToolCallResult(
                message_id=message_id,
                tool_call_id=tool_call_id,
                content=parts,
                role="tool",
                **self._tag(),
            )
        )
        self.messages.append(
            _wire.ToolMessage(
                id=message_id, content=parts, tool_call_id=tool_call_id, **self._tag()
            )
        )

    # --- activities (spec: events/activity; front-end only, not part of the history) ---------

    def activity_snapshot(self, message_id: str, activity_type: str, content: JSON) -> None:
        self.steps.append(
            ActivitySnapshotEvent(
                message_id=message_id,
                activity_type=activity_type,
                content=json.loads(json.dumps(content)),
                replace=True,
            )
        )

    def activity_delta(self, message_id: str, activity_type: str, patch: list[JSON]) -> None:
        self.steps.append(
            ActivityDeltaEvent.model_validate(
                {"messageId": message_id, "activityType": activity_type, "patch": patch}
            )
        )

    def pause_step(self) -> None:
        """The pause between two steps of a task (ten text deltas' worth)."""
        if self.options.text_delay > 0:
            self.steps.append(Pause(self.options.text_delay * 10))

    # --- helpers ------------------------------------------------------------------------------

    def _stream_text(self, message_id: str, text: str) -> None:
        self.steps.append(
            TextMessageStartEvent(message_id=message_id, role="assistant", **self._tag())
        )
        for i, delta in enumerate(split_text(text, self.options.chunk_words)):
            self._pace(i)
            self.steps.append(TextMessageContentEvent(message_id=message_id, delta=delta))

    def _stream_tool_call(self, call: PlannedCall, parent_message_id: str) -> None:
        self.steps.append(
            ToolCallStartEvent(
                tool_call_id=call.id,
                tool_call_name=call.name,
                parent_message_id=parent_message_id,
                **self._tag(),
            )
        )
        # Arguments arrive in pieces, as from a model: clients must concatenate before parsing.
        arguments = json.dumps(call.arguments)
        size = max(16, len(arguments) // 3)
        for i in range(0, len(arguments), size):
            self._pace(i)
            delta = arguments[i : i + size]
            self.steps.append(ToolCallArgsEvent(tool_call_id=call.id, delta=delta))
        self.steps.append(ToolCallEndEvent(tool_call_id=call.id))

    def _pace(self, index: int) -> None:
        if index and self.options.text_delay > 0:
            self.steps.append(Pause(self.options.text_delay))
