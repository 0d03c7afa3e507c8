"""Who decided and several approvers, driven as the front end would (the demo agent in-process,
the clicks through ``ChatView._handle_custom_msg``, the header from the test's host)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agui_notebook import Agent, NobodyCanClick, TooFewApprovers, policies
from agui_notebook._decisions.audit import current_user
from tests.chat.test_chat import TRANSFER, capture_acks, click, decide, pending_card, resumes
from tests.front_end import NOTHING, FakeHost


@pytest.fixture
def agent() -> Agent:
    return Agent.demo(text_delay=0)


def _card(chat: Any) -> dict[str, Any]:
    return next(i for i in chat.view.items if i["kind"] == "card")


async def test_the_clickers_name_is_on_the_card_the_audit_and_the_transcript(
    agent: Agent, fake_host: FakeHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGUI_NOTEBOOK_DISPLAY_NAMES", '{"ada": "Ada Lovelace"}')
    chat = agent.chat(timeout=10)
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    fake_host.header = {"username": "ada", "msg_type": "comm_msg"}
    click(chat, decide(card, "r1", action="approve"))
    result = await asyncio.wait_for(send, 10)
    assert result.decided_by == "Ada Lovelace"
    [record] = chat.audit
    assert (record["decided_by"], record["identity"]) == ("ada", "server")
    assert record["kernel_user"] == current_user() and record["decidedBy"] == "Ada Lovelace"
    shown = _card(chat)
    assert shown["verdict"] == "Approved by Ada Lovelace"
    text = chat.view.static_bundle()["text/plain"]  # type: ignore[union-attr]
    assert "Approval needed: Approved by Ada Lovelace" in text
    assert "Decision: approved by Ada Lovelace" in text


async def test_no_header_is_the_kernels_user_and_the_card_says_you(
    agent: Agent, fake_host: FakeHost
) -> None:
    chat = agent.chat(timeout=10)
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    fake_host.header = {"username": "username"}  # jupyter_client's placeholder
    click(chat, decide(card, "r1", action="approve"))
    await asyncio.wait_for(send, 10)
    [record] = chat.audit
    assert (record["decided_by"], record["identity"]) == (current_user(), "kernel")
    assert "it was 'username'" in record["identity_note"]
    assert _card(chat)["verdict"] == "Approved by you"


async def test_four_eyes_edit_restarts_and_one_resume_goes_out(
    agent: Agent, fake_host: FakeHost
) -> None:
    chat = agent.chat(timeout=10, approvals=2)
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    acks = capture_acks(chat.view)  # type: ignore[arg-type]
    fake_host.header = {"username": "ada"}
    click(chat, decide(card, "a1", action="approve"))
    await asyncio.sleep(0.05)
    assert _card(chat)["approvals"]["text"] == "1 of 2 approvals: ada"
    fake_host.header = {"username": "bob"}
    click(chat, decide(card, "b1", action="edit", args={"amount": 250}))
    await asyncio.sleep(0.05)
    shown = _card(chat)
    assert shown["status"] == "pending" and shown["approvals"]["names"] == ["bob"]
    assert shown["approvals"]["edited"] is True
    assert resumes(agent) == []
    fake_host.header = {"username": "bob"}
    click(chat, decide(card, "b2", action="approve"))  # bob again: counts once
    await asyncio.sleep(0.05)
    fake_host.header = {"username": "ada"}
    click(chat, decide(card, "a2", action="approve"))  # Ada approves bob's edit
    result = await asyncio.wait_for(send, 10)
    assert result.outcome == "success" and "250.00" in result.text
    [sent] = resumes(agent)
    assert sent["resume"][0]["payload"]["editedArgs"]["amount"] == 250
    by_request = {a["requestId"]: a for a in acks}
    assert by_request["a1"]["waiting"] is True and by_request["b1"]["waiting"] is True
    assert by_request["b2"]["accepted"] is False and "already approved" in by_request["b2"]["error"]
    assert [(r["decided_by"], r["decision"], bool(r.get("approval"))) for r in chat.audit] == [
        ("ada", "approve", True),
        ("bob", "edit", True),
        ("ada", "edit", False),
    ]
    assert _card(chat)["verdict"] == "Approved with edited arguments by bob, ada"


async def test_one_reject_decides_at_once(agent: Agent, fake_host: FakeHost) -> None:
    chat = agent.chat(timeout=10, approvals=3)
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    fake_host.header = {"username": "ada"}
    click(chat, decide(card, "a1", action="approve"))
    await asyncio.sleep(0.05)
    fake_host.header = {"username": "bob"}
    click(chat, decide(card, "b1", action="reject", reason="not today"))
    result = await asyncio.wait_for(send, 10)
    assert len(resumes(agent)) == 1 and not result.completed
    assert _card(chat)["verdict"] == "Rejected by bob"


async def test_a_policy_alone_is_one_approver_and_never_sends(
    agent: Agent, as_front_end: Any
) -> None:
    as_front_end(NOTHING)
    chat = agent.chat(policy=policies.approve_all(), approvals=2)
    with pytest.raises(TooFewApprovers) as error:
        await asyncio.wait_for(chat.send(TRANSFER), 10)
    assert isinstance(error.value, NobodyCanClick)
    assert "needs 2 different approvers, but only policy: approve-all approved" in str(error.value)
    assert resumes(agent) == [] and len(chat.thread.pending) == 1
    assert _card(chat)["error"]["title"] == "Too few approvers"


async def test_a_policy_counts_as_the_first_approver_where_people_can_click(
    agent: Agent, fake_host: FakeHost
) -> None:
    chat = agent.chat(policy=policies.approve_all(), approvals=2, timeout=10)
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    assert _card(chat)["approvals"]["text"] == "1 of 2 approvals: policy: approve-all"
    assert chat.audit[0]["identity"] == "policy"
    fake_host.header = {"username": "ada"}
    click(chat, decide(card, "a1", action="approve"))
    result = await asyncio.wait_for(send, 10)
    assert result.completed and len(resumes(agent)) == 1
    assert _card(chat)["verdict"] == "Approved by policy: approve-all, ada"


@pytest.mark.parametrize("bad", [0, -2, 1.5, 2.0, True, "2", None])
def test_approvals_must_be_a_positive_whole_number(agent: Agent, bad: object) -> None:
    with pytest.raises(
        ValueError, match=r"approvals must be a whole number of people.*approvals=2"
    ):
        agent.chat(approvals=bad)


async def test_the_audit_text_and_saved_output_show_the_chain_head(tmp_path: Path) -> None:
    store = tmp_path / "store.sqlite3"
    agent = Agent.demo(text_delay=0, store=store)
    chat = agent.chat(policy=policies.approve_all(), display=False)
    await chat.send(TRANSFER)
    from agui_notebook._store.backend import open_store

    with open_store(store, readonly=True) as opened:
        seq, digest = opened.audit_head()  # type: ignore[misc]
    head = f"{seq}:{digest}"
    assert f"  audit head {head}" in chat.audit_text().splitlines()
    # The saved output: the widget state's audit records (its table shows them), and the static
    # forms a notebook read without a kernel shows (nbval masks the hash: notebooks/README.md).
    assert chat.view.audit[-1]["auditHead"] == head  # type: ignore[union-attr]
    saved = chat.view.static_bundle()  # type: ignore[union-attr]
    assert f"audit head {head}" in saved["text/plain"]
    assert f"audit head {head}" in saved["text/html"]
    await agent.aclose()


async def test_a_late_click_names_its_clicker_and_sends_nothing(
    agent: Agent, fake_host: FakeHost
) -> None:
    chat = agent.chat(timeout=10)
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    acks = capture_acks(chat.view)  # type: ignore[arg-type]
    fake_host.header = {"username": "ada"}
    click(chat, decide(card, "a1", action="approve"))
    await asyncio.wait_for(send, 10)
    fake_host.header = {"username": "bob"}
    click(chat, decide(card, "b1", action="reject"))
    await asyncio.sleep(0.05)
    assert len(resumes(agent)) == 1
    late = chat.audit[-1]
    assert late["late"] is True and (late["decided_by"], late["identity"]) == ("bob", "server")
    assert late["outcome"] == "late, not sent: ada had decided"
    ack = next(a for a in acks if a["requestId"] == "b1")
    assert ack["late"] is True
    assert (
        ack["error"] == "Your Reject arrived after ada had approved; only that decision was sent."
    )


async def test_approvals_per_tool(agent: Agent, fake_host: FakeHost) -> None:
    # A tool no glob names needs one approver; transfers need two.
    chat = agent.chat(timeout=10, approvals={"transfer_*": 2, "other": 5})
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    fake_host.header = {"username": "ada"}
    click(chat, decide(card, "a1", action="approve"))
    await asyncio.sleep(0.05)
    assert _card(chat)["approvals"]["text"] == "1 of 2 approvals: ada" and resumes(agent) == []
    fake_host.header = {"username": "bob"}
    click(chat, decide(card, "b1", action="approve"))
    assert (await asyncio.wait_for(send, 10)).completed
