"""AG-UI 1.1 content in the cell, in real JupyterLab driven by headless Chromium: a tool result's
content parts (the chart drawn from inline data, the CSV as a line), a subagent's group with the
approval it raised (clicked: the group finishes), encrypted reasoning (collapsed, with its note;
sent back intact, as the next answer says), and a hostile server whose URLs are never fetched.

The demo agent runs on loopback inside this pytest process (see test_card_e2e.py); so do the
hostile AG-UI server and a "tracker" that counts every request it gets. The page's requests are
recorded: none may go anywhere but the Jupyter server (and `data:`/`blob:` URLs of the page's own).
Screenshots go to artifacts/browser/ (content-*.png).
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import pytest
from _demo import TimedDemo, start_demo
from _jupyter import JupyterServer
from playwright.sync_api import Page, expect
from test_card_e2e import (  # the same servers, pages and helpers as the card tests
    WAIT_MS,
    _module_server,
    _thread,
    open_session,
    prelude,
    shot,
    wait_ready,
)

from agui_notebook.demo import start_in_thread

pytestmark = pytest.mark.browser
__all__ = ["open_session"]  # a fixture used by the tests below

DELEGATE = "Please delegate: transfer $75 from 1234567890 to 0987654321"


@pytest.fixture(scope="module")
def demo() -> Iterator[TimedDemo]:
    yield from start_demo()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    yield from _module_server("lab", tmp_path_factory)


# ------------------------------------------------------------------------ what the page fetched


class Tracker:
    """A loopback HTTP server that counts every request (nothing in a view may reach it)."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        tracker = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                tracker.hits.append(self.path)
                self.send_response(204)
                self.end_headers()

            do_POST = do_GET

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def tracker() -> Iterator[Tracker]:
    t = Tracker()
    yield t
    t.close()


def record_requests(page: Page) -> list[str]:
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    page.on("websocket", lambda ws: urls.append(ws.url))
    return urls


def foreign(urls: list[str], server: JupyterServer) -> list[str]:
    """Requests to anything but the Jupyter server itself (data:/blob: URLs are the page's own)."""
    own = urlsplit(server.url).netloc
    return [
        u for u in urls if urlsplit(u).scheme not in ("data", "blob") and urlsplit(u).netloc != own
    ]


# ----------------------------------------------------------------------------- the demo's turns


