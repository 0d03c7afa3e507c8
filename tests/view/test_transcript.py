"""The static forms of a chat view: deterministic text, inert HTML (agui_notebook/_view/transcript.py).

Items here are built by hand in the shapes of docs/widget-protocol.md; tests/view/
test_static_forms.py checks the same forms on views filled by real runs of the demo agent.
"""

from __future__ import annotations

from typing import Any

import pytest

from agui_notebook._view import transcript as _transcript
from agui_notebook._view.html import STYLE_ELEMENT_TEXT, STYLESHEET, transcript_html
from agui_notebook._view.transcript import (
    Block,
    Line,
    clip,
    register_item_kind,
    status_text,
    transcript_text,
)
from tests.view._inert import assert_inert

ARGS = {"from_account": "1234567890", "to_account": "0987654321", "amount": 500.0}


def card(**over: Any) -> dict[str, Any]:
    interrupt = {
        "id": "int-7f3a",
        "reason": "tool_call",
        "toolName": "transfer_money",
        "toolCallId": "call-9c2e",
        "message": "Approve: transfer 500.00 USD?",
        "args": ARGS,
        "argsSchema": None,
        "responseSchema": None,
        "expiresAt": None,
        "mode": "tool",
        "canEdit": True,
        "canGiveReason": True,
        "reissued": False,
    }
    return {
        "kind": "card",
        "id": "card-1",
        "status": "done",
        "interrupts": [interrupt],
        "decisions": {"int-7f3a": {"action": "approve", "reason": None, "args": None}},
        "decidedBy": "you",
        "error": None,
        "note": None,
        "timeoutAt": "2026-12-03T10:00:00+00:00",
        "timeoutDefault": "cancel",
        **over,
    }


def turn() -> list[dict[str, Any]]:
    return [
        {"kind": "user", "id": "user-1", "text": "Transfer $500"},
        {
            "kind": "assistant",
            "id": "msg:a1b2",
            "text": "This needs your approval.",
            "streaming": False,
        },
        {
            "kind": "tool",
            "id": "tool:call-9c2e",
            "name": "transfer_money",
            "args": ARGS,
            "argsText": "",
            "result": '{"ok": true}',
            "status": "done",
            "text": "",
        },
        card(),
        {
            "kind": "assistant",
            "id": "msg:c3d4",
            "text": "Transferred.\nNew balance: 2,000.",
            "streaming": False,
        },
    ]


AUDIT = [
    {
        "card": "card-1",
        "interrupt": "int-7f3a",
        "tool": "transfer_money",
        "reason": "tool_call",
        "arguments": ARGS,
        "decision": "approve",
        "changes": None,
        "rejectReason": None,
        "decidedBy": "you",
        "decidedAt": "2026-12-03T10:00:00+00:00",
        "outcome": "success",
    }
]


def test_the_transcript_reads_as_the_view_shows_it() -> None:
    text = transcript_text(
        turn(), state={"balance": 2000.0}, audit=AUDIT, status="idle", outcome="success"
    )
    assert text.splitlines() == [
        "Status: finished",
        "You: Transfer $500",
        "Assistant: This needs your approval.",
        "Tool: transfer_money (done)",
        '  from_account: "1234567890"',
        '  to_account: "0987654321"',
        "  amount: 500.0",
        '  Result: {"ok": true}',
        "Approval needed: done (decided by you)",
        "  Tool call: transfer_money",
        "  Approve: transfer 500.00 USD?",
        "  Arguments:",
        '    from_account: "1234567890"',
        '    to_account: "0987654321"',
        "    amount: 500.0",
        "  Decision: approved by you",
        "Assistant: Transferred.",
        "  New balance: 2,000.",
        'State: {"balance": 2000.0}',
        "Audit (1):",
        "  transfer_money(from_account='1234567890', to_account='0987654321', amount=500.0)"
        " -> approve (by you) => success",
    ]


