"""The card in real marimo (`marimo edit` and `marimo run`, headless) driven by Debian's Chromium.

marimo handles one request at a time and a running cell is one of them, so a click reaches Python
only once no cell runs: `chat.send()` returns with the card live, the click resumes the same thread
in the background, and the answer streams into the same output. Here:

- the README's quickstart, its two code blocks taken from README.md as written (turned into a
  marimo notebook by `marimo convert`), in `marimo edit` and in `marimo run`: click Approve, see
  the answer in the cell that showed the card; the second block, run before the click, says at
  once that it would hold the click back, and run again afterwards gives the final result;
- notebooks/09_marimo.py, the same with a click;
- a click held back by a running cell until after the timeout cancelled: the card says so, in
  plain words, and nothing is sent for it;
- a click whose continuation opens a new page of the view's items (a widget made outside any
  cell's run).

marimo puts each widget in a shadow root; Playwright's CSS locators look inside open ones.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from _jupyter import REPO_ROOT, PageLog, project_python
from _marimo import MarimoServer, start_marimo
from playwright.sync_api import Locator, Page, expect

from agui_notebook._view.widget import PAGE_SIZE

pytestmark = [pytest.mark.browser, pytest.mark.marimo]

WAIT_MS = 60_000  # a marimo kernel starts, imports the package and runs the demo under load
ARTIFACTS = REPO_ROOT / "artifacts" / "browser"


def readme_blocks() -> list[str]:
    """The notebook cells of the README's "In ten lines" section, as written (the script form
    under its own heading is for `asyncio.run`, not for a notebook)."""
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## In ten lines", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 2, blocks
    return blocks


def marimo_notebook(path: Path, cells: list[str]) -> Path:
    """Write `cells` as a notebook and let marimo convert it, as a user would."""
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "source": c,
                "outputs": [],
                "execution_count": None,
            }
            for c in cells
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    source = path.with_suffix(".ipynb")
    source.write_text(json.dumps(notebook), encoding="utf-8")
    subprocess.run(
        [project_python(), "-m", "marimo", "convert", str(source), "-o", str(path)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    source.unlink()
    return path


LATE = """
import asyncio
from agui_notebook import Agent

agent = Agent.demo(text_delay=0)
chat = agent.chat(timeout={timeout})
turn = await chat.send("Transfer $500 from 1234567890 to 0987654321")
"""
BUSY = """
await asyncio.sleep({seconds})  # the kernel's queue holds every click until this cell ends
busy_done = turn.outcome
"""
SENT = """
_resumes = [r["body"]["resume"] for r in agent.demo_app.requests if (r["body"] or {}).get("resume")]
print("E2E-RESUMES", busy_done, json.dumps([e["status"] for r in _resumes for e in r]))
"""
# A chat whose card fills its view's first page of items exactly (each plain turn adds a question
# and an answer; the transfer a question, a text, the tool call and the card): the answer after
# the click opens the second page, in the click's continuation, after the cell ended.
PAGE_FILLED = """
from agui_notebook import Agent
from agui_notebook.policies import approve_all

agent = Agent.demo(text_delay=0)
chat = agent.chat(policy=approve_all())
for n in range({plain}):
    await chat.send(f"What can you do for me? (question {{n}})")
chat.policy = None
turn = await chat.send("Transfer $500 from 1234567890 to 0987654321")
"""
LATE_TIMEOUT = 12  # seconds the card waits for a person
LATE_BUSY = 30  # seconds the next cell keeps marimo's queue blocked


@pytest.fixture(scope="module")
def notebooks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("marimo") / "root"
    root.mkdir()
    marimo_notebook(root / "readme_quickstart.py", readme_blocks())
    marimo_notebook(
        root / "late_click.py",
        [
            "import json\n" + LATE.format(timeout=LATE_TIMEOUT),
            BUSY.format(seconds=LATE_BUSY),
            SENT,
        ],
    )
    marimo_notebook(root / "page_filled.py", [PAGE_FILLED.format(plain=(PAGE_SIZE - 4) // 2)])
    shutil.copyfile(REPO_ROOT / "notebooks" / "09_marimo.py", root / "09_marimo.py")
    return root


def _server(mode: str, root: Path, notebook: str | None = None) -> Iterator[MarimoServer]:
    server = start_marimo(mode, root, notebook)  # type: ignore[arg-type]
    try:
        yield server
    finally:
        server.shutdown()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(server.log_path, ARTIFACTS / f"test_marimo_e2e.{mode}-server.log")


@pytest.fixture(scope="module")
def marimo_edit(notebooks: Path) -> Iterator[MarimoServer]:
    yield from _server("edit", notebooks)


@pytest.fixture(scope="module")
def marimo_run(notebooks: Path) -> Iterator[MarimoServer]:
    yield from _server("run", notebooks, "readme_quickstart.py")


def cells(page: Page) -> Locator:
    return page.locator(".marimo-cell")


def open_notebook(page: Page, server: MarimoServer, name: str) -> None:
    page.goto(server.notebook_url(name), wait_until="domcontentloaded")


def pending_card(scope: Locator) -> Locator:
    card = scope.locator(".agui-card").first
    expect(card).to_have_attribute("data-status", "pending", timeout=WAIT_MS)
    return card


def run_cell(cell: Locator) -> None:
    """Press the cell's run button (shown while the pointer is over the cell)."""
    cell.hover()
    cell.locator('[data-testid="run-button"]').first.click()


def assert_clean(page_log: PageLog) -> None:
    assert page_log.errors_matching(r"agui|anywidget|chat\.js") == []


