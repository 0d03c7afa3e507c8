"""Google ADK through ag-ui-adk (``ADKAgent``), with a scripted, LLM-free model.

Runs in its own venv (``.venv-servers/adk``, from ``requirements.txt`` beside this file):

    .venv-servers/adk/bin/python tests/servers/adk/server.py --port 8003 [--keepalive-seconds 1]

The agent is an ADK ``LlmAgent`` whose model name, ``scripted-banker``, resolves through ADK's own
model registry (``LLMRegistry.register``) to :class:`ScriptedModel`, a ``BaseLlm`` subclass that
answers from a script instead of calling a model. The adapter runs with
``emit_interrupt_outcome=True`` (AG-UI 1.1: a run paused for a tool confirmation ends with
``RUN_FINISHED.outcome = interrupt``).

Tools (each execution is recorded, see ``/_test/log``):

- ``transfer_money`` and ``cancel_subscription`` are
  ``FunctionTool(..., require_confirmation=True)``: ADK pauses the call with its built-in long-running ``adk_request_confirmation`` call, which the
  adapter reports as an interrupt with ``reason: "confirmation"``. ADK's answer is a
  ``ToolConfirmation`` (``confirmed`` yes/no); the tool then runs with the arguments the model
  proposed, or returns ADK's rejection error.
- ``check_balance`` needs no confirmation.

The script: after tool results, each result as ``Done: <result>``, a rejection as
``The transfer was not approved.`` / ``The call was not approved.``; ``batch`` ->
transfer_money + check_balance; ``two`` -> transfer_money + cancel_subscription; ``transfer``;
``subscription``; ``balance``; ``slow`` (``SLOW_SECONDS`` of silence filled with the endpoint's
keepalive comments, then text); anything else -> ``Echo: <text>``.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import sys
from collections.abc import AsyncGenerator, Sequence
from pathlib import Path
from typing import Any

from ag_ui_adk import ADKAgent, add_adk_fastapi_endpoint
from fastapi import FastAPI
from google.adk.agents.llm_agent import LlmAgent
from google.adk.models._capabilities import LlmCapabilities
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.models.registry import LLMRegistry
from google.adk.tools.function_tool import FunctionTool
from google.genai import types
from sse_starlette.sse import EventSourceResponse


def _load_common() -> Any:
    """tests/servers/_common.py by path: this venv has no agui_notebook and no tests package."""
    path = Path(__file__).resolve().parents[1] / "_common.py"
    spec = importlib.util.spec_from_file_location("agui_servers_common", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


common = _load_common()

MODEL_NAME = "scripted-banker"
SLOW_SECONDS = 3.0
TRANSFER_ARGS: dict[str, Any] = {
    "from_account": "checking",
    "to_account": "savings",
    "amount": 100.0,
    "currency": "USD",
}
SUBSCRIPTION_ARGS: dict[str, Any] = {"subscription_id": "sub_123"}
BALANCE_ARGS: dict[str, Any] = {"account": "checking"}
#: What ADK's FunctionTool returns for a call whose confirmation said no.
ADK_REJECTED = "This tool call is rejected."


class ScriptedModel(BaseLlm):
    """ADK's model interface with a script for a body: no network, same answer every time."""

    @classmethod
    def supported_models(cls) -> list[str]:
        return [r"scripted-.*"]

    @property
    def capabilities(self) -> LlmCapabilities:
        return LlmCapabilities(output_schema_and_tools=False)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        parts = await self._script(llm_request.contents)
        yield LlmResponse(content=types.Content(role="model", parts=parts))

    async def _script(self, contents: list[types.Content]) -> list[types.Part]:
        last = contents[-1] if contents else None
        last_parts = list(last.parts or []) if last is not None else []
        responses = [p.function_response for p in last_parts if p.function_response]
        if responses:
            return [types.Part(text=" ".join(_summary(r) for r in responses))]
        text = " ".join(p.text for p in last_parts if p.text)
        lowered = text.lower()
        if "batch" in lowered:
            return [_call("transfer_money", TRANSFER_ARGS), _call("check_balance", BALANCE_ARGS)]
        if "two" in lowered:
            return [
                _call("transfer_money", TRANSFER_ARGS),
                _call("cancel_subscription", SUBSCRIPTION_ARGS),
            ]
        if "transfer" in lowered:
            return [_call("transfer_money", TRANSFER_ARGS)]
        if "subscription" in lowered:
            return [_call("cancel_subscription", SUBSCRIPTION_ARGS)]
        if "balance" in lowered:
            return [_call("check_balance", BALANCE_ARGS)]
        if "slow" in lowered:
            await asyncio.sleep(SLOW_SECONDS)
            return [types.Part(text="Slow answer.")]
        return [types.Part(text=f"Echo: {text}")]


def _call(name: str, args: dict[str, Any]) -> types.Part:
    # No id: ADK gives each function call its own ("adk-<uuid>"), as it does for a real model.
    return types.Part(function_call=types.FunctionCall(name=name, args=dict(args)))


def _summary(response: types.FunctionResponse) -> str:
    body = response.response or {}
    if "result" in body:
        return f"Done: {body['result']}"
    if body.get("error") == ADK_REJECTED:
        if response.name == "transfer_money":
            return "The transfer was not approved."
        return "The call was not approved."
    return f"Not done: {body}"


def make_agent(recorder: Any) -> LlmAgent:
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

    def cancel_subscription(subscription_id: str) -> str:
        """Cancel a subscription."""
        recorder.executions.append(("cancel_subscription", {"subscription_id": subscription_id}))
        return f"Cancelled subscription {subscription_id}"

    def check_balance(account: str) -> str:
        """Return an account's balance."""
        recorder.executions.append(("check_balance", {"account": account}))
        return f"Balance of {account}: 1234.56 USD"

    return LlmAgent(
        name="banking_agent",
        model=MODEL_NAME,  # resolved by ADK's LLMRegistry to ScriptedModel
        instruction="You are a banking assistant. Ask for approval before moving money.",
        tools=[
            FunctionTool(transfer_money, require_confirmation=True),
            FunctionTool(cancel_subscription, require_confirmation=True),
            check_balance,
        ],
    )


def create_app(recorder: Any, *, keepalive_seconds: float) -> FastAPI:
    LLMRegistry.register(ScriptedModel)
    # The endpoint answers with sse-starlette's EventSourceResponse, which sends a ": ping"
    # comment every DEFAULT_PING_INTERVAL seconds (15 by default).
    EventSourceResponse.DEFAULT_PING_INTERVAL = keepalive_seconds  # type: ignore[assignment]
    agent = ADKAgent(
        adk_agent=make_agent(recorder),
        app_name="banking",
        user_id="notebook-user",
        emit_interrupt_outcome=True,
    )
    app = FastAPI(title="ag-ui-adk (scripted model)")
    add_adk_fastapi_endpoint(app, agent, "/")
    return app


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--keepalive-seconds", type=float, default=1.0)
    args = parser.parse_args(argv)
    recorder = common.Recorder()
    app = create_app(recorder, keepalive_seconds=args.keepalive_seconds)
    common.serve_external(app, recorder, args.port)


if __name__ == "__main__":
    main()
