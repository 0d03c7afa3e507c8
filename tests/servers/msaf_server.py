"""The Microsoft Agent Framework AG-UI tutorial server, with a scripted, LLM-free model.

The server is the one the agent-framework-ag-ui tutorial builds: FastAPI + uvicorn,
``add_agent_framework_fastapi_endpoint(app, AgentFrameworkAgent(agent, require_confirmation=True),
"/")`` and tools declared with ``approval_mode="always_require"``. Only the model is replaced:
``ScriptedChatClient`` is composed from the framework's own chat-client layers exactly like
``AGUIChatClient`` is (``FunctionInvocationLayer`` + ``ChatMiddlewareLayer`` +
``ChatTelemetryLayer`` + ``BaseChatClient``), so the real function-invocation and approval
machinery runs unchanged; only ``_inner_get_response`` is scripted.

The script reads the last message the model is given:

- tool results (the last message has function results) -> text ``"Done: <result>; <result>"``, or
  ``"The transfer was not approved."`` (``"The call was not approved."`` for other tools) when the
  framework reports a rejection;
- a user message containing ``batch`` -> ``transfer_money`` + ``check_balance`` in one response;
  ``two`` -> ``transfer_money`` + ``cancel_subscription``; ``transfer`` -> ``transfer_money``;
  ``subscription`` -> ``cancel_subscription``; ``balance`` -> ``check_balance``; ``slow`` -> sleeps
  ``SLOW_SECONDS`` and answers text (for keepalive comments); anything else -> ``"Echo: <text>"``.

Run it by hand: ``python -m tests.servers.msaf_server --port 8000``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from typing import Any

from agent_framework import (
    Agent,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    Message,
    ResponseStream,
    tool,
)
from agent_framework._middleware import ChatMiddlewareLayer
from agent_framework._tools import FunctionInvocationLayer
from agent_framework.observability import ChatTelemetryLayer
from agent_framework_ag_ui import AgentFrameworkAgent, add_agent_framework_fastapi_endpoint
from fastapi import FastAPI

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


def make_tools(recorder: Recorder) -> list[Any]:
    """The tutorial's tools; each appends ``(name, args)`` to ``recorder.executions`` when run."""

    @tool(approval_mode="always_require")
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

    @tool(approval_mode="always_require")
    def cancel_subscription(subscription_id: str) -> str:
        """Cancel a subscription."""
        recorder.executions.append(("cancel_subscription", {"subscription_id": subscription_id}))
        return f"Cancelled subscription {subscription_id}"

    @tool(approval_mode="never_require")
    def check_balance(account: str) -> str:
        """Return an account's balance."""
        recorder.executions.append(("check_balance", {"account": account}))
        return f"Balance of {account}: 1234.56 USD"

    return [transfer_money, cancel_subscription, check_balance]


def _message_text(message: Message) -> str:
    return " ".join(c.text or "" for c in message.contents if c.type == "text")


def _result_text(content: Content) -> str:
    result = content.result
    if isinstance(result, str):
        return result
    if isinstance(result, list):
        return " ".join(getattr(item, "text", None) or str(item) for item in result)
    return "" if result is None else json.dumps(result, default=str)


class ScriptedChatClient(
    FunctionInvocationLayer[Any],
    ChatMiddlewareLayer[Any],
    ChatTelemetryLayer[Any],
    BaseChatClient[Any],
):
    """An LLM-free chat client built from the same layers as ``AGUIChatClient``."""

    OTEL_PROVIDER_NAME = "scripted"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._ids = itertools.count(1)
        self.seen: list[list[Message]] = []

    def _call(self, name: str, args: Mapping[str, Any]) -> Content:
        return Content.from_function_call(
            call_id=f"call_{name}_{next(self._ids)}", name=name, arguments=dict(args)
        )

    async def _script(self, messages: Sequence[Message]) -> list[Content]:
        self.seen.append(list(messages))
        last = messages[-1] if messages else None
        if last is None:
            return [Content.from_text("Echo: ")]
        results: list[Content] = []  # the results of the trailing tool messages, in order
        for message in reversed(messages):
            found = [c for c in message.contents if c.type == "function_result"]
            if not found:
                break
            results[:0] = found
        if results:
            return [Content.from_text(self._summary(messages, results))]
        text = _message_text(last)
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
            return [Content.from_text("Slow answer.")]
        return [Content.from_text(f"Echo: {text}")]

    @staticmethod
    def _summary(messages: Sequence[Message], results: list[Content]) -> str:
        names: dict[str, str] = {}
        for message in messages:
            for content in message.contents:
                if content.type == "function_call" and content.call_id and content.name:
                    names[content.call_id] = content.name
        parts: list[str] = []
        for result in results:
            text = _result_text(result)
            if (
                result.exception is not None
                or "rejected" in text.lower()
                or "not approved" in text.lower()
            ):
                call_id = result.call_id or ""
                # On a resume the model may see only the results: the call id names the tool too.
                name = names.get(call_id) or call_id.removeprefix("call_").rpartition("_")[0]
                parts.append(
                    "The transfer was not approved."
                    if name == "transfer_money"
                    else "The call was not approved."
                )
            else:
                parts.append(f"Done: {text}")
        return " ".join(parts)

    def _inner_get_response(
        self,
        *,
        messages: Sequence[Message],
        stream: bool,
        options: Mapping[str, Any],
        **kwargs: Any,
    ) -> Awaitable[ChatResponse] | ResponseStream[ChatResponseUpdate, ChatResponse]:
        if stream:

            async def _updates() -> AsyncIterator[ChatResponseUpdate]:
                for content in await self._script(messages):
                    yield ChatResponseUpdate(
                        contents=[content], role="assistant", message_id="scripted-msg"
                    )

            return ResponseStream(_updates(), finalizer=ChatResponse.from_updates)

        async def _response() -> ChatResponse:
            contents = await self._script(messages)
            return ChatResponse(messages=[Message(role="assistant", contents=contents)])

        return _response()


def create_app(*, keepalive_seconds: float | None = 1, recorder: Recorder | None = None) -> FastAPI:
    """The tutorial's app on ``/``. ``app.state.recorder`` holds requests and tool executions."""
    recorder = recorder or Recorder()
    client = ScriptedChatClient()
    agent = Agent(
        client=client,
        name="banking_agent",
        instructions="You are a banking assistant. Ask for approval before moving money.",
        tools=make_tools(recorder),
    )
    app = FastAPI(title="agent-framework-ag-ui tutorial server (scripted)")
    app.state.recorder = recorder
    app.state.chat_client = client
    add_agent_framework_fastapi_endpoint(
        app,
        AgentFrameworkAgent(agent=agent, require_confirmation=True),
        "/",
        single_user=True,
        keepalive_seconds=keepalive_seconds,
    )

    @app.get("/_test/log")
    def test_log() -> dict[str, Any]:
        return recorder.as_json()

    app.add_middleware(RecordingMiddleware, recorder=recorder)
    return app


def start_server(*, keepalive_seconds: float | None = 1) -> ServerHandle:
    """Start the server with uvicorn on 127.0.0.1 (free port) in a background thread."""
    recorder = Recorder()
    return serve_in_thread(
        create_app(keepalive_seconds=keepalive_seconds, recorder=recorder), recorder
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    import uvicorn

    uvicorn.run(create_app(), host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()

__all__ = ["ScriptedChatClient", "create_app", "make_tools", "start_server"]
