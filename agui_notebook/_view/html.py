"""A chat view's transcript as inert HTML in the card's look: its ``text/html``. Pure: no I/O.

The same blocks as the text (``_view.transcript.document``), and inert by construction: every string
from data goes through ``html.escape``, the tags come from :data:`TAGS`, the only attribute is
``class`` with values from :data:`CLASSES`, and the one ``<style>`` element holds our own
:data:`STYLESHEET`. No script, no event handler, no URL and no style from data. The one exception
is a preview's picture (:attr:`Line.image`): an ``<img>`` whose ``src`` is a ``data:`` URL of an
allow-listed raster type and strict base64 (checked again here), so nothing is fetched.

It reads without its stylesheet too, since code hosts and JupyterLab (for an untrusted
notebook, which is how a saved notebook opens) drop ``<style>``: labels are bold words, the lines
under a head are a list, and nested arguments a nested list. Its rules win over the page's own
list styles (nbconvert's pages style every list) by specificity, never by ``!important``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from typing import Any

from .blocks import BLOCK_KINDS, Block, Line
from .transcript import document

__all__ = ["CLASSES", "STYLESHEET", "STYLE_ELEMENT_TEXT", "TAGS", "transcript_html"]

#: Every tag the HTML form uses.
TAGS = frozenset({"style", "div", "span", "strong", "ul", "li", "br", "details", "summary", "img"})
_TONES = ("ok", "bad", "warn", "muted")
#: Every class the HTML form uses (fixed: never taken from data).
CLASSES = frozenset(
    {"agui-static", "agui-s-item", "agui-s-head", "agui-s-line", "agui-s-label", "agui-s-body"}
    | {"agui-s-image"}
    | {f"agui-s-{kind}" for kind in BLOCK_KINDS}
    | {f"agui-s-{tone}" for tone in _TONES}
)

#: The one stylesheet, scoped under .agui-static. JupyterLab's theme variables first (its light
#: and dark themes, also in nbconvert's pages), then VS Code's, then our own light and dark
#: fallbacks (prefers-color-scheme) with a background of their own, so text and background
#: always come from the same place. Status colours follow the theme's lightness: JupyterLab's
#: "0" shades on light themes, its "2" shades on dark ones (>= 4.5:1 on each, tests/browser).
STYLESHEET = """
.agui-static {
  --as-fg: var(--jp-ui-font-color1, var(--vscode-editor-foreground, #1f2328));
  --as-muted: var(--jp-ui-font-color2, var(--vscode-descriptionForeground, #59636e));
  --as-bg: var(--jp-layout-color0, var(--vscode-editor-background, #ffffff));
  --as-bg1: var(--jp-layout-color2, color-mix(in srgb, var(--as-fg) 7%, var(--as-bg)));
  --as-border: var(--jp-border-color1, var(--vscode-panel-border, #8c959f));
  --as-ok: var(--jp-success-color0, #1a7f37);
  --as-bad: var(--jp-error-color0, #cf222e);
  --as-warn: var(--jp-warn-color0, #9a6700);
  color: var(--as-fg);
  background: var(--as-bg);
  font-family: var(--jp-ui-font-family, var(--vscode-font-family, system-ui, sans-serif));
  font-size: var(--jp-content-font-size1, 13px);
  line-height: 1.45;
  overflow-wrap: anywhere;
  display: flex;
  flex-direction: column;
  gap: 6px;
  padding: 4px 0;
}
@media (prefers-color-scheme: dark) {
  .agui-static {
    --as-fg: var(--jp-ui-font-color1, var(--vscode-editor-foreground, #e6edf3));
    --as-muted: var(--jp-ui-font-color2, var(--vscode-descriptionForeground, #9198a1));
    --as-bg: var(--jp-layout-color0, var(--vscode-editor-background, #0d1117));
    --as-border: var(--jp-border-color1, var(--vscode-panel-border, #656c76));
    --as-ok: var(--jp-success-color0, #3fb950);
    --as-bad: var(--jp-error-color0, #ff7b72);
    --as-warn: var(--jp-warn-color0, #d29922);
  }
}
body[data-jp-theme-light="false"] .agui-static, body.vscode-dark .agui-static {
  --as-ok: var(--jp-success-color2, #3fb950);
  --as-bad: var(--jp-error-color2, #ff7b72);
  --as-warn: var(--jp-warn-color2, #d29922);
}
.agui-static .agui-s-item { padding: 4px 8px; border-radius: 4px; }
.agui-static .agui-s-user { background: var(--as-bg1); align-self: flex-end; max-width: 85%; }
.agui-static .agui-s-tool, .agui-static .agui-s-card, .agui-static .agui-s-other,
.agui-static .agui-s-activity, .agui-static .agui-s-surface {
  border: 1px solid var(--as-border);
}
.agui-static .agui-s-card { border-left: 3px solid var(--as-warn); }
.agui-static .agui-s-card.agui-s-ok { border-left-color: var(--as-ok); }
.agui-static .agui-s-card.agui-s-bad { border-left-color: var(--as-bad); }
.agui-static .agui-s-error { border: 1px solid var(--as-bad); }
.agui-static .agui-s-head, .agui-static .agui-s-line { white-space: pre-wrap; }
.agui-static .agui-s-item ul { list-style: none; margin: 0; padding: 0 0 0 1.5em; }
.agui-static .agui-s-item li { margin: 0; padding: 0; }
.agui-static .agui-s-item ul.agui-s-body { padding-left: 0; }
.agui-static summary > .agui-s-head { display: inline; }
.agui-static .agui-s-label { font-weight: 600; }
.agui-static .agui-s-image { max-width: 100%; height: auto; }
.agui-static .agui-s-body .agui-s-label, .agui-static .agui-s-status .agui-s-label {
  font-weight: normal; color: var(--as-muted);
}
.agui-static .agui-s-tool > .agui-s-head, .agui-static .agui-s-card > .agui-s-head,
.agui-static .agui-s-error > .agui-s-head, .agui-static .agui-s-other > .agui-s-head,
.agui-static .agui-s-activity > .agui-s-head, .agui-static .agui-s-surface > .agui-s-head {
  font-weight: 600;
}
.agui-static .agui-s-ok { color: var(--as-ok); }
.agui-static .agui-s-bad { color: var(--as-bad); }
.agui-static .agui-s-warn { color: var(--as-warn); }
.agui-static .agui-s-muted { color: var(--as-muted); }
.agui-static .agui-s-item.agui-s-ok, .agui-static .agui-s-item.agui-s-bad,
.agui-static .agui-s-item.agui-s-warn { color: var(--as-fg); }
.agui-static details > summary { cursor: pointer; }
"""


def _compact(css: str) -> str:
    """The stylesheet without the whitespace a reader needs: it is saved with every view."""
    css = re.sub(r"\s+", " ", css).strip()
    css = re.sub(r" ?([{};,>]) ?", r"\1", css).replace(";}", "}")
    return css.replace(": ", ":")  # never " :", which would change a selector


#: What the ``<style>`` element holds: STYLESHEET, compacted.
STYLE_ELEMENT_TEXT = _compact(STYLESHEET)


def _esc(text: str) -> str:
    return html.escape(text, quote=True).replace("\n", "<br>")


def _classes(*names: str) -> str:
    unknown = [n for n in names if n not in CLASSES]
    if unknown:  # a programming error: classes never come from data
        raise ValueError(f"class not in the allow-list: {unknown}")
    return " ".join(names)


def _content(line: Line) -> str:
    """A line's label (bold, with its colon) and text, escaped; its picture, if any."""
    label = f'<strong class="agui-s-label">{_esc(line.label)}:</strong>' if line.label else ""
    gap = " " if line.label and line.text else ""
    return f"{label}{gap}{_esc(line.text)}{_image(line)}"


#: The picture types an ``<img>`` may have, and strict base64 (no URL can hide in it).
IMAGE_SRC = re.compile(
    r"data:image/(?:png|jpeg|gif|webp);base64,(?:[A-Za-z0-9+/]{4})*"
    r"(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?"
)


def _image(line: Line) -> str:
    if line.image is None:
        return ""
    src = f"data:{line.image[0]};base64,{line.image[1]}"
    if not IMAGE_SRC.fullmatch(src):
        return ""  # not a checked inline raster: the text stands alone
    alt = _esc(line.label or "image")
    return f'<br><img class="{_classes("agui-s-image")}" alt="{alt}" src="{src}"/>'


def _tone(line: Line) -> list[str]:
    return [f"agui-s-{line.tone}"] if line.tone else []


def _lines(lines: Sequence[Line]) -> str:
    """The lines under a head as a list; a deeper line nests in the item before it."""
    if not lines:
        return ""
    parts = ['<ul class="agui-s-body">']
    level = 0
    open_item = False
    for line in lines:
        # At most one level below the line before (a list nests in an item), so lists stay
        # well formed whatever depths a renderer asks for; the text form indents as asked.
        depth = min(max(0, line.depth), level + 1 if open_item else 0)
        if depth > level:
            parts.append("<ul>")
            level = depth
        else:
            if open_item:
                parts.append("</li>")
            while level > depth:
                parts.append("</ul></li>")
                level -= 1
        parts.append(f'<li class="{_classes("agui-s-line", *_tone(line))}">{_content(line)}')
        open_item = True
    parts.append("</li>")
    parts.extend(["</ul></li>"] * level)
    parts.append("</ul>")
    return "".join(parts)


def _block(block: Block) -> str:
    kind = block.kind if block.kind in BLOCK_KINDS else "other"
    names = _classes(
        "agui-s-item", f"agui-s-{kind}", *([f"agui-s-{block.tone}"] * bool(block.tone))
    )
    # A summary holds phrasing content only: there the head is a span.
    tag = "span" if block.collapsed else "div"
    head_class = _classes("agui-s-head", *_tone(block.head))
    head = f'<{tag} class="{head_class}">{_content(block.head)}</{tag}>'
    if block.collapsed:
        return f'<details class="{names}"><summary>{head}</summary>{_lines(block.lines)}</details>'
    return f'<div class="{names}">{head}{_lines(block.lines)}</div>'


def transcript_html(
    items: Iterable[Any],
    *,
    state: Any = None,
    audit: Sequence[Any] = (),
    status: str = "idle",
    outcome: str | None = None,
) -> str:
    """The view as inert HTML in the card's look (see the module docstring for the rules)."""
    blocks = "".join(_block(b) for b in document(items, state, audit, status, outcome))
    return f'<div class="agui-static"><style>{STYLE_ELEMENT_TEXT}</style>{blocks}</div>'
