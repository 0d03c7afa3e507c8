"""What the store keeps of a thread, as JSON text, and back. Pure: no I/O.

A committed thread becomes a :class:`ThreadRow` (its messages, state, tool calls, pending
interrupts with everything a card needs, the interrupts its last resume answered) and each
committed run a :class:`RunRow` summary. Every text that goes into a row passes through the shared
``_secrets.scrub`` with the credential values the agent knows, so a token the server echoed into
a message, the state or an interrupt is stored as ``<redacted>``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ag_ui.core import Message, UserMessage
from pydantic import TypeAdapter, ValidationError

from ._interrupts import PendingInterrupt, parse_expiry
from ._reducer import ThreadSnapshot, ToolCallInfo
from ._secrets import scrub

__all__ = [
    "RestoredThread",
    "RunRow",
    "ThreadRow",
    "ThreadSummary",
    "decode_thread",
    "encode_run",
    "encode_thread",
    "scrubbed_json",
    "summary_from_row",
]

_TITLE_CHARS = 60
# One encoder for every write (json.dumps with options builds a new one per call).
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


@dataclass(frozen=True)
class ThreadSummary:
    """A stored thread, as ``agent.threads()`` and ``agui-notebook threads`` list it."""

    id: str
    agent_url: str
    created_at: datetime
    updated_at: datetime
    #: How many interrupts wait for an answer.
    pending: int
    #: How many messages the thread holds.
    messages: int
    #: How its latest committed run ended (success, interrupt, cancelled).
    last_status: str | None
    #: The start of its first user message.
    title: str | None

    def __repr__(self) -> str:
        return (
            f"ThreadSummary(id={self.id!r}, updated_at={self.updated_at.isoformat()!r}, "
            f"pending={self.pending}, messages={self.messages}, title={self.title!r})"
        )


@dataclass(frozen=True)
class ThreadRow:
    """A thread as one row of JSON texts."""

    agent_url: str
    id: str
    updated_at: str
    title: str | None
    last_run_id: str | None
    last_status: str | None
    message_count: int
    pending_count: int
    messages: str
    state: str
    tool_calls: str
    pending: str
    answered: str


@dataclass(frozen=True)
class RunRow:
    """A committed run's summary."""

    run_id: str
    summary: str  # JSON: kind, parentRunId, startedAt, finishedAt, status, eventCount, ...


@dataclass(frozen=True)
class RestoredThread:
    """What a stored row gives back to a :class:`Thread`."""

    snapshot: ThreadSnapshot
    pending: list[PendingInterrupt]
    last_run_id: str | None
    answered: dict[str, PendingInterrupt]
    warnings: list[str]


# -- encoding ----------------------------------------------------------------------------------


def scrubbed_json(value: Any, secrets: Iterable[str]) -> str:
    """``value`` as compact JSON with every known secret value replaced by ``<redacted>``."""
    text = _ENCODE(value)
    return _scrub_text(text, lambda: value, secrets)


def _scrub_text(text: str, value: Callable[[], Any], secrets: Iterable[str]) -> str:
    secrets = list(secrets)
    if not secrets:
        return text
    cleaned = scrub(text, secrets)
    if cleaned == text:
        return text
    try:
        json.loads(cleaned)
    except ValueError:
        # A secret that spans JSON syntax: scrub string by string instead.
        cleaned = json.dumps(
            _scrub_strings(value(), secrets), ensure_ascii=False, separators=(",", ":")
        )
    return cleaned


