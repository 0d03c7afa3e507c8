"""Two people, one notebook: JupyterLab with jupyter-collaboration, two Playwright browser contexts
logged in as Ada Lovelace and Grace Hopper (tests/browser/_named_users.py), the loopback demo
agent (tests/browser/_demo.py) and the server extension that stamps the authenticated user into
every kernel message (agui_notebook._notebook.server_identity).

Ada runs the cell; the card shows in both views (Grace's after she trusts the notebook: a
collaborator's copy of an output is untrusted, docs/browser-testing.md); whoever clicks, the demo
receives exactly one resume, both views show who decided, and the audit names the clicker with
``identity: "server"``. One JupyterLab for the module; nothing skips (a server, the collaboration
extension or Chromium that cannot start fails the test).
"""

from __future__ import annotations

import getpass
import json
import re
import shutil
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from _demo import TimedDemo, start_demo
from _jupyter import REPO_ROOT, JupyterServer, PageLog, start_server
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.browser

ARTIFACTS = REPO_ROOT / "artifacts" / "browser"
TRANSFER = "Transfer $500 from 1234567890 to 0987654321"
WAIT_MS = 30_000
USERS = {
    "ada": {"name": "Ada Lovelace", "display_name": "Ada Lovelace"},
    "grace": {"name": "Grace Hopper", "display_name": "Grace Hopper"},
}
STAMP = "--ServerApp.jpserver_extensions=agui_notebook=True"  # the package's own extension point
# The collaboration server saves the shared document itself; a page's own autosave of a notebook
# made dirty by "Trust Notebook" then finds the file changed on disk and opens a modal dialog.
NO_AUTOSAVE = {"@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False}}
# Every click on a card button, time-stamped in the page (Date.now(), same clock as time.time()).
CLICK_RECORDER = """
document.addEventListener("click", (event) => {
  const target = event.target instanceof Element ? event.target.closest("[data-action]") : null;
  if (target && target.closest(".agui-chat")) {
    (window.__aguiClicks = window.__aguiClicks || []).push({
      action: target.getAttribute("data-action"), t: Date.now() / 1000,
    });
  }
}, true);
"""


@pytest.fixture(scope="module")
def demo() -> Iterator[TimedDemo]:
    yield from start_demo()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    server = start_server(
        "lab",
        tmp_path_factory.mktemp("collab"),
        collaborative=True,
        users=USERS,
        extra_args=[STAMP],
        user_settings=NO_AUTOSAVE,
    )
    try:
        log = server.read_log()
        # Fail loudly, never skip: the set-up the tests below depend on is really there.
        assert "jupyter_server_ydoc | extension was successfully loaded" in log, log[-3000:]
        assert "kernel messages carry the authenticated username" in log, log[-3000:]
        yield server
    finally:
        server.shutdown()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(server.log_path, ARTIFACTS / "test_collaboration.lab-server.log")


@dataclass
class View:
    """One person's page on the shared notebook."""

    user: str
    page: Page
    log: PageLog

    def cell(self, index: int) -> Locator:
        return self.page.locator(".jp-Notebook .jp-Cell").nth(index)

    def card(self, index: int, card: str = "card-1") -> Locator:
        return self.cell(index).locator(f'.agui-card[data-card-id="{card}"]').first

    def approve(self, index: int, card: str = "card-1") -> Locator:
        return self.card(index, card).locator('button[data-action="approve"]')

    def trust(self) -> None:
        """Command palette -> Trust Notebook -> Trust: a collaborator's outputs are untrusted
        until then, so JupyterLab shows their plain-text form instead of the widget."""
        self.page.locator(".jp-Notebook").first.click()
        self.page.keyboard.press("Control+Shift+c")
        self.page.locator(".lm-CommandPalette-input").fill("Trust Notebook")
        self.page.keyboard.press("Enter")
        self.page.locator(".jp-Dialog button.jp-mod-accept").click()

    def clicks(self) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self.page.evaluate("window.__aguiClicks || []")
        return result


@pytest.fixture
def views(browser: Any, request: pytest.FixtureRequest) -> Iterator[dict[str, View]]:
    """A browser context per person (their own cookies: their own login)."""
    contexts, opened = [], {}
    for user in USERS:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.set_default_timeout(30_000)
        page = context.new_page()
        log = PageLog()
        page.on("console", log.console)
        page.on("pageerror", log.pageerror)
        page.add_init_script(CLICK_RECORDER)
        contexts.append(context)
        opened[user] = View(user, page, log)
    yield opened
    if getattr(getattr(request.node, "rep_call", None), "failed", False):
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        stem = ARTIFACTS / re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.nodeid)
        for view in opened.values():
            try:
                view.page.screenshot(path=f"{stem}.{view.user}.png", full_page=True)
            except Exception as exc:  # the page may be gone; the log still matters
                view.log.lines.append(f"[harness] screenshot failed: {exc}")
            (stem.parent / f"{stem.name}.{view.user}.console.log").write_text(
                "\n".join(view.log.lines) + "\n", encoding="utf-8"
            )
    for context in contexts:
        context.close()


