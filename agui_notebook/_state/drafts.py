"""Messages while a run builds them: streamed text, drafts, the tool calls they carry. Pure.

What the reducer (:mod:`.reducer`) holds of a message before anyone reads it: its text in a
:class:`TextBuffer` (a list append per delta), its model not built yet (:class:`Draft`), its
closed tool calls as :func:`tool_call` builds them into it, its metadata merged key by key
(:func:`merged_metadata`, 1.1 basic/metadata).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from .._protocol.wire import (
    AssistantMessage,
    DeveloperMessage,
    SystemMessage,
    ToolCall,
    UserMessage,
)
from .contents import ToolCallInfo

__all__ = ["TEXT_ROLES", "Draft", "TextBuffer", "is_assistant", "merged_metadata", "tool_call"]

#: The model a TEXT_MESSAGE_START's role opens (an unknown one: an assistant's).
TEXT_ROLES: dict[str | None, type[BaseModel]] = {
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

    def extend(self, deltas: list[str]) -> None:
        small = self.small
        small.extend(deltas)
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


class Draft:
    """A message this run opened (TEXT_MESSAGE_START, TOOL_CALL_RESULT), not built yet. Its
    model is built once, when first read (:meth:`.RunReducer.messages`), with its text and tool
    calls: not at the start and again as a copy when they arrive, and not one at a time between
    deltas, where pydantic's validators run cold (the realistic bench mix: its text starts took
    19 ms of a 330 ms run built there, 7 ms as drafts). Answers what the handlers ask of a
    message before then: its class, its fields as given."""

    __slots__ = ("cls", "fields")

    def __init__(self, cls: type[BaseModel], fields: dict[str, Any]) -> None:
        self.cls = cls
        self.fields = fields

    @property
    def subagent_run_id(self) -> str | None:
        return self.fields.get("subagent_run_id")

    @property
    def content(self) -> Any:
        return self.fields.get("content")

    def build(self, update: dict[str, Any]) -> BaseModel:
        # The model's validator, as ``cls(**fields)`` calls it, without that call's Python frame.
        built: BaseModel = self.cls.__pydantic_validator__.validate_python(
            {**self.fields, **update}
        )
        return built


def is_assistant(message: Any) -> bool:
    """An assistant message, built or not."""
    if type(message) is Draft:
        return issubclass(message.cls, AssistantMessage)
    return isinstance(message, AssistantMessage)


def merged_metadata(
    current: dict[str, Any] | None, new: dict[str, Any] | None
) -> dict[str, Any] | None:
    """Metadata merge: key by key, last write wins, no recursion (1.1 basic/metadata)."""
    if not new:
        return current
    return {**current, **new} if current else dict(new)


_TOOL_CALL = ToolCall.__pydantic_validator__.validate_python


def tool_call(info: ToolCallInfo) -> ToolCall:
    """The tool call an assistant message carries, as ``info`` stands."""
    call: dict[str, Any] = {
        "id": info.id,
        "function": {"name": info.name, "arguments": info.arguments_text},
    }
    for attr in ("metadata", "encrypted_value", "encrypted_value_type"):
        if getattr(info, attr) is not None:
            call[attr] = getattr(info, attr)
    built: ToolCall = _TOOL_CALL(call)  # its FunctionCall validated inside, not built apart
    return built
