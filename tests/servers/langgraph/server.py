"""LangGraph through ag-ui-langgraph (``LangGraphAgent``), with a scripted, LLM-free chat model.

Runs in its own venv (``.venv-servers/langgraph``, from ``requirements.txt`` beside this file):

    .venv-servers/langgraph/bin/python tests/servers/langgraph/server.py --port 8002 \
        [--style default|outcome] [--no-raw-events]

``--style default`` is the adapter's default: an ``interrupt()`` ends the run with a ``CUSTOM``
event ``on_interrupt`` and a ``RUN_FINISHED`` without an outcome; the answer is expected in
``forwardedProps.command.resume``. ``--style outcome`` is ``emit_interrupt_outcome=True``: the same
event *and* ``RUN_FINISHED.outcome = interrupt`` (AG-UI 1.1), answered with ``resume[]``.
``--no-raw-events`` is ``emit_raw_events=False`` (no ``rawEvent``, so no interrupt ids on the wire
in the default style).

The graph is the usual agent loop (model -> tools -> model) over ``MessagesState`` with an
in-memory checkpointer. The model is a ``BaseChatModel`` subclass that streams a scripted reply:

- after tool results: each result as ``Done: <result>``, or as is when it starts ``Not done``;
- ``batch`` -> transfer_money + check_balance; ``two`` -> transfer_money + cancel_subscription;
  ``transfer``; ``subscription``; ``balance``; ``ask`` -> choose_account; ``slow`` (1.6 s of
  silence, then text); anything else -> ``Echo: <text>``.

Tools (each call is recorded, see ``/_test/log``):

- ``transfer_money`` asks ``interrupt(value)`` with a value that carries what a person needs
  (``reason``, ``message``, ``toolCallId``, ``tool``, ``arguments``) and a ``responseSchema``
  with room for ``editedArgs`` and a ``reason``;
- ``cancel_subscription`` asks with a ``responseSchema`` that has only ``approved`` (no room for
  edits or a reason) and no tool name (the tool call is found by ``toolCallId``);
- ``choose_account`` asks a plain string question; the answer is the account's name;
- ``check_balance`` needs no approval and returns a dict (LangGraph sends it JSON-encoded).

The resume value a tool receives is read as the adapter produces it: a payload
``{"approved", "editedArgs"?, "reason"?}``, or the adapter's cancel marker
``{"__agui_cancelled__": true, ...}``.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import itertools
import json
import sys
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any

from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from fastapi import FastAPI
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import Send, interrupt


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

SLOW_SECONDS = 1.6
TRANSFER_ARGS: dict[str, Any] = {
    "from_account": "checking",
    "to_account": "savings",
    "amount": 100.0,
    "currency": "USD",
}
SUBSCRIPTION_ARGS: dict[str, Any] = {"subscription_id": "sub_123"}
BALANCE_ARGS: dict[str, Any] = {"account": "checking"}
CANCELLED = "__agui_cancelled__"  # what the adapter resumes a cancelled interrupt with

TRANSFER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "editedArgs": {
            "type": "object",
            "properties": {
                "from_account": {"type": "string"},
                "to_account": {"type": "string"},
                "amount": {"type": "number"},
                "currency": {"type": "string"},
            },
            "required": ["from_account", "to_account", "amount", "currency"],
            "additionalProperties": False,
        },
        "reason": {"type": "string"},
    },
    "required": ["approved"],
    "additionalProperties": False,
}
APPROVE_ONLY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}},
    "required": ["approved"],
    "additionalProperties": False,
}


class ScriptedChatModel(BaseChatModel):
    """A deterministic chat model: the reply is a function of the conversation (see module doc)."""

    ids: Any = None

    def model_post_init(self, context: Any) -> None:
        self.ids = itertools.count(1)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self  # the script knows its tools

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        results: list[ToolMessage] = []
        for message in reversed(messages):
            if not isinstance(message, ToolMessage):
                break
            results.insert(0, message)
        if results:
            parts = [str(m.content) for m in results]
            return AIMessage(
                content=" ".join(p if p.startswith("Not done") else f"Done: {p}" for p in parts)
            )
        text = next((str(m.content) for m in reversed(messages) if isinstance(m, HumanMessage)), "")
        lowered = text.lower()
        calls: list[tuple[str, dict[str, Any]]] = []
        if "batch" in lowered:
            calls = [("transfer_money", TRANSFER_ARGS), ("check_balance", BALANCE_ARGS)]
        elif "two" in lowered:
            calls = [("transfer_money", TRANSFER_ARGS), ("cancel_subscription", SUBSCRIPTION_ARGS)]
        elif "transfer" in lowered:
            calls = [("transfer_money", TRANSFER_ARGS)]
        elif "subscription" in lowered:
            calls = [("cancel_subscription", SUBSCRIPTION_ARGS)]
        elif "balance" in lowered:
            calls = [("check_balance", BALANCE_ARGS)]
        elif "ask" in lowered:
            calls = [("choose_account", {})]
        elif "slow" in lowered:
            return AIMessage(content="Slow answer.", response_metadata={"slow": True})
        else:
            return AIMessage(content=f"Echo: {text}")
        return AIMessage(
            content="",
            tool_calls=[
                {"name": name, "args": dict(args), "id": f"lg_{name}_{next(self.ids)}"}
                for name, args in calls
            ],
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    def _chunks(self, reply: AIMessage) -> Iterator[AIMessageChunk]:
        if reply.content:
            words = str(reply.content).split(" ")
            for index, word in enumerate(words):
                yield AIMessageChunk(content=word if index == 0 else " " + word)
        # As providers stream calls: name and id first, then the arguments (the adapter drops
        # arguments that arrive in the same chunk as the name).
        for index, call in enumerate(reply.tool_calls):
            for name, args, call_id in ((call["name"], "", call["id"]), (None, None, None)):
                yield AIMessageChunk(
                    content="",
                    tool_call_chunks=[
                        {
                            "name": name,
                            "args": json.dumps(call["args"]) if args is None else args,
                            "id": call_id,
                            "index": index,
                            "type": "tool_call_chunk",
                        }
                    ],
                )

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        reply = self._reply(messages)
        if reply.response_metadata.get("slow"):
            await asyncio.sleep(SLOW_SECONDS)
        for chunk in self._chunks(reply):
            generation = ChatGenerationChunk(message=chunk)
            if run_manager is not None:
                await run_manager.on_llm_new_token(str(chunk.content), chunk=generation)
            yield generation


def _decision(value: Any) -> tuple[str, dict[str, Any] | None, str | None]:
    """("approved" | "rejected" | "cancelled" | "invalid", edited arguments, reason)."""
    if not isinstance(value, dict):
        return "invalid", None, None
    if value.get(CANCELLED):
        return "cancelled", None, None
    if value.get("approved") is True:
        edited = value.get("editedArgs")
        return "approved", edited if isinstance(edited, dict) else None, None
    if value.get("approved") is False:
        reason = value.get("reason")
        return "rejected", None, reason if isinstance(reason, str) else None
    return "invalid", None, None


def make_tools(recorder: Any) -> list[Any]:
    @tool
    def transfer_money(
        from_account: str,
        to_account: str,
        amount: float,
        tool_call_id: Annotated[str, InjectedToolCallId],
        currency: str = "USD",
    ) -> str:
        """Transfer money between two accounts (asks a person first)."""
        args = {
            "from_account": from_account,
            "to_account": to_account,
            "amount": amount,
            "currency": currency,
        }
        answer = interrupt(
            {
                "reason": "tool_call",
                "message": "Approve transfer_money?",
                "toolCallId": tool_call_id,
                "tool": "transfer_money",
                "arguments": args,
                "responseSchema": TRANSFER_SCHEMA,
            }
        )
        verdict, edited, reason = _decision(answer)
        if verdict == "approved":
            args = {**args, **(edited or {})}
            recorder.executions.append(("transfer_money", args))
            return (
                f"Transferred {float(args['amount']):.2f} {args['currency']} "
                f"from {args['from_account']} to {args['to_account']}"
            )
        if verdict == "rejected":
            return "Not done: the transfer was not approved" + (f" ({reason})." if reason else ".")
        if verdict == "cancelled":
            return "Not done: the transfer was cancelled."
        return f"Not done: unreadable answer {answer!r}."

    @tool
    def cancel_subscription(
        subscription_id: str, tool_call_id: Annotated[str, InjectedToolCallId]
    ) -> str:
        """Cancel a subscription (asks a person first)."""
        answer = interrupt(
            {
                "reason": "tool_call",
                "message": f"Cancel subscription {subscription_id}?",
                "toolCallId": tool_call_id,
                "responseSchema": APPROVE_ONLY_SCHEMA,
            }
        )
        verdict, _, _ = _decision(answer)
        if verdict == "approved":
            recorder.executions.append(
                ("cancel_subscription", {"subscription_id": subscription_id})
            )
            return f"Cancelled subscription {subscription_id}"
        return f"Not done: the call was not approved ({verdict})."

    @tool
    def choose_account() -> str:
        """Ask which account to use."""
        answer = interrupt("Which account should the refund go to?")
        recorder.executions.append(("choose_account", {"answer": answer}))
        return f"Refund goes to {answer}"

    @tool
    def check_balance(account: str) -> dict[str, Any]:
        """Return an account's balance."""
        recorder.executions.append(("check_balance", {"account": account}))
        return {"account": account, "balance": 1234.56, "currency": "USD"}

    return [transfer_money, cancel_subscription, choose_account, check_balance]


