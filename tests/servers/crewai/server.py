"""A CrewAI Flow through ag-ui-crewai (``add_crewai_flow_fastapi_endpoint``), LLM-free.

Runs in its own venv (``.venv-servers/crewai``, from ``requirements.txt`` beside this file):

    .venv-servers/crewai/bin/python tests/servers/crewai/server.py --port 8004 \
        [--style outcome|default]

``/`` serves :class:`BankFlow` (below); ``/outcomes`` serves :class:`OutcomeReviewFlow`, a
review with named outcomes (``emit``), which only the first run of can be tested LLM-free.

``--style outcome`` (the default here) is ``emit_interrupt_outcome=True``: a paused run ends with
``RUN_FINISHED.outcome = interrupt`` (AG-UI 1.1) *and* the adapter's legacy ``CUSTOM
on_interrupt`` event; ``--style default`` is the adapter's default (the event only).

CrewAI surfaces a pause for a person through a Flow method decorated with ``@human_feedback``
whose provider (the adapter's ``agui_feedback_provider``) suspends the flow; the next request
with ``resume[]`` reloads it (``Flow.from_pending``) and hands it the answer as the feedback
*string* (a non-string payload JSON-encoded). There is no tool-call approval as such: the flow
below asks before it runs a tool that moves money.

The model is :class:`ScriptedLLM`, a subclass of CrewAI's ``BaseLLM`` (its interface for custom
models), called by the flow; it answers from a script. ``@human_feedback`` is used *without*
``emit``: with ``emit``, CrewAI classifies the feedback with an LLM when the flow resumes, and
rebuilds that LLM from its serialized config as a LiteLLM/native-provider ``LLM`` (a custom
``BaseLLM`` does not survive the pause), which needs a live model. So this flow reads the
feedback itself: a JSON ``{"approved", "editedArgs"?, "reason"?}``, ``approve``/``yes`` as text,
or ``""`` (what the adapter sends for a cancel).

The flow (``BankFlow``): ``plan`` asks the model; free calls (``check_balance``) run at once; each
call that moves money (``transfer_money``, ``cancel_subscription``) is reviewed in turn by
``ask_approval`` (the pause; its output, the proposed call, is what the interrupt shows); ``decide``
runs or refuses it; ``write_summary`` answers: ``Done: <result>`` per call,
``The transfer was not approved.`` / ``The call was not approved.`` for a refusal.
The script: ``batch`` -> transfer_money + check_balance; ``two`` -> transfer_money +
cancel_subscription; ``transfer``; ``subscription``; ``balance``; ``slow`` (``SLOW_SECONDS`` of
silence, then text); anything else -> ``Echo: <text>``.
"""

from __future__ import annotations

import argparse
import atexit
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# Before CrewAI is imported: no telemetry, tracing or version check (no network but PyPI here), and
# its pending-flow store (SQLite under the user data dir) in a directory of this process's own.
_STORE = tempfile.mkdtemp(prefix="agui-crewai-server-")
atexit.register(shutil.rmtree, _STORE, ignore_errors=True)
os.environ.update(
    CREWAI_DISABLE_TELEMETRY="true",
    CREWAI_DISABLE_TRACKING="true",
    OTEL_SDK_DISABLED="true",
    CREWAI_DISABLE_VERSION_CHECK="true",
    CREWAI_TRACING_ENABLED="false",
    LITELLM_LOCAL_MODEL_COST_MAP="True",  # LiteLLM would fetch its model price list at import
    XDG_DATA_HOME=_STORE,
    XDG_CONFIG_HOME=_STORE,
    CREWAI_STORAGE_DIR="agui-notebook-tests",
)