def _thread(name: str) -> str:
    return f"collab-{name}-{int(time.time() * 1000)}"


def _cells(url: str, thread: str, approvals: int = 1) -> list[str]:
    return [
        "import os, json\n"
        'os.environ.pop("AGUI_NOTEBOOK_POLICY", None)\n'
        "from agui_notebook import Agent\n"
        f"chat = Agent({url!r}).chat({thread!r}, timeout=120, approvals={approvals})\n"
        'print("E2E-READY", os.environ.get("AGUI_NOTEBOOK_SERVER_IDENTITY"))\n',
        f"turn = await chat.send({TRANSFER!r})\nprint('E2E-OUTCOME', turn.outcome)\n",
        'print("E2E-AUDIT", json.dumps(chat.audit, default=str))\n',
    ]


def _share(lab: JupyterServer, views: dict[str, View], notebook: str, cells: list[str]) -> None:
    """Both people open the notebook, Ada runs it; both see the pending card."""
    lab.write_notebook(notebook, cells)
    ada, grace = views["ada"], views["grace"]
    lab.open_notebook(ada.page, notebook, user="ada")
    lab.open_notebook(grace.page, notebook, user="grace")
    # Grace's copy of the notebook comes from the shared document before anything runs.
    expect(grace.cell(1)).to_contain_text("chat.send", timeout=WAIT_MS)
    lab.run_all(ada.page, notebook)
    expect(ada.cell(0).locator(".jp-OutputArea")).to_contain_text(
        "E2E-READY stamped", timeout=60_000
    )
    expect(ada.card(1)).to_have_attribute("data-status", "pending", timeout=WAIT_MS)
    # The output reached Grace through the shared document, as text until she trusts it.
    expect(grace.cell(1).locator(".jp-OutputArea")).not_to_be_empty(timeout=WAIT_MS)
    grace.trust()
    expect(grace.card(1)).to_have_attribute("data-status", "pending", timeout=WAIT_MS)


def _audit(view: View) -> list[dict[str, Any]]:
    output = view.cell(2).locator(".jp-OutputArea")
    expect(output).to_contain_text("E2E-AUDIT", timeout=WAIT_MS)
    text = output.inner_text()
    match = re.search(r"E2E-AUDIT (.*)", text)
    assert match, text
    entries: list[dict[str, Any]] = json.loads(match.group(1))
    return entries


def _assert_clean(views: dict[str, View]) -> None:
    for view in views.values():
        assert view.log.errors_matching(r"agui|anywidget|chat\.js") == [], view.user


def _settle(demo: TimedDemo, thread: str, count: int) -> list[Any]:
    """The resumes `thread` received, after room for a stray extra one to arrive."""
    demo.wait_for_resumes(thread, count)
    time.sleep(0.5)
    return demo.resumes(thread)


def test_each_person_is_who_their_token_says(lab: JupyterServer) -> None:
    """The test identity provider: /api/me answers each person's user model for their token,
    and the server's own token is somebody else (an anonymous user)."""
    for user, fields in USERS.items():
        url = f"{lab.url}api/me?token={lab.user_tokens[user]}"
        with urllib.request.urlopen(url, timeout=10) as response:
            identity = json.loads(response.read())["identity"]
        assert identity["username"] == user and identity["name"] == fields["name"], identity
    assert lab.api("GET", "api/me")["identity"]["username"] not in USERS


def test_grace_approves_the_card_ada_ran(
    lab: JupyterServer, demo: TimedDemo, views: dict[str, View]
) -> None:
    """Ada runs the cell, Grace clicks Approve: one transfer; both views say Grace decided; the
    audit names grace with identity "server" and the kernel's own user beside her."""
    thread = _thread("approve")
    _share(lab, views, "approve.ipynb", _cells(demo.url, thread))
    ada, grace = views["ada"], views["grace"]

    grace.approve(1).click()

    [resume] = _settle(demo, thread, 1)
    assert resume.body["resume"][0]["payload"] == {"approved": True}
    latency_ms = (resume.time - grace.clicks()[-1]["t"]) * 1000
    print(f"\ncollaborative click (Grace) -> resume at the server: {latency_ms:.0f} ms")
    for view in (ada, grace):
        card = view.card(1)
        expect(card).to_have_attribute("data-status", "done", timeout=WAIT_MS)
        expect(card.locator(".agui-decision")).to_contain_text(
            re.compile("approved by Grace Hopper", re.IGNORECASE)
        )
        expect(view.cell(1).locator(".agui-assistant").last).to_contain_text(
            "Transferred 500.00 USD", timeout=WAIT_MS
        )
    [entry] = [e for e in _audit(ada) if e["decision"] == "approve"]
    assert entry["decided_by"] == "grace", entry
    assert entry["identity"] == "server", entry
    assert entry["kernel_user"] == getpass.getuser(), entry
    assert entry["decidedBy"] == "Grace Hopper", entry
    assert ada.clicks() == []  # Ada never clicked
    _assert_clean(views)


