"""A Strands agent through ag-ui-strands (``StrandsAgent`` + ``create_strands_app``), LLM-free.

Runs in its own venv (``.venv-servers/strands``, from ``requirements.txt`` beside this file),
locally, with no model provider and no AWS credentials:

    .venv-servers/strands/bin/python tests/servers/strands/server.py --port 8005 \
        [--style approval|hook|tool|bad-reason|no-fields]

The model is :class:`ScriptedModel`, a Strands ``Model`` subclass that streams Strands' own
stream events from a script: ``transfer ...`` -> a ``transfer_money`` tool use with
:data:`TRANSFER_ARGS`; after a tool result -> that result as text (``Transferred 100.00 USD.``, or
the refusal the tool result carries); anything else -> ``Echo: <text>``.

How ``transfer_money`` is paused for a person (``--style``):

- ``approval``: the adapter's own tool-shaped approval (``ToolBehavior(interrupt_on_call=True)``):
  an interrupt with ``reason: "tool_call"``, the tool use's id as ``toolCallId``, a
  ``responseSchema`` of ``{approved: boolean}`` only, and ``metadata = {tool_name, tool_input,
  strandsName}``. Its hook reads ``approved`` and nothing else: edited arguments cannot reach it.
- ``hook``: a plain Strands interrupt from a ``BeforeToolCallEvent`` hook,
  ``event.interrupt("approve-transfer", reason={tool_name, tool_input, tool_use_id})``. The adapter
  publishes it as ``reason: "approve-transfer"``, no ``toolCallId``, no ``responseSchema``,
  ``metadata = {"reason": <that reason>}``, and hands the answer back wrapped: ``{"response":
  payload}``, or ``{"cancelled": true}`` for a cancel. The hook applies ``editedArgs`` (it replaces
  the tool use's input), refuses with the ``reason`` given, and treats a cancel as a refusal.
- ``tool``: the same plain interrupt raised inside the tool (``tool_context.interrupt``), same
  reason and answer; the tool applies ``editedArgs`` itself.
- ``bad-reason``: the hook's reason is a bare string (``"please approve the transfer"``);
  ``no-fields``: an object naming no tool (``{"question": ...}``). The adapter publishes either as
  it is; the answer is read as in ``hook``.

Every execution of ``transfer_money`` is recorded (``/_test/log``): a resume is applied once.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import sys
import uuid
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from ag_ui_strands import StrandsAgent, StrandsAgentConfig, ToolBehavior, create_strands_app
from strands import Agent, ToolContext, tool
from strands.hooks import BeforeToolCallEvent, HookProvider, HookRegistry
from strands.models import Model


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

STYLES = ("approval", "hook", "tool", "bad-reason", "no-fields")
INTERRUPT_NAME = "approve-transfer"
TRANSFER_ARGS: dict[str, Any] = {
    "from_account": "checking",
    "to_account": "savings",
    "amount": 100.0,
    "currency": "USD",
}


# ------------------------------------------------------------------------------ scripted model


def _last_block(messages: Any) -> tuple[str, Any]:
    """``("result", toolResult)`` when the last message carries one, else ``("text", str)``."""
    if not messages:
        return "text", ""
    last = messages[-1]
    for block in last.get("content", []):
        if "toolResult" in block:
            return "result", block["toolResult"]
    texts = [b["text"] for b in last.get("content", []) if "text" in b]
    return "text", " ".join(texts)


def _result_text(result: dict[str, Any]) -> str:
    parts = [c.get("text", "") for c in result.get("content", []) if isinstance(c, dict)]
    return " ".join(p for p in parts if p) or "The tool returned nothing."


class ScriptedModel(Model):
    """A Strands model that answers from a script: no LLM, no network."""

    def __init__(self) -> None:
        self.config: dict[str, Any] = {"model_id": "scripted"}

    def update_config(self, **model_config: Any) -> None:
        self.config.update(model_config)

    def get_config(self) -> Any:
        return self.config

    async def structured_output(
        self, output_model: Any, prompt: Any, system_prompt: Any = None, **kwargs: Any
    ) -> AsyncGenerator[dict[str, Any], None]:
        raise NotImplementedError("the scripted model has no structured output")
        yield {}  # pragma: no cover - makes this an async generator

    async def stream(  # type: ignore[override]
        self, messages: Any, tool_specs: Any = None, system_prompt: Any = None, **kwargs: Any
    ) -> AsyncGenerator[dict[str, Any], None]:
        kind, value = _last_block(messages)
        yield {"messageStart": {"role": "assistant"}}
        if kind == "text" and "transfer" in str(value).lower():
            use_id = f"tooluse_{uuid.uuid4().hex[:12]}"
            yield {
                "contentBlockStart": {
                    "start": {"toolUse": {"toolUseId": use_id, "name": "transfer_money"}}
                }
            }
            yield {
                "contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(TRANSFER_ARGS)}}}
            }
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "tool_use"}}
            return
        text = _result_text(value) if kind == "result" else f"Echo: {value}"
        yield {"contentBlockStart": {"start": {}}}
        yield {"contentBlockDelta": {"delta": {"text": text}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "end_turn"}}


# -------------------------------------------------------------------------- the tool and gates


def _transfer(args: dict[str, Any]) -> str:
    recorder.executions.append(("transfer_money", dict(args)))
    return f"Transferred {float(args['amount']):.2f} {args['currency']}."


def _refusal(answer: Any) -> str | None:
    """None to go ahead; else the text the refused call returns. ``answer`` is what Strands hands
    a plain interrupt back: ``{"response": payload}`` or ``{"cancelled": true}``."""
    if not isinstance(answer, dict) or answer.get("cancelled"):
        return "Cancelled."
    payload = answer.get("response")
    if isinstance(payload, dict) and payload.get("approved") is True:
        return None
    reason = payload.get("reason") if isinstance(payload, dict) else None
    return (
        f"The transfer was not approved ({reason})." if reason else "The transfer was not approved."
    )


def _edited(answer: Any, proposed: dict[str, Any]) -> dict[str, Any]:
    payload = answer.get("response") if isinstance(answer, dict) else None
    edited = payload.get("editedArgs") if isinstance(payload, dict) else None
    return dict(edited) if isinstance(edited, dict) else proposed


def _reason(style: str, tool_use: dict[str, Any]) -> Any:
    if style == "bad-reason":
        return "please approve the transfer"
    if style == "no-fields":
        return {"question": "May I move the money?"}
    return {
        "tool_name": tool_use["name"],
        "tool_input": tool_use["input"],
        "tool_use_id": tool_use["toolUseId"],
    }


class PlainInterruptHook(HookProvider):
    """Pauses ``transfer_money`` with a plain Strands interrupt, before the tool runs."""

    def __init__(self, style: str) -> None:
        self.style = style

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        registry.add_callback(BeforeToolCallEvent, self.before_tool_call)

    def before_tool_call(self, event: BeforeToolCallEvent) -> None:
        if event.tool_use["name"] != "transfer_money":
            return
        answer = event.interrupt(INTERRUPT_NAME, reason=_reason(self.style, event.tool_use))
        refusal = _refusal(answer)
        if refusal is not None:
            event.cancel_tool = refusal
            return
        event.tool_use = {**event.tool_use, "input": _edited(answer, event.tool_use["input"])}


@tool
def transfer_money(from_account: str, to_account: str, amount: float, currency: str) -> str:
    """Move money between two accounts."""
    return _transfer(
        {
            "from_account": from_account,
            "to_account": to_account,
            "amount": amount,
            "currency": currency,
        }
    )


@tool(context=True, name="transfer_money")
def transfer_money_asking(
    from_account: str, to_account: str, amount: float, currency: str, tool_context: ToolContext
) -> str:
    """Move money between two accounts, after asking a person (a plain interrupt in the tool)."""
    proposed = {
        "from_account": from_account,
        "to_account": to_account,
        "amount": amount,
        "currency": currency,
    }
    answer = tool_context.interrupt(
        INTERRUPT_NAME,
        reason={
            "tool_name": "transfer_money",
            "tool_input": proposed,
            "tool_use_id": tool_context.tool_use["toolUseId"],
        },
    )
    refusal = _refusal(answer)
    return refusal if refusal is not None else _transfer(_edited(answer, proposed))


def build_app(style: str) -> Any:
    hooks: list[Any] = []
    tools: list[Any] = [transfer_money]
    config = StrandsAgentConfig()
    if style == "approval":
        config = StrandsAgentConfig(
            tool_behaviors={"transfer_money": ToolBehavior(interrupt_on_call=True)}
        )
    elif style == "tool":
        tools = [transfer_money_asking]
    else:
        hooks = [PlainInterruptHook(style)]
    template = Agent(model=ScriptedModel(), tools=tools, callback_handler=None)
    agent = StrandsAgent(
        template, name="bank", description="a scripted bank agent", config=config, hooks=hooks
    )
    return create_strands_app(agent, path="/", ping_path="/ping", origins=["http://127.0.0.1"])


def main() -> None:
    # Strands' spans cross the adapter's tasks; OpenTelemetry logs each context it cannot detach
    # with a traceback (no exporter is configured: nothing leaves the process either way).
    logging.getLogger("opentelemetry.context").setLevel(logging.CRITICAL)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--style", choices=STYLES, default="approval")
    args = parser.parse_args()
    common.serve_external(build_app(args.style), recorder, args.port)


if __name__ == "__main__":
    main()