from ag_ui_crewai import (  # noqa: E402
    CopilotKitState,
    add_crewai_flow_fastapi_endpoint,
    agui_feedback_provider,
)
from crewai.flow import human_feedback  # noqa: E402
from crewai.flow.flow import Flow, listen, router, start  # noqa: E402
from crewai.llms.base_llm import BaseLLM  # noqa: E402
from crewai.tools import BaseTool  # noqa: E402
from fastapi import FastAPI  # noqa: E402
from pydantic import Field  # noqa: E402


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
RECORDER = common.Recorder()  # the flow is rebuilt by Flow.from_pending: tools reach it here

SLOW_SECONDS = 1.6
APPROVAL_QUESTION = "Approve this call?"
GATED = ("transfer_money", "cancel_subscription")
TRANSFER_ARGS: dict[str, Any] = {
    "from_account": "checking",
    "to_account": "savings",
    "amount": 100.0,
    "currency": "USD",
}
SUBSCRIPTION_ARGS: dict[str, Any] = {"subscription_id": "sub_123"}
BALANCE_ARGS: dict[str, Any] = {"account": "checking"}


class ScriptedLLM(BaseLLM):
    """CrewAI's model interface with a script for a body: tool calls in OpenAI's shape, or text."""

    llm_type: str = "scripted"

    def call(
        self,
        messages: Any,
        tools: Any = None,
        callbacks: Any = None,
        available_functions: Any = None,
        from_task: Any = None,
        from_agent: Any = None,
        response_model: Any = None,
    ) -> Any:
        if isinstance(messages, str):
            messages = [{"role": "user", "content": messages}]
        last = messages[-1] if messages else {}
        text = str(last.get("content") or "")
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
            time.sleep(SLOW_SECONDS)
            return "Slow answer."
        return f"Echo: {text}"

    def supports_function_calling(self) -> bool:
        return True


def _call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"call_{name}_{uuid.uuid4().hex[:8]}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


class TransferMoney(BaseTool):
    name: str = "transfer_money"
    description: str = "Transfer money between two accounts."

    def _run(self, from_account: str, to_account: str, amount: float, currency: str = "USD") -> str:
        args = {
            "from_account": from_account,
            "to_account": to_account,
            "amount": amount,
            "currency": currency,
        }
        RECORDER.executions.append(("transfer_money", args))
        return f"Transferred {amount:.2f} {currency} from {from_account} to {to_account}"


class CancelSubscription(BaseTool):
    name: str = "cancel_subscription"
    description: str = "Cancel a subscription."

    def _run(self, subscription_id: str) -> str:
        RECORDER.executions.append(("cancel_subscription", {"subscription_id": subscription_id}))
        return f"Cancelled subscription {subscription_id}"


class CheckBalance(BaseTool):
    name: str = "check_balance"
    description: str = "Return an account's balance."

    def _run(self, account: str) -> str:
        RECORDER.executions.append(("check_balance", {"account": account}))
        return f"Balance of {account}: 1234.56 USD"


LLM = ScriptedLLM(model="scripted-banker")
TOOLS: dict[str, BaseTool] = {
    tool.name: tool for tool in (TransferMoney(), CancelSubscription(), CheckBalance())
}


