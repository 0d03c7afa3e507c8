"""Exactly once across kernels: a resume claims its interrupts in the store before it is sent.

Two agents on one store play two kernels (each journal is its own claimant); the last test runs
real OS processes against the demo server in a process of its own, over loopback, on both
backends: one kernel runs to the interrupt and is SIGKILLed, two others resume at the same
moment, and the demo transfers exactly once.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agui_notebook import AlreadyDecided, ConnectError, ResumeRefused, approve, reject
from agui_notebook._agent import Agent
from agui_notebook._store.codec import Claim
from agui_notebook.demo import DemoApp
from tests.reliability.chat_driver import Driver
from tests.servers.demo_process import DemoProcess
from tests.store._db import rows

pytestmark = pytest.mark.timeout(120)

TRANSFER = "Transfer $500 from 1234567890 to 0987654321"
KERNEL = Path(__file__).with_name("claim_kernel.py")
REPO = Path(__file__).resolve().parents[2]

_AGENTS: list[Agent] = []


def kernel(url: str, **options: Any) -> Agent:
    agent = Agent(url, **options)
    _AGENTS.append(agent)
    return agent


@pytest.fixture(autouse=True)
async def _close_agents(store_path: Path | str) -> AsyncIterator[None]:
    yield  # every test runs on both backends (store_path)
    while _AGENTS:
        await _AGENTS.pop().aclose()


def _transfers(app: DemoApp) -> int:
    return len([e for e in app.executions if e["tool"] == "transfer_money"])


async def test_a_second_kernel_is_told_who_decided_and_sends_nothing(
    demo: tuple[str, DemoApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, app = demo
    monkeypatch.setenv("AGUI_NOTEBOOK_USER", "ada")
    first = kernel(url).thread()
    await first.run(TRANSFER)
    other = kernel(url).thread(first.id)  # restored before the first kernel decides
    assert (await first.resume(approve())).outcome == "success"

    sent = len(app.requests)
    with pytest.raises(AlreadyDecided) as raised:
        await other.resume(reject("no"))
    assert isinstance(raised.value, ResumeRefused)
    assert raised.value.settled and raised.value.claimant == "ada"
    assert "already decided by ada on " in str(raised.value) and "nothing was sent" in str(
        raised.value
    )
    assert len(app.requests) == sent and _transfers(app) == 1
    assert other.pending  # unchanged: refused before anything was sent


async def test_two_kernels_at_once_send_one_resume(demo: tuple[str, DemoApp]) -> None:
    url, app = demo
    first = kernel(url).thread()
    await first.run(TRANSFER)
    a, b = kernel(url).thread(first.id), kernel(url).thread(first.id)
    results = await asyncio.gather(a.resume(approve()), b.resume(approve()), return_exceptions=True)
    assert sorted(type(r).__name__ for r in results) == ["AlreadyDecided", "RunResult"]
    refused = next(r for r in results if isinstance(r, AlreadyDecided))
    assert not refused.settled and "is being decided by" in str(refused)
    assert _transfers(app) == 1
    assert len([r for r in app.requests if (r["body"] or {}).get("resume")]) == 1


async def test_a_dead_kernels_claim_lapses_after_its_lease(
    demo: tuple[str, DemoApp], store_path: Path | str
) -> None:
    url, app = demo
    first = kernel(url).thread()
    await first.run(TRANSFER)
    (pending,) = first.pending
    journal = kernel(url)._journal
    assert journal is not None
    now = time.time()
    dead = Claim(
        interrupt_id=pending.id,
        token="a-kernel-that-died",
        claimant="ada",
        host="host-2",
        pid=4242,
        decided_by="you",
        claimed_at="2026-01-01T00:00:00+00:00",
        lease_until=now + 1.0,
    )
    assert journal.store().claim(journal.agent_url, first.id, [dead], now) is None
    later = kernel(url).thread(first.id)
    with pytest.raises(AlreadyDecided, match=r"being decided by ada \(you\) on host-2, pid 4242"):
        await later.resume(approve())
    await asyncio.sleep(1.1)  # the lease lapses
    assert (await later.resume(approve())).outcome == "success"
    assert _transfers(app) == 1
    ((settled,),) = rows(store_path, "SELECT settled FROM claims")
    assert settled == 1


async def test_a_resume_that_never_reached_the_server_releases_its_claim(
    store_path: Path | str,
) -> None:
    from agui_notebook.demo import create_app, start_in_thread

    app = create_app(text_delay=0)
    url, stop = start_in_thread(app=app)
    port = int(url.rsplit(":", 1)[1].strip("/"))
    first = kernel(url).thread()
    await first.run(TRANSFER)
    stop()  # the server is gone: the resume cannot connect (not maybe_applied)
    with pytest.raises(ConnectError) as raised:
        await first.resume(approve())
    assert not raised.value.maybe_applied
    assert rows(store_path, "SELECT count(*) FROM claims") == [(0,)]
    url2, stop2 = start_in_thread(port, app=app)  # back, with its memory
    try:
        other = kernel(url2).thread(first.id)
        assert (await other.resume(approve())).outcome == "success"  # not blocked
        assert _transfers(app) == 1
    finally:
        stop2()


async def test_the_card_says_who_is_deciding(
    demo: tuple[str, DemoApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, app = demo
    monkeypatch.setenv("AGUI_NOTEBOOK_USER", "ada")
    first = kernel(url).thread()
    await first.run(TRANSFER)
    (pending,) = first.pending
    journal = kernel(url)._journal
    assert journal is not None
    now = time.time()
    elsewhere = Claim(
        pending.id, "other-kernel", "ada", "host-2", 7, "you", "2026-01-01T00:00:00+00:00", now + 60
    )
    journal.store().claim(journal.agent_url, first.id, [elsewhere], now)

    chat = kernel(url).chat(first.id, policy=None, timeout=20)
    driver = Driver(chat)
    card = await driver.waiting_card("pending")
    assert card["error"]["title"] == "Being decided elsewhere"  # said before anyone clicks
    assert "being decided by ada (you) on host-2" in card["error"]["message"]
    driver.decide(card, "approve")
    failed = await driver.waiting_card("failed")
    assert failed["error"]["title"] == "Being decided elsewhere"
    assert "being decided by ada (you) on host-2" in failed["error"]["message"]
    assert _transfers(app) == 0
    assert chat.background is not None
    chat.background.cancel()


def test_kernels_on_machines_of_their_own_transfer_exactly_once(
    store_path: Path | str, tmp_path: Path
) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with DemoProcess(text_delay=0) as demo:
        starter = subprocess.Popen(
            [sys.executable, str(KERNEL), "start", str(store_path), demo.url],
            stdout=subprocess.PIPE, text=True, env=env, cwd=REPO,
        )  # fmt: skip
        assert starter.stdout is not None
        thread_id = starter.stdout.readline().strip()
        os.kill(starter.pid, signal.SIGKILL)  # the first machine dies with the thread pending
        starter.wait(timeout=10)
        assert thread_id, "the first kernel did not reach its interrupt"

        go = tmp_path / "go"
        resumers = [
            subprocess.Popen(
                [
                    sys.executable,
                    str(KERNEL),
                    "resume",
                    str(store_path),
                    demo.url,
                    thread_id,
                    str(go),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                cwd=REPO,
            )
            for _ in range(2)
        ]
        for proc in resumers:
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        go.touch()
        outs = []
        for proc in resumers:
            out, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err
            outs.append(json.loads(out.strip().splitlines()[-1]))
        transfers = [e for e in demo.executions() if e["tool"] == "transfer_money"]
        after = Agent(demo.url, store=store_path).thread(thread_id)  # a fourth machine

    assert sorted(o.get("outcome") or o["error"] for o in outs) == ["AlreadyDecided", "success"]
    assert len(transfers) == 1
    done = next(o for o in outs if "outcome" in o)
    assert "Transferred 500.00 USD" in done["text"]
    assert after.pending == [] and [r.status for r in after.runs] == ["interrupt", "success"]
    records = [r for (r,) in rows(store_path, "SELECT record FROM audit ORDER BY seq")]
    assert [('"outcome":"success"' in r) for r in records].count(True) == 1


# -- the inbox ------------------------------------------------------------------------------------


async def test_the_inbox_lists_every_pending_approval_and_who_is_deciding(
    demo: tuple[str, DemoApp], store_path: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, _ = demo
    one, two = kernel(url).thread(), kernel(url).thread()
    await one.run(TRANSFER)
    await two.run("Transfer $20 from 1234567890 to 0987654321")
    await kernel(url).thread().run("What is my balance?")  # nothing pending
    other_agent = kernel(url + "?tenant=b").thread()
    await other_agent.run(TRANSFER)

    inbox = kernel(url).inbox()  # another kernel sees them all
    assert [(i.thread_id, i.interrupt.tool_name, i.status) for i in inbox] == [
        (two.id, "transfer_money", "waiting"),
        (one.id, "transfer_money", "waiting"),
    ]
    assert inbox[1].interrupt.arguments["amount"] == 500 and inbox[1].title == TRANSFER

    (pending,) = one.pending
    journal = kernel(url)._journal
    assert journal is not None
    now = time.time()
    journal.store().claim(
        journal.agent_url,
        one.id,
        [Claim(pending.id, "t", "ada", "host-2", 1, "you", "2026-01-01T00:00:00+00:00", now + 60)],
        now,
    )
    statuses = {i.thread_id: i.status for i in kernel(url).inbox()}
    assert statuses == {one.id: "being decided by ada on host-2", two.id: "waiting"}
    assert kernel(url, store=None).inbox() == []

    cli = subprocess.run(
        [str(Path(sys.executable).with_name("agui-notebook")), "inbox", "--store", str(store_path)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    lines = cli.stdout.splitlines()
    assert lines[0].split()[:4] == ["UPDATED", "(UTC)", "THREAD", "INTERRUPT"]
    assert len(lines) == 4  # both agents' pending approvals
    assert "being decided by ada on host-2" in cli.stdout and other_agent.id in cli.stdout


async def test_an_interrupt_the_server_raises_again_can_be_answered_again(
    store_path: Path | str,
) -> None:
    from tests.thread._streams import (
        ScriptedServer,
        approval_run,
        interrupt,
        interrupted,
        ok_run,
        run_finished,
        run_started,
        sse,
    )

    it1 = interrupt("i1", toolCallId="c1")
    server = ScriptedServer(
        approval_run(it1),
        sse(run_started(run_id="r2"), run_finished(run_id="r2", outcome=interrupted(it1))),
        ok_run(run_id="r3"),
    )
    thread = server.agent(store=store_path).thread()
    await thread.run("Transfer $500 to bob")
    again = await thread.resume(approve())  # the server raises i1 again
    assert again.interrupts[0].reissued
    other = server.agent(store=store_path).thread(thread.id)
    assert (await other.resume(reject("no, really"))).outcome == "success"  # not AlreadyDecided


async def test_a_claimant_whose_reply_broke_off_retries_and_others_wait(
    store_path: Path | str,
) -> None:
    from agui_notebook import TruncatedRunError
    from tests.thread._streams import (
        ScriptedServer,
        approval_run,
        interrupt,
        ok_run,
        run_started,
        sse,
    )

    server = ScriptedServer(
        approval_run(interrupt("i1", toolCallId="c1")),
        sse(run_started(run_id="r2")),  # the reply breaks off: the server may have applied it
        ok_run(run_id="r3"),
    )
    thread = server.agent(store=store_path).thread()
    await thread.run("Transfer $500 to bob")
    with pytest.raises(TruncatedRunError) as raised:
        await thread.resume(approve())
    assert raised.value.maybe_applied
    other = server.agent(store=store_path).thread(thread.id)
    sent = len(server.requests)
    with pytest.raises(AlreadyDecided, match="is being decided by"):
        await other.resume(reject("mine"))
    assert len(server.requests) == sent  # nothing went out
    late = server.agent(store=store_path).thread(thread.id)  # restored while still pending
    assert (await thread.resume(approve())).outcome == "success"  # the same claimant retries
    assert [b["resume"][0]["interruptId"] for b in server.bodies if b.get("resume")] == ["i1"] * 2
    with pytest.raises(AlreadyDecided, match="already decided"):
        await late.resume(reject("late"))
