"""pydantic-ai's AG-UI adapter (``AGUIAdapter.dispatch_request``) with a scripted, LLM-free model.

The agent's model is pydantic-ai's own ``FunctionModel`` (deterministic, no LLM); the tools that
move money are registered with ``requires_approval=True`` and the agent's output type includes
``DeferredToolRequests``, so the adapter's real deferred-tool/interrupt machinery runs unchanged.

The script mirrors ``msaf_server``: tool results -> ``"Done: <result>"`` (a denied call ->
``"The transfer was not approved."`` / ``"The call was not approved."``, any other failed or
interrupted call -> ``"Not done (<outcome>): <result>"``); ``batch`` ->
``transfer_money`` + ``check_balance``; ``two`` -> ``transfer_money`` + ``cancel_subscription``;
``transfer``; ``subscription``; ``balance``; ``slow``; anything else -> ``"Echo: <text>"``.

By default the endpoint is the documented plain one, which keeps no thread state (the client sends
the conversation with every run). ``create_app(stateful=True)`` adds an
``InMemoryConversationStore`` (server-held history keyed by ``threadId``).

Run it by hand: ``python -m tests.servers.pydantic_ai_server --port 8001``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import Response
from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.conversation_store import InMemoryConversationStore
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter

from tests.servers._common import Recorder, RecordingMiddleware, ServerHandle, serve_in_thread

SLOW_SECONDS = 1.6
TRANSFER_ARGS: dict[str, Any] = {
    "from_account": "checking",
    "to_account": "savings",
    "amount": 100.0,
    "currency": "USD",
}
SUBSCRIPTION_ARGS: dict[str, Any] = {"subscription_id": "sub_123"}
BALANCE_ARGS: dict[str, Any] = {"account": "checking"}


@dataclass
class _Call:
    name: str
    args: dict[str, Any]
    call_id: str


class Script:
    """The scripted model: ``FunctionModel(script.respond, stream_function=script.stream)``."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self.seen: list[list[ModelMessage]] = []

    def _call(self, name: str, args: dict[str, Any]) -> _Call:
        return _Call(name, dict(args), f"pyd_{name}_{next(self._ids)}")

    async def _script(self, messages: list[ModelMessage]) -> list[str | _Call]:
        self.seen.append(list(messages))
        last = messages[-1] if messages else None
        parts = list(last.parts) if isinstance(last, ModelRequest) else []
        returns = [p for p in parts if isinstance(p, ToolReturnPart)]
        if returns:
            return [self._summary(returns)]
        text = " ".join(
            p.content for p in parts if isinstance(p, UserPromptPart) and isinstance(p.content, str)
        )
        lowered = text.lower()
        if "batch" in lowered:
            return [
                self._call("transfer_money", TRANSFER_ARGS),
                self._call("check_balance", BALANCE_ARGS),
            ]
        if "two" in lowered:
            return [
                self._call("transfer_money", TRANSFER_ARGS),
                self._call("cancel_subscription", SUBSCRIPTION_ARGS),
            ]
        if "transfer" in lowered:
            return [self._call("transfer_money", TRANSFER_ARGS)]
        if "subscription" in lowered:
            return [self._call("cancel_subscription", SUBSCRIPTION_ARGS)]
        if "balance" in lowered:
            return [self._call("check_balance", BALANCE_ARGS)]
        if "slow" in lowered:
            await asyncio.sleep(SLOW_SECONDS)
            return ["Slow answer."]
        return [f"Echo: {text}"]

    @staticmethod
    def _summary(returns: list[ToolReturnPart]) -> str:
        parts: list[str] = []
        for part in returns:
            if part.outcome == "denied":
                parts.append(
                    "The transfer was not approved."
                    if part.tool_name == "transfer_money"
                    else "The call was not approved."
                )
            elif part.outcome == "success":
                parts.append(f"Done: {part.model_response_str()}")
            else:
                parts.append(f"Not done ({part.outcome}): {part.model_response_str()}")
        return " ".join(parts)

    async def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        items = await self._script(messages)
        return ModelResponse(
            parts=[
                TextPart(item)
                if isinstance(item, str)
                else ToolCallPart(item.name, item.args, tool_call_id=item.call_id)
                for item in items
            ]
        )

    async def stream(
        self, messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | DeltaToolCalls]:
        for index, item in enumerate(await self._script(messages)):
            if isinstance(item, str):
                yield item
            else:
                yield {
                    index: DeltaToolCall(
                        name=item.name, json_args=json.dumps(item.args), tool_call_id=item.call_id
                    )
                }


def make_agent(recorder: Recorder, script: Script) -> Agent[None, str | DeferredToolRequests]:
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(script.respond, stream_function=script.stream, model_name="scripted"),
        output_type=[str, DeferredToolRequests],
        instructions="You are a banking assistant. Ask for approval before moving money.",
        name="banking_agent",
    )

    @agent.tool_plain(requires_approval=True)
    def transfer_money(
        from_account: str, to_account: str, amount: float, currency: str = "USD"
    ) -> str:
        """Transfer money between two accounts."""
        args = {
            "from_account": from_account,
            "to_account": to_account,
            "amount": amount,
            "currency": currency,
        }
        recorder.executions.append(("transfer_money", args))
        return f"Transferred {amount:.2f} {currency} from {from_account} to {to_account}"

    @agent.tool_plain(requires_approval=True)
    def cancel_subscription(subscription_id: str) -> str:
        """Cancel a subscription."""
        recorder.executions.append(("cancel_subscription", {"subscription_id": subscription_id}))
        return f"Cancelled subscription {subscription_id}"

    @agent.tool_plain
    def check_balance(account: str) -> str:
        """Return an account's balance."""
        recorder.executions.append(("check_balance", {"account": account}))
        return f"Balance of {account}: 1234.56 USD"

    return agent


def create_app(*, stateful: bool = False, recorder: Recorder | None = None) -> FastAPI:
    """The AG-UI endpoint on ``/``. ``app.state.recorder`` holds requests and tool executions."""
    recorder = recorder or Recorder()
    script = Script()
    agent = make_agent(recorder, script)
    store = InMemoryConversationStore() if stateful else None
    app = FastAPI(title="pydantic-ai AG-UI adapter (scripted)")
    app.state.recorder = recorder
    app.state.script = script

    @app.post("/")
    async def run_agent(request: Request) -> Response:
        return await AGUIAdapter.dispatch_request(request, agent=agent, conversation_store=store)

    @app.get("/_test/log")
    def test_log() -> dict[str, Any]:
        return recorder.as_json()

    app.add_middleware(RecordingMiddleware, recorder=recorder)
    return app


def start_server(*, stateful: bool = False) -> ServerHandle:
    """Start the server with uvicorn on 127.0.0.1 (free port) in a background thread."""
    recorder = Recorder()
    return serve_in_thread(create_app(stateful=stateful, recorder=recorder), recorder)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--stateful", action="store_true")
    args = parser.parse_args(argv)
    import uvicorn

    uvicorn.run(create_app(stateful=args.stateful), host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()

__all__ = ["Script", "create_app", "make_agent", "start_server"]
