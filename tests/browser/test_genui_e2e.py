"""Generative UI end to end in real JupyterLab, in headless Chromium: a task's progress drawn from
activity messages, an A2UI form filled and submitted by real typing and clicks (the continued run
streams into the same cell; the server receives one action), and a hostile surface drawn inert.

The demo agent runs on loopback inside this pytest process (see test_card_e2e.py); screenshots go
to artifacts/browser/ (a2ui-form*.png, activity-progress.png).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from _demo import TimedDemo, start_demo
from _jupyter import JupyterServer
from playwright.sync_api import expect
from test_card_e2e import (  # the same servers, pages and helpers as the card tests
    WAIT_MS,
    _module_server,
    _thread,
    open_session,
    prelude,
    shot,
    wait_ready,
)

pytestmark = pytest.mark.browser
__all__ = ["open_session"]  # a fixture used by the tests below


@pytest.fixture(scope="module")
def demo() -> Iterator[TimedDemo]:
    yield from start_demo()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    yield from _module_server("lab", tmp_path_factory)


def actions(demo: TimedDemo, thread: str) -> list[dict[str, Any]]:
    return [
        a.body["forwardedProps"]["a2uiAction"]["userAction"]
        for a in demo.requests(thread)
        if (a.body.get("forwardedProps") or {}).get("a2uiAction")
    ]


def wait_for_actions(demo: TimedDemo, thread: str, count: int, timeout: float = 30.0) -> list[Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = actions(demo, thread)
        if len(got) >= count:
            return got
        time.sleep(0.01)
    raise AssertionError(
        f"the server received {len(actions(demo, thread))} action(s), expected {count}"
    )


def test_progress_and_a_form_filled_and_submitted_in_the_cell(
    lab: JupyterServer, demo: TimedDemo, open_session: Any
) -> None:
    thread = _thread("genui")
    session = open_session(
        lab,
        "genui.ipynb",
        [
            prelude(demo.url, thread),
            'await chat.send("Run the month-end checks")',
            'await chat.send("Open a transfer form")',
        ],
    )
    wait_ready(session.cell(0))

    progress = session.cell(1).locator(".agui-activity[data-renderer=checklist]")
    expect(progress.locator(".agui-checklist-count")).to_have_text(" 4 of 4 done", timeout=WAIT_MS)
    expect(progress.locator(".agui-checklist-item[data-state=done]")).to_have_count(4)
    search = session.cell(1).locator(".agui-activity[data-renderer=search]")
    expect(search.locator(".agui-search-count")).to_have_text(" 2 results")
    shot(session.cell(1).locator(".agui-chat"), "activity-progress")

    cell = session.cell(2)
    surface = cell.locator(".agui-a2ui-surface")
    expect(surface).to_be_visible(timeout=WAIT_MS)
    send = surface.locator('button[data-action="submit_transfer"]')
    expect(send).to_be_disabled()  # the form's check: the box is not ticked yet
    surface.locator('[data-component-id="to"] input').fill("0987654321")
    surface.locator('[data-component-id="amount"] input').fill("75")
    surface.locator('[data-component-id="currency"] label', has_text="EUR").click()
    surface.locator('[data-component-id="confirm"] input').check()
    expect(send).to_be_enabled()
    shot(surface, "a2ui-form")
    send.dblclick()  # a double click: one action

    output = cell.locator(".jp-OutputArea")
    expect(output.locator(".agui-assistant").last).to_contain_text(
        "Transferred 75.00 EUR", timeout=WAIT_MS
    )
    expect(surface).to_have_attribute("data-action-status", "done", timeout=WAIT_MS)
    expect(surface.locator(".agui-a2ui-action")).to_contain_text("Sent submit_transfer (by you)")
    expect(surface.locator('[data-component-id="outcome"]')).to_contain_text("Done: Transferred")
    shot(surface, "a2ui-form-done")
    sent = wait_for_actions(demo, thread, 1)
    time.sleep(0.5)  # a second action would have arrived by now
    sent = actions(demo, thread)
    assert len(sent) == 1, sent
    action = sent[0]
    assert action["name"] == "submit_transfer" and action["sourceComponentId"] == "submit"
    assert action["context"] == {
        "from": ["1234567890"], "to": "0987654321", "amount": "75", "currency": ["EUR"],
    }, action  # fmt: skip
    requests = demo.requests(thread)
    assert all(r.body["threadId"] == thread for r in requests)
    session.assert_clean()


HOSTILE_CELL = r"""
from agui_notebook._view.widget import ChatView
IMG = '<img src=x onerror="window.__pwned=1">'
ops = [
    {"version": "v0.9", "createSurface": {"surfaceId": IMG, "catalogId": "x", "theme": {"primaryColor": "red;background:url(//evil.invalid)", "agentDisplayName": IMG}}},
    {"version": "v0.9", "updateComponents": {"surfaceId": IMG, "components": [
        {"id": "root", "component": "Column", "children": ["t", "i", "v", "b"]},
        {"id": "t", "component": "Text", "text": "<script>window.__pwned=2</script>" + IMG},
        {"id": "i", "component": "Image", "url": "javascript:window.__pwned=3", "description": IMG},
        {"id": "v", "component": "Video", "url": "https://evil.invalid/v.mp4"},
        {"id": "bl", "component": "Text", "text": IMG},
        {"id": "b", "component": "Button", "child": "bl", "action": {"functionCall": {"call": "openUrl", "args": {"url": "javascript:window.__pwned=4"}}}},
    ]}},
]
view = ChatView()
view.items = [{"kind": "a2ui", "id": "h", "activityType": "a2ui-surface", "status": None, "error": None,
               "problems": [IMG], "updatesElsewhere": False,
               "surfaces": [{"surfaceId": IMG, "operations": ops, "action": {"status": "idle", "seq": 0}}]}]
view
"""


def test_a_hostile_surface_is_drawn_inert(lab: JupyterServer, open_session: Any) -> None:
    session = open_session(lab, "hostile_surface.ipynb", [HOSTILE_CELL])
    surface = session.cell(0).locator(".agui-a2ui-surface")
    expect(surface).to_be_visible(timeout=WAIT_MS)
    surface.locator('[data-component-id="b"] button').click()
    expect(surface.locator(".agui-a2ui-note")).to_contain_text("not opened")
    expect(surface).to_contain_text("<script>window.__pwned=2</script>")
    inside = session.page.evaluate(
        """() => {
        const root = document.querySelector('.agui-a2ui-surface').closest('.agui-chat');
        const bad = root.querySelectorAll('img,script,iframe,a,object,embed,video,audio,svg');
        const attrs = [...root.querySelectorAll('*')].flatMap((n) => [...n.attributes].map((a) => a.name))
          .filter((a) => a.startsWith('on') || ['href', 'src', 'style', 'srcdoc'].includes(a));
        return {bad: bad.length, attrs, pwned: window.__pwned ?? null};
    }"""
    )
    assert inside == {"bad": 0, "attrs": [], "pwned": None}, json.dumps(inside)
    shot(surface, "a2ui-hostile")
    session.assert_clean()