def test_parts_subagent_and_encrypted_reasoning_in_the_cell(
    lab: JupyterServer, demo: TimedDemo, open_session: Any, page: Page
) -> None:
    urls = record_requests(page)
    thread = _thread("content")
    session = open_session(
        lab,
        "content.ipynb",
        [
            prelude(demo.url, thread),
            'await chat.send("Show my statement")',
            f"await chat.send({DELEGATE!r})",
            'await chat.send("Think privately about my savings")',
            'await chat.send("Think privately once more")',
        ],
    )
    wait_ready(session.cell(0))

    # Content parts: the chart drawn from its inline data, the CSV a line of text.
    cell = session.cell(1)
    result = cell.locator(".agui-tool .agui-result .agui-parts")
    img = result.locator("figure.agui-part-image img.agui-part-img")
    expect(img).to_be_visible(timeout=WAIT_MS)
    assert img.get_attribute("src").startswith("data:image/png;base64,iVBORw0KGgo")  # type: ignore[union-attr]
    expect(img).to_have_attribute("alt", "Balances by account")
    page.wait_for_function(
        "img => img.complete && img.naturalWidth > 0", arg=img.element_handle(), timeout=WAIT_MS
    )
    expect(result.locator("figcaption")).to_contain_text("Balances by account")
    line = result.locator('.agui-part-file[data-kind="document"]')
    expect(line).to_contain_text("Document: Statement · text/csv · ")
    expect(line).to_contain_text("sent inline, not shown")
    expect(result.locator(".agui-part-text")).to_contain_text("Statement for 1234567890")
    assert result.locator("a").count() == 0
    shot(cell.locator(".agui-chat"), "content-statement")

    # A subagent's group, suspended on the approval it raised; the card says who asked.
    cell = session.cell(2)
    card = cell.locator('.agui-card[data-card-id="card-1"]')
    expect(card).to_have_attribute("data-status", "pending", timeout=WAIT_MS)
    expect(card.locator(".agui-asked-by")).to_have_text("Asked by subagent payments")
    group = cell.locator(".agui-subagent")
    expect(group).to_have_count(1)
    expect(group).to_have_attribute("data-status", "suspended")
    expect(group.locator(".agui-subagent-name")).to_have_text("payments")
    expect(group.locator(".agui-subagent-head .agui-badge")).to_have_text(
        "suspended: waiting for an answer"
    )
    expect(group.locator(".agui-subagent-description")).to_have_text(" · The payments specialist")
    members = group.locator(".agui-subagent-items > .agui-item")
    expect(members.locator(".agui-tool-name")).to_have_text("transfer_money")
    expect(members.first).to_contain_text("Payments specialist here.")
    # The parent's own message stays outside the group.
    expect(cell.locator(".agui-page > .agui-assistant").first).to_contain_text(
        "I'll hand this to the payments specialist."
    )
    shot(cell.locator(".agui-chat"), "content-subagent-waiting")
    card.locator('button[data-action="approve"]').click()
    expect(card).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    expect(group).to_have_attribute("data-status", "done", timeout=WAIT_MS)
    expect(group.locator(".agui-subagent-head .agui-badge")).to_have_text("done")
    expect(members.last).to_contain_text("Transferred 75.00 USD", timeout=WAIT_MS)
    expect(cell.locator(".agui-page > .agui-assistant").last).to_contain_text(
        "The payments specialist reports: Transferred 75.00 USD", timeout=WAIT_MS
    )
    # Collapsing the group hides its items; the header still says what it is.
    group.locator("summary.agui-subagent-head").click()
    expect(members.first).to_be_hidden()
    expect(group.locator(".agui-subagent-count")).to_contain_text("items")
    group.locator("summary.agui-subagent-head").click()
    expect(members.first).to_be_visible()
    shot(cell.locator(".agui-chat"), "content-subagent-done")
    [resume] = demo.wait_for_resumes(thread, 1)
    [entry] = resume.body["resume"]
    assert entry["status"] == "resolved" and entry["payload"] == {"approved": True}, entry

    # Encrypted reasoning: collapsed, marked, its note inside; returned intact on the next turn.
    cell = session.cell(3)
    reasoning = cell.locator("details.agui-reasoning-details")
    expect(reasoning.locator("summary")).to_have_text(
        "Reasoning · encrypted part kept", timeout=WAIT_MS
    )
    assert reasoning.get_attribute("open") is None
    note = reasoning.locator(".agui-encrypted")
    expect(note).to_be_hidden()
    reasoning.locator("summary").click()
    expect(note).to_be_visible()
    expect(note).to_contain_text("sends it back to the agent unread")
    shot(cell.locator(".agui-chat"), "content-encrypted-reasoning")
    expect(session.cell(4).locator(".agui-assistant").last).to_contain_text(
        "Earlier signed reasoning returned intact: 1 of 1.", timeout=WAIT_MS
    )

    assert foreign(urls, lab) == [], foreign(urls, lab)
    assert any(u.startswith(lab.url) for u in urls), "the recorder saw nothing at all"
    session.assert_clean()


# ----------------------------------------------------------------------------- a hostile server

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
PROBE = '<img src=x onerror="window.__pwned=1">'


