"""Deciding with your data, in real JupyterLab driven by headless Chromium (issue 43): a pandas
DataFrame preview drawn in its sandboxed frame, a failing check that turns Approve off, an Edit
that redraws the preview (and lets the edit through once its check passes), the verdict; a
matplotlib figure drawn from inline PNG data; and a hostile preview (a script, an onerror image,
a remote image, CSS url(), a meta refresh...) that runs nothing and requests nothing but the
Jupyter server, on the page's own network log.

The demo agent runs on loopback inside this pytest process, as in test_card_e2e.py, and so does
a tracker that counts every request it gets. Screenshots go to artifacts/browser/ (preview-*.png);
the DataFrame card is published to docs/images/card-preview.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from _demo import TimedDemo, start_demo
from _jupyter import JupyterServer
from playwright.sync_api import FrameLocator, Locator, Page, expect
from test_card_e2e import (  # the same servers, pages and helpers as the card tests
    WAIT_MS,
    _module_server,
    _thread,
    open_session,
    pending_card,
    publish,
    shot,
    wait_ready,
)
from test_content_e2e import Tracker, foreign, record_requests

pytestmark = pytest.mark.browser
__all__ = ["open_session"]  # a fixture used by the tests below

OVERDRAFT = "Transfer $3000 from 1234567890 to 0987654321"


@pytest.fixture(scope="module")
def demo() -> Iterator[TimedDemo]:
    yield from start_demo()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    yield from _module_server("lab", tmp_path_factory)


@pytest.fixture(scope="module")
def tracker() -> Iterator[Tracker]:
    t = Tracker()
    yield t
    t.close()


def prelude(url: str, thread: str, previews: str) -> str:
    """The first cell: a chat with previews and checks against the loopback demo, for a person."""
    return (
        "import os\n"
        'os.environ.pop("AGUI_NOTEBOOK_POLICY", None)\n'
        "import pandas as pd\n"
        "from agui_notebook import Agent\n"
        "accounts = pd.DataFrame({'account': ['1234567890', '0987654321'],\n"
        "                         'balance': [2500.0, 1000.0]})\n"
        "def balances_after(args, context):\n"
        "    after = accounts.copy()\n"
        "    after.loc[after.account == args['from_account'], 'balance'] -= args['amount']\n"
        "    after.loc[after.account == args['to_account'], 'balance'] += args['amount']\n"
        "    return after\n"
        "def no_overdraft(args, context):\n"
        "    balance = accounts.set_index('account').balance[args['from_account']]\n"
        "    if args['amount'] > balance:\n"
        "        return f'overdraft: {args[\"amount\"]:,.2f} from {balance:,.2f}'\n"
        f"agent = Agent({url!r})\n"
        f"chat = agent.chat({thread!r}, timeout=120, previews={previews},\n"
        "                  checks={'transfer_*': no_overdraft})\n"
        "assert chat.policy is None, chat.policy\n"
        'print("E2E-READY", chat.thread.id)\n'
    )


def preview_frame(card: Locator) -> FrameLocator:
    return card.frame_locator("iframe.agui-preview-frame")


def frame_loaded(page: Page, card: Locator) -> None:
    """Wait until the preview's frame has loaded its document (and anything it could load)."""
    handle = card.locator("iframe.agui-preview-frame").element_handle(timeout=WAIT_MS)
    page.wait_for_function(
        "f => f.contentDocument && f.contentDocument.readyState === 'complete'",
        arg=handle,
        timeout=WAIT_MS,
    )


