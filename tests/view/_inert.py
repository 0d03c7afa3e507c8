"""The rules of a chat view's HTML form, checked with a parser (tests/view, tests/chat)."""

from __future__ import annotations

from html.parser import HTMLParser

from agui_notebook._view.html import CLASSES, IMAGE_SRC, STYLE_ELEMENT_TEXT, TAGS


class _Inspector(HTMLParser):
    """Every tag, attribute and text node of an HTML fragment (text inside <style> apart)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.text: list[str] = []
        self.styles: list[str] = []
        self._in_style = False
        self.open: list[str] = []  # elements not closed yet
        self.misnested: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend(attrs)
        self._in_style = tag == "style"
        if tag != "br":
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend(attrs)

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False
        if not self.open or self.open.pop() != tag:
            self.misnested.append(tag)

    def handle_data(self, data: str) -> None:
        (self.styles if self._in_style else self.text).append(data)


def inspect(fragment: str) -> _Inspector:
    parser = _Inspector()
    parser.feed(fragment)
    parser.close()
    return parser


def assert_inert(fragment: str) -> _Inspector:
    """The rules of the HTML form: allow-listed tags, class the only attribute, classes from
    the fixed list, one stylesheet and it is ours."""
    found = inspect(fragment)
    assert set(found.tags) <= TAGS, set(found.tags) - TAGS
    # A preview's picture: an <img> with alt text and a checked inline raster data: URL.
    pictures = [(n, v) for n, v in found.attrs if n in ("src", "alt")]
    assert all(IMAGE_SRC.fullmatch(v or "") for n, v in pictures if n == "src"), pictures
    assert found.tags.count("img") == sum(n == "src" for n, _ in pictures)
    assert {name for name, _ in found.attrs} <= {"class", "src", "alt"}, found.attrs
    classes = {c for name, value in found.attrs if name == "class" for c in (value or "").split()}
    assert classes <= CLASSES, classes - CLASSES
    assert found.tags.count("style") == 1 and found.styles == [STYLE_ELEMENT_TEXT]
    assert found.misnested == [] and found.open == [], (found.misnested, found.open)
    return found
