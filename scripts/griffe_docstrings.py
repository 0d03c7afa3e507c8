"""A griffe extension for the documentation site (mkdocs.yml, mkdocstrings): the package's
docstrings are written for ``help()`` and a terminal, in reST's inline roles and doctest blocks;
the site renders Markdown. Before rendering, each docstring of ``agui_notebook`` gets:

- a role (``:class:`~agui_notebook._thread.Thread```, ``:func:`approve```, ``:mod:`...```) as
  code, linked to the API page when it names a public name (``agui_notebook.__all__``, or the
  public modules ``policies`` and ``record``), so private module paths, which move, never show;
- each doctest block (``>>>`` lines and their output) as a fenced ``pycon`` block, without its
  ``# doctest:`` directives (in Markdown a ``>>>`` line would be a nested quote);
- a reST simple table (``=====  =====`` rules) as a Markdown table, and a paragraph's closing
  ``::`` (a literal block follows, indented: Markdown's code block) as ``:``;
- an attribute documented by ``#:`` comments above it (as Sphinx reads them) gets them as its
  docstring.

Nothing in the package changes; this runs only when the site is built.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from griffe import Alias, Attribute, Docstring, Extension, Object

PACKAGE = "agui_notebook"
PUBLIC_MODULES = {"policies", "record"}
ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|exc|data|attr|obj|const):`(~?)([^`]+)`")
DIRECTIVE = re.compile(r"\s*#\s*doctest:.*$")
RULE = re.compile(r"^(\s*)(=+)((?:\s+=+)+)\s*$")


def public_names(root: Path) -> set[str]:
    """``__all__`` of the package, read from its ``__init__.py`` (nothing imported)."""
    tree = ast.parse((root / PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return set(ast.literal_eval(node.value))
    raise ValueError(f"{PACKAGE}/__init__.py has no __all__")


PUBLIC = public_names(Path(__file__).resolve().parent.parent)


def _role(match: re.Match[str]) -> str:
    short, target = match.group(1) == "~", match.group(2).strip()
    parts = [p for p in target.split(".") if p != PACKAGE]
    public = [p for p in parts if not p.startswith("_")]
    shown = public[-1] if short and public else ".".join(public) or target
    head = public[0] if public else ""
    if head in PUBLIC_MODULES or head in PUBLIC:
        return f"[`{shown}`][{PACKAGE}.{'.'.join(public)}]"
    return f"`{shown}`"


def _fence_doctests(text: str) -> str:
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        if not stripped.startswith(">>>"):
            out.append(line)
            i += 1
            continue
        indent = line[: len(line) - len(stripped)]
        block = []
        while i < len(lines) and lines[i].strip() and lines[i].startswith(indent):
            block.append(DIRECTIVE.sub("", lines[i][len(indent) :]).rstrip())
            i += 1
        out += [f"{indent}```pycon", *(f"{indent}{b}" for b in block), f"{indent}```"]
    return "\n".join(out)


def _columns(rule: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"=+", rule)]


def _cells(line: str, columns: list[tuple[int, int]]) -> list[str]:
    cells = []
    for i, (start, _) in enumerate(columns):
        end = columns[i + 1][0] if i + 1 < len(columns) else len(line)
        cells.append(line[start:end].strip())
    return cells


def _tables(text: str) -> str:
    """reST simple tables (rule, header, rule, rows, rule) as Markdown tables; a row whose first
    cell is empty continues the row above it."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        match = RULE.match(lines[i])
        rules = [j for j in range(i, len(lines)) if lines[j].strip() and RULE.match(lines[j])]
        if not match or len(rules) < 3 or rules[1] != i + 2:
            out.append(lines[i])
            i += 1
            continue
        indent, columns = match.group(1), _columns(lines[i])
        header = _cells(lines[i + 1], columns)
        rows: list[list[str]] = []
        end = rules[2]
        for line in lines[i + 3 : end]:
            cells = _cells(line, columns)
            if rows and not cells[0]:
                rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
            elif any(cells):
                rows.append(cells)
        esc = [[c.replace("|", "\\|") for c in row] for row in [header, *rows]]
        out.append(indent + "| " + " | ".join(esc[0]) + " |")
        out.append(indent + "|" + "---|" * len(columns))
        out += [indent + "| " + " | ".join(row) + " |" for row in esc[1:]]
        i = end + 1
    return "\n".join(out)


def markdown_docstring(text: str) -> str:
    text = re.sub(r"(\S)::$", r"\1:", text, flags=re.MULTILINE)
    return _fence_doctests(_tables(ROLE.sub(_role, text)))


def _comment_docstring(obj: Attribute) -> str | None:
    """The ``#:`` comment lines right above an attribute, as text."""
    if obj.lineno is None or obj.filepath is None or isinstance(obj.filepath, list):
        return None
    lines = Path(obj.filepath).read_text(encoding="utf-8").split("\n")
    found: list[str] = []
    j = obj.lineno - 2
    while j >= 0 and lines[j].strip().startswith("#:"):
        found.insert(0, lines[j].strip()[2:].strip())
        j -= 1
    return " ".join(found) or None


class MarkdownDocstrings(Extension):
    def on_package(self, *, pkg: Object, **kwargs: Any) -> None:
        if pkg.name != PACKAGE:
            return
        todo: list[Object] = [pkg]
        seen: set[int] = set()
        while todo:
            obj = todo.pop()
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if obj.docstring is None and isinstance(obj, Attribute):
                comment = _comment_docstring(obj)
                if comment:
                    obj.docstring = Docstring(comment, parent=obj)
            if obj.docstring is not None:
                obj.docstring.value = markdown_docstring(obj.docstring.value)
            todo += [m for m in obj.members.values() if not isinstance(m, Alias)]
