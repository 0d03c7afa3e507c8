"""LangGraph's two interrupt styles through the client, replayed from captured wire streams.

tests/fixtures/transcripts/langgraph_*.sse are the bytes ag-ui-langgraph 0.0.47 sent
(tests/servers/capture_transcripts.py). Each test answers the client's requests with them, in
order, through httpx's MockTransport (so no server and no server venv: these run under both
ag-ui-protocol lines), and checks what the client makes of them and what it would send back.
The live counterpart is tests/interop/test_client_langgraph.py.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agui_notebook import Agent, InvalidDecision, Thread, answer, approve, cancel, reject
from agui_notebook._state.items import card_interrupt

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
TRANSFER_ARGS = {
    "from_account": "checking",
    "to_account": "savings",
    "amount": 100.0,
    "currency": "USD",
}


class Replay:
    """Answers each request with the next transcript; keeps the request bodies."""

    def __init__(self, *names: str) -> None:
        self.responses = [(TRANSCRIPTS / f"langgraph_{n}.sse").read_bytes() for n in names]
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(json.loads(request.content))
        body = self.responses.pop(0)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)


@pytest.fixture
def replay() -> Any:
    def make(*names: str) -> Replay:
        return Replay(*names)

    return make


async def thread_for(replay: Replay) -> AsyncIterator[Thread]:
    client = httpx.AsyncClient(transport=httpx.MockTransport(replay))
    async with Agent("http://langgraph.test/", http_client=client) as agent:
        yield agent.thread()
    await client.aclose()


def on_interrupt_ids(name: str) -> list[str]:
    ids = []
    for line in (TRANSCRIPTS / f"langgraph_{name}.sse").read_text().splitlines():
        if line.startswith("data:") and '"on_interrupt"' in line:
            ids.append(json.loads(line[5:])["rawEvent"]["id"])
    return ids


async def run(replay: Replay, text: str) -> tuple[Thread, Any, Any]:
    gen = thread_for(replay)
    thread = await gen.__anext__()
    return thread, await thread.run(text), gen


async def test_default_style_becomes_an_interrupt(replay: Any) -> None:
    responses = replay("default_transfer_interrupt", "default_transfer_approve")
    thread, result, gen = await run(responses, "transfer")
    assert result.outcome == "interrupt"
    [pending] = thread.pending
    assert [pending.id] == on_interrupt_ids("default_transfer_interrupt")
    assert (pending.reason, pending.tool_name, pending.message) == (
        "tool_call",
        "transfer_money",
        "Approve transfer_money?",
    )
    assert pending.arguments == TRANSFER_ARGS
    assert thread.runs[-1].status == "interrupt"

    done = await thread.resume(approve())
    body = responses.bodies[-1]
    assert body["forwardedProps"] == {"command": {"resume": {"approved": True}}}
    assert "resume" not in body and body["threadId"] == thread.id
    assert done.outcome == "success"
    assert done.text == "Done: Transferred 100.00 USD from checking to savings"
    await gen.aclose()


async def test_outcome_style_counts_each_interrupt_once_and_uses_resume(replay: Any) -> None:
    responses = replay("outcome_transfer_interrupt", "outcome_transfer_approve")
    thread, result, gen = await run(responses, "transfer")
    [pending] = result.interrupts  # the CUSTOM event and the outcome: one interrupt
    await thread.resume(approve())
    body = responses.bodies[-1]
    assert body["resume"] == [
        {"interruptId": pending.id, "status": "resolved", "payload": {"approved": True}}
    ]
    assert "command" not in body["forwardedProps"]
    await gen.aclose()


async def test_the_card_does_not_care_which_style(replay: Any) -> None:
    cards = []
    for style in ("default", "outcome", "noids"):
        thread, _, gen = await run(replay(f"{style}_transfer_interrupt"), "transfer")
        [pending] = thread.pending
        card = card_interrupt(pending, None)
        cards.append({k: v for k, v in card.items() if k not in ("id", "toolCallId")})
        await gen.aclose()
    assert cards[0] == cards[1] == cards[2]
    assert cards[0]["mode"] == "tool" and cards[0]["canEdit"] and cards[0]["canGiveReason"]


async def test_two_interrupts_are_answered_with_langgraphs_resume_map(replay: Any) -> None:
    for style in ("default", "outcome"):
        responses = replay(f"{style}_two_interrupt", f"{style}_two_approve")
        thread, _, gen = await run(responses, "two things")
        transfer, subscription = thread.pending
        assert [transfer.id, subscription.id] == on_interrupt_ids(f"{style}_two_interrupt")
        assert [transfer.tool_name, subscription.tool_name] == [
            "transfer_money",
            "cancel_subscription",
        ]
        await thread.resume({transfer.id: approve(), subscription.id: reject()})
        body = responses.bodies[-1]
        assert body["forwardedProps"]["command"]["resume"] == {
            transfer.id: {"approved": True},
            subscription.id: {"approved": False},
        }, style
        assert "resume" not in body
        await gen.aclose()


async def test_a_string_value_is_the_question(replay: Any) -> None:
    for style in ("default", "outcome"):
        thread, _, gen = await run(replay(f"{style}_ask_interrupt"), "ask me")
        [pending] = thread.pending
        assert (pending.reason, pending.tool_name) == ("langgraph:interrupt", None)
        assert pending.message == "Which account should the refund go to?"
        assert card_interrupt(pending, None)["mode"] == "free"
        await gen.aclose()


async def test_a_text_answer_is_json_encoded_for_the_default_style(replay: Any) -> None:
    responses = replay("default_ask_interrupt", "default_transfer_approve")
    thread, _, gen = await run(responses, "ask me")
    await thread.resume(answer("123"))
    assert responses.bodies[-1]["forwardedProps"]["command"]["resume"] == '"123"'
    await gen.aclose()


async def test_without_ids_a_local_id_and_a_bare_cancel_marker(replay: Any) -> None:
    responses = replay("noids_transfer_interrupt", "default_transfer_approve")
    thread, _, gen = await run(responses, "transfer")
    [pending] = thread.pending
    assert pending.id == f"langgraph-{pending.run_id}-1"  # named after the run that raised it
    await thread.resume(cancel())
    assert responses.bodies[-1]["forwardedProps"]["command"]["resume"] == {
        "__agui_cancelled__": True
    }
    await gen.aclose()


async def test_refusals_send_nothing(replay: Any) -> None:
    responses = replay("default_ask_interrupt")
    thread, _, gen = await run(responses, "ask me")
    with pytest.raises(InvalidDecision):
        await thread.resume(answer(None))
    with pytest.raises(Exception, match="ignores new messages"):
        await thread.run("hello")
    assert len(responses.bodies) == 1 and len(thread.pending) == 1
    await gen.aclose()


async def test_a_json_encoded_tool_result_is_shown_as_its_value(replay: Any) -> None:
    responses = replay("default_balance")
    client = httpx.AsyncClient(transport=httpx.MockTransport(responses))
    async with Agent("http://langgraph.test/", http_client=client) as agent:
        chat = agent.chat(display=False)
        result = await chat.send("balance please")
    await client.aclose()
    assert result.outcome == "success"
    [tool] = [i for i in chat.view.items if i["kind"] == "tool"]
    value = {"account": "checking", "balance": 1234.56, "currency": "USD"}
    assert json.loads(tool["result"]) == value  # the text as sent stays available
    assert tool["resultValue"] == value