def test_a_dataframe_preview_a_failing_check_and_an_edit_that_redraws_it(
    lab: JupyterServer, demo: TimedDemo, open_session: Any, page: Page
) -> None:
    urls = record_requests(page)
    thread = _thread("preview")
    session = open_session(
        lab,
        "preview.ipynb",
        [
            prelude(demo.url, thread, "{'transfer_money': balances_after}"),
            f"await chat.send({OVERDRAFT!r})",
        ],
    )
    wait_ready(session.cell(0))
    cell = session.cell(1)
    card = pending_card(cell)

    # The preview: the DataFrame's table, in a sandboxed frame sized to it.
    preview = card.locator('.agui-preview[data-status="shown"][data-kind="html"]')
    expect(preview).to_be_visible(timeout=WAIT_MS)
    expect(preview.locator(".agui-preview-label")).to_have_text(
        "Preview (computed in this notebook)"
    )
    frame = card.locator("iframe.agui-preview-frame")
    assert frame.get_attribute("sandbox") == "allow-same-origin"
    expect(preview_frame(card).locator("table")).to_contain_text("-500.0", timeout=WAIT_MS)
    frame_loaded(page, card)
    # Sized to its table (three rows), not left at its first height.
    page.wait_for_function(
        "f => f.getBoundingClientRect().height > 60", arg=frame.element_handle(), timeout=WAIT_MS
    )

    # The failing check: Approve off, the reason said, Approve anyway waiting for a reason.
    checks = card.locator(".agui-checks")
    expect(checks).to_have_attribute("data-passed", "false", timeout=WAIT_MS)
    expect(checks).to_contain_text("no_overdraft: overdraft: 3,000.00 from 2,500.00")
    expect(card.locator('button[data-action="approve"]')).to_be_disabled()
    expect(card.locator('button[data-action="reject"]')).to_be_enabled()
    expect(card.locator('button[data-action="approve-anyway"]')).to_be_visible()
    shot(card, "card-preview")
    publish("card-preview")

    # Edit: 2000 instead; the preview is computed again for the edited arguments.
    card.locator('button[data-action="edit"]').click()
    amount = card.locator('.agui-edit .agui-field[data-path="amount"] input')
    amount.fill("2000")
    edited = card.locator('.agui-preview[data-status="shown"][data-of="edited"]')
    expect(edited).to_be_visible(timeout=WAIT_MS)
    expect(edited.locator(".agui-preview-label")).to_have_text(
        "Preview of the edited arguments (computed in this notebook)"
    )
    expect(preview_frame(card).locator("table")).to_contain_text("500.0", timeout=WAIT_MS)
    expect(preview_frame(card).locator("table")).not_to_contain_text("-500.0")
    expect(checks).to_have_attribute("data-passed", "true", timeout=WAIT_MS)
    # Approve would send the proposed 3000: still off. The edit goes through.
    expect(card.locator('button[data-action="approve"]')).to_be_disabled()
    shot(card, "preview-edited")
    card.locator('button[data-action="edit-send"]').click()
    expect(card).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    verdict = card.locator('.agui-verdict[data-verdict="executed"]')
    expect(verdict).to_have_text(
        "Execution: Executed: the agent reported a result for transfer_money", timeout=WAIT_MS
    )
    [resume] = demo.wait_for_resumes(thread, 1)
    payload = resume.body["resume"][0]["payload"]
    assert payload["approved"] is True and payload["editedArgs"]["amount"] == 2000, payload
    shot(card, "preview-done")
    assert foreign(urls, lab) == [], foreign(urls, lab)
    session.assert_clean()


def test_a_matplotlib_preview_is_drawn_from_inline_png_data(
    lab: JupyterServer, demo: TimedDemo, open_session: Any, page: Page
) -> None:
    thread = _thread("figure")
    chart = (
        "from matplotlib.figure import Figure\n"
        "def chart(args, context):\n"
        "    figure = Figure(figsize=(3, 2))\n"
        "    after = balances_after(args, context)\n"
        "    figure.add_subplot().bar(after.account, after.balance)\n"
        "    return figure\n"
    )
    session = open_session(
        lab,
        "figure.ipynb",
        [
            chart + prelude(demo.url, thread, "{'transfer_money': chart}"),
            'await chat.send("Transfer $500 from 1234567890 to 0987654321")',
        ],
    )
    wait_ready(session.cell(0))
    card = pending_card(session.cell(1))
    img = card.locator('.agui-preview[data-kind="image"] img.agui-preview-img')
    expect(img).to_be_visible(timeout=WAIT_MS)
    assert (img.get_attribute("src") or "").startswith("data:image/png;base64,iVBORw0KGgo")
    page.wait_for_function(
        "img => img.complete && img.naturalWidth > 100", arg=img.element_handle(), timeout=WAIT_MS
    )
    expect(card.locator('button[data-action="approve"]')).to_be_enabled()
    shot(card, "preview-figure")
    card.locator('button[data-action="approve"]').click()
    expect(card.locator('.agui-verdict[data-verdict="executed"]')).to_be_visible(timeout=WAIT_MS)
    session.assert_clean()


