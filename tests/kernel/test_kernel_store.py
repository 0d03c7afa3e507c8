"""Durable threads across real kernels: a kernel killed with SIGKILL, a new one carries on.

The agents run outside the kernels (the demo in its own process, Microsoft's agent-framework
server in this test process, both on 127.0.0.1), so they outlive the kernel that is killed. The
kernels inherit ``AGUI_NOTEBOOK_STORE`` (the test's own file, tests/conftest.py).
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.kernel._frontend import Kernel
from tests.servers.demo_process import DemoProcess

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(420)]

TRANSFER = "Transfer $500 from 1234567890 to 0987654321"
NO_POLICY = "import os; os.environ.pop('AGUI_NOTEBOOK_POLICY', None)\n"


@pytest.fixture
def demo() -> Iterator[DemoProcess]:
    with DemoProcess(text_delay=0) as process:
        yield process


@pytest.fixture
def kernels() -> Iterator[list[Kernel]]:
    started: list[Kernel] = []
    yield started
    for kernel in started:
        with contextlib.suppress(Exception):  # already killed and closed
            kernel.close()


def _new_kernel(kernels: list[Kernel]) -> Kernel:
    kernel = Kernel()
    kernels.append(kernel)
    return kernel


def _read(path: Path, sql: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def _stored_messages(path: Path, thread_id: str) -> list[Any]:
    """The thread's messages as its pages hold them (each page's body: one JSON text a line)."""
    pages = _read(
        path,
        "SELECT body FROM thread_pages WHERE thread_id = '"
        + thread_id
        + "' AND kind = 'message' ORDER BY page",
    )
    return [json.loads(line) for (body,) in pages for line in body.split("\n")]


def _card_pending_then_kill(kernels: list[Kernel], url: str, message: str) -> str:
    """Kernel A: a chat shows a pending card and waits for a click; then the kernel is killed."""
    a = _new_kernel(kernels)
    cell = a.start(
        NO_POLICY
        + "from agui_notebook import Agent\n"
        + f"chat = Agent({url!r}).chat(timeout=300)\n"
        + "print('THREAD', chat.thread.id, flush=True)\n"
        + f"result = await chat.send({message!r})\n"
    )
    a.wait_for_card("pending")
    assert cell not in a.idle, "the cell should still be waiting for the click"
    match = re.search(r"THREAD (\S+)", a.output(cell))
    assert match, a.output(cell)
    a.kill()
    return match.group(1)


def test_a_pending_card_survives_a_killed_kernel_and_resumes_once(
    demo: DemoProcess, kernels: list[Kernel], _isolated_store: Path
) -> None:
    thread_id = _card_pending_then_kill(kernels, demo.url, TRANSFER)
    assert _read(_isolated_store, "SELECT id, pending_count FROM threads") == [(thread_id, 1)]
    assert demo.executions() == []

    b = _new_kernel(kernels)
    out = b.run(
        "from agui_notebook import Agent, approve\n"
        + f"thread = Agent({demo.url!r}).thread({thread_id!r})\n"
        + "print('PENDING', [p.tool_name for p in thread.pending], len(thread.messages))\n"
        + "result = await thread.resume(approve())\n"
        + "print('OUTCOME', result.outcome, result.text)\n"
    )
    assert "PENDING ['transfer_money'] 2" in out
    assert "OUTCOME success Transferred 500.00 USD" in out
    assert [e["tool"] for e in demo.executions()] == ["transfer_money"]
    assert _read(_isolated_store, "SELECT pending_count FROM threads") == [(0,)]


def test_a_restored_chat_in_a_new_kernel_shows_the_card_and_a_click_resumes_it(
    demo: DemoProcess, kernels: list[Kernel], _isolated_store: Path
) -> None:
    thread_id = _card_pending_then_kill(kernels, demo.url, TRANSFER)

    b = _new_kernel(kernels)
    b.run(
        NO_POLICY
        + "from agui_notebook import Agent\n"
        + f"chat = Agent({demo.url!r}).chat({thread_id!r}, timeout=300)\n"
    )
    comm, card = b.wait_for_card("pending")
    assert comm in b.displayed, "the restored card was not displayed"
    assert [i["toolName"] for i in card["interrupts"]] == ["transfer_money"]
    b.click(comm, card, "approve")
    out = b.run(
        "result = await chat.wait()\n"
        "print('OUTCOME', result.outcome, result.text)\n"
        "print('AUDIT', chat.audit_text())\n"
    )
    assert "OUTCOME success Transferred 500.00 USD" in out
    assert "-> approve (by you) => success" in out
    assert [e["tool"] for e in demo.executions()] == ["transfer_money"]
    assert any(a.get("type") == "ack" and a.get("accepted") is True for a in b.acks), b.acks
    records = [json.loads(r) for (r,) in _read(_isolated_store, "SELECT record FROM audit")]
    assert [(r["thread_id"], r["decision"], r["decider"], r["outcome"]) for r in records] == [
        (thread_id, "approve", "person", "success")
    ]


def test_a_restored_chat_waits_for_the_click_in_the_cell_that_restored_it(
    demo: DemoProcess, kernels: list[Kernel], _isolated_store: Path
) -> None:
    # One cell: restore, wait, print. The card must be on screen while the cell waits
    # (ipykernel 7.4 delivers the click to the running cell), not only once the cell ends.
    thread_id = _card_pending_then_kill(kernels, demo.url, TRANSFER)

    b = _new_kernel(kernels)
    cell = b.start(
        NO_POLICY
        + "from agui_notebook import Agent\n"
        + f"chat = Agent({demo.url!r}).chat({thread_id!r}, timeout=300)\n"
        + "result = await chat.wait()\n"
        + "print('OUTCOME', result.outcome, result.text)\n"
    )
    comm, card = b.wait_for_card("pending")
    b.pump(
        lambda: comm in b.displayed, 30, "the restored card was not displayed while its cell waits"
    )
    assert cell not in b.idle
    b.click(comm, card, "approve")
    b.pump(lambda: cell in b.idle, 60, "the cell did not end after the click")
    assert "OUTCOME success Transferred 500.00 USD" in b.output(cell)
    assert [e["tool"] for e in demo.executions()] == ["transfer_money"]


def test_a_kernel_killed_mid_stream_leaves_the_store_consistent(
    kernels: list[Kernel], _isolated_store: Path
) -> None:
    with DemoProcess(text_delay=0.01) as demo:
        a = _new_kernel(kernels)
        cell = a.start(
            "import asyncio\n"
            "from agui_notebook import Agent\n"
            f"agent = Agent({demo.url!r})\n"
            "story = agent.thread(); busy = agent.thread()\n"
            "print('IDS', story.id, busy.id, flush=True)\n"
            "await story.run('What is my balance?')\n"
            "async def churn():\n"
            "    for n in range(500):\n"
            "        await busy.run('What is my balance?')\n"
            "        print('COMMIT', n, flush=True)\n"
            "task = asyncio.ensure_future(churn())\n"
            "count = 0\n"
            "async with story.stream('Tell me a long story') as run:\n"
            "    async for event in run:\n"
            "        count += 1\n"
            "        if count % 25 == 0:\n"
            "            print('EVENTS', count, flush=True)\n"
        )
        a.pump(
            lambda: "EVENTS 100" in a.output(cell) and "COMMIT 5" in a.output(cell),
            120,
            "the long run and the commits did not get going",
        )
        assert cell not in a.idle
        a.kill()  # mid-stream, while the other thread commits as fast as it can
        story_id, busy_id = re.findall(r"IDS (\S+) (\S+)", a.output(cell))[0]
        commits = len(re.findall(r"COMMIT \d+", a.output(cell)))

        assert _read(_isolated_store, "PRAGMA integrity_check") == [("ok",)]
        stored = {
            r[0]: (*r[1:], _stored_messages(_isolated_store, r[0]))
            for r in _read(_isolated_store, "SELECT id, last_run_id, message_count FROM threads")
        }
        runs = {
            thread: [
                run_id
                for (run_id,) in _read(
                    _isolated_store,
                    f"SELECT run_id FROM runs WHERE thread_id = '{thread}' ORDER BY seq",
                )
            ]
            for thread in (story_id, busy_id)
        }
        # The long story never committed: its thread is as its one committed run left it.
        assert len(runs[story_id]) == 1
        last_run, count, messages = stored[story_id]
        assert last_run == runs[story_id][-1] and count == len(messages)
        assert "story" not in json.dumps(messages).lower()
        # Every commit of the other thread is whole: rows and pages agree, none is half there.
        last_run, count, messages = stored[busy_id]
        assert runs[busy_id] and last_run == runs[busy_id][-1]
        assert count == len(messages)
        assert commits <= len(runs[busy_id]) <= commits + 1  # printed ones, maybe one more

        b = _new_kernel(kernels)
        out = b.run(
            "from agui_notebook import Agent\n"
            f"agent = Agent({demo.url!r})\n"
            f"story = agent.thread({story_id!r}); busy = agent.thread({busy_id!r})\n"
            "print('STORY', len(story.messages), [r.status for r in story.runs])\n"
            "print('BUSY', len(busy.runs), len(busy.messages))\n"
            "result = await story.run('What is my balance?')\n"
            "print('AGAIN', result.outcome)\n"
        )
        assert f"STORY {stored[story_id][1]} ['success']" in out
        assert f"BUSY {len(runs[busy_id])} {stored[busy_id][1]}" in out
        assert "AGAIN success" in out


@pytest.mark.interop
def test_msaf_pending_approval_survives_a_killed_kernel(
    kernels: list[Kernel], _isolated_store: Path
) -> None:
    from tests.servers.msaf_server import start_server

    server = start_server(keepalive_seconds=1)
    try:
        thread_id = _card_pending_then_kill(kernels, server.url, "Please transfer 100 to savings")
        assert server.recorder.executions == []
        (pending,) = _read(_isolated_store, "SELECT pending FROM threads")
        assert json.loads(pending[0])[0]["tool_name"] == "transfer_money"

        b = _new_kernel(kernels)
        out = b.run(
            "from agui_notebook import Agent, approve\n"
            f"thread = Agent({server.url!r}).thread({thread_id!r})\n"
            "print('PENDING', [p.tool_name for p in thread.pending])\n"
            "result = await thread.resume(approve())\n"
            "print('OUTCOME', result.outcome, result.text)\n"
        )
        assert "PENDING ['transfer_money']" in out
        assert "OUTCOME success" in out and "Transferred 100.00 USD" in out
        assert [name for name, _ in server.recorder.executions] == ["transfer_money"]
    finally:
        server.stop()