def read_feedback(feedback: str) -> dict[str, Any]:
    """The person's answer as this flow understands it: ``{"approved", "editedArgs"?, "reason"?}``
    or ``{"cancelled": True}`` for the empty feedback the adapter sends for a cancel."""
    if not feedback.strip():
        return {"approved": False, "cancelled": True}
    try:
        value = json.loads(feedback)
    except ValueError:
        value = feedback
    if isinstance(value, dict) and isinstance(value.get("approved"), bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("approve", "approved", "yes"):
        return {"approved": True}
    return {"approved": False, "reason": feedback}


class BankState(CopilotKitState):
    #: The calls waiting for a person, the first one under review.
    queue: list[dict[str, Any]] = Field(default_factory=list)
    summary: list[str] = Field(default_factory=list)


class BankFlow(Flow[BankState]):
    @start()
    def plan(self) -> None:
        self.state.summary = []
        history = [m if isinstance(m, dict) else m.model_dump() for m in self.state.messages]
        reply = LLM.call(messages=history, tools=[{"name": name} for name in TOOLS])
        if isinstance(reply, str):
            self._say(reply)
            return
        self.state.messages.append(
            {"id": str(uuid.uuid4()), "role": "assistant", "content": "", "tool_calls": reply}
        )
        for call in reply:
            if call["function"]["name"] in GATED:
                self.state.queue.append(call)
            else:
                self._run_tool(call, json.loads(call["function"]["arguments"]))

    @router(plan)
    def after_plan(self) -> str:
        return "review" if self.state.queue else "planned"

    @listen("review")
    @human_feedback(message=APPROVAL_QUESTION, provider=agui_feedback_provider)
    def ask_approval(self) -> dict[str, Any]:
        """The pause: its return value is what the person reviews (interrupt metadata)."""
        call = self.state.queue[0]
        return {
            "toolCallId": call["id"],
            "tool": call["function"]["name"],
            "arguments": json.loads(call["function"]["arguments"]),
        }

    @router(ask_approval)
    def decide(self, result: Any) -> str:
        call = self.state.queue.pop(0)
        answer = read_feedback(str(getattr(result, "feedback", result) or ""))
        name = call["function"]["name"]
        if answer["approved"]:
            args = json.loads(call["function"]["arguments"])
            edited = answer.get("editedArgs")
            self._run_tool(call, {**args, **edited} if isinstance(edited, dict) else args)
        else:
            text = "Cancelled by user." if answer.get("cancelled") else answer.get("reason")
            self._tool_message(call, text or "The tool call was denied.")
            self.state.summary.append(
                "The transfer was not approved."
                if name == "transfer_money"
                else "The call was not approved."
            )
        return "review" if self.state.queue else "decided"

    @listen("decided")
    def write_summary(self) -> None:
        self._say(" ".join(self.state.summary))

    @listen("planned")
    def summarize_free_calls(self) -> None:
        if self.state.summary:
            self._say(" ".join(self.state.summary))

    def _run_tool(self, call: dict[str, Any], args: dict[str, Any]) -> None:
        result = TOOLS[call["function"]["name"]].run(**args)
        self._tool_message(call, str(result))
        self.state.summary.append(f"Done: {result}")

    def _tool_message(self, call: dict[str, Any], content: str) -> None:
        self.state.messages.append(
            {
                "id": str(uuid.uuid4()),
                "role": "tool",
                "tool_call_id": call["id"],
                "content": content,
            }
        )

    def _say(self, text: str) -> None:
        self.state.messages.append({"id": str(uuid.uuid4()), "role": "assistant", "content": text})


class OutcomeReviewFlow(Flow[BankState]):
    """A review whose answers are named outcomes (``emit``): the interrupt gets a string-enum
    ``responseSchema``. Resuming it needs a live model (module doc), so tests only start it."""

    @start()
    @human_feedback(
        message=APPROVAL_QUESTION,
        emit=["approved", "rejected"],
        llm=LLM,
        default_outcome="rejected",
        provider=agui_feedback_provider,
    )
    def ask_approval(self) -> dict[str, Any]:
        return {"tool": "transfer_money", "arguments": TRANSFER_ARGS}


def create_app(*, style: str) -> FastAPI:
    """``/``: :class:`BankFlow`; ``/outcomes``: :class:`OutcomeReviewFlow`."""
    app = FastAPI(title=f"ag-ui-crewai ({style} interrupts, scripted model)")
    outcome = style == "outcome"
    add_crewai_flow_fastapi_endpoint(app, BankFlow(), "/", emit_interrupt_outcome=outcome)
    add_crewai_flow_fastapi_endpoint(
        app, OutcomeReviewFlow(), "/outcomes", emit_interrupt_outcome=outcome
    )
    return app


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--style", choices=["default", "outcome"], default="outcome")
    args = parser.parse_args(argv)
    common.serve_external(create_app(style=args.style), RECORDER, args.port)


if __name__ == "__main__":
    main()