def test_no_ids_or_times_reach_either_form() -> None:
    forms = transcript_text(turn(), audit=AUDIT) + transcript_html(turn(), audit=AUDIT)
    for volatile in (
        "int-7f3a",
        "call-9c2e",
        "msg:a1b2",
        "card-1",
        "user-1",
        "2026-12-03",
        "10:00",
    ):
        assert volatile not in forms


def test_a_different_decision_changes_the_decision_line() -> None:
    rejected = card(decisions={"int-7f3a": {"action": "reject", "reason": "too much"}})
    text = transcript_text([rejected])
    assert "  Decision: rejected by you" in text.splitlines()
    assert "  Reason: too much" in text.splitlines()
    edited = card(
        decidedBy="policy: scripted",
        decisions={"int-7f3a": {"action": "edit", "args": {"amount": 250}}},
    )
    lines = transcript_text([edited]).splitlines()
    assert "  Decision: approved with edited arguments by policy: scripted" in lines
    assert lines[lines.index("  Arguments sent:") + 1] == "    amount: 250"


def test_pending_failed_and_form_cards() -> None:
    pending = transcript_text([card(status="pending", decisions=None, decidedBy=None)])
    assert "Approval needed: pending (waiting for a decision)" in pending
    assert "with no answer in time: cancel" in pending
    assert "Decision" not in pending
    failed = transcript_text(
        [card(status="failed", error={"title": "Not sent", "message": "it expired"})]
    )
    assert "  Not sent: it expired" in failed.splitlines()
    form = card(
        interrupts=[
            {
                "id": "f",
                "reason": "input_required",
                "message": "When?",
                "responseSchema": {"type": "object"},
                "mode": "form",
            }
        ],
        decisions={"f": {"action": "answer", "payload": {"date": "2025-07-01"}}},
    )
    lines = transcript_text([form]).splitlines()
    assert lines[1] == "Your input is needed: done (decided by you)"
    assert "  input required:" in lines
    assert "  Decision: answered by you" in lines
    assert '    date: "2025-07-01"' in lines


def test_long_values_are_clipped_and_say_so() -> None:
    assert clip("short") == "short"
    cut = clip("x" * 1000)
    assert cut == "x" * 400 + "… (600 more characters not shown)"
    many = "\n".join(str(n) for n in range(20))
    assert clip(many).startswith("0\n1\n") and "(8 more lines)" in clip(many)
    assert clip(many).count("\n") == 11


def test_control_characters_and_lone_surrogates_become_escapes() -> None:
    text = transcript_text([{"kind": "user", "id": "u", "text": "a\x1b[31mb\x00c\ud800d"}])
    assert "a\\u001b[31mb\\u0000c\\ud800d" in text
    text.encode("utf-8")  # nothing a notebook file cannot hold


def test_status_words() -> None:
    assert status_text("running", None) == "running…"
    assert status_text("idle", None) == "idle"
    assert status_text("idle", "success") == "finished"
    assert status_text("idle", "aborted") == "stopped: aborted"
    assert status_text("error", "error") == "error"


def test_an_unknown_kind_is_shown_without_its_ids() -> None:
    item = {
        "kind": "progress",
        "id": "act-123",
        "messageId": "m-9",
        "title": "Searching flights",
        "content": {"step": 2},
        "startedAt": "2026-12-03T10:00:00Z",
    }
    text = transcript_text([item])
    assert text.splitlines()[1:] == [
        'Item of kind: "progress"',
        "  title: Searching flights",
        '  content: {"step": 2}',
        "  other fields: messageId, startedAt",
    ]
    assert "act-123" not in text and "m-9" not in text


def test_a_kind_plugs_in_by_name_and_a_broken_renderer_falls_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_transcript, "_KINDS", dict(_transcript._KINDS))
    register_item_kind(
        "subagent",
        lambda item: Block("other", Line(str(item["name"]), label="Subagent"), (Line("busy"),)),
    )
    register_item_kind("hidden", lambda item: None)
    register_item_kind("broken", lambda item: 1 / 0)  # type: ignore[arg-type,return-value]
    items = [
        {"kind": "subagent", "id": "s1", "name": "researcher"},
        {"kind": "hidden", "id": "h"},
        {"kind": "broken", "id": "b", "text": "still shown"},
    ]
    assert transcript_text(items).splitlines()[1:] == [
        "Subagent: researcher",
        "  busy",
        'Item of kind: "broken"',
        "  text: still shown",
    ]


