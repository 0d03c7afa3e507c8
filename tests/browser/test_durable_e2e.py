"""A pending card survives a kernel restart from JupyterLab's menu (durable threads, issue 12).

Real JupyterLab in headless Chromium; the demo agent in its own process on 127.0.0.1 (it must
outlive the kernel); the kernel keeps threads in this test's store file (AGUI_NOTEBOOK_STORE,
inherited through the Jupyter server). A card waits for a click, the kernel is restarted from the
Kernel menu, ``agent.chat(thread_id)`` is run again and shows the card, a click on Approve
resumes the thread and the tool runs exactly once.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _jupyter import REPO_ROOT, JupyterServer
from playwright.sync_api import Locator, Page, expect

from tests.servers.demo_process import DemoProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

TRANSFER = "Transfer $500 from 1234567890 to 0987654321"
WAIT_MS = 60_000
ARTIFACTS = REPO_ROOT / "artifacts" / "browser"


@pytest.fixture
def jupyter_notebooks_dir() -> None:
    return None  # an empty root: this test writes its own notebook


@pytest.fixture
def demo() -> Iterator[DemoProcess]:
    with DemoProcess(text_delay=0) as process:
        yield process


def _menu(page: Page, menu: str, item: str) -> None:
    page.locator(".lm-MenuBar-item").filter(
        has=page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(rf"^{menu}$"))
    ).click()
    page.locator(".lm-Menu-item").filter(
        has=page.locator(".lm-Menu-itemLabel", has_text=re.compile(rf"^{item}$"))
    ).click()


def _cell(page: Page, index: int) -> Locator:
    return page.locator(".jp-Notebook .jp-Cell").nth(index)


def test_a_pending_card_survives_a_kernel_restart_from_the_menu(
    jupyterlab: JupyterServer, page: Page, demo: DemoProcess, _isolated_store: Path
) -> None:
    thread = f"e2e-durable-{int(time.time() * 1000)}"
    cells = [
        "import os\n"
        'os.environ.pop("AGUI_NOTEBOOK_POLICY", None)\n'
        "from agui_notebook import Agent\n"
        f"THREAD = {thread!r}\n"
        f"chat = Agent({demo.url!r}).chat(THREAD, timeout=300)\n"
        'print("E2E-READY", os.environ["AGUI_NOTEBOOK_STORE"])',
        f"await chat.send({TRANSFER!r})",
        "import os\n"
        'os.environ.pop("AGUI_NOTEBOOK_POLICY", None)\n'
        "from agui_notebook import Agent\n"
        f"chat = Agent({demo.url!r}).chat({thread!r}, timeout=300)\n"
        "chat",
        "result = await chat.wait()\n"
        'print("E2E-OUTCOME", result.outcome)\n'
        'print("E2E-AUDIT", chat.audit_text())',
    ]
    name = "durable.ipynb"
    jupyterlab.write_notebook(name, cells)
    jupyterlab.open_notebook(page, name)
    jupyterlab.run_all(page, name)

    expect(_cell(page, 0).locator(".jp-OutputArea")).to_contain_text(
        f"E2E-READY {_isolated_store}", timeout=WAIT_MS
    )
    first = _cell(page, 1).locator('.agui-card[data-card-id="card-1"]').first
    expect(first).to_have_attribute("data-status", "pending", timeout=WAIT_MS)
    _wait_for_stored_pending(_isolated_store, thread)

    # Restart the kernel from the UI: the waiting cell and the queued ones are gone.
    _menu(page, "Kernel", "Restart Kernel…")
    page.locator(".jp-Dialog button.jp-mod-accept").click()  # "Confirm Kernel Restart"
    expect(page.locator(".jp-Dialog")).to_have_count(0, timeout=WAIT_MS)
    time.sleep(1.0)  # the restart is under way before the REST API reports idle again
    jupyterlab.wait_for_kernel_idle(name, timeout=90)
    assert demo.executions() == []

    # Run agent.chat(thread_id) again (and the cell below): the card is back.
    _cell(page, 2).locator(".jp-InputPrompt").click()
    _menu(page, "Run", "Run Selected Cell and All Below")
    restored = _cell(page, 2).locator(".agui-card")
    expect(restored).to_have_count(1, timeout=WAIT_MS)  # shown once, not twice
    card = restored.first
    expect(card).to_have_attribute("data-status", "pending", timeout=WAIT_MS)
    expect(card.locator(".agui-tool-name")).to_have_text("transfer_money")
    expect(card).to_contain_text("0987654321")
    expect(_cell(page, 2)).to_contain_text("Restored from the store")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    _cell(page, 2).locator(".agui-chat").screenshot(path=str(ARTIFACTS / "card-restored.png"))

    card.locator('button[data-action="approve"]').click()
    expect(card).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    expect(card.locator(".agui-decision")).to_contain_text("approved by you")
    expect(_cell(page, 2).locator(".agui-assistant").last).to_contain_text(
        "Transferred 500.00 USD from 1234567890 to 0987654321", timeout=WAIT_MS
    )
    last = _cell(page, 3).locator(".jp-OutputArea")
    expect(last).to_contain_text("E2E-OUTCOME success", timeout=WAIT_MS)
    expect(last).to_contain_text("-> approve (by you) => success")

    assert [e["tool"] for e in demo.executions()] == ["transfer_money"]
    records = _stored(_isolated_store, "SELECT record FROM audit")
    assert [(r["thread_id"], r["decision"], r["outcome"]) for r in records] == [
        (thread, "approve", "success")
    ]
    jupyterlab.shutdown_notebook_kernel(name)


def _stored(path: Path, sql: str) -> list[Any]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [json.loads(r[0]) for r in conn.execute(sql).fetchall()]
    finally:
        conn.close()


def _wait_for_stored_pending(path: Path, thread: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            try:
                rows = conn.execute(
                    "SELECT pending_count FROM threads WHERE id = ?", (thread,)
                ).fetchall()
            except sqlite3.Error:
                rows = []
            finally:
                conn.close()
            if rows == [(1,)]:
                return
        time.sleep(0.1)
    raise AssertionError(f"thread {thread} was not stored as pending in {path}")
