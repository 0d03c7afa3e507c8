"""The documentation site (issue 29): built offline by scripts/docs in strict mode, it has an API
entry for every public name, every tutorial with its saved cards, and loads nothing from the
network.

The built site is ``$AGUI_NOTEBOOK_DOCS_SITE`` when set (scripts/test's ``docs`` step builds one
before the pytest step), else this module builds one with scripts/docs into a temporary directory
(which sets up .venv-docs the first time). A build that fails fails these tests: they never skip.
"""

from __future__ import annotations

import ast
import html
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
MKDOCS_YML = ROOT / "mkdocs.yml"
API_PAGE = ROOT / "docs/api.md"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
# Public modules documented whole on the API page, besides the names of __all__.
PUBLIC_MODULES = {"policies", "record"}
# The card's saved text/html form: its root element (agui_notebook's static transcript).
CARD_ROOT = 'class="agui-static'


def public_names() -> list[str]:
    tree = ast.parse((ROOT / "agui_notebook" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return list(ast.literal_eval(node.value))
    raise AssertionError("agui_notebook/__init__.py has no __all__")


def api_directives() -> list[str]:
    return re.findall(r"^::: agui_notebook\.(\S+)\s*$", API_PAGE.read_text(encoding="utf-8"), re.M)


def nav_entries() -> list[str]:
    return re.findall(
        r"^\s*-\s+(?:[^:\n]+:\s+)?(\S+\.(?:md|ipynb))\s*$", MKDOCS_YML.read_text(), re.M
    )


# -- the sources, without a build ----------------------------------------------------------------


def test_the_api_page_shows_exactly_the_public_names() -> None:
    shown = api_directives()
    assert len(shown) == len(set(shown)), "a name is shown twice"
    assert set(shown) - PUBLIC_MODULES == set(public_names())
    assert set(shown) >= PUBLIC_MODULES


def test_the_api_page_draws_the_whole_error_tree() -> None:
    import agui_notebook
    from agui_notebook import record

    text = API_PAGE.read_text(encoding="utf-8")
    tree = text[text.index("AGUIError\n├──") : text.index("```", text.index("AGUIError\n├──"))]
    drawn = set(re.findall(r"[├└]── (\w+)", tree)) | {"AGUIError"}
    errors = {
        name
        for module in (agui_notebook, record)
        for name in module.__all__
        if isinstance(getattr(module, name), type)
        and issubclass(getattr(module, name), agui_notebook.AGUIError)
    }
    assert drawn == errors


def test_every_page_and_every_notebook_is_in_the_nav() -> None:
    listed = nav_entries()
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    assert sorted(e for e in listed if e.endswith(".md")) == pages
    assert [e for e in listed if e.endswith(".ipynb")] == [f"notebooks/{p.name}" for p in NOTEBOOKS]
    marimo = (ROOT / "docs/notebooks/09_marimo.md").read_text(encoding="utf-8")
    assert '--8<-- "notebooks/09_marimo.py"' in marimo  # the .py notebook, shown as its source


def test_the_config_fetches_nothing_and_executes_nothing() -> None:
    text = MKDOCS_YML.read_text(encoding="utf-8")
    assert re.search(r"^  font: false$", text, re.M), "theme.font must be false (no web fonts)"
    plugins = re.findall(
        r"^  - ([\w-]+)",
        text[text.index("\nplugins:") : text.index("\nmarkdown_extensions:")],
        re.M,
    )
    assert plugins == ["search", "mkdocs-jupyter", "mkdocstrings"]  # no privacy, social, offline
    assert re.search(r"^      execute: false$", text, re.M)
    assert not re.search(r"^\s+(?:inventories|import):", text, re.M)  # no remote inventories
    assert re.search(r"^strict: true$", text, re.M)


def test_the_readme_links_to_every_page_of_the_site() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Documentation\n") :].split("\n## ", 1)[0]
    assert "scripts/docs" in section
    linked = set(re.findall(r"\]\((docs/[\w/.-]+\.md)\)", section))
    pages = {f"docs/{e}" for e in nav_entries() if e.endswith(".md")}
    assert pages - linked == set(), "pages of the site the README does not link to"


# -- the built site ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("AGUI_NOTEBOOK_DOCS_SITE")
    if given:
        path = Path(given)
        assert (path / "index.html").is_file(), f"AGUI_NOTEBOOK_DOCS_SITE={given} has no index.html"
        return path
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [str(ROOT / "scripts" / "docs"), "-d", str(out)],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return out


def test_the_site_has_an_api_entry_for_every_public_name(site: Path) -> None:
    page = (site / "api.html").read_text(encoding="utf-8")
    ids = set(re.findall(r'id="(agui_notebook\.[\w.]+)"', page))
    expected = {f"agui_notebook.{name}" for name in [*public_names(), *PUBLIC_MODULES]}
    assert expected - ids == set()
    # The ones a reader looks for first, with their members.
    for name in ("Agent.chat", "Thread.resume", "Chat.send", "Chat.wait", "policies.approve_all"):
        assert f"agui_notebook.{name}" in ids, name
    # Entries are named by their public path, never by the private module that defines them
    # (those move; the package is being split into subpackages).
    assert [i for i in ids if "._" in i.replace(".__version__", "")] == []


def _cards(notebook: Path) -> int:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return sum(
        "".join(output.get("data", {}).get("text/html", "")).count(CARD_ROOT)
        for cell in cells
        for output in cell.get("outputs", [])
    )


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_tutorial_page_shows_its_saved_cards(site: Path, notebook: Path) -> None:
    page = (site / "notebooks" / f"{notebook.stem}.html").read_text(encoding="utf-8")
    saved = _cards(notebook)
    assert saved > 0, f"{notebook.name} has no saved chat view"
    assert page.count(CARD_ROOT) == saved


def test_the_marimo_tutorial_shows_its_source(site: Path) -> None:
    page = (site / "notebooks" / "09_marimo.html").read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    source = (ROOT / "notebooks" / "09_marimo.py").read_text(encoding="utf-8")
    assert "app = marimo.App()" in source and "app = marimo.App()" in text


# A page loads from elsewhere: a script or an image by src=, a stylesheet by href=, a dynamic
# import() or a CSS @import of an http(s) URL. (Links a reader may follow are fine.)
REMOTE_LOAD = re.compile(
    r"""<(?:script|img|iframe|source|video|audio)\b[^>]*\bsrc\s*=\s*["']https?://"""
    r"""|<link\b[^>]*\bhref\s*=\s*["']https?://"""
    r"""|\bimport\s*\(\s*["']https?://"""
    r"""|@import\s+(?:url\()?["']?https?://""",
    re.IGNORECASE,
)


def test_the_site_loads_nothing_from_the_network(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 20
    loads = {
        page.relative_to(site).as_posix(): sorted(set(REMOTE_LOAD.findall(page.read_text("utf-8"))))
        for page in pages
    }
    assert {k: v for k, v in loads.items() if v} == {}
    css = [p for p in site.rglob("*.css") if REMOTE_LOAD.search(p.read_text("utf-8"))]
    assert css == []
