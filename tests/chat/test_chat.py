"""The chat view and its cards, driven as the front end would (no browser, no kernel).

Clicks are delivered through ``ChatView._handle_custom_msg``, the handler anywidget calls for a
``model.send`` from the front end; the demo agent runs in-process and records every request, so each
test asserts on what the server actually received.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from agui_notebook import Agent, AGUIError, NobodyCanClick, ResumeRefused, approve, policies, reject
from agui_notebook._chat.chat import Chat, InterruptReissued
from agui_notebook._view import widget as widget_module
from agui_notebook._view.widget import ChatView, parse_front_message
from tests.front_end import IPYKERNEL_6, MARIMO, NOTHING

TRANSFER = "Transfer $500 from 1234567890 to 0987654321"


def resumes(agent: Agent) -> list[dict[str, Any]]:
    return [r["body"] for r in agent.demo_app.requests if (r["body"] or {}).get("resume")]


def capture_acks(view: ChatView) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    view.send = sent.append  # type: ignore[method-assign]  # no comm in tests: record instead
    return sent


async def pending_card(chat: Chat, timeout: float = 5.0) -> dict[str, Any]:
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        view = chat.view
        if view is not None:
            for item in view.items:
                if item["kind"] == "card" and item["status"] == "pending":
                    return item
        await asyncio.sleep(0.01)
    raise AssertionError("no pending card appeared")


def decide(card: dict[str, Any], request_id: str, **decision: Any) -> dict[str, Any]:
    return {
        "type": "decide",
        "requestId": request_id,
        "card": card["id"],
        "decisions": {it["id"]: decision for it in card["interrupts"]},
    }


def click(chat: Chat, message: dict[str, Any]) -> None:
    assert chat.view is not None
    chat.view._handle_custom_msg(chat.view, message, [])


@pytest.fixture
def agent() -> Agent:
    return Agent.demo(text_delay=0)


async def test_approve_click_resumes_same_thread_and_shows_result(agent: Agent) -> None:
    chat = agent.chat(timeout=10)
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    assert card["interrupts"][0]["toolName"] == "transfer_money"
    assert card["interrupts"][0]["args"]["amount"] == 500
    assert card["interrupts"][0]["mode"] == "tool"
    acks = capture_acks(chat.view)  # type: ignore[arg-type]
    click(chat, decide(card, "r1", action="approve"))
    result = await asyncio.wait_for(send, 10)

    assert result.outcome == "success"
    assert "Transferred 500.00 USD" in result.text
    assert acks == [{"type": "ack", "requestId": "r1", "accepted": True}]
    sent = resumes(agent)
    assert len(sent) == 1
    assert sent[0]["threadId"] == chat.thread.id
    assert sent[0]["resume"][0]["payload"] == {"approved": True}
    items = chat.view.items  # type: ignore[union-attr]
    kinds = [i["kind"] for i in items]
    assert kinds[0] == "user" and "card" in kinds
    final_card = next(i for i in items if i["kind"] == "card")
    assert final_card["status"] == "done"
    assert final_card["decidedBy"] == "you"
    tool = next(i for i in items if i["kind"] == "tool")
    assert tool["status"] == "done" and '"amount": 500.0' in tool["result"]
    assert chat.view.state["balances"]["1234567890"] == 2000.0  # type: ignore[index,union-attr]
    assert [r["decision"] for r in chat.audit] == ["approve"]
    assert chat.audit[0]["outcome"] == "success"


async def test_reject_with_reason_is_sent_and_tool_not_run(agent: Agent) -> None:
    chat = agent.chat(timeout=10)
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    click(chat, decide(card, "r1", action="reject", reason="too much"))
    result = await asyncio.wait_for(send, 10)
    assert resumes(agent)[0]["resume"][0]["payload"] == {"approved": False, "reason": "too much"}
    assert agent.demo_app.executions == []
    assert "too much" in result.text
    tool = next(i for i in chat.view.items if i["kind"] == "tool")  # type: ignore[union-attr]
    assert tool["status"] == "rejected"


async def test_edit_sends_full_replacement_and_runs_with_edited_arguments(agent: Agent) -> None:
    chat = agent.chat(timeout=10)
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    click(chat, decide(card, "r1", action="edit", args={"amount": 250}))
    await asyncio.wait_for(send, 10)
    payload = resumes(agent)[0]["resume"][0]["payload"]
    assert payload["approved"] is True
    assert payload["editedArgs"]["amount"] == 250
    assert payload["editedArgs"]["from_account"] == "1234567890"  # full replacement
    assert agent.demo_app.executions[0]["arguments"]["amount"] == 250


async def test_double_click_sends_one_resume(agent: Agent) -> None:
    chat = agent.chat(timeout=10)
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    acks = capture_acks(chat.view)  # type: ignore[arg-type]
    click(chat, decide(card, "a", action="approve"))
    click(chat, decide(card, "b", action="reject"))
    await asyncio.wait_for(send, 10)
    await asyncio.sleep(0)
    assert len(resumes(agent)) == 1
    assert [a["accepted"] for a in acks] == [True, False]
    assert acks[1]["requestId"] == "b"


async def test_click_from_another_thread_wakes_the_wait(agent: Agent) -> None:
    # JupyterLab >= 4.4 may deliver comm messages on a kernel subshell thread.
    chat = agent.chat(timeout=10)
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    started = asyncio.get_running_loop().time()
    worker = threading.Thread(target=click, args=(chat, decide(card, "t", action="approve")))
    worker.start()
    result = await asyncio.wait_for(send, 10)
    worker.join()
    assert result.outcome == "success"
    assert asyncio.get_running_loop().time() - started < 2.0


async def test_batched_interrupts_are_one_card_and_one_resume(agent: Agent) -> None:
    chat = agent.chat(timeout=10)
    send = asyncio.create_task(chat.send("two transfers please"))
    card = await pending_card(chat)
    assert len(card["interrupts"]) == 2
    first, second = card["interrupts"]
    click(
        chat,
        {
            "type": "decide",
            "requestId": "r",
            "card": card["id"],
            "decisions": {first["id"]: {"action": "approve"}, second["id"]: {"action": "cancel"}},
        },
    )
    await asyncio.wait_for(send, 10)
    sent = resumes(agent)
    assert len(sent) == 1
    statuses = {e["interruptId"]: e["status"] for e in sent[0]["resume"]}
    assert statuses == {first["id"]: "resolved", second["id"]: "cancelled"}


async def test_partial_decision_is_refused_with_an_ack(agent: Agent) -> None:
    chat = agent.chat(timeout=10)
    send = asyncio.create_task(chat.send("two transfers please"))
    card = await pending_card(chat)
    acks = capture_acks(chat.view)  # type: ignore[arg-type]
    first = card["interrupts"][0]
    click(
        chat,
        {
            "type": "decide",
            "requestId": "p",
            "card": card["id"],
            "decisions": {first["id"]: {"action": "approve"}},
        },
    )
    await asyncio.sleep(0.05)
    assert acks[0]["accepted"] is False and "every interrupt" in acks[0]["error"]
    assert resumes(agent) == []
    click(chat, decide(card, "q", action="cancel"))
    await asyncio.wait_for(send, 10)
    assert len(resumes(agent)) == 1


async def test_input_required_form_answer(agent: Agent) -> None:
    chat = agent.chat(timeout=10)
    send = asyncio.create_task(chat.send("schedule a payment"))
    card = await pending_card(chat)
    interrupt = card["interrupts"][0]
    assert interrupt["mode"] == "form"
    schema = interrupt["responseSchema"]
    assert {"date", "amount", "memo"} <= set(schema["properties"])
    payload = {"date": "2027-01-15", "amount": 120.5, "memo": "rent"}
    if "frequency" in schema["properties"]:
        payload["frequency"] = schema["properties"]["frequency"]["enum"][0]
    click(chat, decide(card, "f", action="answer", payload=payload))
    result = await asyncio.wait_for(send, 10)
    assert resumes(agent)[0]["resume"][0]["payload"] == payload
    assert result.outcome == "success"


async def test_always_allow_decides_the_next_interrupt_and_says_so(agent: Agent) -> None:
    chat = agent.chat(timeout=10)
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    message = decide(card, "a", action="approve")
    message["alwaysAllow"] = ["transfer_money"]
    click(chat, message)
    await asyncio.wait_for(send, 10)
    second = await asyncio.wait_for(chat.send("Transfer $20 from 1234567890 to 0987654321"), 10)
    assert second.outcome == "success"
    assert second.decisions[0]["decidedBy"] == "rule: always allow transfer_money"
    assert len(resumes(agent)) == 2


async def test_policy_decides_without_waiting_and_card_names_it(agent: Agent) -> None:
    chat = agent.chat(policy=policies.reject_all("policy says no"))
    result = await asyncio.wait_for(chat.send(TRANSFER), 10)
    card = next(i for i in chat.view.items if i["kind"] == "card")  # type: ignore[union-attr]
    assert card["status"] == "done"
    assert card["decidedBy"] == "policy: reject-all"
    assert card["decisions"][card["interrupts"][0]["id"]]["action"] == "reject"
    assert "policy says no" in result.text
    assert "-> reject 'policy says no' (by policy: reject-all) => success" in repr(result)


async def test_a_view_with_many_decisions_sends_its_last_and_keeps_them_all(
    agent: Agent, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each decision re-sends the view's audit: capped, so a long chat in one cell stays O(1)
    # per decision; the count, the transcript text and chat.audit keep every decision.
    monkeypatch.setattr(widget_module, "AUDIT_SHOWN", 2)
    chat = agent.chat(policy=policies.approve_all())
    for _ in range(3):
        await asyncio.wait_for(chat.send(TRANSFER), 10)
    (view,) = chat.views
    sent = view.get_state()
    assert sent["audit_count"] == 3 and len(chat.audit) == 3
    assert sent["audit"] == chat.audit[-2:]  # the last two, outcomes and all
    assert [r["outcome"] for r in sent["audit"]] == ["success", "success"]
    text = view.static_bundle()["text/plain"]
    assert text.count("-> approve (by policy: approve-all) => success") == 3
    assert "Audit (3)" in text


async def test_policy_from_environment(agent: Agent, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGUI_NOTEBOOK_POLICY", "script:reject:not today")
    chat = agent.chat()
    assert chat.policy is not None and chat.policy.name == "scripted"
    result = await asyncio.wait_for(chat.send(TRANSFER), 10)
    assert resumes(agent)[0]["resume"][0]["payload"]["reason"] == "not today"
    assert result.decisions[0]["decidedBy"] == "policy: scripted"


async def test_timeout_applies_stated_default_and_says_so(agent: Agent) -> None:
    chat = agent.chat(timeout=0.2, on_timeout="cancel")
    with pytest.warns(UserWarning, match=r"nobody decided within 0.2 s: the timeout cancelled"):
        result = await asyncio.wait_for(chat.send(TRANSFER), 10)
    assert result.decisions[0]["decidedBy"] == "timeout: cancel after 0.2 s"
    assert resumes(agent)[0]["resume"][0]["status"] == "cancelled"
    assert agent.demo_app.executions == []
    # The result says so unmistakably: the server's run succeeded, the transfer did not happen.
    assert result.outcome == "success"
    assert result.timed_out is True
    assert result.completed is False
    assert result.decided_by == "timeout: cancel after 0.2 s"
    assert "transfer_money, so it was not done" in result.warnings[-1]
    assert repr(result).startswith("ChatResult(outcome='success', timed_out=True")


async def test_a_person_approving_completes_the_turn(agent: Agent) -> None:
    chat = agent.chat(timeout=10)
    send = asyncio.create_task(chat.send(TRANSFER))
    click(chat, decide(await pending_card(chat), "r", action="approve"))
    result = await asyncio.wait_for(send, 10)
    assert (result.completed, result.timed_out, result.decided_by) == (True, False, "you")
    assert "timed_out" not in repr(result)  # saved notebook outputs keep their text
    assert await chat.wait() is result  # the latest turn's result, at once


async def test_a_rejection_is_not_completed(agent: Agent) -> None:
    chat = agent.chat(policy=policies.reject_all("no"))
    result = await asyncio.wait_for(chat.send(TRANSFER), 10)
    assert result.outcome == "success" and result.completed is False
    assert result.decided_by == "policy: reject-all" and result.timed_out is False
    plain = await asyncio.wait_for(chat.send("What is my balance?"), 10)
    assert plain.completed is True and plain.decided_by is None  # nothing to decide


async def test_expired_interrupt_click_is_refused_then_cancel_works() -> None:
    agent = Agent.demo(text_delay=0, expires_in=0.3)
    chat = agent.chat(timeout=10)
    send = asyncio.create_task(chat.send("quick transfer of $5 from 1234567890 to 0987654321"))
    card = await pending_card(chat)
    assert card["interrupts"][0]["expiresAt"] is not None
    await asyncio.sleep(0.4)
    click(chat, decide(card, "late", action="approve"))
    await asyncio.sleep(0.1)  # the click is handled on the loop, then the card is pending again
    card = await pending_card(chat)  # refused client-side: back to pending, with the reason
    assert card["error"] and "expired" in card["error"]["message"]
    assert resumes(agent) == []
    click(chat, decide(card, "c", action="cancel"))
    result = await asyncio.wait_for(send, 10)
    assert result.outcome == "success"
    assert resumes(agent)[0]["resume"][0]["status"] == "cancelled"


async def test_failed_resume_shows_retry_that_resends_the_same_decision(agent: Agent) -> None:
    chat = agent.chat(timeout=10)
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    # Break the transport for exactly one request: the resume.
    transport = agent._transport._given_client._transport  # type: ignore[union-attr]
    original = transport.handle_async_request
    calls = 0

    async def flaky(request: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 1:
            import httpx

            raise httpx.ConnectError("connection refused (test)")
        return await original(request)

    transport.handle_async_request = flaky
    click(chat, decide(card, "a", action="approve"))
    deadline = asyncio.get_running_loop().time() + 5
    failed = None
    while failed is None and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.01)
        failed = next(
            (i for i in chat.view.items if i["kind"] == "card" and i["status"] == "failed"),
            None,  # type: ignore[union-attr]
        )
    assert failed is not None and "Cannot reach" in failed["error"]["title"]
    assert len(chat.thread.pending) == 1  # still pending: retryable
    click(chat, {"type": "retry", "requestId": "again", "card": failed["id"]})
    result = await asyncio.wait_for(send, 10)
    assert result.outcome == "success"
    assert len(resumes(agent)) == 1  # the failed attempt never reached the server
    assert chat.audit[0]["outcome"] == "success"


async def test_reissued_interrupt_stops_automatic_decisions() -> None:
    chat_agent = Agent.demo(text_delay=0)
    chat = chat_agent.chat(policy=policies.approve_all())
    # Simulate a server that raises the same interrupt again after it was answered.
    thread = chat.thread
    await thread.run(TRANSFER)
    original = thread.pending[0]
    thread._answered = {original.id}
    from dataclasses import replace

    card_view = chat._new_view(show=False)
    card = chat.deck.new_card(card_view, [replace(original, reissued=True)])
    with pytest.raises(InterruptReissued, match="again after it was answered"):
        await chat.decider.decide(card)


async def test_a_new_card_makes_its_schema_validator_while_the_person_reads() -> None:
    import threading

    from agui_notebook._decisions import decision

    chat = Agent.demo(text_delay=0).chat(timeout=10)
    await chat.thread.run(TRANSFER)
    decision._validator.cache_clear()
    chat.deck.new_card(chat._new_view(show=False), chat.thread.pending)
    for worker in [t for t in threading.enumerate() if t.name == "agui-validators"]:
        worker.join(10)
    assert chat.thread.pending[0].response_schema  # the demo's approvals have a schema
    assert decision._validator.cache_info().currsize == 1  # made before any decision


def test_front_messages_are_validated() -> None:
    with pytest.raises(ValueError, match="decisions"):
        parse_front_message({"type": "decide", "requestId": "x", "card": "c"})
    with pytest.raises(ValueError):
        parse_front_message(
            {
                "type": "decide",
                "requestId": "x",
                "card": "c",
                "decisions": {"i": {"action": "explode"}},
            }
        )
    with pytest.raises(ValueError):
        parse_front_message({"type": "retry", "requestId": "x", "card": "c", "extra": 1})
    ok = parse_front_message({"type": "retry", "requestId": "x", "card": "c"})
    assert ok.type == "retry"


def test_invalid_message_gets_a_refusal_ack() -> None:
    view = ChatView(on_message=lambda v, m: None)
    acks = capture_acks(view)
    view._handle_custom_msg(view, {"type": "decide", "requestId": "z"}, [])
    assert acks[0]["accepted"] is False and acks[0]["requestId"] == "z"


def test_view_repr_is_deterministic_for_nbval() -> None:
    assert repr(ChatView()) == "ChatView()"
    bundle = ChatView()._repr_mimebundle_()
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    # The display's text form is the transcript (tests/view/test_static_forms.py).
    assert data["text/plain"] == "Status: idle"


async def test_streamed_updates_are_coalesced() -> None:
    agent = Agent.demo(text_delay=0)
    chat = agent.chat()
    await asyncio.wait_for(chat.send("tell me a long story"), 30)
    view = chat.view
    assert view is not None
    events = sum(r.event_count for r in chat.thread.runs)
    assert events > 50
    assert view.pushes < events / 2  # far fewer state pushes than events
    text = next(i for i in view.items if i["kind"] == "assistant")["text"]
    assert text == chat.thread.messages[-1].content  # the last push carried the final text


async def test_code_resume_refused_before_showing_a_card(agent: Agent) -> None:
    chat = agent.chat(timeout=1)
    thread = chat.thread
    await thread.run("two transfers please")
    with pytest.raises(ResumeRefused):
        await chat.resume(approve())  # two pending: one decision is not enough
    assert resumes(agent) == []
    first, second = thread.pending
    result = await chat.resume({first.id: approve(), second.id: reject("no")})
    assert result.outcome == "success"
    assert len(resumes(agent)) == 1


async def test_older_kernel_continues_in_the_background_and_says_so(
    agent: Agent, as_front_end: Any
) -> None:
    # ipykernel < 7.4 delivers a click only after the cell ends: send() must return, and the
    # click must still resume the thread.
    as_front_end(IPYKERNEL_6)
    chat = agent.chat(timeout=10, display=False)
    first = await asyncio.wait_for(chat.send(TRANSFER), 10)
    assert first.outcome == "interrupt"
    assert (first.completed, first.decided_by, first.timed_out) == (False, None, False)
    assert chat.background is not None and not chat.background.done()
    card = await pending_card(chat)
    note = await card_note(chat)
    assert "ipykernel 6.29.5" in note and "only after the running cell has finished" in note
    assert "continues the run here, in this output" in note
    click(chat, decide(card, "bg", action="approve"))
    final = await asyncio.wait_for(chat.wait(), 10)
    assert final is not None and final.outcome == "success" and final.completed
    assert "Transferred 500.00 USD" in final.text
    assert len(resumes(agent)) == 1
    assert await chat.wait() is final
    # A later turn with nothing to decide is the latest result, not the earlier background one.
    balance = await asyncio.wait_for(chat.send("What is my balance?"), 10)
    assert await chat.wait() is balance


async def test_marimo_continues_in_the_background_and_the_same_view_updates(
    agent: Agent, as_front_end: Any
) -> None:
    as_front_end(MARIMO)
    chat = agent.chat(timeout=10, display=False)
    first = await asyncio.wait_for(chat.send(TRANSFER), 10)
    assert first.outcome == "interrupt" and len(chat.thread.pending) == 1
    view = chat.view
    card = await pending_card(chat)
    note = await card_note(chat)
    assert note.startswith("In marimo a click reaches Python only after the running cell")
    click(chat, decide(card, "m", action="approve"))
    final = await asyncio.wait_for(chat.wait(), 10)
    assert final is not None and final.completed and final.decided_by == "you"
    assert chat.view is view  # the answer streamed into the view the cell showed
    texts = [i["text"] for i in view.items if i["kind"] == "assistant"]  # type: ignore[union-attr]
    assert any("Transferred 500.00 USD" in t for t in texts)


@pytest.mark.parametrize("front", [MARIMO, IPYKERNEL_6], ids=["marimo", "ipykernel6"])
async def test_waiting_where_clicks_are_held_back_fails_fast(
    agent: Agent, as_front_end: Any, front: Any
) -> None:
    """A later cell awaiting chat.wait() would hold the click back until the timeout: it raises
    at once instead, the card stays live, and a click afterwards still resumes the thread."""
    as_front_end(front)
    chat = agent.chat(timeout=30, display=False)
    await asyncio.wait_for(chat.send(TRANSFER), 10)
    card = await pending_card(chat)
    started = asyncio.get_running_loop().time()
    with pytest.raises(NobodyCanClick, match="still waits for your decision") as error:
        await asyncio.wait_for(chat.wait(), 10)
    assert asyncio.get_running_loop().time() - started < 3
    assert "run this cell again" in str(error.value)
    assert ("marimo" in str(error.value)) == (front is MARIMO)
    assert resumes(agent) == [] and len(chat.thread.pending) == 1
    click(chat, decide(card, "after", action="approve"))
    final = await asyncio.wait_for(chat.wait(), 10)
    assert final is not None and final.completed


async def test_a_click_already_on_its_way_is_not_refused_by_wait(
    agent: Agent, as_front_end: Any
) -> None:
    as_front_end(IPYKERNEL_6)
    chat = agent.chat(timeout=30, display=False)
    await asyncio.wait_for(chat.send(TRANSFER), 10)
    card = await pending_card(chat)
    # The kernel handed the click to the loop just before the next cell started waiting.
    worker = threading.Thread(target=click, args=(chat, decide(card, "t", action="approve")))
    worker.start()
    worker.join()
    final = await asyncio.wait_for(chat.wait(), 10)
    assert final is not None and final.completed


async def test_nobody_can_click_fails_fast_and_keeps_the_interrupt(
    agent: Agent, as_front_end: Any
) -> None:
    as_front_end(NOTHING)
    chat = agent.chat()  # the default 600 s timeout: it must not be waited out
    started = asyncio.get_running_loop().time()
    with pytest.raises(NobodyCanClick) as error:
        await asyncio.wait_for(chat.send(TRANSFER), 10)
    assert asyncio.get_running_loop().time() - started < 5
    text = str(error.value)
    assert "transfer_money needs a decision" in text
    assert "policies.approve_all()" in text and "AGUI_NOTEBOOK_POLICY" in text
    assert isinstance(error.value, AGUIError)
    assert resumes(agent) == []
    assert len(chat.thread.pending) == 1  # nothing was sent: answer it in code
    card = next(i for i in chat.view.items if i["kind"] == "card")  # type: ignore[union-attr]
    assert card["status"] == "failed" and card["error"]["title"] == "Nobody can decide here"
    assert chat.view.status == "error"  # type: ignore[union-attr]
    result = await asyncio.wait_for(chat.resume(approve()), 10)
    assert result.completed


async def test_nobody_can_click_is_no_obstacle_to_a_policy(agent: Agent, as_front_end: Any) -> None:
    as_front_end(NOTHING)
    result = await asyncio.wait_for(agent.chat(policy=policies.approve_all()).send(TRANSFER), 10)
    assert result.completed


# -- late clicks --------------------------------------------------------------------------


async def test_a_click_after_the_timeout_says_so_and_is_audited(agent: Agent) -> None:
    chat = agent.chat(timeout=0.2, on_timeout="cancel")
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    view = chat.view
    assert view is not None
    acks = capture_acks(view)
    with pytest.warns(UserWarning, match="timeout cancelled"):
        result = await asyncio.wait_for(send, 10)
    click(chat, decide(card, "late", action="approve"))  # the person's Approve, too late
    await asyncio.sleep(0.05)
    assert acks == [
        {
            "type": "ack",
            "requestId": "late",
            "accepted": False,
            "error": "Your Approve arrived after the timeout had cancelled; nothing was sent.",
            "late": True,
        }
    ]
    assert [r["resume"][0]["status"] for r in resumes(agent)] == ["cancelled"]  # only that
    late = chat.audit[-1]
    assert late["late"] is True and late["decision"] == "approve" and late["decidedBy"] == "you"
    assert late["outcome"] == "late, not sent: timeout: cancel after 0.2 s had decided"
    assert view.audit[-1] == late  # the saved widget state keeps it too
    assert chat.audit[0]["outcome"] == "success"  # the timeout's own record is untouched
    assert "-> approve (by you) => late, not sent" in chat.audit_text()
    assert result.timed_out


async def test_a_click_after_a_policy_decided_names_the_policy(agent: Agent) -> None:
    chat = agent.chat(policy=policies.reject_all("no"))
    await asyncio.wait_for(chat.send(TRANSFER), 10)
    card = next(i for i in chat.view.items if i["kind"] == "card")  # type: ignore[union-attr]
    acks = capture_acks(chat.view)  # type: ignore[arg-type]
    click(chat, decide(card, "p", action="approve"))
    await asyncio.sleep(0.05)
    assert acks[0]["late"] is True
    assert acks[0]["error"] == (
        "Your Approve arrived after the policy reject-all had rejected; nothing was sent."
    )


async def test_the_losing_view_of_a_race_hears_it_once(agent: Agent) -> None:
    """Two views click at once: the winner's click is sent, the other is told, as a late click,
    not as an error, and nothing is sent twice."""
    chat = agent.chat(timeout=10)
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    acks = capture_acks(chat.view)  # type: ignore[arg-type]
    click(chat, decide(card, "winner", action="approve"))
    click(chat, decide(card, "loser", action="reject", reason="no"))
    result = await asyncio.wait_for(send, 10)
    await asyncio.sleep(0.05)
    assert acks[0] == {"type": "ack", "requestId": "winner", "accepted": True}
    assert acks[1]["requestId"] == "loser" and acks[1]["late"] is True
    assert acks[1]["error"] == (
        "Your Reject arrived after another click had approved; only that decision was sent."
    )
    assert len(acks) == 2 and len(resumes(agent)) == 1 and result.completed
    # Both clicks are in the audit: the one sent (with the run's outcome) and the late one.
    sent_record = next(r for r in chat.audit if not r.get("late"))
    late_record = next(r for r in chat.audit if r.get("late"))
    assert (sent_record["decision"], sent_record["outcome"]) == ("approve", "success")
    assert (late_record["decision"], late_record["rejectReason"]) == ("reject", "no")
    assert len(chat.audit) == 2
    assert result.decided_by == "you"


def test_late_click_texts() -> None:
    from agui_notebook._chat.chat import late_click_text
    from agui_notebook._decisions.decision import cancel, edit
    from agui_notebook._view.widget import FrontDecision

    a = {"i": FrontDecision(action="approve")}
    assert late_click_text(a, "rule: always allow transfer_money", {"i": approve()}) == (
        "Your Approve arrived after the rule \u201calways allow transfer_money\u201d had "
        "approved; nothing was sent."
    )
    assert late_click_text(a, "timeout: reject after 5 s", {"i": reject("x")}).startswith(
        "Your Approve arrived after the timeout had rejected"
    )
    both = {"i": FrontDecision(action="approve"), "j": FrontDecision(action="cancel")}
    assert late_click_text(both, "you", {"i": edit(amount=1), "j": cancel()}) == (
        "Your decisions arrived after another click had decided; only that decision was sent."
    )
    assert late_click_text(a, "another resume on this thread", None) == (
        "Your Approve arrived after another resume on this thread had answered it; "
        "nothing was sent."
    )
    assert late_click_text(a, None, None) == (
        "Your Approve arrived after this card stopped waiting; nothing was sent."
    )


async def card_note(chat: Chat, timeout: float = 5.0) -> str:
    """The pending card's note (set when its wait for a person begins)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        for item in chat.view.items if chat.view else []:
            if item["kind"] == "card" and item.get("note"):
                return str(item["note"])
        await asyncio.sleep(0.01)
    raise AssertionError("no card note")