# ------------------------------------------------------------------------------ the HTML form


HOSTILE = {
    "payee_name": "<img src=x onerror=alert(1)>",
    "note": "</div><script>window.__pwned=1</script>",
    "website": "javascript:alert(1)",
    "style": '"><style>body{display:none}</style>',
}


def test_hostile_strings_are_text_in_the_html() -> None:
    items = [
        {"kind": "user", "id": "u", "text": HOSTILE["note"]},
        {
            "kind": "tool",
            "id": "t",
            "name": HOSTILE["payee_name"],
            "args": HOSTILE,
            "status": "done",
        },
        card(
            interrupts=[{**card()["interrupts"][0], "toolName": "<b>x</b>", "args": HOSTILE}],
            decidedBy=HOSTILE["style"],
        ),
        {"kind": HOSTILE["payee_name"], "id": "k", "text": HOSTILE["website"]},
        {"kind": "error", "id": "e", "title": HOSTILE["note"], "message": HOSTILE["style"]},
    ]
    fragment = transcript_html(items, state=HOSTILE, audit=[{**AUDIT[0], "tool": "<i>t</i>"}])
    found = assert_inert(fragment)
    text = "".join(found.text)
    for probe in HOSTILE.values():
        assert probe in text  # shown, as text
    assert "<img" not in fragment and "<script" not in fragment and "<b>" not in fragment
    assert "&lt;img src=x onerror=alert(1)&gt;" in fragment


def test_the_html_carries_the_same_lines_as_the_text() -> None:
    fragment = transcript_html(turn(), state={"balance": 1}, audit=AUDIT, outcome="success")
    found = assert_inert(fragment)
    text = " ".join(found.text)
    for expected in (
        "finished",
        "transfer_money (done)",
        "from_account:",
        '"1234567890"',
        "approved by you",
        "Transferred.",
        "Audit (1):",
    ):
        assert expected in text


def test_the_compacted_stylesheet_keeps_every_rule() -> None:
    assert "\n" not in STYLE_ELEMENT_TEXT and len(STYLE_ELEMENT_TEXT) < len(STYLESHEET)
    strip = lambda css: "".join(css.split())  # noqa: E731
    assert strip(STYLE_ELEMENT_TEXT).replace(";}", "}") == strip(STYLESHEET).replace(";}", "}")


def test_the_stylesheet_follows_the_theme_and_has_dark_fallbacks() -> None:
    assert "prefers-color-scheme: dark" in STYLESHEET
    assert 'body[data-jp-theme-light="false"]' in STYLESHEET
    assert "var(--jp-ui-font-color1" in STYLESHEET and "var(--jp-layout-color0" in STYLESHEET
    for forbidden in ("url(", "@import", "expression(", "javascript:"):
        assert forbidden not in STYLESHEET


@pytest.mark.parametrize(
    "bad",
    [
        '<div class="agui-static"><img src=x></div>',
        '<div class="agui-static" onclick="x"></div>',
        '<div class="agui-static" style="color:red"></div>',
        '<div class="evil"></div>',
        "<div><style>body{}</style></div>",
    ],
)
def test_the_inertness_check_itself_catches_markup(bad: str) -> None:
    with pytest.raises(AssertionError):
        assert_inert(bad + f"<style>{STYLE_ELEMENT_TEXT}</style>" if "<style>" not in bad else bad)


def test_nested_lines_become_nested_lists_that_stay_well_formed() -> None:
    from agui_notebook._view.html import _block
    from tests.view._inert import inspect

    lines = (Line("a"), Line("b", depth=1), Line("c", depth=1), Line("d"), Line("e", depth=3))
    fragment = _block(Block("card", Line("head"), lines))
    assert fragment.endswith(
        '<ul class="agui-s-body"><li class="agui-s-line">a<ul><li class="agui-s-line">b</li>'
        '<li class="agui-s-line">c</li></ul></li><li class="agui-s-line">d<ul>'
        '<li class="agui-s-line">e</li></ul></li></ul></div>'
    )
    for odd in [(Line("x", depth=2),), (Line("x", depth=1), Line("y", depth=5), Line("z"))]:
        found = inspect(_block(Block("card", Line("head"), odd)))
        assert found.misnested == [] and found.open == []


