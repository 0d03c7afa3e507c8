"""Deciding with your data: previews and checks computed here, bound to the decision, and the
verdict after it (issue 43). The demo agent over its in-process transport; clicks delivered as
the front end sends them."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from agui_notebook import Agent, CheckFailed, edit, policies
from agui_notebook._chat.chat import Chat
from agui_notebook._protocol.capabilities import AgentCapabilities
from tests.chat.test_chat import capture_acks, click, decide, pending_card

OVERDRAFT = "Transfer $3000 from 1234567890 to 0987654321"
TRANSFER = "Transfer $500 from 1234567890 to 0987654321"
FIXED = {
    "from_account": "1234567890",
    "to_account": "0987654321",
    "amount": 2000,
    "currency": "USD",
}
ACCOUNTS = pd.DataFrame({"account": ["1234567890", "0987654321"], "balance": [2500.0, 1000.0]})


def balances_after(args: dict[str, Any], context: Any) -> pd.DataFrame:
    after = ACCOUNTS.copy()
    after.loc[after.account == args["from_account"], "balance"] -= args["amount"]
    after.loc[after.account == args["to_account"], "balance"] += args["amount"]
    return after


def no_overdraft(args: dict[str, Any], context: Any) -> str | None:
    balance = float(ACCOUNTS.set_index("account").balance[args["from_account"]])
    if args["amount"] > balance:
        return f"overdraft: {args['amount']:,.2f} from a balance of {balance:,.2f}"
    return None


@pytest.fixture
def agent() -> Agent:
    return Agent.demo(text_delay=0)


def informed_chat(agent: Agent, **options: Any) -> Chat:
    return agent.chat(
        timeout=20,
        previews={"transfer_money": balances_after},
        checks={"transfer_*": no_overdraft},
        **options,
    )


async def section_where(chat: Chat, test: Any, timeout: float = 10.0) -> dict[str, Any]:
    """The card's first section once ``test(section)`` holds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for item in chat.view.items if chat.view else []:
            if item["kind"] == "card" and test(item["interrupts"][0]):
                return dict(item["interrupts"][0])
        await asyncio.sleep(0.01)
    raise AssertionError("the card's section never got there")


async def card_with_error(chat: Chat) -> dict[str, Any]:
    for _ in range(1000):
        card = await pending_card(chat)
        if card.get("error"):
            return card
        await asyncio.sleep(0.01)
    raise AssertionError("the card shows no error")


