"""MkDocs hooks of the documentation site (mkdocs.yml; built by scripts/docs).

- Every ``notebooks/*.ipynb`` becomes the page ``notebooks/<name>.ipynb``, rendered by
  mkdocs-jupyter from its committed outputs (nothing executed): the notebooks stay where nbval,
  ``scripts/lab`` and the tests find them, and a new one is on the site without a copy. A
  notebook missing from ``nav`` is an error, as a Markdown page would be.
- A notebook page loads nothing from the network: nbconvert's template adds a script that would
  import Mermaid (and MathJax, when a notebook has math) from a CDN; the tutorials use neither,
  and such scripts are removed (tests/test_docs_site.py checks every page of the site).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
TUTORIALS = "notebooks"  # their place on the site: the same path as in the repository
# A script that loads code from another host (by src= or a dynamic import()), and a stylesheet.
SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.DOTALL | re.IGNORECASE)
LOADS_REMOTE = re.compile(r"""(?:\bsrc\s*=|\bimport\s*\()\s*["']https?://""", re.IGNORECASE)
REMOTE_STYLESHEET = re.compile(r"<link\b[^>]*\bhref\s*=\s*[\"']https?://[^>]*>", re.IGNORECASE)


def notebooks() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


@event_priority(100)  # before mkdocs-jupyter's on_files, which turns them into pages
def on_files(files: Files, config: MkDocsConfig, **kwargs: Any) -> Files:
    for path in notebooks():
        # A real file under src_dir (the repository root), as mkdocs-jupyter's wrapper needs.
        files.append(
            File(
                f"{TUTORIALS}/{path.name}",
                src_dir=str(ROOT),
                dest_dir=config["site_dir"],
                use_directory_urls=config["use_directory_urls"],
            )
        )
    return files


def on_nav(nav: Any, config: MkDocsConfig, files: Files, **kwargs: Any) -> Any:
    listed = {page.file.src_uri for page in nav.pages}
    missing = [
        f"{TUTORIALS}/{p.name}" for p in notebooks() if f"{TUTORIALS}/{p.name}" not in listed
    ]
    if missing:
        raise PluginError(f"notebooks missing from mkdocs.yml's nav: {', '.join(missing)}")
    return nav


def on_post_page(output: str, page: Page, config: MkDocsConfig, **kwargs: Any) -> str:
    if not page.file.src_uri.endswith(".ipynb"):
        return output
    output = SCRIPT.sub(lambda m: "" if LOADS_REMOTE.search(m.group(0)) else m.group(0), output)
    return REMOTE_STYLESHEET.sub("", output)
