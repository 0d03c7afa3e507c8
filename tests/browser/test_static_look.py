"""The static HTML of chat views is readable in light and dark (WCAG AA, >= 4.5:1), in a plain
page (our own fallback colours, by prefers-color-scheme) and in nbconvert's pages (JupyterLab's
light and dark theme variables). Screenshots go to artifacts/browser/static-*.png.

The HTML comes from real demo runs (an approval, the hostile scenario rejected, a run error);
nbconvert's pages are the committed 02_decisions notebook. Pages load from files with every
network request refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from _jupyter import REPO_ROOT

from agui_notebook import Agent, RunError, policies

pytestmark = pytest.mark.browser

ARTIFACTS = REPO_ROOT / "artifacts" / "browser"
TEXT = ".agui-static :is(.agui-s-head, .agui-s-line, .agui-s-label)"

# For each element: its colour blended over the first opaque background behind it, and the
# contrast ratio of the two (WCAG 2 relative luminance).
CONTRAST_JS = """els => els.filter(el => el.textContent.trim()).map(el => {
  const parse = (c) => {  // rgb(), rgba() or color(srgb r g b / a) (what color-mix gives)
    const srgb = c.match(/^color\\(srgb ([^)]+)\\)/);
    const m = srgb || c.match(/rgba?\\(([^)]+)\\)/);
    if (!m) throw new Error(`unexpected colour ${c}`);
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    const k = srgb ? 255 : 1;
    return [p[0] * k, p[1] * k, p[2] * k, p.length > 3 ? p[3] : 1];
  };
  let node = el, bg = null;
  while (node) {
    const c = parse(getComputedStyle(node).backgroundColor);
    if (c[3] > 0.5) { bg = c; break; }
    node = node.parentElement;
  }
  bg = bg || [255, 255, 255, 1];
  const fg = parse(getComputedStyle(el).color);
  const mixed = [0, 1, 2].map(i => fg[i] * fg[3] + bg[i] * (1 - fg[3]));
  const lum = ([r, g, b]) => {
    const f = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const a = lum(mixed), b = lum(bg);
  return {text: el.textContent.slice(0, 60), ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05),
          fg: getComputedStyle(el).color, bgLuminance: b};
})"""


async def _views() -> list[str]:
    html = []
    for message, policy in [
        ("Transfer $500 from 1234567890 to 0987654321", policies.approve_all()),
        ("hostile", policies.reject_all("not this one")),
        ("Show me an error", None),
    ]:
        chat = Agent.demo(text_delay=0).chat(policy=policy)
        with contextlib.suppress(RunError):  # the error scenario: its view is what we want
            await chat.send(message)
        assert chat.view is not None
        html.append(chat.view.static_bundle()["text/html"])
    return html


@pytest.fixture(scope="module")
def plain_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("static") / "views.html"
    # Playwright's sync API keeps an event loop on this thread: run the chats on another.
    with ThreadPoolExecutor(1) as pool:
        body = "".join(pool.submit(asyncio.run, _views()).result(timeout=120))
    path.write_text(f"<!doctype html><html><body>{body}</body></html>", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def nbconvert_pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("nbconvert")
    pages = {}
    for theme in ("light", "dark"):
        subprocess.run(
            [
                sys.executable, "-m", "jupyter", "nbconvert", "--to", "html",
                f"--HTMLExporter.theme={theme}", "--output-dir", str(out),
                "--output", f"decisions-{theme}",
                str(REPO_ROOT / "notebooks" / "02_decisions.ipynb"),
            ],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
        pages[theme] = out / f"decisions-{theme}.html"
    return pages


@pytest.fixture
def open_page(browser: Any) -> Iterator[Any]:
    contexts: list[Any] = []

    def open_(path: Path, scheme: str) -> Any:
        context = browser.new_context(viewport={"width": 1100, "height": 900}, color_scheme=scheme)
        contexts.append(context)
        page = context.new_page()
        page.route("http*://**", lambda route: route.abort())  # offline, as a reader may be
        page.goto(path.as_uri())
        page.locator(".agui-static").first.wait_for()
        return page

    yield open_
    for context in contexts:
        context.close()


def _check(page: Any, name: str, dark: bool) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator(".agui-static").first.screenshot(path=str(ARTIFACTS / f"static-{name}.png"))
    results = page.eval_on_selector_all(TEXT, CONTRAST_JS)
    assert len(results) > 30, results  # the measurement saw the views
    backgrounds = {round(r["bgLuminance"], 2) for r in results}
    assert all((b < 0.2) if dark else (b > 0.8) for b in backgrounds), backgrounds
    low = [f"{r['ratio']:.2f}:1 {r['fg']} {r['text']!r}" for r in results if r["ratio"] < 4.5]
    print(f"\n{name}: {len(results)} lines, lowest {min(r['ratio'] for r in results):.2f}:1")
    assert low == [], f"below 4.5:1 in {name}: {low}"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_static_html_is_readable_in_a_plain_page(
    plain_page: Path, open_page: Any, scheme: str
) -> None:
    page = open_page(plain_page, scheme)
    _check(page, f"plain-{scheme}", dark=scheme == "dark")
    text = page.locator("body").inner_text()
    assert "<img src=x onerror=alert(1)>" in text  # the probes, as text
    assert page.evaluate("window.__pwned") is None


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_static_html_is_readable_in_nbconvert_pages(
    nbconvert_pages: dict[str, Path], open_page: Any, theme: str
) -> None:
    # The OS scheme is the opposite of the page's theme: the theme's variables must win.
    page = open_page(nbconvert_pages[theme], "light" if theme == "dark" else "dark")
    _check(page, f"nbconvert-{theme}", dark=theme == "dark")
