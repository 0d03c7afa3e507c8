"""The approval card end to end, in real JupyterLab 4 / Notebook 7 driven by headless Chromium.

Every scenario clicks the real card (static/chat.js) in a cell that awaits the click, and checks
what the AG-UI server received. The demo agent runs on loopback *inside this pytest process*
(`start_in_thread`), wrapped in a tiny ASGI middleware that stamps each request's arrival time, so
the test can count resumes and time them; the notebooks talk to it with `Agent(url)`. The quickstart
test runs the repo's notebooks/01_quickstart.ipynb (in-process `Agent.demo()`), so there an extra
last cell prints what the in-kernel demo received.

One JupyterLab and one Notebook 7 server per module. Artifacts (screenshots of the card in each
state, latency.json) go to artifacts/browser/; docs/images/card-pending.png and card-dark.png (the
README shows them) are copied from there when missing, or with AGUI_NOTEBOOK_UPDATE_DOC_IMAGES=1.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from _contrast import CONTRAST_JS
from _demo import TimedDemo, start_demo
from _jupyter import REPO_ROOT, JupyterServer, PageLog, start_server
from _latency import LIMIT_MS, TARGET_MS, check_latency
from playwright.sync_api import Locator, Page, expect

from agui_notebook.demo import create_app, start_in_thread

pytestmark = pytest.mark.browser

TRANSFER = "Transfer $500 from 1234567890 to 0987654321"
DOCS_IMAGES = REPO_ROOT / "docs" / "images"
ARTIFACTS = REPO_ROOT / "artifacts" / "browser"
QUICKSTART = REPO_ROOT / "notebooks" / "01_quickstart.ipynb"
# Text assertions wait this long (the kernel, the widget and the stream all have to move).
WAIT_MS = 30_000


# ------------------------------------------------------------------------------- the demo server


@pytest.fixture(scope="module")
def demo() -> Iterator[TimedDemo]:
    yield from start_demo()


@pytest.fixture(scope="module")
def expiring_demo() -> Iterator[TimedDemo]:
    """Its "quick transfer" approval expires 6 s after it is raised."""
    yield from start_demo(expires_in=6.0)


# ------------------------------------------------------------------------------ servers, pages


def _module_server(kind: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    base = tmp_path_factory.mktemp(f"e2e-{kind}")
    server = start_server(kind, base)  # type: ignore[arg-type]
    try:
        yield server
    finally:
        server.shutdown()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(server.log_path, ARTIFACTS / f"test_card_e2e.{kind}-server.log")


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    yield from _module_server("lab", tmp_path_factory)


@pytest.fixture(scope="module")
def nb7(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    yield from _module_server("notebook", tmp_path_factory)


@pytest.fixture(params=["lab", "notebook"], ids=["jupyterlab", "notebook7"])
def server(request: pytest.FixtureRequest) -> JupyterServer:
    """JupyterLab, then Notebook 7 (each started once per module)."""
    return request.getfixturevalue("lab" if request.param == "lab" else "nb7")


# Every click on a card button is time-stamped in the page (Date.now(), same clock as time.time()).
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


@dataclass
class Session:
    """One notebook opened in one page, with what the page did."""

    server: JupyterServer
    page: Page
    notebook: str
    dialogs: list[str]
    page_log: PageLog

    def cell(self, index: int) -> Locator:
        return self.page.locator(".jp-Notebook .jp-Cell").nth(index)

    def assert_clean(self) -> None:
        """No browser dialog opened, no error from our widget, nothing from the hostile payloads ran."""
        assert self.dialogs == [], f"a dialog opened: {self.dialogs}"
        assert self.page.evaluate("window.__pwned") is None
        assert self.page_log.errors_matching(r"agui|anywidget|chat\.js") == []


@pytest.fixture
def open_session(
    page: Page, page_log: PageLog
) -> Iterator[Callable[[JupyterServer, str, list[str]], Session]]:
    """`open_session(server, "x.ipynb", cells)`: write, open and Run All a notebook."""
    dialogs: list[str] = []

    def on_dialog(dialog: Any) -> None:
        dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.add_init_script(CLICK_RECORDER)
    opened: list[tuple[JupyterServer, str]] = []

    def open_(server: JupyterServer, notebook: str, cells: list[str] | None) -> Session:
        if cells is not None:
            server.write_notebook(notebook, cells)
        opened.append((server, notebook))
        server.open_notebook(page, notebook)
        server.run_all(page, notebook)
        return Session(server, page, notebook, dialogs, page_log)

    yield open_
    for server, notebook in opened:
        server.shutdown_notebook_kernel(notebook)


def prelude(url: str, thread: str) -> str:
    """The first cell: a chat on `thread` against the loopback demo, waiting for a person."""
    return (
        "import os, json, asyncio\n"
        'os.environ.pop("AGUI_NOTEBOOK_POLICY", None)\n'
        "from agui_notebook import Agent\n"
        f"agent = Agent({url!r})\n"
        f"chat = agent.chat({thread!r}, timeout=120)\n"
        "assert chat.policy is None, chat.policy\n"
        'print("E2E-READY", chat.thread.id)\n'
    )


def _thread(name: str, server: JupyterServer | None = None) -> str:
    suffix = f"-{server.kind}" if server is not None else ""
    return f"e2e-{name}{suffix}-{int(time.time() * 1000)}"


def shot(locator: Locator, name: str) -> Path:
    """Save a screenshot of `locator` as artifacts/browser/<name>.png."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    locator.screenshot(path=str(path), animations="disabled")
    return path