def make_graph(recorder: Any) -> Any:
    model = ScriptedChatModel()
    tools = make_tools(recorder)

    async def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    def route(state: MessagesState) -> Any:
        # One task per call (as langchain's create_agent does), so that two calls that both
        # ask raise two interrupts in the same step instead of the first hiding the second.
        last = state["messages"][-1]
        if isinstance(last, AIMessage) and last.tool_calls:
            return [Send("tools", [call]) for call in last.tool_calls]
        return END

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", route, ["tools", END])
    builder.add_edge("tools", "agent")
    return builder.compile(checkpointer=InMemorySaver())


def create_app(recorder: Any, *, style: str, raw_events: bool) -> FastAPI:
    agent = LangGraphAgent(
        name="banking_agent",
        description="A banking assistant that asks before moving money.",
        graph=make_graph(recorder),
        emit_interrupt_outcome=style == "outcome",
        emit_raw_events=raw_events,
    )
    app = FastAPI(title=f"ag-ui-langgraph ({style} interrupts, scripted model)")
    add_langgraph_fastapi_endpoint(app, agent, "/")
    return app


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--style", choices=["default", "outcome"], default="default")
    parser.add_argument("--no-raw-events", action="store_true")
    args = parser.parse_args(argv)
    recorder = common.Recorder()
    app = create_app(recorder, style=args.style, raw_events=not args.no_raw_events)
    common.serve_external(app, recorder, args.port)


if __name__ == "__main__":
    main()