def hostile_events(tracker: str, thread_id: str, run_id: str) -> list[dict[str, Any]]:
    svg = base64.b64encode(
        f'<svg xmlns="http://www.w3.org/2000/svg"><image href="{tracker}/svg"/></svg>'.encode()
    ).decode()
    html = base64.b64encode(f'<img src="{tracker}/html">'.encode()).decode()
    parts = [
        {"type": "text", "text": PROBE},
        {
            "type": "image",
            "source": {"type": "url", "value": f"{tracker}/img.png", "mimeType": "image/png"},
            "metadata": {"alt": PROBE},
        },
        {"type": "image", "source": {"type": "data", "value": svg, "mimeType": "image/svg+xml"}},
        {"type": "image", "source": {"type": "data", "value": html, "mimeType": "text/html"}},
        {
            "type": "image",
            "source": {"type": "data", "value": f"{tracker}/x", "mimeType": "image/png"},
        },
        {
            "type": "image",
            "source": {"type": "data", "value": PNG, "mimeType": "image/png"},
            "metadata": {"title": "L" * 5000},
        },
        {
            "type": "document",
            "source": {"type": "url", "value": f"javascript:fetch('{tracker}/js')"},
            "metadata": {"filename": PROBE},
        },
        {
            "type": "document",
            "source": {"type": "file", "value": f"{tracker}/handle", "provider": PROBE},
        },
    ]
    sub = {"subagentRunId": "evil-sub"}
    return [
        {"type": "RUN_STARTED", "threadId": thread_id, "runId": run_id},
        {"type": "SUBAGENT_STARTED", **sub, "name": PROBE, "description": f"{tracker}/describe"},
        {"type": "TOOL_CALL_START", **sub, "toolCallId": "evil-call", "toolCallName": "fetch"},
        {
            "type": "TOOL_CALL_ARGS",
            **sub,
            "toolCallId": "evil-call",
            "delta": json.dumps({"url": f"{tracker}/args"}),
        },
        {"type": "TOOL_CALL_END", **sub, "toolCallId": "evil-call"},
        {
            "type": "TOOL_CALL_RESULT",
            **sub,
            "messageId": "evil-result",
            "toolCallId": "evil-call",
            "content": parts,
        },
        {"type": "SUBAGENT_ERROR", **sub, "message": f"{PROBE} see {tracker}/error"},
        {
            "type": "RUN_FINISHED",
            "threadId": thread_id,
            "runId": run_id,
            "usage": [{"provider": f"{tracker}/provider", "model": PROBE, "inputTokens": 7}],
            "metadata": {"link": f"{tracker}/meta", "html": PROBE},
            "result": {"img": f"{tracker}/result"},
        },
    ]


class HostileApp:
    """An AG-UI endpoint answering every run with :func:`hostile_events` as SSE."""

    def __init__(self, tracker: str) -> None:
        self.tracker = tracker

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        run = json.loads(body or b"{}")
        events = hostile_events(self.tracker, run.get("threadId", "t"), run.get("runId", "r"))
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        stream = "".join(f"data: {json.dumps(e)}\n\n" for e in events).encode()
        await send({"type": "http.response.body", "body": stream})


def test_a_hostile_servers_urls_are_never_fetched(
    lab: JupyterServer, tracker: Tracker, open_session: Any, page: Page
) -> None:
    url, stop = start_in_thread(app=HostileApp(tracker.url))  # type: ignore[arg-type]  # any ASGI app
    try:
        urls = record_requests(page)
        session = open_session(
            lab,
            "hostile-content.ipynb",
            [prelude(url, _thread("hostile-content")), 'await chat.send("anything")'],
        )
        wait_ready(session.cell(0))
        cell = session.cell(1)
        chat = cell.locator(".agui-chat")
        expect(chat.locator(".agui-run-end")).to_be_visible(timeout=WAIT_MS)
        group = chat.locator(".agui-subagent")
        expect(group).to_have_attribute("data-status", "error")
        expect(group.locator(".agui-subagent-name")).to_have_text(PROBE)
        expect(group.locator(".agui-subagent-error")).to_contain_text(f"{tracker.url}/error")
        parts = group.locator(".agui-subagent-items .agui-tool .agui-parts")
        expect(parts.locator(".agui-part")).to_have_count(8)
        shot(chat, "content-hostile")
        # Open everything, show every clipped text: still nothing fetched, nothing run.
        for details in chat.locator("details").all():
            details.evaluate("d => { d.open = true; }")
        for more in chat.locator("button.agui-more").all():
            more.click()
        expect(parts).to_contain_text(f"at {tracker.url}/img.png (not loaded)")
        expect(parts).to_contain_text(f"file {tracker.url}/handle")
        expect(parts).to_contain_text("javascript:fetch(")
        expect(parts).to_contain_text("L" * 5000)
        expect(chat.locator(".agui-run-end .agui-usage")).to_have_text(" · Tokens: in 7")
        imgs = chat.locator("img")
        expect(imgs).to_have_count(1)  # the one real PNG, from its inline data
        assert imgs.first.get_attribute("src") == f"data:image/png;base64,{PNG}"
        assert chat.locator("a, iframe, object, embed, svg, script").count() == 0
        time.sleep(1.0)  # a fetch the page started would have landed by now
        assert tracker.hits == [], tracker.hits
        assert foreign(urls, lab) == [], foreign(urls, lab)
        session.assert_clean()
    finally:
        stop()
