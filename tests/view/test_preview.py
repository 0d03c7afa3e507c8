"""A preview's display data made safe for a card, and its lines in the transcript. Pure."""

from __future__ import annotations

import base64
import hashlib

from agui_notebook._decisions.audit import canonical_json
from agui_notebook._view.blocks import Block, Line
from agui_notebook._view.html import transcript_html
from agui_notebook._view.preview import (
    MAX_HTML_CHARS,
    MAX_TEXT_CHARS,
    informed_lines,
    shown_preview,
    verdict_lines,
)
from agui_notebook._view.transcript import register_item_kind
from tests.view._inert import assert_inert

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24
PNG64 = base64.b64encode(PNG).decode()


def test_html_is_shown_as_html_with_its_text_form_kept() -> None:
    shown = shown_preview({"text/html": "<table><tr><td>1</td></tr></table>", "text/plain": "1"})
    assert shown["kind"] == "html" and shown["html"].startswith("<table>")
    assert shown["text"] == "1" and shown["note"] is None
    expected = canonical_json({"text/html": shown["html"], "text/plain": "1"})
    assert shown["sha256"] == hashlib.sha256(expected.encode()).hexdigest()


def test_an_image_wins_and_is_kept_only_as_inline_raster_data() -> None:
    shown = shown_preview({"image/png": PNG, "text/plain": "<Figure>", "text/html": "<b>x</b>"})
    assert shown["kind"] == "image" and shown["html"] is None
    assert shown["image"] == {"mimeType": "image/png", "data": PNG64}
    # Base64 from IPython (with line breaks) is the same picture, so the same hash.
    wrapped = PNG64[:8] + "\n" + PNG64[8:]
    again = shown_preview({"image/png": wrapped, "text/plain": "<Figure>", "text/html": "<b>x</b>"})
    assert again["image"] == shown["image"] and again["sha256"] == shown["sha256"]


def test_what_is_not_a_raster_image_is_not_drawn_and_says_why() -> None:
    lying = shown_preview(
        {"image/png": base64.b64encode(b"GIF89a....").decode(), "text/plain": "x"}
    )
    assert lying["kind"] == "text" and "not image/png" in lying["note"]
    svg = shown_preview({"image/svg+xml": "<svg onload='x()'/>", "text/plain": "a chart"})
    assert svg["kind"] == "text" and "SVG" in svg["note"] and svg["text"] == "a chart"
    broken = shown_preview({"image/jpeg": "not base64!", "text/plain": "x"})
    assert "not base64" in broken["note"]


def test_too_large_html_falls_back_to_its_text_form_cut_with_a_note() -> None:
    huge = "<td>x</td>" * (MAX_HTML_CHARS // 10 + 1)
    shown = shown_preview({"text/html": huge, "text/plain": "y" * (MAX_TEXT_CHARS * 3)})
    assert shown["kind"] == "text" and shown["html"] is None
    assert len(shown["text"]) == MAX_TEXT_CHARS + 1 and shown["text"].endswith("…")
    assert "is over the 1,048,576 a card draws: its text form is shown" in shown["note"]
    assert "its text (60,000 characters) is cut to the first 20,000" in shown["note"]


def test_a_bundle_with_nothing_to_show_says_so() -> None:
    shown = shown_preview({"application/vnd.custom": {"a": 1}})
    assert shown["kind"] == "text" and shown["text"] is None
    assert "no form a card can show" in shown["note"]
    assert shown_preview({"application/json": {"a": 1}})["text"] == '{\n "a": 1\n}'


def card_with(section: dict[str, object]) -> dict[str, object]:
    return {
        "kind": "card",
        "id": "card-1",
        "status": "done",
        "interrupts": [
            {"id": "i1", "mode": "tool", "toolName": "transfer_money", "args": {}, **section}
        ],
        "decisions": {"i1": {"action": "approve"}},
        "decidedBy": "you",
    }


def test_the_transcript_shows_the_preview_checks_and_verdict_beside_the_decision() -> None:
    preview = {
        "status": "shown",
        "label": "Preview (computed in this notebook)",
        "text": "a  b\n1  2",
    }
    checks = {"results": [{"name": "no_overdraft", "passed": False, "text": "overdraft"}]}
    verdict = {"verdict": "not_reported", "text": "Approved, but no execution", "warning": True}
    lines = informed_lines({"preview": preview, "checks": checks})
    assert lines == [
        Line(label="Preview (computed in this notebook)"),
        Line("a  b", depth=1),
        Line("1  2", depth=1),
        Line("overdraft", label="Check no_overdraft", tone="bad"),
    ]
    assert verdict_lines({"verdict": verdict}) == [
        Line("Approved, but no execution", label="Execution", tone="warn")
    ]


def test_the_html_transcript_draws_a_preview_picture_and_nothing_else_from_data() -> None:
    image = {"mimeType": "image/png", "data": PNG64}
    good = card_with(
        {"preview": {"status": "shown", "label": "Preview", "text": "<Figure>", "image": image}}
    )
    html = transcript_html([good])
    found = assert_inert(html)
    assert found.tags.count("img") == 1 and f'src="data:image/png;base64,{PNG64}"' in html
    # A picture that is not checked inline raster data is left out; the text stays.
    bad = {"mimeType": "image/png", "data": 'x" onerror="alert(1)'}
    hostile = card_with(
        {"preview": {"status": "shown", "label": "Preview", "text": "t", "image": bad}}
    )
    html = transcript_html([hostile])
    assert "<img" not in assert_inert(html).tags and "onerror" not in html.replace("&quot;", "")


def test_a_computing_preview_says_so() -> None:
    lines = informed_lines({"preview": {"status": "computing", "label": "Preview"}})
    assert lines == [Line("computing…", label="Preview", tone="muted")]
    assert isinstance(register_item_kind, object) and Block  # the transcript's seam is untouched