def _scrub_strings(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        return scrub(value, secrets)
    if isinstance(value, Mapping):
        return {scrub(str(k), secrets): _scrub_strings(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub_strings(v, secrets) for v in value]
    return value


def encode_thread(
    *,
    agent_url: str,
    thread_id: str,
    snapshot: ThreadSnapshot,
    pending: list[PendingInterrupt],
    last_run_id: str | None,
    last_status: str | None,
    answered: Mapping[str, PendingInterrupt],
    now: datetime,
    secrets: Iterable[str],
    memo: dict[str, tuple[Any, str]] | None = None,
) -> ThreadRow:
    """A thread as a row. ``memo`` keeps each message's and tool call's JSON between commits of
    one thread: they are immutable (a run replaces what it changes), so an unchanged one is not
    serialised again and a commit costs what the run added, not the whole thread."""
    secrets = [s for s in secrets if s]
    messages = list(snapshot.messages.values())
    kept: dict[str, tuple[Any, str]] = {}
    previous = memo if memo is not None else {}
    messages_text = (
        "["
        + ",".join(_memo_json(m, "m:" + m.id, previous, kept, _message_json) for m in messages)
        + "]"
    )
    calls_text = (
        "["
        + ",".join(
            _memo_json(c, "c:" + c.id, previous, kept, _tool_call_json)
            for c in snapshot.tool_calls.values()
        )
        + "]"
    )
    if memo is not None:
        memo.clear()
        memo.update(kept)
    if secrets:
        messages_text = _scrub_text(
            messages_text,
            lambda: [m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in messages],
            secrets,
        )
    return ThreadRow(
        agent_url=agent_url,
        id=thread_id,
        updated_at=now.isoformat(timespec="microseconds"),
        title=_title(messages, secrets),
        last_run_id=last_run_id,
        last_status=last_status,
        message_count=len(messages),
        pending_count=len(pending),
        messages=messages_text,
        state=scrubbed_json(snapshot.state, secrets),
        tool_calls=_scrub_text(
            calls_text,
            lambda: [json.loads(_tool_call_json(c)) for c in snapshot.tool_calls.values()],
            secrets,
        ),
        pending=scrubbed_json([_interrupt_json(p) for p in pending], secrets),
        answered=scrubbed_json([_interrupt_json(p) for p in answered.values()], secrets),
    )


def _memo_json(
    item: Any,
    key: str,
    previous: dict[str, tuple[Any, str]],
    kept: dict[str, tuple[Any, str]],
    encode: Callable[[Any], str],
) -> str:
    hit = previous.get(key)
    text = hit[1] if hit is not None and hit[0] is item else encode(item)
    kept[key] = (item, text)
    return text


def _message_json(message: Any) -> str:
    # ag_ui.core's own JSON dump: camelCase, as on the wire.
    text: str = message.model_dump_json(by_alias=True, exclude_none=True)
    return text


def _tool_call_json(call: ToolCallInfo) -> str:
    return _ENCODE(
        {
            "id": call.id,
            "name": call.name,
            "arguments_text": call.arguments_text,
            "arguments": call.arguments,
            "parent_message_id": call.parent_message_id,
            "result": call.result,
            "result_message_id": call.result_message_id,
            "status": call.status,
        }
    )


def _title(messages: list[Any], secrets: list[str]) -> str | None:
    for message in messages:
        if isinstance(message, UserMessage) and isinstance(message.content, str):
            text = " ".join(message.content.split())
            text = scrub(text, secrets) if secrets else text
            return text if len(text) <= _TITLE_CHARS else text[: _TITLE_CHARS - 3] + "..."
    return None


def _interrupt_json(interrupt: PendingInterrupt) -> dict[str, Any]:
    return {
        "id": interrupt.id,
        "reason": interrupt.reason,
        "message": interrupt.message,
        "toolCallId": interrupt.tool_call_id,
        "toolName": interrupt.tool_name,
        "arguments": interrupt.arguments,
        "responseSchema": interrupt.response_schema,
        "expiresAt": interrupt.expires_at_raw,
        "metadata": interrupt.metadata,
        "subagentRunId": interrupt.subagent_run_id,
        "runId": interrupt.run_id,
        "reissued": interrupt.reissued,
        "raw": interrupt.raw,
    }


def encode_run(
    *,
    run_id: str,
    kind: str,
    parent_run_id: str | None,
    started_at: datetime,
    finished_at: datetime,
    status: str,
    event_count: int,
    warnings: list[str],
    resume: list[dict[str, Any]],
    secrets: Iterable[str],
) -> RunRow:
    summary = {
        "kind": kind,
        "parentRunId": parent_run_id,
        "startedAt": started_at.isoformat(),
        "finishedAt": finished_at.isoformat(),
        "status": status,
        "eventCount": event_count,
        "warnings": warnings,
        "resume": resume,
    }
    return RunRow(run_id=run_id, summary=scrubbed_json(summary, secrets))


# -- decoding ----------------------------------------------------------------------------------


@functools.cache
def _message_adapter() -> TypeAdapter[Any]:
    return TypeAdapter(Message)


def decode_thread(
    *,
    messages: str,
    state: str,
    tool_calls: str,
    pending: str,
    answered: str,
    last_run_id: str | None,
) -> RestoredThread:
    """A stored thread back into the pieces a Thread holds; raises ValueError when unreadable."""
    warnings: list[str] = []
    restored: dict[str, Any] = {}
    for n, data in enumerate(json.loads(messages)):
        try:
            message = _message_adapter().validate_python(data)
        except ValidationError as exc:  # written by an ag-ui-protocol with other message kinds
            warnings.append(
                f"stored message {n} could not be read ({exc.error_count()} errors); left out"
            )
            continue
        restored[message.id] = message
    calls = {
        c["id"]: ToolCallInfo(**{k: c.get(k) for k in ToolCallInfo.__dataclass_fields__ if k in c})
        for c in json.loads(tool_calls)
    }
    snapshot = ThreadSnapshot(messages=restored, state=json.loads(state), tool_calls=calls)
    interrupts = [_interrupt_from_json(p) for p in json.loads(pending)]
    return RestoredThread(
        snapshot=snapshot,
        pending=interrupts,
        last_run_id=last_run_id,
        answered={
            p.id: p
            for p in (_interrupt_from_json(a) for a in json.loads(answered) if isinstance(a, dict))
        },
        warnings=warnings,
    )


def _interrupt_from_json(data: Mapping[str, Any]) -> PendingInterrupt:
    expires_raw = data.get("expiresAt")
    return PendingInterrupt(
        id=data["id"],
        reason=data["reason"],
        message=data.get("message"),
        tool_call_id=data.get("toolCallId"),
        tool_name=data.get("toolName"),
        arguments=data.get("arguments"),
        response_schema=data.get("responseSchema"),
        expires_at=parse_expiry(expires_raw),
        expires_at_raw=expires_raw,
        metadata=data.get("metadata"),
        subagent_run_id=data.get("subagentRunId"),
        run_id=data.get("runId"),
        reissued=bool(data.get("reissued")),
        raw=dict(data.get("raw") or {}),
    )


def summary_from_row(
    *,
    id: str,
    agent_url: str,
    created_at: str,
    updated_at: str,
    pending: int,
    messages: int,
    last_status: str | None,
    title: str | None,
) -> ThreadSummary:
    return ThreadSummary(
        id=id,
        agent_url=agent_url,
        created_at=datetime.fromisoformat(created_at),
        updated_at=datetime.fromisoformat(updated_at),
        pending=pending,
        messages=messages,
        last_status=last_status,
        title=title,
    )
