"""No file cites a document the repository lacks (issue 18).

Everything the code relies on is written down in ``docs/`` in the project's own words: a
citation of a team note kept outside the repository (the team's design notes, its shared
folder) is a dead end for every other reader. So every ``*.md`` path and every ``docs/...`` path cited in a source,
test, script, config, document or notebook cell must exist (from the repository root or from the
citing file's folder; mkdocs.yml's pages from docs/).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TEXT_SUFFIXES = {".py", ".md", ".toml", ".js", ".mjs", ".sh", ".cfg", ".txt", ".yml", ".yaml"}
URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+")
MARKDOWN_PATH = re.compile(r"(?<![\w./@-])((?:[\w-]+/)*[\w.-]+\.md)\b(?!\()")  # not mo.md(...)
DOCS_PATH = re.compile(r"(?<![\w./@-])(docs/[\w./-]*[\w-])")
# Built from parts so that this file does not cite what it forbids.
_SHARED, _DESIGN = "shared", "design"
OUTSIDE = re.compile(rf"(?<![\w-]){_DESIGN}/[\w.-]+\.md|\.\./{_SHARED}\b|\b{_SHARED}/{_DESIGN}\b")


def repository_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    files = []
    for name in filter(None, listed):
        path = ROOT / name
        if "node_modules" in path.parts or not path.is_file():
            continue
        if path.suffix in TEXT_SUFFIXES or path.suffix == ".ipynb" or path.parent.name == "scripts":
            files.append(path)
    return files


def readable_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".ipynb":  # what a person wrote: cell sources, not saved outputs
        cells = json.loads(text).get("cells", [])
        text = "\n".join("".join(cell.get("source", "")) for cell in cells)
    return URL.sub(" ", text)


def citations(text: str) -> set[str]:
    found = {m.group(1) for m in MARKDOWN_PATH.finditer(text)}
    found |= {m.group(1).rstrip(".") for m in DOCS_PATH.finditer(text)}
    return found


FILES = repository_files()


def test_the_scan_sees_the_repository() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in FILES}
    assert {
        "README.md",
        "agui_notebook/_notebook/host.py",
        "scripts/test",
        "pyproject.toml",
    } <= names
    assert "docs/front-ends.md" in citations(
        readable_text(ROOT / "agui_notebook/_notebook/host.py")
    )
    assert citations("see docs/kernel-waiting.md, docs/images/card-dark.png; mo.md('x')") == {
        "docs/kernel-waiting.md",
        "docs/images/card-dark.png",
    }


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_cited_document_exists(path: Path) -> None:
    text = readable_text(path)
    outside = sorted({m.group(0) for m in OUTSIDE.finditer(text)})
    assert outside == [], "cites notes kept outside the repository: write them into docs/"
    # mkdocs.yml names its pages from its docs_dir, docs/.
    bases = [ROOT, path.parent, *([ROOT / "docs"] if path.name == "mkdocs.yml" else [])]
    missing = sorted(
        cited for cited in citations(text) if not any((base / cited).exists() for base in bases)
    )
    assert missing == []
