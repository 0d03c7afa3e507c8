# Subclasses here retype fields of ag_ui.core models on purpose (and differently per line):
# mypy: disable-error-code="assignment,misc,valid-type,unused-ignore"
"""The AG-UI 1.1 models this client reads and sends: ``ag_ui.core``'s, extended in this one place.

Both supported lines of ag-ui-protocol lag the 1.1 schema somewhere. Each lagging class is
subclassed here, adding or retyping only what is missing, so every ``isinstance`` check against
``ag_ui.core`` still holds and the package's own validation is kept:

======================================================  =================  ======================
what 1.1 has                                            0.1.22             1.0.0
======================================================  =================  ======================
``encryptedValueType`` (messages, tool calls, the       missing            missing
``REASONING_ENCRYPTED_VALUE`` event)
content parts on tool messages and TOOL_CALL_RESULT;    missing            present
the ``file`` source; ``id``/``metadata`` on text parts
``ACTIVITY_SNAPSHOT.replace`` absent means true         true               read as None
``ACTIVITY_SNAPSHOT.content`` must be an object         not checked        checked
``TEXT_MESSAGE_START.role`` absent means assistant      assistant          read as None
``RUN_STARTED.protocolVersion``, ``RunAgentInput.       missing            present
protocolVersion``, the ``cancelled`` outcome,
``pendingToolCallIds``, ``cacheWriteInputTokens``
``RunAgentInput.tools``/``context``/``forwardedProps``  required           optional
optional (an echoed ``RUN_STARTED.input`` may omit
them)
======================================================  =================  ======================

Everything else (every other event, ``Interrupt``, ``ResumeEntry``, ``Tool``...) is the
package's class unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args

from ag_ui import core
from ag_ui.core import events as agui_events
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model
from pydantic.alias_generators import to_camel

__all__ = [
    "EVENT_MODELS",
    "AssistantMessage",
    "CancelledOutcome",
    "ContentPart",
    "DeveloperMessage",
    "InterruptOutcome",
    "Message",
    "ReasoningMessage",
    "RunAgentInput",
    "RunFinished",
    "RunStarted",
    "SuccessOutcome",
    "SystemMessage",
    "ToolCall",
    "ToolMessage",
    "UserMessage",
    "as_message",
]

_E = agui_events
_MAX_INT = 9007199254740991


class _Wire(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


# -- content parts (tool results and user messages) ------------------------------------------


def _legacy_content_part() -> Any:
    """The 1.1 content part union for ag-ui-protocol 0.1.x, built on its ``*InputContent``."""

    class FileSource(core.types.ConfiguredBaseModel):
        """Bytes already at the model provider under a handle it issued (opaque)."""

        type: Literal["file"] = "file"
        value: str
        provider: str | None = None
        mime_type: str | None = None

    part_source = Annotated[
        Union[core.InputContentDataSource, core.InputContentUrlSource, FileSource],  # noqa: UP007
        Field(discriminator="type"),
    ]

    class TextPart(core.TextInputContent):
        id: str | None = None
        metadata: Any = None

    # Each media part: the package's, with an id and the 1.1 source union (``file`` added).
    media = [
        create_model(
            base.__name__.replace("InputContent", "Part"),
            __base__=base,
            __module__=__name__,
            id=(str | None, None),
            source=(part_source, ...),
        )
        for base in (
            core.ImageInputContent,
            core.AudioInputContent,
            core.VideoInputContent,
            core.DocumentInputContent,
        )
    ]
    parts = (TextPart, *media)
    return Annotated[Union[parts], Field(discriminator="type")]  # noqa: UP007 - of a tuple


if TYPE_CHECKING:
    ContentPart = Any
elif hasattr(core, "FileSource") and hasattr(core, "ContentPart"):
    ContentPart = core.ContentPart  # ag-ui-protocol 1.x models the 1.1 parts already
else:
    ContentPart = _legacy_content_part()

#: The names a content part's ``type`` may take (anything else is stripped with a warning).
PART_TYPES = frozenset({"text", "image", "audio", "video", "document"})
#: The names a media part's ``source.type`` may take.
SOURCE_TYPES = frozenset({"data", "url", "file"})


# -- messages ----------------------------------------------------------------------------------


class ToolCall(core.ToolCall):
    encrypted_value_type: str | None = None


class DeveloperMessage(core.DeveloperMessage):
    encrypted_value_type: str | None = None


class SystemMessage(core.SystemMessage):
    encrypted_value_type: str | None = None


class AssistantMessage(core.AssistantMessage):
    encrypted_value_type: str | None = None
    tool_calls: list[ToolCall] | None = None


class UserMessage(core.UserMessage):
    encrypted_value_type: str | None = None
    content: str | list[ContentPart]


class ToolMessage(core.ToolMessage):
    encrypted_value_type: str | None = None
    content: str | list[ContentPart]


class ReasoningMessage(core.ReasoningMessage):
    encrypted_value_type: str | None = None


ActivityMessage = core.ActivityMessage

Message = Annotated[
    Union[  # noqa: UP007
        DeveloperMessage,
        SystemMessage,
        AssistantMessage,
        UserMessage,
        ToolMessage,
        ActivityMessage,
        ReasoningMessage,
    ],
    Field(discriminator="role"),
]
MESSAGE = TypeAdapter(Message)
ROLES = frozenset({"developer", "system", "assistant", "user", "tool", "activity", "reasoning"})
_OURS = get_args(get_args(Message)[0])  # the message models above, Message's members


def as_message(message: Any) -> Any:
    """``message`` as one of this module's models (a plain ``ag_ui.core`` one is converted)."""
    if isinstance(message, _OURS):
        return message
    data = message.model_dump(by_alias=True) if isinstance(message, BaseModel) else message
    return MESSAGE.validate_python(data)


