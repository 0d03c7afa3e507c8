"""A preview's display data made safe to show on a card, and its lines in the transcript. Pure.

A preview is whatever a function in the notebook returned, formatted as IPython formats it (a
mimebundle: ``{mime type: data}``). The card shows one form of it, by these rules:

- an image only as inline raster data (PNG, JPEG, GIF, WebP whose bytes start like one, up to
  :data:`~agui_notebook._state.parts.MAX_INLINE_IMAGE_BYTES`); never from a URL, never SVG;
- HTML only inside a sandboxed iframe with no scripts and a CSP that loads nothing (the front end
  builds it: ``js/src/preview.js``), up to :data:`MAX_HTML_CHARS`;
- anything else, and whatever is too large, as its text form (``text/plain``), clipped to
  :data:`MAX_TEXT_CHARS` with a note.

The text form is always kept: the saved transcript shows it (and an image as an image). The hash
the audit keeps (``preview_sha256``) is the SHA-256 of the shown bundle's canonical JSON: what the
person saw, not what the function returned.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from .._decisions.audit import canonical_json
from .._state.parts import image_problem
from .blocks import Line, Tone, clean, clip

__all__ = [
    "IMAGE_TYPES",
    "MAX_HTML_CHARS",
    "MAX_TEXT_CHARS",
    "informed_lines",
    "shown_preview",
    "verdict_lines",
]

#: Raster types drawn inline, in the order they are preferred.
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
#: The largest HTML a card draws (its iframe's document); larger shows the text form.
MAX_HTML_CHARS = 1024 * 1024
#: The largest text form kept; longer is clipped, with a note.
MAX_TEXT_CHARS = 20_000
#: Text forms of these types, when there is no ``text/plain``.
_TEXT_TYPES = ("text/markdown", "text/latex", "application/json")


def shown_preview(bundle: Mapping[str, Any]) -> dict[str, Any]:
    """The card's form of a preview's mimebundle: ``kind`` (``html``, ``image``, ``text``), its
    data, the text form, a ``note`` on what was not shown and why, and ``sha256``."""
    notes: list[str] = []
    text = _text_form(bundle, notes)
    shown: dict[str, Any] = {"kind": "text", "html": None, "image": None}
    kept: dict[str, Any] = {}
    image = _image(bundle, notes)
    if image is not None:
        shown["kind"], shown["image"] = "image", image
        kept[image["mimeType"]] = image["data"]
    elif isinstance(bundle.get("text/html"), str):
        html = bundle["text/html"]
        if len(html) <= MAX_HTML_CHARS:
            shown["kind"], shown["html"] = "html", html
            kept["text/html"] = html
        else:
            notes.append(
                f"its HTML ({_size(len(html))}) is over the {MAX_HTML_CHARS:,} a card draws: "
                "its text form is shown"
            )
    if text is not None:
        kept["text/plain"] = text
    if not kept:
        notes.append("it has no form a card can show (no text, no raster image, no HTML)")
    shown["text"] = text
    shown["note"] = "; ".join(notes) or None
    shown["sha256"] = hashlib.sha256(
        canonical_json(kept).encode("utf-8", "surrogatepass")
    ).hexdigest()
    return shown


def _text_form(bundle: Mapping[str, Any], notes: list[str]) -> str | None:
    value = bundle.get("text/plain")
    if value is None:
        found = next((m for m in _TEXT_TYPES if bundle.get(m) is not None), None)
        if found is None:
            return None
        value = bundle[found]
    if not isinstance(value, str):
        try:
            value = json.dumps(value, ensure_ascii=False, indent=1, default=str)
        except (TypeError, ValueError):
            value = str(value)
    if len(value) > MAX_TEXT_CHARS:
        notes.append(f"its text ({_size(len(value))}) is cut to the first {MAX_TEXT_CHARS:,}")
        value = value[:MAX_TEXT_CHARS] + "…"
    return clean(value)


def _image(bundle: Mapping[str, Any], notes: list[str]) -> dict[str, str] | None:
    """The first raster image that may be drawn inline, as base64; notes say why others not."""
    for mime in IMAGE_TYPES:
        data = bundle.get(mime)
        if data is None:
            continue
        raw = _raw(data)
        if raw is None:
            notes.append(f"its {mime} is not base64 data")
            continue
        problem = image_problem(raw, mime)
        if problem is not None:
            notes.append(f"its image is not drawn: {problem}")
            continue
        text = data if isinstance(data, str) else base64.b64encode(raw).decode("ascii")
        return {"mimeType": mime, "data": text.replace("\n", "")}
    if bundle.get("image/svg+xml") is not None:
        notes.append("an SVG image is not drawn (it is a document, not a picture)")
    return None


def _raw(data: Any) -> bytes | None:
    if isinstance(data, bytes | bytearray):
        return bytes(data)
    if not isinstance(data, str):
        return None
    try:
        return base64.b64decode(data.replace("\n", ""), validate=True)
    except (binascii.Error, ValueError):
        return None


def _size(chars: int) -> str:
    return f"{chars:,} characters"


# -- in the transcript -------------------------------------------------------------------------


def informed_lines(interrupt: Mapping[str, Any]) -> list[Line]:
    """A section's preview and checks as transcript lines (the text form of the preview; an
    image also as an image, for the HTML transcript)."""
    lines: list[Line] = []
    preview = interrupt.get("preview")
    if isinstance(preview, Mapping):
        label = _str(preview.get("label")) or "Preview"
        text = _str(preview.get("text"))
        image = preview.get("image")
        status = _str(preview.get("status"))
        if status == "computing":
            lines.append(Line("computing…", label=label, tone="muted"))
        elif isinstance(image, Mapping) and isinstance(image.get("data"), str):
            shown = (_str(image.get("mimeType")), image["data"])
            lines.append(Line(clip(text) if text else "", label=label, image=shown))
        else:
            lines.append(Line(label=label))
            if text:  # each on a line of its own, so a table's columns stay aligned
                lines.extend(Line(part.rstrip(), depth=1) for part in clip(text).split("\n"))
        if _str(preview.get("note")):
            lines.append(Line(clip(_str(preview.get("note"))), tone="warn", depth=1))
    checks = interrupt.get("checks")
    if isinstance(checks, Mapping) and isinstance(checks.get("results"), list):
        for check in checks["results"]:
            if isinstance(check, Mapping):
                tone: Tone = "ok" if check.get("passed") is True else "bad"
                text = _str(check.get("text"))
                lines.append(Line(clip(text), label=f"Check {_str(check.get('name'))}", tone=tone))
    return lines


def verdict_lines(interrupt: Mapping[str, Any]) -> list[Line]:
    """A section's execution verdict (after its decision) as transcript lines."""
    lines: list[Line] = []
    verdict = interrupt.get("verdict")
    if isinstance(verdict, Mapping) and _str(verdict.get("text")):
        tone: Tone = "warn" if verdict.get("warning") is True else "ok"
        lines.append(Line(clip(_str(verdict.get("text"))), label="Execution", tone=tone))
        if _str(verdict.get("detail")):
            lines.append(Line(clip(_str(verdict.get("detail"))), tone="muted", depth=1))
    return lines


def _str(value: Any) -> str:
    return clean(value) if isinstance(value, str) else ""