def test_four_eyes_needs_two_different_people(
    lab: JupyterServer, demo: TimedDemo, views: dict[str, View]
) -> None:
    """approvals=2: Ada's Approve is counted and shown in both views, her second Approve does not
    count, nothing is sent until Grace approves; then exactly one resume."""
    thread = _thread("four-eyes")
    _share(lab, views, "four_eyes.ipynb", _cells(demo.url, thread, approvals=2))
    ada, grace = views["ada"], views["grace"]

    ada.approve(1).click()
    for view in (ada, grace):
        expect(view.card(1)).to_contain_text("1 of 2 approvals: Ada Lovelace", timeout=WAIT_MS)
        expect(view.card(1)).to_have_attribute("data-status", "pending")
    ada.approve(1).click()  # the same person again: still one approval
    expect(ada.card(1)).to_contain_text("already approved", timeout=WAIT_MS)
    time.sleep(0.5)
    assert demo.resumes(thread) == []
    for view in (ada, grace):
        expect(view.card(1)).to_contain_text("1 of 2 approvals: Ada Lovelace")

    grace.approve(1).click()

    [resume] = _settle(demo, thread, 1)
    assert resume.body["resume"][0]["payload"] == {"approved": True}
    for view in (ada, grace):
        expect(view.card(1)).to_have_attribute("data-status", "done", timeout=WAIT_MS)
        expect(view.card(1).locator(".agui-decision")).to_contain_text("Grace Hopper")
    approvals = [e for e in _audit(ada) if e["decision"] == "approve"]
    assert [(e["decided_by"], e["identity"]) for e in approvals] == [
        ("ada", "server"),
        ("grace", "server"),
    ], approvals
    _assert_clean(views)


def test_both_click_at_once_one_resume(
    lab: JupyterServer, demo: TimedDemo, views: dict[str, View]
) -> None:
    """Ada and Grace click Approve in the same instant: one resume; the view whose click lost is
    told so, as a note; the other click is never sent (the audit keeps it, marked late). The
    click-to-resume time is printed, not asserted (bench/collaboration.py measures it)."""
    thread = _thread("race")
    _share(lab, views, "race.ipynb", _cells(demo.url, thread))
    ada, grace = views["ada"], views["grace"]
    # Both pages click at the same wall-clock instant (one machine, one clock): neither can have
    # heard of the other's click, as two people clicking together.
    click = """at => setTimeout(() => document.querySelector(
        '.agui-card[data-card-id="card-1"] button[data-action="approve"]').click(),
        at * 1000 - Date.now())"""
    at = time.time() + 0.5
    ada.page.evaluate(click, at)
    grace.page.evaluate(click, at)

    [resume] = _settle(demo, thread, 1)
    first = min(ada.clicks()[-1]["t"], grace.clicks()[-1]["t"])
    print(f"\nboth clicked -> resume at the server: {(resume.time - first) * 1000:.0f} ms")
    for view in (ada, grace):
        expect(view.card(1)).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    late = [view.card(1).locator(".agui-late:visible") for view in (ada, grace)]
    deadline = time.monotonic() + WAIT_MS / 1000
    while sum(note.count() for note in late) < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [note.count() for note in late] in ([1, 0], [0, 1]), "exactly one view is told late"
    winner = "grace" if late[0].count() else "ada"
    # The losing view is told who won.
    expect(late[0] if late[0].count() else late[1]).to_have_text(
        f"Your Approve arrived after {USERS[winner]['display_name']} had approved; "
        "only that decision was sent."
    )
    entries = _audit(ada)
    [sent] = [e for e in entries if not e.get("late")]
    assert sent["decision"] == "approve" and sent["outcome"] == "success", sent
    assert sent["decided_by"] == winner and sent["identity"] == "server", sent
    # The losing click is in the audit too, marked late and not sent.
    [late_entry] = [e for e in entries if e.get("late")]
    loser = "ada" if winner == "grace" else "grace"
    assert late_entry["outcome"] == (
        f"late, not sent: {USERS[winner]['display_name']} had decided"
    ), late_entry
    assert (late_entry["decided_by"], late_entry["identity"]) == (loser, "server"), late_entry
    _assert_clean(views)