# -- run input ---------------------------------------------------------------------------------


class RunAgentInput(core.RunAgentInput):
    """The request body: 1.1 messages, ``protocolVersion``, and the optional lists optional."""

    protocol_version: str | None = None
    messages: list[Message]
    tools: list[core.Tool] | None = None
    context: list[core.Context] | None = None
    forwarded_props: Any = None


# -- events ------------------------------------------------------------------------------------


class TextMessageStart(_E.TextMessageStartEvent):
    role: Literal["developer", "system", "assistant", "user"] = "assistant"


class ToolCallResult(_E.ToolCallResultEvent):
    content: str | list[ContentPart]


class MessagesSnapshot(_E.MessagesSnapshotEvent):
    messages: list[Message]


class ReasoningEncryptedValue(_E.ReasoningEncryptedValueEvent):
    encrypted_value_type: str | None = None


class ActivitySnapshot(_E.ActivitySnapshotEvent):
    content: dict[str, Any]
    replace: bool = True


class TokenUsage(core.TokenUsage):
    cache_write_input_tokens: int | None = Field(default=None, ge=0, le=_MAX_INT)


class SuccessOutcome(_Wire):
    type: Literal["success"] = "success"
    pending_tool_call_ids: list[str] | None = None


class InterruptOutcome(_Wire):
    type: Literal["interrupt"] = "interrupt"
    interrupts: Annotated[list[core.Interrupt], Field(min_length=1)]


class CancelledOutcome(_Wire):
    type: Literal["cancelled"] = "cancelled"


Outcome = Annotated[
    Union[SuccessOutcome, InterruptOutcome, CancelledOutcome],  # noqa: UP007
    Field(discriminator="type"),
]
OUTCOME_TYPES = frozenset({"success", "interrupt", "cancelled"})
SUBAGENT_OUTCOME_TYPES = frozenset({"success", "suspended"})
ENCRYPTED_SUBTYPES = frozenset({"message", "tool-call"})


class RunStarted(_E.RunStartedEvent):
    protocol_version: str | None = None
    input: RunAgentInput | None = None


class RunFinished(_E.RunFinishedEvent):
    outcome: Outcome | None = None
    usage: list[TokenUsage] | None = None


class RunError(_E.RunErrorEvent):
    usage: list[TokenUsage] | None = None


# -- which model reads each event type ---------------------------------------------------------


def _event_models() -> dict[str, type[BaseModel]]:
    names = {
        "TEXT_MESSAGE_CONTENT": "TextMessageContentEvent",
        "TEXT_MESSAGE_END": "TextMessageEndEvent",
        "TEXT_MESSAGE_CHUNK": "TextMessageChunkEvent",
        "TOOL_CALL_START": "ToolCallStartEvent",
        "TOOL_CALL_ARGS": "ToolCallArgsEvent",
        "TOOL_CALL_END": "ToolCallEndEvent",
        "TOOL_CALL_CHUNK": "ToolCallChunkEvent",
        "STATE_SNAPSHOT": "StateSnapshotEvent",
        "STATE_DELTA": "StateDeltaEvent",
        "ACTIVITY_DELTA": "ActivityDeltaEvent",
        "RAW": "RawEvent",
        "CUSTOM": "CustomEvent",
        "STEP_STARTED": "StepStartedEvent",
        "STEP_FINISHED": "StepFinishedEvent",
        "REASONING_START": "ReasoningStartEvent",
        "REASONING_MESSAGE_START": "ReasoningMessageStartEvent",
        "REASONING_MESSAGE_CONTENT": "ReasoningMessageContentEvent",
        "REASONING_MESSAGE_END": "ReasoningMessageEndEvent",
        "REASONING_MESSAGE_CHUNK": "ReasoningMessageChunkEvent",
        "REASONING_END": "ReasoningEndEvent",
        "SUBAGENT_STARTED": "SubagentStartedEvent",
        "SUBAGENT_FINISHED": "SubagentFinishedEvent",
        "SUBAGENT_ERROR": "SubagentErrorEvent",
    }
    found: dict[str, type[BaseModel]] = {t: getattr(_E, n) for t, n in names.items()}
    found.update(
        {
            "TEXT_MESSAGE_START": TextMessageStart,
            "TOOL_CALL_RESULT": ToolCallResult,
            "MESSAGES_SNAPSHOT": MessagesSnapshot,
            "ACTIVITY_SNAPSHOT": ActivitySnapshot,
            "REASONING_ENCRYPTED_VALUE": ReasoningEncryptedValue,
            "RUN_STARTED": RunStarted,
            "RUN_FINISHED": RunFinished,
            "RUN_ERROR": RunError,
        }
    )
    return found


#: The model each event type this client knows is read with: ``ag_ui.core``'s, or its 1.1
#: extension above. A type not here is unknown (dropped with a warning).
EVENT_MODELS: dict[str, type[BaseModel]] = _event_models()
