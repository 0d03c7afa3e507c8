"""The card's colours outside JupyterLab: VS Code's palettes (dark, light, high contrast) and
forced colours, measured in Debian's Chromium.

VS Code renders notebook outputs in a webview whose body carries `vscode-dark` / `vscode-light` /
`vscode-high-contrast` and defines `--vscode-*` variables; it cannot run on this machine, so this
page stands in for it: it sets those classes and variables (VS Code's default themes' values),
loads the committed bundle (agui_notebook/static/chat.js) and renders a view with a fake model,
with every state whose colour says something (decided, rejected, failed, error, countdown, late
click, notes). Every text must keep 4.5:1 (WCAG AA) against the background it is drawn on.
JupyterLab's own dark theme is measured in real JupyterLab (test_card_e2e.py).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _contrast import CONTRAST_JS
from _jupyter import REPO_ROOT, PageLog
from playwright.sync_api import Page, Route, expect

pytestmark = pytest.mark.browser

ORIGIN = "http://agui.test/"  # served by page.route: no network, no server
BUNDLE = REPO_ROOT / "agui_notebook" / "static" / "chat.js"
ARTIFACTS = REPO_ROOT / "artifacts" / "browser"

# VS Code's default themes (Dark Modern / Light Modern / High Contrast): the variables the
# card reads, and the page background a notebook output sits on.
PALETTES: dict[str, dict[str, Any]] = {
    "vscode-dark": {
        "body": "vscode-dark",
        "vars": {
            "--vscode-editor-foreground": "#cccccc",
            "--vscode-editor-background": "#1f1f1f",
            "--vscode-errorForeground": "#f85149",
            "--vscode-textLink-foreground": "#4daafc",
            "--vscode-button-background": "#0078d4",
            "--vscode-button-foreground": "#ffffff",
            "--vscode-focusBorder": "#0078d4",
            "--vscode-panel-border": "#2b2b2b",
            "--vscode-font-family": "system-ui, sans-serif",
        },
        "dark": True,
    },
    "vscode-light": {
        "body": "vscode-light",
        "vars": {
            "--vscode-editor-foreground": "#3b3b3b",
            "--vscode-editor-background": "#ffffff",
            "--vscode-errorForeground": "#f85149",
            "--vscode-textLink-foreground": "#005fb8",
            "--vscode-button-background": "#005fb8",
            "--vscode-button-foreground": "#ffffff",
            "--vscode-focusBorder": "#005fb8",
            "--vscode-panel-border": "#e5e5e5",
            "--vscode-font-family": "system-ui, sans-serif",
        },
        "dark": False,
    },
    "vscode-high-contrast": {
        "body": "vscode-high-contrast",
        "vars": {
            "--vscode-editor-foreground": "#ffffff",
            "--vscode-editor-background": "#000000",
            "--vscode-errorForeground": "#f48771",
            "--vscode-textLink-foreground": "#21a6ff",
            "--vscode-button-background": "#000000",
            "--vscode-button-foreground": "#ffffff",
            "--vscode-focusBorder": "#f38518",
            "--vscode-contrastBorder": "#6fc3df",
            "--vscode-font-family": "system-ui, sans-serif",
        },
        "dark": True,
    },
}

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>agui card</title></head>
<body class="{body}" style="{style}; background: var(--vscode-editor-background); margin: 16px">
<div id="out"></div>
<script type="module">
import widget from "./chat.js";
const listeners = new Map();
const data = {data};
const fire = (event, ...args) => {{ for (const cb of listeners.get(event) ?? []) cb(...args); }};
const model = {{
  get: (k) => data[k],
  on: (e, cb) => {{ if (!listeners.has(e)) listeners.set(e, new Set()); listeners.get(e).add(cb); }},
  off: (e, cb) => listeners.get(e)?.delete(cb),
  send: (msg) => window.__sent.push(msg),
}};
// The test plays the kernel: new items, and an ack for a message the card sent.
window.__sent = [];
window.__setItems = (items) => {{ data.items = items; fire("change:items"); }};
window.__ack = (msg) => fire("msg:custom", msg, []);
widget.render({{ model, el: document.getElementById("out") }});
window.__ready = true;
</script>
</body></html>
"""

ARGS = {"from_account": "1234567890", "to_account": "0987654321", "amount": 500}


def interrupt(iid: str) -> dict[str, Any]:
    return {
        "id": iid, "reason": "tool_call", "toolName": "transfer_money", "toolCallId": f"tc-{iid}",
        "message": "Approve: transfer 500.00 USD?", "args": ARGS, "argsSchema": None,
        "responseSchema": None, "expiresAt": None, "mode": "tool", "canEdit": True,
        "canGiveReason": True, "reissued": False,
    }  # fmt: skip


