"""The transcript's building blocks: lines a person reads, grouped in blocks, and the helpers that
turn values into such lines. Pure: no I/O.

``_view.transcript`` (chat items, document, text) and ``_view.transcript_genui`` (activity and A2UI items)
build blocks; ``_view.html`` writes them as HTML.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "BLOCK_KINDS",
    "CLIP_CHARS",
    "CLIP_LINES",
    "Block",
    "Line",
    "Tone",
    "as_text",
    "clean",
    "clip",
    "json_text",
    "value_lines",
]

Tone = Literal["", "ok", "bad", "warn", "muted"]
BLOCK_KINDS = (
    "status", "user", "assistant", "reasoning", "tool", "card", "error", "notice", "state",
    "audit", "activity", "surface", "other",
)  # fmt: skip

#: Characters of a value or result shown before the rest is cut (as the live view's "show more").
CLIP_CHARS = 400
#: Lines of a value or result shown before the rest is cut.
CLIP_LINES = 12


@dataclass(frozen=True)
class Line:
    """One line a person reads: an optional label ("Result"), its text, a tone, a depth."""

    text: str = ""
    label: str = ""
    tone: Tone = ""
    depth: int = 0
    #: An inline raster image drawn under the line by the HTML form, as ``(mime type, base64)``
    #: checked by ``_view.preview`` (a preview's picture); the text form shows the text only.
    image: tuple[str, str] | None = None


@dataclass(frozen=True)
class Block:
    """One entry of the view: a head line and the lines under it (``depth`` nests them).

    ``kind`` names the look (one of :data:`BLOCK_KINDS`; anything else looks like ``other``);
    ``collapsed`` is for what the live view shows folded (reasoning, state, audit).
    """

    kind: str
    head: Line
    lines: tuple[Line, ...] = ()
    tone: Tone = ""
    collapsed: bool = False


# C0/C1 controls (but tab and newline) and lone surrogates: shown as escapes, so a transcript is
# plain printable text that any file or terminal takes as it is.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def clean(text: str) -> str:
    return _UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def as_text(value: Any) -> str:
    """A value as the live view shows it as text: strings as they are, the rest as JSON."""
    if isinstance(value, str):
        return clean(value)
    if value is None:
        return ""
    return json_text(value)


def json_text(value: Any) -> str:
    """Compact JSON on one line; never fails, never shows an object's address."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=lambda v: f"<{type(v).__name__}>")
    except (ValueError, TypeError, RecursionError):
        text = f"(a {type(value).__name__} that cannot be shown as JSON)"
    return clean(text)


def clip(text: str) -> str:
    """At most CLIP_CHARS characters and CLIP_LINES lines, saying how much is cut."""
    cut = min(len(text), CLIP_CHARS)
    newline = -1
    for _ in range(CLIP_LINES):
        newline = text.find("\n", newline + 1, cut)
        if newline < 0:
            break
    if newline >= 0:
        cut = newline  # the CLIP_LINES-th line break: that many lines are shown
    if cut >= len(text):
        return text
    hidden = len(text) - cut
    lines = text.count("\n", cut)
    more = f"{hidden:,} more characters" + (f" ({lines:,} more lines)" if lines else "")
    return f"{text[:cut]}… ({more} not shown)"


def value_lines(value: Any, depth: int) -> list[Line]:
    """An object's entries as ``key: value`` lines (values as clipped JSON); else one line."""
    if isinstance(value, dict):
        if not value:
            return [Line("(empty)", tone="muted", depth=depth)]
        return [
            Line(clip(json_text(v)), label=clean(str(k)) or '""', depth=depth)
            for k, v in value.items()
        ]
    return [Line(clip(json_text(value)), depth=depth)]
