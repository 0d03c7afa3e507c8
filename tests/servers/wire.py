"""Plain httpx + httpx-sse helpers to talk to AG-UI servers at the wire level (not our client)."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
from httpx_sse import EventSource

PROTOCOL_VERSION = "1.0"
SSE_HEADERS = {"Accept": "text/event-stream", "Content-Type": "application/json"}


@dataclass
class WireRun:
    """One POST: HTTP status, the raw response bytes exactly as received, and the parsed events."""

    request: dict[str, Any]
    status: int
    headers: httpx.Headers
    raw: bytes
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def types(self) -> list[str]:
        return [e["type"] for e in self.events]

    def of_type(self, type_: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == type_]

    @property
    def last(self) -> dict[str, Any]:
        return self.events[-1]

    @property
    def outcome(self) -> dict[str, Any] | None:
        finished = self.of_type("RUN_FINISHED")
        return finished[-1].get("outcome") if finished else None

    @property
    def interrupts(self) -> list[dict[str, Any]]:
        outcome = self.outcome or {}
        return list(outcome.get("interrupts") or []) if outcome.get("type") == "interrupt" else []

    @property
    def text(self) -> str:
        return "".join(e.get("delta", "") for e in self.of_type("TEXT_MESSAGE_CONTENT"))

    @property
    def comments(self) -> list[bytes]:
        """SSE comment lines (``: ...``), which httpx-sse drops, read from the raw bytes."""
        return [line for line in self.raw.splitlines() if line.startswith(b":")]


def parse_sse(raw: bytes, headers: httpx.Headers | None = None) -> list[dict[str, Any]]:
    """Decode raw SSE bytes with httpx-sse (comments dropped, every data payload JSON-decoded)."""
    response = httpx.Response(
        200, headers=headers or {"content-type": "text/event-stream"}, content=raw
    )
    return [json.loads(sse.data) for sse in EventSource(response).iter_sse() if sse.data]


def run_input(
    thread_id: str,
    messages: list[dict[str, Any]] | None = None,
    *,
    resume: list[dict[str, Any]] | None = None,
    run_id: str | None = None,
    state: Any = None,
) -> dict[str, Any]:
    """A camelCase RunAgentInput."""
    body: dict[str, Any] = {
        "threadId": thread_id,
        "runId": run_id or f"run-{uuid.uuid4().hex[:12]}",
        "protocolVersion": PROTOCOL_VERSION,
        "state": {} if state is None else state,
        "messages": messages or [],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }
    if resume is not None:
        body["resume"] = resume
    return body


def user(text: str, id: str | None = None) -> dict[str, Any]:
    return {"id": id or f"msg-{uuid.uuid4().hex[:12]}", "role": "user", "content": text}


def post(
    url: str, body: dict[str, Any], *, headers: dict[str, str] | None = None, timeout: float = 30
) -> WireRun:
    """POST ``body`` and read the whole response; events are parsed only for event streams."""
    with (
        httpx.Client(timeout=timeout) as client,
        client.stream(
            "POST", url, json=body, headers={**SSE_HEADERS, **(headers or {})}
        ) as response,
    ):
        raw = b"".join(response.iter_raw())
    run = WireRun(request=body, status=response.status_code, headers=response.headers, raw=raw)
    if "text/event-stream" in response.headers.get("content-type", ""):
        run.events = parse_sse(raw, response.headers)
    return run


def resolved(interrupt_id: str, payload: Any) -> dict[str, Any]:
    return {"interruptId": interrupt_id, "status": "resolved", "payload": payload}


def cancelled(interrupt_id: str) -> dict[str, Any]:
    return {"interruptId": interrupt_id, "status": "cancelled"}


def new_thread_id() -> str:
    return f"thread-{uuid.uuid4().hex[:12]}"


def messages_from_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rebuild the AG-UI messages a run produced (assistant text/tool calls, tool results).

    Needed for stateless servers, where a resume must carry the conversation including the assistant
    message with the pending ``toolCalls``.
    """
    messages: dict[str, dict[str, Any]] = {}
    order: list[str] = []

    def message(id_: str, role: str) -> dict[str, Any]:
        if id_ not in messages:
            messages[id_] = {"id": id_, "role": role}
            order.append(id_)
        return messages[id_]

    calls: dict[str, dict[str, Any]] = {}
    for event in events:
        kind = event["type"]
        if kind == "TEXT_MESSAGE_START":
            message(event["messageId"], event.get("role", "assistant"))
        elif kind == "TEXT_MESSAGE_CONTENT":
            msg = message(event["messageId"], "assistant")
            msg["content"] = msg.get("content", "") + event["delta"]
        elif kind == "TOOL_CALL_START":
            parent = event.get("parentMessageId") or f"msg-{event['toolCallId']}"
            call = {
                "id": event["toolCallId"],
                "type": "function",
                "function": {"name": event["toolCallName"], "arguments": ""},
            }
            calls[event["toolCallId"]] = call
            message(parent, "assistant").setdefault("toolCalls", []).append(call)
        elif kind == "TOOL_CALL_ARGS":
            calls[event["toolCallId"]]["function"]["arguments"] += event["delta"]
        elif kind == "TOOL_CALL_RESULT":
            msg = message(event["messageId"], "tool")
            msg["toolCallId"] = event["toolCallId"]
            msg["content"] = event["content"]
    return [messages[i] for i in order if len(messages[i]) > 2]


def one_message_per_turn(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` with consecutive assistant messages that only carry tool calls merged into
    one, as a model makes them and as the client's reducer groups calls that name no parent.

    Google ADK's adapter pairs several answers of a resume with their calls only this way.
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        previous = out[-1] if out else None
        if (
            previous is not None
            and message["role"] == previous["role"] == "assistant"
            and message.get("toolCalls")
            and previous.get("toolCalls")
            and not message.get("content")
        ):
            previous["toolCalls"] = previous["toolCalls"] + message["toolCalls"]
            continue
        out.append(dict(message))
    return out