# -- AG-UI 1.1 material in the view (the demo's statement, delegate and private scenarios) ------


async def test_a_subagents_approval_card_names_it_and_its_work_is_grouped(agent: Agent) -> None:
    chat = agent.chat(timeout=10)
    send = asyncio.create_task(
        chat.send("delegate a transfer of $75 from 1234567890 to 0987654321")
    )
    card = await pending_card(chat)
    [interrupt] = card["interrupts"]
    assert interrupt["subagentName"] == "payments"
    assert interrupt["subagentRunId"].startswith("sub-")
    assert chat.view is not None
    items = {item["id"]: item for item in chat.view.items}
    group = items[f"subagent:{interrupt['subagentRunId']}"]
    assert (group["name"], group["status"]) == ("payments", "suspended")
    assert items[f"tool:{interrupt['toolCallId']}"]["subagent"] == interrupt["subagentRunId"]
    click(chat, decide(card, "r1", action="approve"))
    result = await asyncio.wait_for(send, 10)
    assert result.outcome == "success" and "payments specialist reports" in result.text
    assert items_of_kind(chat, "subagent")[0]["status"] == "done"


async def test_content_parts_and_encrypted_reasoning_reach_the_view_safely(agent: Agent) -> None:
    chat = agent.chat(timeout=10, display=False)
    await chat.send("show my statement")
    [tool] = items_of_kind(chat, "tool")
    assert [p["type"] for p in tool["resultParts"]] == ["text", "image", "file"]
    assert tool["resultParts"][1]["mimeType"] == "image/png"
    document = tool["resultParts"][2]
    assert (document["kind"], document["label"]) == ("document", "Statement")
    assert document["metadata"]["filename"] == "statement-1234567890.csv"
    result = await chat.send("think privately about my savings")
    [reasoning] = items_of_kind(chat, "reasoning")
    assert reasoning["encrypted"] is True
    signature = chat.thread.messages[-2].encrypted_value
    assert signature and signature not in str(chat.view.items if chat.view else "")
    assert result.outcome == "success"


def items_of_kind(chat: Chat, kind: str) -> list[dict[str, Any]]:
    assert chat.view is not None
    return [item for item in chat.view.items if item["kind"] == kind]