def shot(locator: Locator, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    locator.screenshot(path=str(ARTIFACTS / f"{name}.png"), animations="disabled")


def test_readme_quickstart_in_marimo_edit(
    marimo_edit: MarimoServer, page: Page, page_log: PageLog
) -> None:
    open_notebook(page, marimo_edit, "readme_quickstart.py")
    first, second = cells(page).nth(0), cells(page).nth(1)
    card = pending_card(first)
    expect(card.locator(".agui-tool-name")).to_have_text("transfer_money")
    note = card.locator(".agui-note")
    expect(note).to_contain_text("In marimo a click reaches Python only after the running cell")
    # The second block ran at once after the first: it says why it cannot wait, instead of
    # holding the click back until the timeout.
    expect(second).to_contain_text("NobodyCanClick", timeout=WAIT_MS)
    expect(second).to_contain_text("still waits for your decision")
    shot(first, "marimo-card-pending")

    clicked = time.monotonic()
    card.locator('button[data-action="approve"]').click()
    expect(card).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    answer = first.locator(".agui-assistant").last
    expect(answer).to_contain_text(
        "Transferred 500.00 USD from 1234567890 to 0987654321", timeout=WAIT_MS
    )
    print(
        f"\nmarimo edit: click to the answer in the same output: {time.monotonic() - clicked:.2f} s"
    )
    expect(card.locator(".agui-decision")).to_contain_text("approved by you")
    expect(card.locator(".agui-late")).to_be_hidden()
    shot(first, "marimo-card-done")

    # Run the second block again now: the final result, decided by you.
    run_cell(second)
    expect(second).to_contain_text("True you", timeout=WAIT_MS)
    expect(second).to_contain_text("-> approve (by you) => success")
    expect(second).not_to_contain_text("NobodyCanClick")
    assert_clean(page_log)


def test_readme_quickstart_in_marimo_run(
    marimo_run: MarimoServer, page: Page, page_log: PageLog
) -> None:
    open_notebook(page, marimo_run, "readme_quickstart.py")
    card = pending_card(page.locator("body"))
    card.locator('button[data-action="approve"]').click()
    expect(card).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    chat = page.locator(".agui-chat").first
    expect(chat.locator(".agui-assistant").last).to_contain_text(
        "Transferred 500.00 USD", timeout=WAIT_MS
    )
    expect(card.locator(".agui-decision")).to_contain_text("approved by you")
    assert_clean(page_log)


def test_the_marimo_tutorial_with_a_click(
    marimo_edit: MarimoServer, page: Page, page_log: PageLog
) -> None:
    open_notebook(page, marimo_edit, "09_marimo.py")
    send = cells(page).filter(has=page.locator(".agui-chat")).first
    card = pending_card(send)
    last = cells(page).last
    expect(last).to_contain_text("Decide on the card above", timeout=WAIT_MS)
    card.locator('button[data-action="approve"]').click()
    expect(send.locator(".agui-assistant").last).to_contain_text(
        "Transferred 500.00 USD", timeout=WAIT_MS
    )
    # The answer's text streams before its run ends; until then the thread still holds the
    # interrupt, and the cell below would (rightly) say to decide first. Wait for the turn's end.
    expect(send.locator(".agui-status").first).to_have_attribute(
        "data-status", "idle", timeout=WAIT_MS
    )
    run_cell(last)
    expect(last).to_contain_text("completed: True | decided by: you", timeout=WAIT_MS)
    assert_clean(page_log)


def test_a_click_held_back_past_the_timeout_says_what_happened(
    marimo_edit: MarimoServer, page: Page, page_log: PageLog
) -> None:
    """The issue's marimo case: the person clicks Approve while another cell runs; marimo
    delivers the click only after that cell, by when the timeout has cancelled. Nothing is sent
    for the click, and the card says so instead of hiding it."""
    open_notebook(page, marimo_edit, "late_click.py")
    first = cells(page).nth(0)
    card = pending_card(first)
    card.locator('button[data-action="approve"]').click()  # held in marimo's queue
    expect(card).to_have_attribute("data-status", "done", timeout=(LATE_TIMEOUT + 30) * 1000)
    expect(card).to_contain_text("timeout: cancel after 12 s")
    late = card.locator(".agui-late")
    expect(late).to_have_text(
        "Your Approve arrived after the timeout had cancelled; nothing was sent.",
        timeout=(LATE_BUSY + 30) * 1000,
    )
    expect(late).to_have_attribute("role", "status")
    expect(card.locator(".agui-ack-error")).to_be_hidden()
    shot(card, "marimo-card-late-click")
    # The audit (in the view, saved with it) keeps the late click.
    audit = first.locator("details.agui-audit")
    audit.locator("summary").click()
    expect(audit).to_contain_text("late, not sent: timeout: cancel after 12 s had decided")
    # And the agent received exactly one resume: the timeout's cancel.
    expect(cells(page).nth(2)).to_contain_text(
        'E2E-RESUMES interrupt ["cancelled"]', timeout=WAIT_MS
    )
    assert_clean(page_log)


def test_a_click_continuing_into_a_new_page_of_items(
    marimo_edit: MarimoServer, page: Page, page_log: PageLog
) -> None:
    """The answer after the click is the first item of the view's second page: its page is
    opened by the click's continuation, outside any cell's run, where marimo cannot serve an
    anywidget's module (the page model is a plain widget model)."""
    open_notebook(page, marimo_edit, "page_filled.py")
    first = cells(page).nth(0)
    card = pending_card(first)
    expect(first.locator(".agui-item")).to_have_count(PAGE_SIZE)
    card.locator('button[data-action="approve"]').click()
    expect(card).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    expect(first.locator(".agui-page")).to_have_count(2, timeout=WAIT_MS)
    expect(first.locator(".agui-page").nth(1).locator(".agui-assistant")).to_contain_text(
        "Transferred 500.00 USD from 1234567890 to 0987654321", timeout=WAIT_MS
    )
    assert_clean(page_log)