def card(cid: str, status: str, **more: Any) -> dict[str, Any]:
    iid = f"int-{cid}"
    base = {
        "kind": "card", "id": cid, "status": status, "interrupts": [interrupt(iid)],
        "decisions": None, "decidedBy": None, "error": None, "note": None,
        "timeoutAt": None, "timeoutDefault": "cancel",
    }  # fmt: skip
    if "action" in more:
        base["decisions"] = {
            iid: {"action": more.pop("action"), "reason": more.pop("reason", None)}
        }
    return {**base, **more}


ITEMS = [
    {"kind": "user", "id": "u", "text": "Transfer $500 from 1234567890 to 0987654321"},
    {"kind": "assistant", "id": "a", "text": "I'll transfer 500.00 USD.", "streaming": False},
    {"kind": "tool", "id": "t1", "name": "transfer_money", "args": ARGS, "argsText": "",
     "result": "{\"ok\": true}", "status": "done"},
    {"kind": "tool", "id": "t2", "name": "transfer_money", "args": ARGS, "argsText": "",
     "result": None, "status": "rejected"},
    card("card-pending", "pending", timeoutAt="2999-01-01T00:00:00+00:00",
         note="In marimo a click reaches Python only after the running cell has finished."),
    card("card-approved", "done", action="approve", decidedBy="you"),
    card("card-rejected", "done", action="reject", reason="too much", decidedBy="you"),
    card("card-timeout", "done", action="cancel", decidedBy="timeout: cancel after 600 s"),
    card("card-late", "pending"),
    card("card-failed", "failed", action="approve", decidedBy="you",
         error={"title": "Cannot reach the agent", "message": "connection refused"}),
    {"kind": "error", "id": "e", "title": "The agent reported an error",
     "message": "[DEMO_ERROR] it failed", "hint": "Try again."},
    {"kind": "notice", "id": "n", "text": "The run was aborted."},
    # AG-UI 1.1 in the cell: subagent groups, content parts, an encrypted value, the run's end.
    {"kind": "subagent", "id": "subagent:s1", "subagentRunId": "s1", "name": "payments",
     "description": "The payments specialist", "parentSubagentRunId": None,
     "parentToolCallId": None, "status": "suspended", "error": None, "subagent": None},
    {"kind": "tool", "id": "tool:p1", "name": "get_statement", "args": {"account": "1"},
     "argsText": "", "result": "", "resultValue": None, "status": "done", "subagent": "s1",
     "encrypted": True, "resultParts": [
         {"type": "file", "kind": "document", "label": "Statement", "mimeType": "text/csv",
          "source": "data", "location": None, "provider": None, "bytes": 77, "note": None,
          "metadata": None}]},
    {"kind": "subagent", "id": "subagent:s2", "subagentRunId": "s2", "name": "research",
     "description": None, "parentSubagentRunId": None, "parentToolCallId": None,
     "status": "error", "error": "The research subagent failed: quota exceeded", "subagent": None},
    {**card("card-sub", "pending"), "interrupts": [
        {**interrupt("int-sub"), "subagentRunId": "s1", "subagentName": "payments"}]},
    {"kind": "run-end", "id": "run-end:r1", "runId": "r1", "outcome": "success",
     "usage": [{"provider": "openai", "model": "gpt-x", "inputTokens": 1200, "outputTokens": 300}],
     "totals": {"inputTokens": 1200, "outputTokens": 300, "totalTokens": None},
     "metadata": {"trace": "abc"}, "result": None},
]  # fmt: skip

# What each colour says, and where it is drawn.
TEXTS = {
    "title": '[data-card-id="card-pending"] .agui-card-title',
    "assistant text": ".agui-assistant .agui-text",
    "approve button (primary)": '[data-card-id="card-pending"] button[data-action="approve"]',
    "reject button (danger)": '[data-card-id="card-pending"] button[data-action="reject"]',
    "countdown (warning)": '[data-card-id="card-pending"] .agui-timeout',
    "card note (muted)": '[data-card-id="card-pending"] .agui-note',
    "approved (success)": '[data-card-id="card-approved"] .agui-decision',
    "rejected (error)": '[data-card-id="card-rejected"] .agui-decision',
    "cancelled by the timeout (error)": '[data-card-id="card-timeout"] .agui-decision',
    "late click": '[data-card-id="card-late"] .agui-late',
    "failed card (error)": '[data-card-id="card-failed"] .agui-card-error .agui-error-title',
    "tool done badge (success)": '.agui-tool[data-status="done"] .agui-badge',
    "tool rejected badge (error)": '.agui-tool[data-status="rejected"] .agui-badge',
    "error item title": ".agui-error-item .agui-error-title",
    "error item message": ".agui-error-item .agui-error",
    "notice (muted)": ".agui-notice",
    "subagent name": '.agui-subagent[data-status="suspended"] .agui-subagent-name',
    "subagent suspended (warning)": '.agui-subagent[data-status="suspended"] .agui-subagent-head .agui-badge',
    "subagent description (muted)": ".agui-subagent-description",
    "subagent error (error)": '.agui-subagent[data-status="error"] .agui-subagent-error',
    "content part line": '[data-item-id="tool:p1"] .agui-part-file .agui-pre',
    "encrypted value note (muted)": '[data-item-id="tool:p1"] .agui-encrypted',
    "asked by subagent": '[data-card-id="card-sub"] .agui-asked-by',
    "run end (muted)": ".agui-run-end .agui-label",
    "run end tokens": ".agui-run-end .agui-usage",
    "usage row (muted)": ".agui-usage-entry",
}


