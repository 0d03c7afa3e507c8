"""agui_notebook end to end against AWS Bedrock AgentCore's AG-UI app (bedrock-agentcore 1.25).

The server is tests/servers/agentcore/server.py in its own venv: ``build_ag_ui_app`` around a
scripted async generator (no LLM, no AWS credentials) that raises an AG-UI 1.1 interrupt for a
transfer and applies each resume once. The same agent is served on both of AgentCore's routes,
and every test runs on both: ``POST /invocations`` (SSE) and ``/ws`` (WebSocket, whose frames
are SSE-encoded events).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from agui_notebook import (
    Agent,
    WebSocketClosed,
    approve,
    cancel,
    edit,
    reject,
)
from agui_notebook._transports.http import HTTPTransport
from agui_notebook._transports.websocket import WebSocketTransport

pytestmark = pytest.mark.interop

TRANSFER_ARGS = {
    "from_account": "checking",
    "to_account": "savings",
    "amount": 100.0,
    "currency": "USD",
}


@pytest.fixture(scope="module")
def agentcore(external_server: Callable[..., Any]) -> Any:
    return external_server("agentcore")


@pytest.fixture(autouse=True)
def _clear(agentcore: Any) -> None:
    agentcore.clear()


@pytest.fixture(params=["sse", "websocket"])
async def agent(request: pytest.FixtureRequest, agentcore: Any) -> AsyncIterator[Agent]:
    if request.param == "sse":
        url = agentcore.url + "invocations"
    else:
        url = agentcore.url.replace("http://", "ws://") + "ws"
    async with Agent(url, timeout=60.0, store=None) as agent:
        expected = HTTPTransport if request.param == "sse" else WebSocketTransport
        assert isinstance(agent.transport, expected)
        yield agent


def runs(agentcore: Any) -> list[Any]:
    return [r for r in agentcore.requests if r.path in ("/invocations", "/ws")]


@pytest.mark.parametrize(
    ("decision", "ran", "text"),
    [
        (approve(), TRANSFER_ARGS, "Transferred 100.00 USD."),
        (edit(amount=20), {**TRANSFER_ARGS, "amount": 20}, "Transferred 20.00 USD."),
        (reject("not today"), None, "The transfer was not approved."),
        (cancel(), None, "Cancelled."),
    ],
    ids=["approve", "edit", "reject", "cancel"],
)
async def test_an_approval_shows_the_tool_and_resumes_once(
    agent: Agent, agentcore: Any, decision: Any, ran: dict[str, Any] | None, text: str
) -> None:
    thread = agent.thread()
    first = await thread.run("Please transfer 100 USD to savings")
    assert first.outcome == "interrupt"
    (pending,) = first.interrupts
    assert pending.tool_name == "transfer_money"
    assert pending.arguments == TRANSFER_ARGS
    assert pending.reason == "tool_call"
    result = await thread.resume(decision)
    assert (result.outcome, result.text) == ("success", text)
    assert thread.pending == []
    assert agentcore.executions == ([("transfer_money", ran)] if ran is not None else [])
    sent = runs(agentcore)
    assert len(sent) == 2  # the run and one resume: nothing re-sent
    resume = sent[1].json["resume"]
    assert [e["interruptId"] for e in resume] == [pending.id]
    if decision.kind == "edit":
        assert resume[0]["payload"] == {
            "approved": True,
            "editedArgs": {**TRANSFER_ARGS, "amount": 20},
        }
    # One execution at most, whatever the decision: the resume was applied once.
    assert len(agentcore.executions) == (1 if ran is not None else 0)


async def test_a_plain_message_and_no_capabilities_document(agent: Agent) -> None:
    result = await agent.thread().run("hello")
    assert (result.outcome, result.text) == ("success", "Echo: hello")
    assert await agent.capabilities() is None  # AgentCore serves none: 404, not an error


async def test_an_invalid_input_over_the_websocket_is_a_typed_error(agentcore: Any) -> None:
    # AgentCore closes an invalid RunAgentInput with 1003 and a reason that quotes the whole
    # validation error, longer than the 123 bytes a close frame may carry: its server fails to
    # send it and the socket drops without a close frame. The client says so with a typed error.
    transport = WebSocketTransport(
        agentcore.url.replace("http://", "ws://") + "ws",
        headers=None,
        http_client=None,
        timeout=None,
    )
    with pytest.raises(WebSocketClosed) as caught:
        async with transport.open(b'{"threadId": 1}', max_event_bytes=1 << 20) as stream:
            async for _ in stream:
                pass
    assert caught.value.code == 1006  # not the 1003 it meant to send
    assert [r.path for r in runs(agentcore)] == ["/ws"]
