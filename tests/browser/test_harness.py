"""The browser recipe itself: a click in the page reaches a cell that awaits it.

A tiny anywidget button `model.send`s a custom message; the cell awaits an asyncio future that the
`on_msg` handler resolves with `loop.call_soon_threadsafe` (JupyterLab >= 4.4 may deliver comm
messages on a subshell thread, docs/kernel-waiting.md), then prints "clicked" into the same cell.
Runs in JupyterLab and in Notebook 7, and checks the kernel is the project's venv.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from _jupyter import JupyterServer, PageLog
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

NOTEBOOK = "harness.ipynb"

CELL = '''\
import asyncio, sys
import anywidget

print("prefix:", sys.prefix)

class HarnessButton(anywidget.AnyWidget):
    _esm = """
    export default {
      render({ model, el }) {
        const button = document.createElement("button");
        button.className = "agui-harness-button";
        button.textContent = "press me";
        button.addEventListener("click", () => model.send({ type: "click" }));
        el.appendChild(button);
      },
    };
    """

loop = asyncio.get_running_loop()
clicked = loop.create_future()

def on_msg(widget, content, buffers):
    if content.get("type") == "click":
        loop.call_soon_threadsafe(lambda: clicked.done() or clicked.set_result(True))

button = HarnessButton()
button.on_msg(on_msg)
display(button)
await asyncio.wait_for(clicked, 60)
print("clicked")
'''


@pytest.fixture
def jupyter_notebooks_dir() -> Path | None:
    return None  # an empty root: the test writes its own notebook


def test_click_reaches_awaiting_cell(
    jupyter_server: JupyterServer, page: Page, page_log: PageLog
) -> None:
    jupyter_server.write_notebook(NOTEBOOK, [CELL])
    jupyter_server.open_notebook(page, NOTEBOOK)
    jupyter_server.run_all(page, NOTEBOOK)

    cell = page.locator(".jp-Notebook .jp-CodeCell").first
    output = cell.locator(".jp-OutputArea")
    expect(output).to_contain_text(f"prefix: {sys.prefix}", timeout=60_000)
    button = cell.locator("button.agui-harness-button")
    expect(button).to_be_visible(timeout=30_000)
    expect(output).not_to_contain_text("clicked")

    button.click()

    expect(output).to_contain_text("clicked", timeout=30_000)
    assert "Error" not in output.inner_text()
    assert jupyter_server.wait_for_kernel_idle(NOTEBOOK)["kernel"]["execution_state"] == "idle"
    assert page_log.errors_matching(r"agui-harness|anywidget") == []