def open_page(page: Page, palette: dict[str, Any]) -> None:
    style = "; ".join(f"{k}: {v}" for k, v in palette["vars"].items())
    html = PAGE.format(
        body=palette["body"], style=style, data=json.dumps({"items": ITEMS, "status": "waiting"})
    )

    def serve(route: Route) -> None:
        if route.request.url.endswith("/chat.js"):
            route.fulfill(body=BUNDLE.read_text(encoding="utf-8"), content_type="text/javascript")
        else:
            route.fulfill(body=html, content_type="text/html")

    page.route(f"{ORIGIN}**", serve)
    page.goto(ORIGIN)
    page.wait_for_function("window.__ready === true")


def measure(page: Page) -> dict[str, dict[str, Any]]:
    out = {}
    for name, selector in TEXTS.items():
        target = page.locator(selector).first
        expect(target).to_be_visible()
        out[name] = target.evaluate(CONTRAST_JS)
    return out


def low(ratios: dict[str, dict[str, Any]]) -> dict[str, str]:
    return {
        name: f"{r['ratio']:.2f}:1 ({r['fg']} on {r['bg']})"
        for name, r in ratios.items()
        if r["ratio"] < 4.5
    }


@pytest.mark.parametrize("name", list(PALETTES))
def test_every_text_keeps_aa_contrast_in_vscode_palettes(
    page: Page, page_log: PageLog, name: str
) -> None:
    palette = PALETTES[name]
    open_page(page, palette)
    root = page.locator(".agui-chat")
    expect(root).to_have_attribute("data-agui-theme", "dark" if palette["dark"] else "light")
    expect(root).to_have_attribute(
        "data-agui-contrast", "more" if "high-contrast" in name else "normal"
    )
    show_late_click(page)
    page.wait_for_timeout(200)
    ratios = measure(page)
    print(f"\n{name} contrast:", json.dumps({k: round(v["ratio"], 2) for k, v in ratios.items()}))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator(".agui-chat").screenshot(path=str(ARTIFACTS / f"theme-{name}.png"))
    bg = ratios["title"]["bgLuminance"]
    assert (bg < 0.2) if palette["dark"] else (bg > 0.8), ratios  # the palette applied
    assert page_log.errors_matching(r"agui|chat\.js") == []
    assert low(ratios) == {}, f"below 4.5:1 in {name}: {low(ratios)}"
    if "high-contrast" in name:
        # High contrast draws the card's borders in the theme's contrast border colour.
        border = page.locator('[data-card-id="card-pending"]').evaluate(
            "el => getComputedStyle(el).borderTopColor"
        )
        assert border == "rgb(111, 195, 223)", border


LATE = "Your Approve arrived after the timeout had cancelled; nothing was sent."


def show_late_click(page: Page) -> None:
    """Approve on a pending card; the timeout decides it first; then the kernel's late ack
    arrives, as in marimo: the card says what happened."""
    page.locator('[data-card-id="card-late"] button[data-action="approve"]').click()
    [sent] = page.evaluate("window.__sent")
    decided = [
        card("card-late", "done", action="cancel", decidedBy="timeout: cancel after 600 s")
        if it.get("id") == "card-late"
        else it
        for it in ITEMS
    ]
    page.evaluate("items => window.__setItems(items)", decided)
    page.evaluate(
        "ack => window.__ack(ack)",
        {"type": "ack", "requestId": sent["requestId"], "accepted": False, "late": True,
         "error": LATE},
    )  # fmt: skip
    expect(page.locator('[data-card-id="card-late"] .agui-late')).to_have_text(LATE)


def test_forced_colors_keep_buttons_and_states_apart(page: Page) -> None:
    """Windows high contrast (forced-colors): system colours everywhere; a disabled button is
    still readable (no dimming) and a chosen option still shows (an outline, not a shadow)."""
    page.emulate_media(forced_colors="active")
    open_page(page, PALETTES["vscode-light"])
    show_late_click(page)
    ratios = measure(page)
    assert low(ratios) == {}, low(ratios)
    disabled = page.locator('[data-card-id="card-approved"] button[data-action="approve"]').first
    expect(disabled).to_be_disabled()
    assert disabled.evaluate("el => getComputedStyle(el).opacity") == "1"