async def acked(acks: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """The acks once ``count`` have come (a click is handled on the loop, after this test yields)."""
    for _ in range(500):
        if len(acks) >= count:
            return acks
        await asyncio.sleep(0.01)
    raise AssertionError(f"{len(acks)} acks, not {count}")


def drawn(section: dict[str, Any]) -> bool:
    preview, checks = section.get("preview") or {}, section.get("checks") or {}
    return preview.get("status") in ("shown", "failed") and checks.get("status") == "done"


async def test_a_dataframe_preview_and_a_passing_check_are_drawn_and_bound_to_the_decision(
    agent: Agent,
) -> None:
    chat = informed_chat(agent)
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    section = await section_where(chat, drawn)
    preview = section["preview"]
    assert preview["kind"] == "html" and "<table" in preview["html"]
    assert preview["label"] == "Preview (computed in this notebook)"
    assert "2000.0" in preview["text"] and "1500.0" in preview["text"]  # after the transfer
    assert section["checks"]["passed"] is True and section["checks"]["text"] is None
    assert section["checks"]["results"] == [
        {"name": "no_overdraft", "passed": True, "text": "passed"}
    ]
    click(chat, decide(card, "r1", action="approve"))
    result = await asyncio.wait_for(send, 20)
    assert result.outcome == "success"
    (record,) = chat.audit
    assert record["preview_sha256"] == preview["sha256"] and len(preview["sha256"]) == 64
    assert record["checks"] == [{"name": "no_overdraft", "passed": True, "text": "passed"}]
    assert record["execution"]["verdict"] == "executed"
    final = await section_where(chat, lambda s: s.get("verdict") is not None)
    assert final["verdict"]["text"] == "Executed: the agent reported a result for transfer_money"
    text = chat.view._repr_mimebundle_()[0]["text/plain"]  # type: ignore[union-attr]
    assert "Preview (computed in this notebook):" in text and "Check no_overdraft: passed" in text
    assert "Execution: Executed: the agent reported a result for transfer_money" in text


async def test_a_failing_check_refuses_approve_until_a_reason_is_given(agent: Agent) -> None:
    chat = informed_chat(agent)
    send = asyncio.create_task(chat.send(OVERDRAFT))
    card = await pending_card(chat)
    section = await section_where(chat, drawn)
    assert section["checks"]["passed"] is False
    assert section["checks"]["text"].startswith("A check failed: Approve is off.")
    acks = capture_acks(chat.view)  # type: ignore[arg-type]
    click(chat, decide(card, "r1", action="approve"))
    click(chat, decide(card, "r2", action="approve", override="   "))
    assert [a["accepted"] for a in await acked(acks, 2)] == [False, False]
    assert (
        "check no_overdraft failed: overdraft: 3,000.00 from a balance of 2,500.00"
        in acks[0]["error"]
    )
    assert "Approve anyway needs a reason" in acks[0]["error"]
    assert not [r for r in agent.demo_app.requests if (r["body"] or {}).get("resume")]
    click(chat, decide(card, "r3", action="approve", override="the overdraft is arranged"))
    assert (await acked(acks, 3))[-1]["accepted"] is True
    await asyncio.wait_for(send, 20)
    (record,) = chat.audit
    assert record["checks_override"] == "the overdraft is arranged"
    assert record["checks"][0]["passed"] is False


async def test_an_edit_is_previewed_and_checked_again_before_it_is_sent(agent: Agent) -> None:
    chat = informed_chat(agent)
    send = asyncio.create_task(chat.send(OVERDRAFT))
    card = await pending_card(chat)
    proposed = await section_where(chat, drawn)
    acks = capture_acks(chat.view)  # type: ignore[arg-type]
    interrupt = card["interrupts"][0]["id"]
    message = {"type": "preview", "requestId": "p1", "card": card["id"], "interrupt": interrupt}
    click(chat, {**message, "args": FIXED})
    edited = await section_where(chat, lambda s: drawn(s) and s["preview"]["of"] == "edited")
    assert (await acked(acks, 1))[0] == {"type": "ack", "requestId": "p1", "accepted": True}
    assert (
        edited["preview"]["label"] == "Preview of the edited arguments (computed in this notebook)"
    )
    assert edited["preview"]["sha256"] != proposed["preview"]["sha256"]
    assert "500.0" in edited["preview"]["text"] and edited["checks"]["passed"] is True
    click(chat, decide(card, "e1", action="edit", args=FIXED))
    await asyncio.wait_for(send, 20)
    (record,) = chat.audit
    assert record["decision"] == "edit" and record["checks_override"] is None
    assert record["preview_sha256"] == proposed["preview"]["sha256"]
    assert record["edited_preview_sha256"] == edited["preview"]["sha256"]
    assert record["checks"] == [{"name": "no_overdraft", "passed": True, "text": "passed"}]
    assert record["execution"]["verdict"] == "executed"


async def test_an_edit_that_still_fails_its_check_is_not_sent(agent: Agent) -> None:
    chat = informed_chat(agent)
    send = asyncio.create_task(chat.send(OVERDRAFT))
    card = await pending_card(chat)
    await section_where(chat, drawn)
    acks = capture_acks(chat.view)  # type: ignore[arg-type]
    worse = {**FIXED, "amount": 9000}
    click(chat, decide(card, "e1", action="edit", args=worse))  # never previewed: checked now
    assert (await acked(acks, 1))[-1]["accepted"] is True
    card_now = await card_with_error(chat)  # back to pending, with why
    assert card_now["error"]["title"] == "Not sent"
    assert "check no_overdraft failed: overdraft: 9,000.00" in card_now["error"]["message"]
    assert not [r for r in agent.demo_app.requests if (r["body"] or {}).get("resume")]
    click(chat, decide(card, "e2", action="edit", args=FIXED))
    assert (await asyncio.wait_for(send, 20)).outcome == "success"
    assert [r["decision"] for r in chat.audit] == ["edit"]  # the refused one was replaced


async def test_a_policy_approving_a_failing_check_raises_check_failed(
    agent: Agent, tmp_path: Path
) -> None:
    stored = Agent.demo(text_delay=0, store=tmp_path / "store.sqlite3")
    chat = informed_chat(stored, policy=policies.approve_all())
    with pytest.raises(CheckFailed) as raised:
        await asyncio.wait_for(chat.send(OVERDRAFT), 20)
    assert raised.value.failed == [
        ("transfer_money", "no_overdraft", "overdraft: 3,000.00 from a balance of 2,500.00")
    ]
    assert "nothing was sent" in str(raised.value)
    (record,) = chat.audit
    assert record["outcome"].startswith("refused: transfer_money: check no_overdraft failed")
    assert record["checks"][0]["passed"] is False and record["preview_sha256"]
    entries = stored._journal.store().thread_audit(stored._journal.agent_url, chat.thread.id)  # type: ignore[union-attr]
    assert [e.checks[0]["passed"] for e in entries] == [False]
    assert entries[0].preview_sha256 == record["preview_sha256"]


async def test_a_policy_that_overrides_checks_sends_and_says_so(tmp_path: Path) -> None:
    stored = Agent.demo(text_delay=0, store=tmp_path / "store.sqlite3")
    chat = informed_chat(stored, policy=policies.approve_all(override_checks=True))
    result = await asyncio.wait_for(chat.send(OVERDRAFT), 20)
    assert result.outcome == "success"
    (record,) = chat.audit
    assert record["checks_override"] == "policy: approve-all (override_checks)"
    entries = stored._journal.store().thread_audit(stored._journal.agent_url, chat.thread.id)  # type: ignore[union-attr]
    (entry,) = entries
    assert entry.checks_override == "policy: approve-all (override_checks)"
    assert entry.execution["verdict"] == "executed"
    assert entry.preview_sha256 == record["preview_sha256"]


class Unshowable:
    def __repr__(self) -> str:
        raise RuntimeError("no repr for you")


def fifty_megabytes(args: Any, context: Any) -> str:
    return "x" * (50 * 1024 * 1024)


def never_returns(args: Any, context: Any) -> None:
    threading_event().wait()


def threading_event() -> Any:
    import threading

    return threading.Event()


def unshowable(args: Any, context: Any) -> Unshowable:
    return Unshowable()


def raises(args: Any, context: Any) -> None:
    raise ValueError("the ledger is closed")


@pytest.mark.parametrize(
    ("preview", "note"),
    [
        pytest.param(fifty_megabytes, "its text (52,428,800 characters) is cut", id="50MB"),
        pytest.param(unshowable, "raised RuntimeError: no repr for you", id="non-displayable"),
        pytest.param(never_returns, "did not finish within 0.5 s", id="never-returns"),
        pytest.param(raises, "raised ValueError: the ledger is closed", id="raises"),
    ],
)
async def test_a_bad_preview_is_a_note_the_decision_stays_possible_and_the_kernel_responsive(
    agent: Agent, preview: Any, note: str
) -> None:
    chat = agent.chat(timeout=20)
    chat.preview("transfer_money", timeout=0.5)(preview)
    started = time.perf_counter()
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    # The loop keeps turning while the preview works (or hangs) in its thread.
    lags: list[float] = []

    async def measure() -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append(time.perf_counter() - before)

    meter = asyncio.create_task(measure())
    section = await section_where(chat, lambda s: s["preview"]["status"] != "computing")
    meter.cancel()
    assert max(lags, default=0.0) < 0.5, lags  # (a fast preview is done before one tick)
    assert note in (section["preview"]["note"] or ""), section["preview"]
    assert time.perf_counter() - started < 10
    click(chat, decide(card, "r1", action="approve"))
    result = await asyncio.wait_for(send, 20)
    assert result.outcome == "success"
    assert chat.audit[0]["execution"]["verdict"] == "executed"


async def test_a_check_that_raises_fails_with_its_error(agent: Agent) -> None:
    chat = agent.chat(timeout=20, checks={"transfer_money": raises})
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    section = await section_where(chat, lambda s: s["checks"]["status"] == "done")
    assert section["checks"]["results"] == [
        {"name": "raises", "passed": False, "text": "raised ValueError: the ledger is closed"}
    ]
    click(chat, decide(card, "r1", action="reject", reason="not with a closed ledger"))
    assert (await asyncio.wait_for(send, 20)).outcome == "success"
    assert chat.audit[0]["execution"]["verdict"] == "not_executed"


async def test_async_previews_and_verify_hooks(agent: Agent) -> None:
    async def preview(args: dict[str, Any], context: Any) -> str:
        await asyncio.sleep(0)
        assert context.interrupt.tool_name == "transfer_money" and not context.edited
        assert context.state["balances"]["1234567890"] == 2500.0
        return f"{args['amount']} leaves {context.state['balances']['1234567890'] - args['amount']}"

    seen: list[Any] = []
    chat = agent.chat(previews={"transfer_money": preview}, policy=policies.approve_all())

    @chat.verify("transfer_money")
    def same_amount(approved: dict[str, Any], result: Any, context: Any) -> str | None:
        seen.append((approved, result))
        ran = json.loads(result)  # the demo's result: {"ok": true, "amount": ..., ...}
        return None if ran["amount"] == approved["amount"] else f"{ran['amount']} ran"

    await asyncio.wait_for(chat.send(TRANSFER), 20)
    (record,) = chat.audit
    assert record["execution"] == {
        "verdict": "verified",
        "text": "Verified by same_amount: the result of transfer_money is what was approved",
        "detail": None,
    }
    assert seen and seen[0][0]["amount"] == 500
    section = await section_where(chat, lambda s: s.get("verdict") is not None)
    assert (
        section["preview"]["text"] == "500.0 leaves 2000.0" and section["preview"]["kind"] == "text"
    )


async def test_a_verify_hook_that_finds_a_mismatch_warns(agent: Agent) -> None:
    chat = agent.chat(
        policy=policies.approve_all(), verify={"transfer_*": lambda a, r, c: "not it"}
    )
    result = await asyncio.wait_for(chat.send(TRANSFER), 20)
    assert chat.audit[0]["execution"]["verdict"] == "mismatch"
    assert any(w.startswith("Mismatch: the result of transfer_money") for w in result.warnings)


async def test_a_matplotlib_figure_is_previewed_as_an_inline_png(agent: Agent) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    def chart(args: dict[str, Any], context: Any) -> Figure:
        figure = Figure(figsize=(3, 2))
        figure.add_subplot().bar(["from", "to"], [2500 - args["amount"], 1000 + args["amount"]])
        return figure

    chat = agent.chat(previews={"transfer_money": chart}, policy=policies.approve_all())
    await asyncio.wait_for(chat.send(TRANSFER), 20)
    section = await section_where(chat, lambda s: s["preview"]["status"] == "shown")
    assert section["preview"]["kind"] == "image"
    assert section["preview"]["image"]["mimeType"] == "image/png"
    html = chat.view._repr_mimebundle_()[0]["text/html"]  # type: ignore[union-attr]
    assert html.count("<img") == 1 and 'src="data:image/png;base64,iVBOR' in html


async def test_a_decision_in_code_is_informed_and_judged_but_not_refused(agent: Agent) -> None:
    thread = agent.thread()
    await thread.run(OVERDRAFT)
    chat = Chat(
        thread,
        previews={"transfer_money": balances_after},
        checks={"transfer_*": no_overdraft},
        display=False,
    )
    result = await asyncio.wait_for(chat.resume(edit(FIXED)), 20)
    assert result.outcome == "success"
    record = chat.audit[-1]
    assert record["decision"] == "edit" and record["checks"][0]["passed"] is True
    assert record["edited_preview_sha256"] and record["execution"]["verdict"] == "executed"


async def test_a_server_declaring_no_edits_gets_no_edit_button(agent: Agent) -> None:
    agent.declared_capabilities = AgentCapabilities.model_validate(
        {"humanInTheLoop": {"supported": True, "interrupts": True, "approveWithEdits": False}}
    )
    chat = agent.chat(timeout=20)
    send = asyncio.create_task(chat.send(TRANSFER))
    card = await pending_card(chat)
    section = card["interrupts"][0]
    assert section["canEdit"] is False
    assert "approveWithEdits is false" in section["editNote"]
    click(chat, decide(card, "r1", action="approve"))
    await asyncio.wait_for(send, 20)


def test_the_package_previews_without_pandas_or_matplotlib() -> None:
    """pandas and matplotlib are the test extra's: a preview needs neither."""
    script = (
        "import asyncio, sys\n"
        "sys.modules['pandas'] = None; sys.modules['matplotlib'] = None  # importing them fails\n"
        "from agui_notebook import Agent, policies\n"
        "async def main():\n"
        "    chat = Agent.demo(text_delay=0).chat(display=False, policy=policies.approve_all(),\n"
        "        previews={'transfer_money': lambda a, c: f\"moves {a['amount']}\"})\n"
        f"    await chat.send({TRANSFER!r})\n"
        "    record = chat.audit[0]\n"
        "    print(record['execution']['verdict'], len(record['preview_sha256']))\n"
        "asyncio.run(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["executed", "64"]
