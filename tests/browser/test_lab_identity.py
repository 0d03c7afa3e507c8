"""What a real JupyterLab puts in a click's message header, and what the audit makes of it.

The demo agent's card is clicked in JupyterLab (and Notebook 7); the cell prints the audit
record. JupyterLab 4.6 with jupyter_server 2.21 and no identity extension sends an empty header
``username`` (its session connection is given none), so the record falls back to the kernel's
user, ``identity: "kernel"``, and says why (docs/security.md). A server that stamps the header
would turn this into ``identity: "server"``: this test then fails and the docs need updating.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _jupyter import JupyterServer, PageLog
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

NOTEBOOK = "identity.ipynb"

CELL = """\
import json, os
os.environ.pop("AGUI_NOTEBOOK_POLICY", None)
from agui_notebook import Agent
chat = Agent.demo(text_delay=0).chat(timeout=120)
await chat.send("Transfer $500 from 1234567890 to 0987654321")
r = chat.audit[-1]
print("WHO", json.dumps([r["decided_by"], r["identity"], r["kernel_user"], r["identity_note"]]))
"""


@pytest.fixture
def jupyter_notebooks_dir() -> Path | None:
    return None  # an empty root: the test writes its own notebook


def test_the_header_jupyterlab_sends_names_nobody_so_the_kernel_decides(
    jupyter_server: JupyterServer, page: Page, page_log: PageLog
) -> None:
    jupyter_server.write_notebook(NOTEBOOK, [CELL])
    jupyter_server.open_notebook(page, NOTEBOOK)
    jupyter_server.run_all(page, NOTEBOOK)
    cell = page.locator(".jp-Notebook .jp-CodeCell").first
    card = cell.locator('.agui-card[data-status="pending"]')
    expect(card).to_be_visible(timeout=90_000)
    card.locator('button[data-action="approve"]').click()
    output = cell.locator(".jp-OutputArea")
    expect(output).to_contain_text("WHO", timeout=90_000)
    line = next(x for x in output.inner_text().splitlines() if x.startswith("WHO "))
    assert '"kernel"' in line and "has no username (it was '')" in line, line
    done = cell.locator('.agui-card[data-status="done"]')
    expect(done.locator(".agui-card-status")).to_have_text("Approved by you")
    assert page_log.errors_matching(r"agui|anywidget") == []