def test_a_surface_shows_texts_fields_and_buttons_never_links() -> None:
    ops = [
        {"version": "v0.9", "createSurface": {"surfaceId": "s-123", "catalogId": "basic"}},
        {
            "version": "v0.9",
            "updateComponents": {
                "surfaceId": "s-123",
                "components": [
                    {"id": "root", "component": "Column", "children": ["t", "img", "f", "b"]},
                    {"id": "t", "component": "Text", "text": "<script>x()</script>"},
                    {"id": "img", "component": "Image", "url": "javascript:alert(1)"},
                    {"id": "f", "component": "TextField", "label": "To", "value": {"path": "/to"}},
                    {"id": "b", "component": "Button", "child": "bl", "action": {"event": {}}},
                    {"id": "bl", "component": "Text", "text": "Send"},
                ],
            },
        },
        {
            "version": "v0.9",
            "updateDataModel": {"surfaceId": "s-123", "path": "/to", "value": "42"},
        },
    ]
    item = {
        "kind": "a2ui",
        "id": "activity:a-9",
        "activityType": "a2ui-surface",
        "surfaces": [{"surfaceId": "s-123", "operations": ops, "action": {"status": "failed",
                      "name": "send", "decidedBy": "you", "error": "HTTP 500"}}],
        "problems": ["1 A2UI message(s) without a surface were ignored"],
    }  # fmt: skip
    text = transcript_text([item])
    assert text.splitlines()[1:] == [
        "Generated UI: a2ui-surface",
        "  Surface:",
        "    <script>x()</script>",
        "    (image)",
        "    To: 42",
        "    [Send]",
        "  Action: send (failed, by you)",
        "  HTTP 500",
        "  1 A2UI message(s) without a surface were ignored",
    ]
    assert "javascript:" not in text and "s-123" not in text
    fragment = transcript_html([item])
    assert_inert(fragment)
    assert "javascript:" not in fragment and "<script>" not in fragment


def test_the_state_line_leaves_out_ids_and_times() -> None:
    state = {
        "balance": 5,
        "messages": [
            {"id": "f31ecefa", "content": "hi", "tool_calls": [{"name": "t", "id": "call-1"}]},
            {"type": "tool", "tool_call_id": "call-1", "createdAt": "2026-12-03", "content": "ok"},
        ],
        "threadId": "t-9",
        "updated_at": "10:00",
        "identity": "kept: not an id field",
    }
    line = transcript_text([], state=state).splitlines()[1]
    assert line == (
        'State: {"balance": 5, "messages": [{"content": "hi", "tool_calls": [{"name": "t"}]}, '
        '{"type": "tool", "content": "ok"}], "identity": "kept: not an id field"}'
    )


def test_attachments_are_named_never_inlined_or_linked() -> None:
    tool = {
        "kind": "tool",
        "id": "tool:c",
        "name": "get_statement",
        "args": {},
        "result": "Statement.",
        "resultParts": [
            {"type": "text", "text": "Statement."},
            {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo=", "label": "Chart",
             "bytes": 1234},
            {"type": "file", "kind": "document", "label": "<b>CSV</b>", "mimeType": "text/csv",
             "source": "url", "location": "javascript:alert(1)", "bytes": None},
        ],
        "status": "done",
    }  # fmt: skip
    lines = transcript_text([tool]).splitlines()
    assert lines[-3:] == [
        "  Result: Statement.",
        "  Attached: Chart (image, image/png, 1,234 bytes)",
        "  Attached: <b>CSV</b> (document, text/csv, javascript:alert(1))",
    ]
    fragment = transcript_html([tool])
    assert_inert(fragment)
    assert "iVBORw0KGgo" not in fragment and "<b>" not in fragment
