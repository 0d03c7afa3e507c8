"""Actions on A2UI surfaces, driven as the front end would (no browser, no kernel): the click goes
back once as forwardedProps.a2uiAction on a new run of the same thread, streams into the same view,
and is audited; double clicks, stale clicks, a policy racing a click and a failed send are each
covered. The demo agent runs in-process and records every request it got."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from agui_notebook import Agent, act, policies
from agui_notebook._chat.chat import Chat
from agui_notebook._view.widget import ChatView, parse_front_message

FORM = "Open a transfer form"
GOOD = {"from": ["1234567890"], "to": "0987654321", "amount": "250", "currency": ["EUR"]}


@pytest.fixture
def agent() -> Agent:
    return Agent.demo(text_delay=0)


def actions_sent(agent: Agent) -> list[dict[str, Any]]:
    """Requests that carried an A2UI action, as the server received them."""
    return [
        r["body"]
        for r in agent.demo_app.requests
        if ((r["body"] or {}).get("forwardedProps") or {}).get("a2uiAction")
    ]


def surface_of(view: ChatView) -> dict[str, Any]:
    for item in view.items:
        if item["kind"] == "a2ui" and item["surfaces"]:
            return dict(item["surfaces"][0])
    raise AssertionError("no surface shown")


def capture_acks(view: ChatView) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    view.send = sent.append  # type: ignore[method-assign]
    return sent


async def click(
    view: ChatView, request_id: str, *, name: str = "submit_transfer", seq: int | None = None,
    context: dict[str, Any] | None = None, surface: str | None = None,
) -> None:  # fmt: skip
    shown = surface_of(view)
    sid = surface or shown["surfaceId"]
    message = {
        "type": "a2ui-action",
        "requestId": request_id,
        "surfaceId": sid,
        "seq": shown["action"]["seq"] if seq is None else seq,
        "action": {
            "name": name,
            "surfaceId": sid,
            "sourceComponentId": "submit" if name == "submit_transfer" else "cancel",
            "timestamp": "2030-03-01T12:00:00Z",
            "context": GOOD if context is None else context,
        },
    }
    deliver(view, message)
    await asyncio.sleep(0)  # the handler runs on the loop, as from a kernel's comm thread


def deliver(view: ChatView, message: dict[str, Any]) -> None:
    view._handle_custom_msg(view, message, [])


async def settled(chat: Chat) -> Any:
    result = await asyncio.wait_for(chat.wait(), 10)
    await asyncio.sleep(0)
    return result


async def test_a_click_after_the_turn_runs_once_on_the_same_thread_in_the_same_view(
    agent: Agent,
) -> None:
    chat = agent.chat(timeout=10, display=False)
    first = await chat.send(FORM)
    assert first.outcome == "success" and "transfer form" in first.text
    view = chat.view
    assert view is not None
    shown = surface_of(view)
    assert shown["action"] == {
        "status": "idle", "seq": 0, "name": None, "decidedBy": None, "outcome": None, "error": None,
    }  # fmt: skip
    acks = capture_acks(view)
    await click(view, "r1")
    await click(view, "r2")  # a double click: refused, nothing more is sent
    final = await settled(chat)
    assert [a["accepted"] for a in acks] == [True, False]
    assert "being sent" in acks[1]["error"]
    assert final is not None and final.outcome == "success"
    assert "Transferred 250.00 EUR" in final.text
    sent = actions_sent(agent)
    assert len(sent) == 1
    body = sent[0]
    assert body["threadId"] == chat.thread.id and "resume" not in body
    user_action = body["forwardedProps"]["a2uiAction"]["userAction"]
    assert user_action["name"] == "submit_transfer" and user_action["context"] == GOOD
    assert [e["tool"] for e in agent.demo_app.executions] == ["transfer_money"]
    # The same view shows the continued run, the surface updated in place and its action state.
    assert chat.view is view and any(
        i["kind"] == "assistant" and "Transferred" in i["text"] for i in view.items
    )
    done = surface_of(view)
    assert done["action"]["status"] == "done" and done["action"]["seq"] == 1
    assert done["action"]["decidedBy"] == "you" and done["action"]["outcome"] == "success"
    assert chat.audit[-1]["decision"] == "act" and chat.audit[-1]["outcome"] == "success"
    assert view.audit[-1]["action"] == "submit_transfer"
    assert chat.audit_text().startswith("submit_transfer(from=['1234567890'], to='0987654321'")
    # A click made against the old state (another view, a late click) is refused: nothing sent.
    await click(view, "r3", seq=0)
    assert acks[-1]["accepted"] is False and "another action" in acks[-1]["error"]
    assert len(actions_sent(agent)) == 1


class _Body(httpx.AsyncByteStream):
    def __init__(self, chunks: Any) -> None:
        self.chunks = chunks

    async def __aiter__(self) -> Any:
        async for chunk in self.chunks:
            yield chunk

    async def aclose(self) -> None:
        pass


async def test_a_click_during_the_turn_continues_in_the_cell(agent: Agent) -> None:
    # Hold the form's run open right after the surface arrives, until the click is in.
    gate = asyncio.Event()
    transport = agent._transport._given_client._transport  # type: ignore[union-attr]
    original = transport.handle_async_request

    async def gated(request: Any) -> Any:
        response = await original(request)

        async def chunks() -> Any:
            async for chunk in response.stream:
                yield chunk
                if b"ACTIVITY_SNAPSHOT" in chunk and not gate.is_set():
                    await gate.wait()

        return httpx.Response(
            response.status_code, headers=response.headers, stream=_Body(chunks())
        )

    transport.handle_async_request = gated
    chat = agent.chat(timeout=10, display=False)
    send = asyncio.create_task(chat.send(FORM))
    deadline = asyncio.get_running_loop().time() + 10
    while asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.005)
        view = chat.view
        if view is not None and any(i["kind"] == "a2ui" and i["surfaces"] for i in view.items):
            break
    assert chat.thread.busy  # the run that shows the form has not ended
    acks = capture_acks(chat.view)  # type: ignore[arg-type]
    await click(chat.view, "during")  # type: ignore[arg-type]
    gate.set()
    result = await asyncio.wait_for(send, 10)
    assert acks == [{"type": "ack", "requestId": "during", "accepted": True}]
    assert "Transferred 250.00 EUR" in result.text  # the cell's own result
    assert len(actions_sent(agent)) == 1
    assert chat.background is None


async def test_a_policy_answers_the_form_and_a_late_click_is_refused(agent: Agent) -> None:
    values = {"/transfer/to": "0987654321", "/transfer/amount": "40", "/transfer/confirmed": True}
    chat = agent.chat(policy=policies.scripted([act("submit_transfer", values)]), display=False)
    result = await chat.send(FORM)
    assert "Transferred 40.00 USD" in result.text
    user_action = actions_sent(agent)[0]["forwardedProps"]["a2uiAction"]["userAction"]
    # Resolved from the form's own bindings, as a click would be.
    assert user_action["context"] == {
        "from": ["1234567890"], "to": "0987654321", "amount": "40", "currency": ["USD"],
    }  # fmt: skip
    assert user_action["sourceComponentId"] == "submit"
    assert result.decisions[-1]["decidedBy"] == "policy: scripted"
    view = chat.view
    assert view is not None
    acks = capture_acks(view)
    await click(view, "late", seq=0)  # the person's click raced the policy and lost
    assert acks[0]["accepted"] is False
    assert len(actions_sent(agent)) == 1


async def test_policies_from_the_environment_answer_forms_and_see_corrections(
    agent: Agent, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "AGUI_NOTEBOOK_POLICY",
        'script:act:submit_transfer:{"/transfer/to": "12"};'
        'act:submit_transfer:{"/transfer/to": "0987654321", "/transfer/amount": "5"}',
    )
    chat = agent.chat(display=False)
    result = await chat.send(FORM)
    # The first submission is refused by the agent on the form; the policy is asked again.
    sent = actions_sent(agent)
    assert len(sent) == 2
    assert "Transferred 5.00 USD" in result.text
    problem_runs = [d for d in result.decisions if d["decision"] == "act"]
    assert len(problem_runs) == 2


async def test_code_can_act_and_a_failed_send_can_be_retried(agent: Agent) -> None:
    chat = agent.chat(timeout=10, display=False)
    await chat.send(FORM)
    transport = agent._transport._given_client._transport  # type: ignore[union-attr]
    original = transport.handle_async_request
    calls = 0

    async def flaky(request: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise httpx.ConnectError("connection refused (test)")
        return await original(request)

    transport.handle_async_request = flaky
    view = chat.view
    assert view is not None
    acks = capture_acks(view)
    await click(view, "c1", name="cancel_transfer", context={})
    assert await settled(chat) is None
    failed = surface_of(view)["action"]
    assert failed["status"] == "failed" and "ConnectError" in failed["error"]
    assert chat.audit[-1]["outcome"] == "failed: ConnectError"
    sid = surface_of(view)["surfaceId"]
    deliver(view, {"type": "a2ui-retry", "requestId": "c2", "surfaceId": sid, "seq": failed["seq"]})
    await asyncio.sleep(0)
    final = await settled(chat)
    assert [a["accepted"] for a in acks] == [True, True]
    assert final is not None and "Cancelled" in final.text
    assert len(actions_sent(agent)) == 1  # the failed attempt never reached the server
    assert surface_of(view)["action"]["status"] == "done"
    assert [r["outcome"] for r in chat.audit] == ["success"]  # the retry replaced the record
    # In code: a surface no longer has actions once answered, so there is nothing to press.
    with pytest.raises(LookupError, match="no a surface with actions"):
        await chat.act("submit_transfer")
    other = agent.chat(display=False)
    await other.send(FORM)
    done = await other.act("submit_transfer", {"/transfer/to": "0987654321", "/transfer/amount": 1})
    assert "Transferred 1.00 USD" in done.text and other.audit[-1]["decidedBy"] == "you"


async def test_actions_the_surface_does_not_have_are_refused_before_sending(agent: Agent) -> None:
    chat = agent.chat(timeout=10, display=False)
    await chat.send(FORM)
    view = chat.view
    assert view is not None
    acks = capture_acks(view)
    await click(view, "a", name="explode")
    await click(view, "b", surface="nowhere")
    deliver(view, {"type": "a2ui-action", "requestId": "c", "surfaceId": "x", "seq": 0})
    assert [a["accepted"] for a in acks] == [False, False, False]
    assert "no action 'explode'" in acks[0]["error"]
    assert "no longer shown" in acks[1]["error"]
    assert "invalid message" in acks[2]["error"]
    assert actions_sent(agent) == []
    with pytest.raises(ValueError):
        parse_front_message({"type": "a2ui-action", "requestId": "r", "surfaceId": "s", "seq": -1})


async def test_an_action_waits_for_answers_to_pending_interrupts(agent: Agent) -> None:
    chat = agent.chat(timeout=0.3, display=False)
    await chat.send(FORM)
    view = chat.view
    assert view is not None
    await chat.thread.run("Transfer $5 from 1234567890 to 0987654321")  # leaves an interrupt
    acks = capture_acks(view)
    await click(view, "p")
    assert await settled(chat) is None
    assert acks[0]["accepted"] is True
    state = surface_of(view)["action"]
    assert state["status"] == "failed" and "interrupts" in state["error"]
    assert chat.audit[-1]["outcome"] == "not sent: interrupts pending"
    assert actions_sent(agent) == []