def publish(name: str) -> None:
    """Copy artifacts/browser/<name>.png to docs/images/ (the README's pictures) when it is not
    there yet, or always with AGUI_NOTEBOOK_UPDATE_DOC_IMAGES=1: the card shows a clock, so a
    copy on every run would change the committed image every time."""
    target = DOCS_IMAGES / f"{name}.png"
    if target.exists() and os.environ.get("AGUI_NOTEBOOK_UPDATE_DOC_IMAGES") != "1":
        return
    DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ARTIFACTS / f"{name}.png", target)


def wait_ready(cell: Locator) -> None:
    expect(cell.locator(".jp-OutputArea")).to_contain_text("E2E-READY", timeout=60_000)


def pending_card(cell: Locator, card: str = "card-1") -> Locator:
    locator = cell.locator(f'.agui-card[data-card-id="{card}"]').first
    expect(locator).to_have_attribute("data-status", "pending", timeout=WAIT_MS)
    return locator


# ------------------------------------------------------------------------------------- tests


def test_quickstart_approve(server: JupyterServer, open_session: Any, page: Page) -> None:
    """notebooks/01_quickstart.ipynb: Run All, click Approve; the answer streams into the same
    cell and the in-kernel demo received exactly one resume, with the approval."""
    nb = json.loads(QUICKSTART.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    nb["cells"].append(
        {
            "cell_type": "code",
            "id": "e2e-check",
            "metadata": {},
            "execution_count": None,
            "outputs": [],
            "source": (
                "import json\n"
                '_resumes = [r["body"]["resume"] for r in agent.demo_app.requests '
                'if (r["body"] or {}).get("resume")]\n'
                'print("E2E-RESUMES", len(_resumes))\n'
                'print("E2E-PAYLOAD", json.dumps(_resumes))\n'
                'print("E2E-POLICY", chat.policy)\n'
            ),
        }
    )
    name = "quickstart_e2e.ipynb"
    (server.root_dir / name).write_text(json.dumps(nb), encoding="utf-8")
    send_index = next(
        i for i, c in enumerate(nb["cells"]) if "await chat.send(" in "".join(c["source"])
    )
    session = open_session(server, name, None)
    cell = session.cell(send_index)
    card = pending_card(cell)
    expect(card.locator(".agui-tool-name")).to_have_text("transfer_money")
    expect(card).to_contain_text("0987654321")
    if server.kind == "lab":
        shot(card, "card-pending")
        shot(cell.locator(".agui-chat"), "chat-pending")
        publish("card-pending")

    card.locator('button[data-action="approve"]').click()

    expect(card).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    output = cell.locator(".jp-OutputArea")
    expect(output.locator(".agui-assistant").last).to_contain_text(
        "Transferred 500.00 USD from 1234567890 to 0987654321", timeout=WAIT_MS
    )
    expect(card.locator(".agui-decision")).to_contain_text("approved by you")
    # The cell's value: the final result, with the decision line.
    expect(output).to_contain_text("by you", timeout=WAIT_MS)
    # The turn's end updated the display in place (its text forms are now the final ones): it is
    # still the live widget, not the static HTML the output also carries, and the card kept its
    # state.
    expect(output.locator(".agui-chat")).to_have_count(1)
    expect(output.locator(".agui-static")).to_have_count(0)
    expect(card).to_have_attribute("data-status", "done")
    expect(card.locator(".agui-decision")).to_contain_text("approved by you")
    expect(output.locator(".agui-status").first).to_have_text("finished")
    if server.kind == "lab":
        shot(card, "card-done")

    last = session.cell(len(nb["cells"]) - 1).locator(".jp-OutputArea")
    expect(last).to_contain_text("E2E-RESUMES", timeout=60_000)
    text = last.inner_text()
    assert re.search(r"E2E-RESUMES 1\b", text), text
    assert "E2E-POLICY None" in text, text
    payload = json.loads(re.search(r"E2E-PAYLOAD (.*)", text).group(1))  # type: ignore[union-attr]
    assert len(payload) == 1 and len(payload[0]) == 1, payload
    entry = payload[0][0]
    assert entry["status"] == "resolved" and entry["payload"] == {"approved": True}, entry
    session.assert_clean()


def test_reject_edit_cancel(lab: JupyterServer, demo: TimedDemo, open_session: Any) -> None:
    """Reject with a reason; edit an argument in the card's form (the diff shows it); Cancel."""
    thread = _thread("decisions")
    session = open_session(
        lab,
        "decisions.ipynb",
        [
            prelude(demo.url, thread),
            f"await chat.send({TRANSFER!r})",
            f"await chat.send({TRANSFER!r})",
            f"await chat.send({TRANSFER!r})",
        ],
    )
    wait_ready(session.cell(0))

    # Reject, with a reason.
    cell = session.cell(1)
    card = pending_card(cell)
    card.locator("textarea.agui-reason").fill("Wrong account, <b>check</b> it")
    card.locator('button[data-action="reject"]').click()
    expect(card).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    expect(card.locator(".agui-decision")).to_contain_text("rejected by you")
    expect(card.locator(".agui-decision")).to_contain_text("Reason: Wrong account, <b>check</b> it")
    expect(cell.locator(".agui-tool").first).to_have_attribute("data-status", "rejected")
    expect(cell.locator(".agui-assistant").last).to_contain_text(
        "OK, I did not transfer 500.00 USD", timeout=WAIT_MS
    )
    shot(card, "card-rejected")
    [resume] = demo.wait_for_resumes(thread, 1)
    [entry] = resume.body["resume"]
    assert entry["status"] == "resolved"
    assert entry["payload"] == {"approved": False, "reason": "Wrong account, <b>check</b> it"}

    # Edit the amount: the diff lists the change before sending.
    cell = session.cell(2)
    card = pending_card(cell, "card-2")
    card.locator('button[data-action="edit"]').click()
    edit = card.locator(".agui-edit")
    expect(edit).to_be_visible()
    amount = edit.locator('.agui-field[data-path="amount"] input')
    expect(amount).to_have_value(re.compile(r"^500(\.0+)?$"))
    expect(edit.locator(".agui-diff")).to_contain_text("No changes")
    amount.fill("250")
    diff = edit.locator(".agui-diff")
    expect(diff.locator(".agui-diff-row")).to_have_count(1)
    row = diff.locator(".agui-diff-row").first
    expect(row).to_have_attribute("data-change", "changed")
    expect(row.locator(".agui-diff-path")).to_have_text("amount")
    expect(row.locator(".agui-diff-old")).to_contain_text("500")
    expect(row.locator(".agui-diff-new")).to_contain_text("250")
    shot(card, "card-edit-diff")
    edit.locator('button[data-action="edit-send"]').click()
    expect(card).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    expect(card.locator(".agui-decision")).to_contain_text("approved with edited arguments by you")
    expect(cell.locator(".agui-assistant").last).to_contain_text(
        "With your changes: Transferred 250.00 USD", timeout=WAIT_MS
    )
    resumes = demo.wait_for_resumes(thread, 2)
    [entry] = resumes[1].body["resume"]
    assert entry["payload"]["approved"] is True
    edited = entry["payload"]["editedArgs"]
    assert edited["amount"] == 250, edited
    assert edited["from_account"] == "1234567890" and edited["to_account"] == "0987654321"

    # Cancel.
    cell = session.cell(3)
    card = pending_card(cell, "card-3")
    card.locator('button[data-action="cancel"]').click()
    expect(card).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    expect(card.locator(".agui-decision")).to_contain_text("cancelled by you")
    expect(cell.locator(".agui-tool").last).to_have_attribute("data-status", "cancelled")
    expect(cell.locator(".agui-assistant").last).to_contain_text(
        "Cancelled: nothing was done", timeout=WAIT_MS
    )
    resumes = demo.wait_for_resumes(thread, 3)
    [entry] = resumes[2].body["resume"]
    assert entry["status"] == "cancelled" and "payload" not in entry, entry
    time.sleep(0.3)
    assert len(demo.resumes(thread)) == 3
    session.assert_clean()


def test_grouped_card(lab: JupyterServer, demo: TimedDemo, open_session: Any) -> None:
    """Two interrupts in one card: decide each, then one "Send decisions" sends one resume."""
    thread = _thread("grouped")
    session = open_session(
        lab, "grouped.ipynb", [prelude(demo.url, thread), 'await chat.send("two transfers")']
    )
    cell = session.cell(1)
    card = pending_card(cell)
    sections = card.locator(".agui-interrupt")
    expect(sections).to_have_count(2)
    expect(sections.nth(0).locator(".agui-tool-name")).to_have_text("transfer_money")
    expect(sections.nth(1).locator(".agui-tool-name")).to_have_text("cancel_subscription")
    send = card.locator('button[data-action="send"]')
    expect(send).to_be_disabled()
    expect(card.locator(".agui-card-status")).to_contain_text("0 of 2 decided")

    sections.nth(0).locator('button[data-action="approve"]').click()
    expect(card.locator(".agui-card-status")).to_contain_text("1 of 2 decided")
    expect(send).to_be_disabled()
    assert demo.resumes(thread) == []  # a choice on a multi card is only a draft
    sections.nth(1).locator("textarea.agui-reason").fill("keep the gym")
    sections.nth(1).locator('button[data-action="reject"]').click()
    expect(card.locator(".agui-card-status")).to_contain_text("2 of 2 decided")
    expect(sections.nth(0).locator(".agui-choice")).to_contain_text("approve")
    expect(sections.nth(1).locator(".agui-choice")).to_contain_text("reject")
    expect(send).to_be_enabled()
    shot(card, "card-grouped")
    send.click()

    expect(card).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    expect(sections.nth(0).locator(".agui-decision")).to_contain_text("approved by you")
    expect(sections.nth(1).locator(".agui-decision")).to_contain_text("rejected by you")
    [resume] = demo.wait_for_resumes(thread, 1)
    entries = resume.body["resume"]
    assert len(entries) == 2, entries
    ids = card.evaluate(
        "c => [...c.querySelectorAll('.agui-interrupt')].map(s => s.dataset.interruptId)"
    )
    by_id = {e["interruptId"]: e for e in entries}
    assert by_id[ids[0]]["payload"] == {"approved": True}
    assert by_id[ids[1]]["payload"] == {"approved": False, "reason": "keep the gym"}
    time.sleep(0.3)
    assert len(demo.resumes(thread)) == 1
    session.assert_clean()


def test_a_long_audit_shows_its_last_decisions_and_says_how_many(
    lab: JupyterServer, demo: TimedDemo, open_session: Any
) -> None:
    """22 decisions in one cell's view: the live table holds the last 20 (the kernel caps what
    it re-sends) and its summary says there are 22 (tests/chat checks the text form keeps all)."""
    thread = _thread("long-audit")
    loop = (
        "from agui_notebook.policies import approve_all\n"
        f"chat = agent.chat({thread!r}, policy=approve_all())\n"
        "for n in range(22):\n"
        "    await chat.send(f'Transfer ${n + 1} from 1234567890 to 0987654321')\n"
        'print("E2E-DONE", len(chat.audit))\n'
    )
    session = open_session(lab, "long-audit.ipynb", [prelude(demo.url, thread), loop])
    cell = session.cell(1)
    expect(cell.locator(".jp-OutputArea")).to_contain_text("E2E-DONE 22", timeout=120_000)
    audit = cell.locator("details.agui-audit").first
    expect(audit.locator("summary")).to_have_text(
        "Audit (22; the last 20 shown, all in chat.audit)", timeout=WAIT_MS
    )
    audit.locator("summary").click()
    expect(audit.locator("tbody tr")).to_have_count(20)
    assert len(demo.resumes(thread)) == 22
    session.assert_clean()


def test_input_required_form(lab: JupyterServer, demo: TimedDemo, open_session: Any) -> None:
    """An input_required interrupt: the schema form refuses an empty submit, then sends the
    filled answer as the resume payload."""
    thread = _thread("form")
    session = open_session(
        lab, "form.ipynb", [prelude(demo.url, thread), 'await chat.send("schedule a payment")']
    )
    cell = session.cell(1)
    card = pending_card(cell)
    section = card.locator(".agui-interrupt").first
    expect(section).to_have_attribute("data-mode", "form")
    form = section.locator(".agui-answer-form")
    submit = form.locator('button[data-action="answer"]')

    submit.click()  # required fields empty: nothing is sent
    expect(form.locator("ul.agui-form-errors")).to_be_visible()
    expect(card).to_have_attribute("data-status", "pending")
    time.sleep(0.3)
    assert demo.resumes(thread) == []

    form.locator('.agui-field[data-path="date"] input').fill("2030-01-15")
    form.locator('.agui-field[data-path="amount"] input').fill("125.5")
    form.locator('.agui-field[data-path="memo"] input').fill("Rent <i>March</i>")
    form.locator('.agui-field[data-path="frequency"] select').select_option(label="monthly")
    expect(form.locator("ul.agui-form-errors")).to_be_hidden()
    shot(card, "card-form")
    submit.click()

    expect(card).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    expect(card.locator(".agui-decision")).to_contain_text("answered by you")
    [resume] = demo.wait_for_resumes(thread, 1)
    [entry] = resume.body["resume"]
    assert entry["status"] == "resolved"
    assert entry["payload"] == {
        "date": "2030-01-15",
        "amount": 125.5,
        "memo": "Rent <i>March</i>",
        "frequency": "monthly",
    }, entry
    session.assert_clean()


def test_expiring_interrupt(
    lab: JupyterServer, expiring_demo: TimedDemo, open_session: Any
) -> None:
    """An approval with expiresAt: it counts down, then Approve/Reject/Edit disable and only
    Cancel is left; Cancel still resumes."""
    thread = _thread("expiring")
    session = open_session(
        lab,
        "expiring.ipynb",
        [prelude(expiring_demo.url, thread), 'await chat.send("quick transfer")'],
    )
    cell = session.cell(1)
    card = pending_card(cell)
    section = card.locator(".agui-interrupt").first
    clock = section.locator(".agui-countdown.agui-expiry")
    expect(clock).to_contain_text("Expires in")
    approve = section.locator('button[data-action="approve"]')
    expect(approve).to_be_enabled()

    expect(section).to_have_class(re.compile(r"\bagui-expired\b"), timeout=15_000)
    expect(clock).to_contain_text("Expired: only Cancel is still possible.")
    for action in ("approve", "reject", "edit"):
        expect(section.locator(f'button[data-action="{action}"]')).to_be_disabled()
    expect(section.locator("textarea.agui-reason")).to_be_disabled()
    cancel = section.locator('button[data-action="cancel"]')
    expect(cancel).to_be_enabled()
    shot(card, "card-expired")
    approve.click(force=True)  # a click on the disabled button does nothing
    time.sleep(0.3)
    assert expiring_demo.resumes(thread) == []

    cancel.click()
    expect(card).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    [resume] = expiring_demo.wait_for_resumes(thread, 1)
    assert [e["status"] for e in resume.body["resume"]] == ["cancelled"]
    session.assert_clean()


def test_failed_resume_then_retry(lab: JupyterServer, open_session: Any) -> None:
    """The server is gone when Approve is clicked: the card says "failed" and offers Retry; with
    the server back, Retry re-sends the same decision and the server receives exactly one resume."""
    app = create_app(text_delay=0.0)
    demo = TimedDemo(url="", app=app)
    demo.url, stop = start_in_thread(app=demo)  # type: ignore[arg-type]
    port = int(demo.url.rstrip("/").rsplit(":", 1)[1])
    thread = _thread("retry")
    try:
        session = open_session(
            lab, "retry.ipynb", [prelude(demo.url, thread), f"await chat.send({TRANSFER!r})"]
        )
        cell = session.cell(1)
        card = pending_card(cell)
        stop()  # the agent goes away while the card waits
        card.locator('button[data-action="approve"]').click()
        expect(card).to_have_attribute("data-status", "failed", timeout=WAIT_MS)
        expect(card.locator(".agui-card-error")).to_be_visible()
        retry = card.locator('button[data-action="retry"]')
        expect(retry).to_be_enabled()
        shot(card, "card-failed")
        assert demo.resumes(thread) == []

        _, stop = start_in_thread(port, app=demo)  # type: ignore[arg-type]  # same threads
        retry.click()
        expect(card).to_have_attribute("data-status", "done", timeout=WAIT_MS)
        expect(card.locator(".agui-card-error")).to_be_hidden()
        expect(cell.locator(".agui-assistant").last).to_contain_text(
            "Transferred 500.00 USD", timeout=WAIT_MS
        )
        time.sleep(0.3)
        [resume] = demo.resumes(thread)
        assert resume.body["resume"][0]["payload"] == {"approved": True}
        session.assert_clean()
    finally:
        stop()


SECOND_VIEW_CELL = """\
from IPython.display import display

async def send_with_two_views(text):
    task = asyncio.ensure_future(chat.send(text))
    while chat.view is None:
        await asyncio.sleep(0.01)
    if not getattr(chat.view, "_e2e_shown_twice", False):
        chat.view._e2e_shown_twice = True
        display(chat.view)  # a second view of the same model, in the same cell
    return await task

first = await send_with_two_views({first!r})
print("E2E-FIRST", first.outcome)
second = await send_with_two_views({second!r})
print("E2E-SECOND", second.outcome)
"""


def test_double_click_and_second_view(
    server: JupyterServer, demo: TimedDemo, open_session: Any, page: Page
) -> None:
    """A double click, and clicks on two views of the same card in the same instant, each send
    exactly one resume; every view ends "done"."""
    thread = _thread("views", server)
    session = open_session(
        server,
        "views.ipynb",
        [
            prelude(demo.url, thread),
            SECOND_VIEW_CELL.format(first=TRANSFER, second=TRANSFER.replace("500", "70")),
        ],
    )
    cell = session.cell(1)
    views = cell.locator(".agui-chat")
    expect(views).to_have_count(2, timeout=WAIT_MS)
    cards = cell.locator('.agui-card[data-card-id="card-1"]')
    expect(cards).to_have_count(2, timeout=WAIT_MS)
    for i in range(2):
        expect(cards.nth(i)).to_have_attribute("data-status", "pending", timeout=WAIT_MS)

    # 1. A double click on Approve in the first view.
    cards.nth(0).locator('button[data-action="approve"]').dblclick()
    for i in range(2):
        expect(cards.nth(i)).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    expect(cell.locator(".jp-OutputArea")).to_contain_text("E2E-FIRST success", timeout=WAIT_MS)
    demo.wait_for_resumes(thread, 1)

    # 2. Approve in both views within the same task (no chance for either to hear back).
    cards = cell.locator('.agui-card[data-card-id="card-2"]')
    expect(cards).to_have_count(2, timeout=WAIT_MS)
    for i in range(2):
        expect(cards.nth(i)).to_have_attribute("data-status", "pending", timeout=WAIT_MS)
    clicked = cell.evaluate(
        """cell => {
          const buttons = cell.querySelectorAll('.agui-card[data-card-id="card-2"] button[data-action="approve"]');
          buttons.forEach((b) => b.click());
          return buttons.length;
        }"""
    )
    assert clicked == 2
    for i in range(2):
        expect(cards.nth(i)).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    expect(cell.locator(".jp-OutputArea")).to_contain_text("E2E-SECOND success", timeout=WAIT_MS)
    if server.kind == "lab":
        shot(cards.nth(1), "card-second-view-done")
    time.sleep(0.5)  # room for a stray second resume to arrive
    resumes = demo.resumes(thread)
    assert len(resumes) == 2, [r.body for r in resumes]  # one per card, never two for one card
    ids = [r.body["resume"][0]["interruptId"] for r in resumes]
    assert len(set(ids)) == 2, ids
    for r in resumes:
        assert r.body["resume"][0]["payload"] == {"approved": True}
    # The second transfer ran once: exactly one "Transferred 70.00" answer in each view. (Text
    # content, not innerText: Chrome leaves a page of items off screen out of innerText.)
    for i in range(2):
        texts = views.nth(i).locator(".agui-assistant").all_text_contents()
        assert sum("Transferred 70.00 USD" in t for t in texts) == 1, texts
    session.assert_clean()
    # The view whose click lost the race is told so, once, as a note (not in red); the winner's
    # card says nothing more than "done".
    for i in range(2):
        expect(cards.nth(i).locator(".agui-ack-error")).to_be_hidden()
    late = cell.locator('.agui-card[data-card-id="card-2"] .agui-late:visible')
    expect(late).to_have_count(1)
    expect(late).to_have_text(
        "Your Approve arrived after another click had approved; only that decision was sent."
    )
    expect(late).to_have_attribute("role", "status")


def test_hostile_payload_is_inert(
    server: JupyterServer, demo: TimedDemo, open_session: Any, page: Page
) -> None:
    """Markup, <script>, javascript: URLs, a 5000-character string and a 30-deep object in the
    tool's name/arguments/message render as text; nothing runs, no element is injected."""
    thread = _thread("hostile", server)
    session = open_session(
        server, "hostile.ipynb", [prelude(demo.url, thread), 'await chat.send("hostile")']
    )
    cell = session.cell(1)
    card = pending_card(cell)
    chat = cell.locator(".agui-chat").first
    expect(card.locator(".agui-tool-name")).to_have_text("update_payee")

    # Shown literally, as text.
    expect(card).to_contain_text("<img src=x onerror=alert(1)>")
    expect(card).to_contain_text("<script>window.__pwned=1</script>")
    expect(card).to_contain_text("javascript:alert(1)")
    expect(chat.locator(".agui-assistant").first).to_contain_text("<img src=x onerror=alert(1)>")
    literal = card.get_by_text("<img src=x onerror=alert(1)>", exact=True).first
    expect(literal).to_be_visible()
    # The long string is clipped with a note; the deep object is all there, as text.
    expect(card.locator(".agui-clip-note").first).to_contain_text("more characters hidden")
    expect(card).to_contain_text("<b>deepest</b>")
    if server.kind == "lab":
        shot(card, "card-hostile")
    card.locator("button.agui-more").first.click()  # expanding is still text
    expect(card.locator(".agui-args")).to_contain_text("0123456789" * 500)

    # Nothing injected: no elements that load, link or run, no on* attributes, no URLs.
    injected = chat.evaluate(
        """root => {
          const bad = [];
          for (const el of root.querySelectorAll('*')) {
            const tag = el.tagName.toLowerCase();
            if (['img', 'script', 'iframe', 'object', 'embed', 'a', 'b', 'i', 'svg', 'math',
                 'link', 'meta', 'base', 'form', 'video', 'audio', 'source'].includes(tag)) bad.push(tag);
            for (const attr of el.attributes) {
              const name = attr.name.toLowerCase();
              // An empty style="" is Playwright's (its screenshots hide the caret inline).
              if (name === 'style' && attr.value === '') continue;
              if (/^on/.test(name) || ['src', 'href', 'srcdoc', 'action', 'formaction',
                  'xlink:href', 'style'].includes(name)) bad.push(`${tag}[${name}=${attr.value}]`);
            }
          }
          return bad;
        }"""
    )
    assert injected == [], injected

    # Reject with a hostile reason: recorded as text too.
    card.locator("textarea.agui-reason").fill("<img src=y onerror=window.__pwned=2>")
    card.locator('button[data-action="reject"]').click()
    expect(card).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    expect(card.locator(".agui-decision")).to_contain_text("<img src=y onerror=window.__pwned=2>")
    [resume] = demo.wait_for_resumes(thread, 1)
    assert resume.body["resume"][0]["payload"] == {
        "approved": False,
        "reason": "<img src=y onerror=window.__pwned=2>",
    }
    time.sleep(0.5)  # an injected handler would have fired by now
    assert page.evaluate("window.__pwned") is None
    assert chat.locator("img, script, iframe, a").count() == 0
    session.assert_clean()


THEMES_PLUGIN = "@jupyterlab/apputils-extension:themes"


@pytest.mark.parametrize("theme", ["JupyterLab Light", "JupyterLab Dark"], ids=["light", "dark"])
def test_card_is_readable_in_theme(
    lab: JupyterServer, demo: TimedDemo, open_session: Any, page: Page, theme: str
) -> None:
    """The card's text keeps WCAG AA contrast (>= 4.5:1 against the background it is drawn on)
    in JupyterLab Light and Dark: pending (buttons, the countdown), approved (success colours),
    rejected and failed (error colours). The dark card is screenshotted."""
    dark = theme.endswith("Dark")
    lab.put_user_setting(THEMES_PLUGIN, {"theme": theme})
    try:
        thread = _thread("dark" if dark else "light")
        session = open_session(
            lab,
            f"theme-{'dark' if dark else 'light'}.ipynb",
            [
                prelude(demo.url, thread),
                f"await chat.send({TRANSFER!r})",
                f"await chat.send({TRANSFER!r})",
                'await chat.send("this will fail")',
            ],
        )
        expect(page.locator("body")).to_have_attribute(
            "data-jp-theme-light", "false" if dark else "true"
        )
        cell = session.cell(1)
        card = pending_card(cell)
        expect(card.locator(".agui-tool-name")).to_have_text("transfer_money")
        expect(cell.locator(".agui-chat")).to_have_attribute(
            "data-agui-theme", "dark" if dark else "light"
        )
        page.wait_for_timeout(300)  # let the theme's transitions settle before measuring
        if dark:
            shot(card, "card-dark")
            publish("card-dark")
        ratios = {}

        def measure(scope: Locator, targets: dict[str, str]) -> None:
            for name, selector in targets.items():
                target = scope.locator(selector).first
                expect(target).to_be_visible()
                ratios[name] = target.evaluate(CONTRAST_JS)

        measure(
            card,
            {
                "title": ".agui-card-title",
                "tool name": ".agui-tool-name",
                "message": ".agui-message",
                "argument value": ".agui-args .agui-v-string",
                "approve button": 'button[data-action="approve"]',
                "reject button": 'button[data-action="reject"]',
                "edit button": 'button[data-action="edit"]',
                "cancel button": 'button[data-action="cancel"]',
                "countdown (warning)": ".agui-timeout",
            },
        )
        measure(cell, {"assistant text": ".agui-assistant .agui-text"})
        # Clicking still works (and ends the cell) whatever the contrast.
        card.locator('button[data-action="approve"]').click()
        expect(card).to_have_attribute("data-status", "done", timeout=WAIT_MS)
        measure(
            cell,
            {
                "approved (success)": ".agui-decision",
                "tool done badge (success)": '.agui-badge[data-status="done"]',
            },
        )
        if dark:
            shot(card, "card-dark-done")
        second = session.cell(2)
        rejected = pending_card(second, "card-2")
        rejected.locator('button[data-action="reject"]').click()
        expect(rejected).to_have_attribute("data-status", "done", timeout=WAIT_MS)
        measure(
            second,
            {
                "rejected (error)": ".agui-decision",
                "tool rejected badge (error)": '.agui-badge[data-status="rejected"]',
            },
        )
        failed = session.cell(3)
        measure(
            failed,
            {
                "error item title": ".agui-error-item .agui-error-title",
                "error item message": ".agui-error-item .agui-error",
            },
        )
        print(
            f"\n{theme} contrast:", json.dumps({k: round(v["ratio"], 2) for k, v in ratios.items()})
        )
        background = ratios["title"]["bgLuminance"]
        assert (background < 0.2) if dark else (background > 0.8), ratios  # the theme applied
        low = {
            name: f"{r['ratio']:.2f}:1 ({r['fg']} on {r['bg']})"
            for name, r in ratios.items()
            if r["ratio"] < 4.5
        }
        session.assert_clean()
        assert low == {}, f"below 4.5:1 in {theme}: {low}"
    finally:
        lab.put_user_setting(THEMES_PLUGIN, {"theme": "JupyterLab Light"})


LATENCY_ROUNDS = 6


def test_click_to_resume_latency(
    lab: JupyterServer, demo: TimedDemo, open_session: Any, page: Page
) -> None:
    """From the click on Approve to the resume's arrival at the server, over several cards.

    Printed and written to artifacts/browser/latency.json, then checked: the median from the
    page's click event must stay under 600 ms, four times the 150 ms target (_latency.py), so a
    regression of several times fails while load on a shared machine does not. `page` is
    measured from the click event in the page, `test` from just before Playwright's click()
    (which adds its own actionability checks, and is reported only)."""
    thread = _thread("latency")
    session = open_session(
        lab,
        "latency.ipynb",
        [
            prelude(demo.url, thread),
            f"for i in range({LATENCY_ROUNDS}):\n"
            '    r = await chat.send(f"Transfer ${100 + i} from 1234567890 to 0987654321")\n'
            '    print("E2E-ROUND", i, r.outcome)\n',
        ],
    )
    cell = session.cell(1)
    from_test: list[float] = []
    from_page: list[float] = []
    for n in range(1, LATENCY_ROUNDS + 1):
        card = pending_card(cell, f"card-{n}")
        approve = card.locator('button[data-action="approve"]')
        expect(approve).to_be_enabled()
        before = time.time()
        approve.click()
        arrival = demo.wait_for_resumes(thread, n)[n - 1].time
        clicks = page.evaluate("window.__aguiClicks || []")
        assert len(clicks) == n, clicks
        from_test.append((arrival - before) * 1000)
        from_page.append((arrival - clicks[-1]["t"]) * 1000)
        expect(card).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    expect(cell.locator(".jp-OutputArea")).to_contain_text(
        f"E2E-ROUND {LATENCY_ROUNDS - 1} success", timeout=WAIT_MS
    )
    assert len(demo.resumes(thread)) == LATENCY_ROUNDS

    def summary(values: list[float]) -> dict[str, Any]:
        return {
            "median_ms": round(statistics.median(values), 1),
            "max_ms": round(max(values), 1),
            "min_ms": round(min(values), 1),
            "all_ms": [round(v, 1) for v in values],
        }

    report = {
        "what": "click on Approve -> resume request at the AG-UI server (loopback demo)",
        "front_end": "JupyterLab",
        "rounds": LATENCY_ROUNDS,
        "target_ms": TARGET_MS,
        "limit_ms": LIMIT_MS,
        "from_click_event_in_page": summary(from_page),
        "from_before_playwright_click": summary(from_test),
    }
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "latency.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print("\nclick-to-resume latency:", json.dumps(report, indent=1))
    session.assert_clean()
    check_latency(from_page)