def hostile_html(tracker: str) -> str:
    return (
        "<script>window.parent.__pwned = 1; fetch('TRACKER/script')</script>"
        "<img src='TRACKER/img.png' onerror='window.parent.__pwned = 2'>"
        "<img src='x-relative.png' onerror='window.parent.__pwned = 3'>"
        "<div style=\"background-image: url('TRACKER/inline-css')\">css</div>"
        "<style>@import url('TRACKER/import.css'); body { background: url('TRACKER/css'); }"
        " @font-face { font-family: f; src: url('TRACKER/font.woff'); } p { font-family: f; }</style>"
        "<p>text</p>"
        "<link rel='stylesheet' href='TRACKER/link.css'>"
        "<meta http-equiv='refresh' content='0; url=TRACKER/refresh'>"
        "<iframe src='TRACKER/frame'></iframe>"
        "<object data='TRACKER/object'></object>"
        "<video poster='TRACKER/poster.png'></video>"
        "<svg><image href='TRACKER/svg.png'/></svg>"
        "<form action='TRACKER/form'><input type='image' src='TRACKER/input.png'></form>"
        "<b>agent-written</b>"
    ).replace("TRACKER", tracker)


def test_a_hostile_preview_runs_nothing_and_requests_nothing_but_the_jupyter_server(
    lab: JupyterServer, demo: TimedDemo, tracker: Tracker, open_session: Any, page: Page
) -> None:
    urls = record_requests(page)
    answered: list[str] = []  # requests that went out and got an answer
    refused: dict[str, str] = {}  # requests the browser did not send, and why
    page.on("response", lambda response: answered.append(response.url))
    page.on("requestfailed", lambda request: refused.update({request.url: request.failure or ""}))
    thread = _thread("hostile-preview")
    hostile = (
        "class Hostile:\n"
        f"    def _repr_html_(self): return {hostile_html(tracker.url)!r}\n"
        "def hostile(args, context): return Hostile()\n"
    )
    session = open_session(
        lab,
        "hostile_preview.ipynb",
        [
            hostile + prelude(demo.url, thread, "{'transfer_money': hostile}"),
            'await chat.send("Transfer $500 from 1234567890 to 0987654321")',
        ],
    )
    wait_ready(session.cell(0))
    card = pending_card(session.cell(1))
    expect(card.locator('.agui-preview[data-kind="html"]')).to_be_visible(timeout=WAIT_MS)
    expect(preview_frame(card).locator("b")).to_have_text("agent-written", timeout=WAIT_MS)
    frame_loaded(page, card)
    # What the frame would have run or loaded by now: nothing. (A failed load fires onerror only
    # where scripts run; a CSP refusal is reported as a violation, counted below.)
    frame = card.locator("iframe.agui-preview-frame")
    state = frame.evaluate(
        """f => ({
          pwned: window.__pwned ?? null,
          framePwned: f.contentWindow.__pwned ?? null,
          location: f.contentWindow.location.href,
          scripts: f.contentDocument.querySelectorAll('script').length,
          disarmed: f.contentDocument.querySelectorAll('meta[http-equiv="refresh"]').length,
        })"""
    )
    assert state == {
        "pwned": None,
        "framePwned": None,
        "location": "about:srcdoc",
        "scripts": 1,  # there, inert
        "disarmed": 0,
    }, state
    # The card's own buttons are untouched; decide, and the frame still loads nothing.
    card.locator('button[data-action="reject"]').click()
    expect(card).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    # The network log: the frame's loads were refused by its CSP before they went out (Chromium
    # logs them as requests blocked by the CSP); nothing but the Jupyter server answered.
    assert tracker.hits == [], tracker.hits
    assert foreign(answered, lab) == [], foreign(answered, lab)
    tried = foreign(urls, lab) + [u for u in urls if "relative" in u]
    assert tried, "the hostile preview tried nothing: the test would prove nothing"
    not_blocked = {u: refused.get(u) for u in tried if refused.get(u) != "csp"}
    assert not_blocked == {}, not_blocked
    assert not [u for u in answered if "relative" in u]  # not fetched from Jupyter either
    shot(card, "preview-hostile")
    session.assert_clean()
