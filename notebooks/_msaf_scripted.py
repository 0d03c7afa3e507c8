"""The Microsoft Agent Framework AG-UI tutorial server, with a scripted, LLM-free model.

Used by ``04_microsoft_agent_framework.ipynb`` so the tutorial's flow runs offline, with no key:
the notebook builds the tutorial's server itself (tools with ``approval_mode="always_require"``,
``AgentFrameworkAgent(..., require_confirmation=True)``, ``add_agent_framework_fastapi_endpoint``)
and takes two things from here: the model and a loopback server thread. Only the model is replaced:
``ScriptedChatClient`` is composed from the framework's own chat-client layers (function
invocation, middleware, telemetry), so the framework's real approval machinery runs unchanged and
only the model's answer (``_inner_get_response``) is scripted:

- the model was given tool results -> ``"Done: <result>"`` (or ``"The transfer was not
  approved."`` when the framework reports a rejection);
- a user message containing ``two`` -> ``transfer_money`` + ``cancel_subscription`` at once;
  ``transfer`` -> ``transfer_money``; ``subscription`` -> ``cancel_subscription``; ``balance`` ->
  ``check_balance`` (needs no approval); anything else -> ``"Echo: <text>"``.

A copy of the essentials of ``tests/servers/msaf_server.py`` (the test suite's copy also records
requests); keep the two in step. The tools' results the script reports are whatever the tools return.
"""

from __future__ import annotations

import itertools
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from typing import Any

import uvicorn
from agent_framework import (
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    Message,
    ResponseStream,
)
from agent_framework._middleware import ChatMiddlewareLayer
from agent_framework._tools import FunctionInvocationLayer
from agent_framework.observability import ChatTelemetryLayer

__all__ = ["ScriptedChatClient", "Server"]

#: The arguments the scripted model proposes (a real model would read them from the message).
TRANSFER_ARGS = {"from_account": "checking", "to_account": "savings", "amount": 100.0, "currency": "USD"}
SUBSCRIPTION_ARGS = {"subscription_id": "sub_123"}
BALANCE_ARGS = {"account": "checking"}


def _text(message: Message) -> str:
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
    """An LLM-free chat client built from the same layers as the framework's real clients."""

    OTEL_PROVIDER_NAME = "scripted"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._ids = itertools.count(1)

    def _call(self, name: str, args: Mapping[str, Any]) -> Content:
        return Content.from_function_call(
            call_id=f"call_{name}_{next(self._ids)}", name=name, arguments=dict(args)
        )

    def _script(self, messages: Sequence[Message]) -> list[Content]:
        if not messages:
            return [Content.from_text("Echo: ")]
        results: list[Content] = []  # the results of the trailing tool messages, in order
        for message in reversed(messages):
            found = [c for c in message.contents if c.type == "function_result"]
            if not found:
                break
            results[:0] = found
        if results:
            return [Content.from_text(self._summary(messages, results))]
        text = _text(messages[-1])
        lowered = text.lower()
        if "two" in lowered:
            return [self._call("transfer_money", TRANSFER_ARGS),
                    self._call("cancel_subscription", SUBSCRIPTION_ARGS)]
        if "transfer" in lowered:
            return [self._call("transfer_money", TRANSFER_ARGS)]
        if "subscription" in lowered:
            return [self._call("cancel_subscription", SUBSCRIPTION_ARGS)]
        if "balance" in lowered:
            return [self._call("check_balance", BALANCE_ARGS)]
        return [Content.from_text(f"Echo: {text}")]

    @staticmethod
    def _summary(messages: Sequence[Message], results: list[Content]) -> str:
        names = {
            c.call_id: c.name
            for m in messages
            for c in m.contents
            if c.type == "function_call" and c.call_id and c.name
        }
        parts = []
        for result in results:
            text = _result_text(result)
            if result.exception is not None or "rejected" in text.lower() or "not approved" in text.lower():
                call_id = result.call_id or ""
                name = names.get(call_id) or call_id.removeprefix("call_").rpartition("_")[0]
                parts.append("The transfer was not approved." if name == "transfer_money"
                             else "The call was not approved.")
            else:
                parts.append(f"Done: {text}")
        return " ".join(parts)

    def _inner_get_response(
        self, *, messages: Sequence[Message], stream: bool, options: Mapping[str, Any], **kwargs: Any
    ) -> Awaitable[ChatResponse] | ResponseStream[ChatResponseUpdate, ChatResponse]:
        if stream:

            async def updates() -> AsyncIterator[ChatResponseUpdate]:
                for content in self._script(messages):
                    yield ChatResponseUpdate(contents=[content], role="assistant", message_id="scripted-msg")

            return ResponseStream(updates(), finalizer=ChatResponse.from_updates)

        async def response() -> ChatResponse:
            return ChatResponse(messages=[Message(role="assistant", contents=self._script(messages))])

        return response()


class Server:
    """A uvicorn server on 127.0.0.1 in a background thread. ``url`` is the AG-UI endpoint."""

    def __init__(self, app: Any) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))  # a free port, loopback only
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
        config = uvicorn.Config(app, log_level="error", lifespan="off", ws="none",
                                timeout_graceful_shutdown=1)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]},
                                        name="msaf-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 15
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self._server.should_exit = True
                raise RuntimeError("the server did not start")
            time.sleep(0.01)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)

    def __repr__(self) -> str:  # no port: notebook outputs must not change from run to run
        return f"Server(running={self.running})"
