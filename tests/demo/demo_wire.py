"""Helpers for the demo tests: RunAgentInput bodies; events read with plain httpx + httpx-sse."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from typing import Any

import httpx
from ag_ui.core import BaseEvent, RunAgentInput
from httpx_sse import EventSource

from agui_notebook.demo._emit import Step

PROTOCOL_VERSION = "1.0"

TRANSFER = "Transfer $500 from 1234567890 to 0987654321"


def body(
    thread_id: str,
    text: str | None = None,
    *,
    resume: list[dict[str, Any]] | None = None,
    run_id: str = "run-1",
    message_id: str | None = None,
) -> dict[str, Any]:
    """A camelCase RunAgentInput body with one user message (or none) and/or resume entries."""
    messages = (
        []
        if text is None
        else [{"id": message_id or f"msg-{run_id}", "role": "user", "content": text}]
    )
    data: dict[str, Any] = {
        "threadId": thread_id,
        "runId": run_id,
        "protocolVersion": PROTOCOL_VERSION,
        "state": {},
        "messages": messages,
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }
    if resume is not None:
        data["resume"] = resume
    return data


def run_input(*args: Any, **kwargs: Any) -> RunAgentInput:
    return RunAgentInput.model_validate(body(*args, **kwargs))


def resolved(interrupt_id: str, payload: Any) -> dict[str, Any]:
    return {"interruptId": interrupt_id, "status": "resolved", "payload": payload}


def cancelled(interrupt_id: str) -> dict[str, Any]:
    return {"interruptId": interrupt_id, "status": "cancelled"}


def counter_ids() -> Any:
    """A deterministic id factory for DemoAgent(new_id=...)."""
    counter = itertools.count(1)
    return lambda prefix: f"{prefix}-{next(counter)}"


@dataclass
class Run:
    """One run's events as wire dicts (camelCase, no nulls)."""

    events: list[dict[str, Any]]
    raw: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_steps(cls, steps: list[Step]) -> Run:
        events = [
            json.loads(step.model_dump_json(by_alias=True, exclude_none=True))
            for step in steps
            if isinstance(step, BaseEvent)
        ]
        return cls(events)

    @property
    def types(self) -> list[str]:
        return [e["type"] for e in self.events]

    def of_type(self, type_: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == type_]

    @property
    def outcome(self) -> dict[str, Any] | None:
        finished = self.of_type("RUN_FINISHED")
        return finished[-1].get("outcome") if finished else None

    @property
    def interrupts(self) -> list[dict[str, Any]]:
        outcome = self.outcome or {}
        return list(outcome.get("interrupts", [])) if outcome.get("type") == "interrupt" else []

    @property
    def text(self) -> str:
        return "".join(e["delta"] for e in self.of_type("TEXT_MESSAGE_CONTENT"))

    @property
    def error(self) -> dict[str, Any]:
        (error,) = self.of_type("RUN_ERROR")
        return error

    def tool_args(self, tool_call_id: str) -> dict[str, Any]:
        parts = [
            e["delta"] for e in self.of_type("TOOL_CALL_ARGS") if e["toolCallId"] == tool_call_id
        ]
        return dict(json.loads("".join(parts)))


def parse_sse(raw: bytes) -> list[dict[str, Any]]:
    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=raw)
    return [json.loads(sse.data) for sse in EventSource(response).iter_sse() if sse.data]


def post(url: str, data: Any, *, headers: dict[str, str] | None = None) -> Run:
    """POST ``data`` (JSON, or raw bytes) and read the whole response."""
    content = data if isinstance(data, bytes) else json.dumps(data).encode()
    with (
        httpx.Client(timeout=30) as client,
        client.stream(
            "POST",
            url,
            content=content,
            headers={
                "accept": "text/event-stream",
                "content-type": "application/json",
                **(headers or {}),
            },
        ) as response,
    ):
        raw = b"".join(response.iter_raw())
    events = (
        parse_sse(raw) if response.headers["content-type"].startswith("text/event-stream") else []
    )
    return Run(events, raw, response.status_code, dict(response.headers))
