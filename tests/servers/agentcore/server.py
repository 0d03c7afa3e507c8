"""AWS Bedrock AgentCore's AG-UI app (``bedrock_agentcore.runtime.AGUIApp``), LLM-free.

Runs in its own venv (``.venv-servers/agentcore``, from ``requirements.txt`` beside this file),
locally, with no AWS credentials:

    .venv-servers/agentcore/bin/python tests/servers/agentcore/server.py --port 8004

``build_ag_ui_app`` wraps an async generator of AG-UI events and serves it on two routes:
``POST /invocations`` (SSE) and ``/ws`` (WebSocket: one RunAgentInput text frame in, one
SSE-encoded event per text frame out, close 1000 at the end). ``GET /ping`` is its health check.
The ``/_test`` routes of ``tests/servers/_common.py`` record what it saw.

The script (a real AG-UI 1.1 interrupt, no framework):

- ``transfer ...`` -> a text message, a ``transfer_money`` tool call (TOOL_CALL_START/ARGS/END),
  and RUN_FINISHED with an ``interrupt`` outcome (``reason: tool_call``, the call's id, a
  responseSchema of ``approved`` / ``editedArgs`` / ``reason``);
- a resume answering that interrupt: approved -> the tool runs (recorded) with the proposed
  arguments or ``editedArgs``, its result and ``Transferred <amount> <currency>.``; rejected ->
  ``The transfer was not approved.``; cancelled -> ``Cancelled.``. An interrupt answered before,
  or unknown, is a RUN_ERROR (``RESUME_ALREADY_APPLIED`` / ``UNKNOWN_INTERRUPT``): a resume is
  applied once;
- anything else -> ``Echo: <text>``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from ag_ui.core import (
    BaseEvent,
    Interrupt,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from bedrock_agentcore.runtime import build_ag_ui_app


def _load_common() -> Any:
    """tests/servers/_common.py by path: this venv has no agui_notebook and no tests package."""
    path = Path(__file__).resolve().parents[1] / "_common.py"
    spec = importlib.util.spec_from_file_location("agui_servers_common", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


common = _load_common()
recorder = common.Recorder()

TRANSFER_ARGS: dict[str, Any] = {
    "from_account": "checking",
    "to_account": "savings",
    "amount": 100.0,
    "currency": "USD",
}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "editedArgs": {"type": "object"},
        "reason": {"type": "string"},
    },
    "required": ["approved"],
}
#: interrupt id -> (thread id, tool call id, arguments); answered ones move to ANSWERED.
PENDING: dict[str, tuple[str, str, dict[str, Any]]] = {}
ANSWERED: set[str] = set()


def _id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def _text(text: str) -> list[BaseEvent]:
    mid = _id("msg")
    return [
        TextMessageStartEvent(message_id=mid, role="assistant"),
        TextMessageContentEvent(message_id=mid, delta=text),
        TextMessageEndEvent(message_id=mid),
    ]


def _last_user_text(run_input: RunAgentInput) -> str:
    for message in reversed(run_input.messages):
        if message.role == "user":
            content = message.content
            return content if isinstance(content, str) else json.dumps(content)
    return ""


async def agent(run_input: RunAgentInput) -> AsyncIterator[BaseEvent]:
    thread_id, run_id = run_input.thread_id, run_input.run_id
    yield RunStartedEvent(thread_id=thread_id, run_id=run_id)
    if run_input.resume:
        for entry in run_input.resume:
            iid = entry.interrupt_id
            if iid in ANSWERED:
                yield RunErrorEvent(
                    code="RESUME_ALREADY_APPLIED", message=f"interrupt {iid} was already answered"
                )
                return
            if iid not in PENDING:
                yield RunErrorEvent(code="UNKNOWN_INTERRUPT", message=f"no interrupt {iid}")
                return
        for entry in run_input.resume:
            _, call_id, arguments = PENDING.pop(entry.interrupt_id)
            ANSWERED.add(entry.interrupt_id)
            payload = entry.payload if isinstance(entry.payload, dict) else {}
            if entry.status == "cancelled":
                for event in _text("Cancelled."):
                    yield event
            elif payload.get("approved"):
                edited = payload.get("editedArgs")
                args = {**arguments, **edited} if isinstance(edited, dict) else arguments
                recorder.executions.append(("transfer_money", args))
                result = f"Transferred {args['amount']:.2f} {args['currency']}."
                yield ToolCallResultEvent(
                    message_id=_id("tool"), tool_call_id=call_id, content=result, role="tool"
                )
                for event in _text(result):
                    yield event
            else:
                for event in _text("The transfer was not approved."):
                    yield event
        yield RunFinishedEvent(
            thread_id=thread_id, run_id=run_id, outcome=RunFinishedSuccessOutcome()
        )
        return
    text = _last_user_text(run_input)
    if "transfer" not in text.lower():
        for event in _text(f"Echo: {text}"):
            yield event
        yield RunFinishedEvent(
            thread_id=thread_id, run_id=run_id, outcome=RunFinishedSuccessOutcome()
        )
        return
    mid, call_id = _id("msg"), _id("call")
    yield TextMessageStartEvent(message_id=mid, role="assistant")
    yield TextMessageContentEvent(message_id=mid, delta="I'll transfer 100.00 USD; approve?")
    yield TextMessageEndEvent(message_id=mid)
    yield ToolCallStartEvent(
        tool_call_id=call_id, tool_call_name="transfer_money", parent_message_id=mid
    )
    yield ToolCallArgsEvent(tool_call_id=call_id, delta=json.dumps(TRANSFER_ARGS))
    yield ToolCallEndEvent(tool_call_id=call_id)
    iid = _id("int")
    PENDING[iid] = (thread_id, call_id, dict(TRANSFER_ARGS))
    interrupt = Interrupt(
        id=iid,
        reason="tool_call",
        message="Approve transfer_money?",
        tool_call_id=call_id,
        response_schema=SCHEMA,
    )
    yield RunFinishedEvent(
        thread_id=thread_id,
        run_id=run_id,
        outcome=RunFinishedInterruptOutcome(interrupts=[interrupt]),
    )


class WebSocketRecorder:
    """Records each WebSocket's first frame (the RunAgentInput) as a request ``WEBSOCKET``."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        record = common.RecordedRequest(
            method="WEBSOCKET", path=scope["path"], headers=_headers(scope), body=b""
        )
        recorder.requests.append(record)

        async def recording_receive() -> Any:
            message = await receive()
            if message["type"] == "websocket.receive" and not record.body:
                text = message.get("text")
                record.body = text.encode() if text is not None else message.get("bytes") or b""
            return message

        await self.app(scope, recording_receive, send)


def _headers(scope: Any) -> dict[str, str]:
    return {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    app = build_ag_ui_app(agent)
    common.serve_external(WebSocketRecorder(app), recorder, args.port, ws="auto")


if __name__ == "__main__":
    main()
