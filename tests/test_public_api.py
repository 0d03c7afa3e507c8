"""The public face: exactly these names, each described on the API page (docs/api.md), cheap to
import, a command that explains itself."""

from __future__ import annotations

import builtins
import re
import subprocess
import sys
from pathlib import Path

import agui_notebook
import agui_notebook._errors
import agui_notebook.policies
import agui_notebook.record

ROOT = Path(__file__).resolve().parent.parent
API_PAGE = (ROOT / "docs/api.md").read_text(encoding="utf-8")

PUBLIC = {
    "AGUIError",
    "AlreadyDecided",
    "Agent",
    "AgentCapabilities",
    "Chat",
    "ChatResult",
    "CheckFailed",
    "ConnectError",
    "Decision",
    "ExpiredInterrupt",
    "HTTPStatusError",
    "InterruptReissued",
    "InvalidDecision",
    "NobodyCanClick",
    "NothingPending",
    "PendingInterrupt",
    "ProtocolError",
    "ResumeRefused",
    "RunAborted",
    "RunError",
    "RunRecord",
    "RunResult",
    "RunStream",
    "StoreCorrupt",
    "StoreError",
    "StoreUnavailable",
    "StoreVersionError",
    "StoreWarning",
    "StreamTimeout",
    "SurfaceAction",
    "Thread",
    "ThreadBusy",
    "ThreadSummary",
    "TooFewApprovers",
    "Inbox",
    "InboxItem",
    "ToolCallInfo",
    "TransportError",
    "TruncatedRunError",
    "UnansweredInterrupts",
    "UnknownInterrupt",
    "WebSocketClosed",
    "__version__",
    "act",
    "answer",
    "approve",
    "cancel",
    "edit",
    "register_activity_renderer",
    "reject",
}


def test_all_lists_exactly_the_public_names() -> None:
    assert set(agui_notebook.__all__) == PUBLIC
    for name in PUBLIC:
        assert hasattr(agui_notebook, name), name
    public_modules = {n for n in dir(agui_notebook) if not n.startswith("_")} - PUBLIC
    # Submodules imported as a side effect are the only other public-looking attributes.
    assert public_modules <= {"policies", "record", "demo"}, public_modules


def test_policies_and_record_modules_list_their_names() -> None:
    for module in (agui_notebook.policies, agui_notebook.record):
        for name in module.__all__:
            assert hasattr(module, name), (module.__name__, name)


def test_errors_form_one_tree() -> None:
    for name in PUBLIC:
        value = getattr(agui_notebook, name)
        if isinstance(value, type) and issubclass(value, Warning):
            assert issubclass(value, UserWarning), name  # StoreWarning: filterable as usual
        elif isinstance(value, type) and issubclass(value, Exception):
            assert issubclass(value, agui_notebook.AGUIError), name


def test_import_does_not_load_servers_or_jupyter() -> None:
    code = (
        "import sys, agui_notebook\n"
        "banned = ['uvicorn', 'starlette', 'fastapi', 'jupyter_server', 'jupyterlab',\n"
        "          'agui_notebook.demo', 'nbclient', 'anywidget',\n"
        # its IRI format checker compiles a grammar at import: about a second
        "          'jsonschema']\n"
        "print([m for m in banned if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_command_prints_version_and_subcommands() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "agui_notebook"], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith(f"agui-notebook {agui_notebook.__version__}")
    for command in ("demo-server", "notebooks", "threads", "audit"):
        assert command in out.stdout
        sub = subprocess.run(
            [sys.executable, "-m", "agui_notebook", command, "--help"],
            capture_output=True,
            text=True,
            check=True,
        )
        assert "usage: agui-notebook " + command in sub.stdout


# -- the docs and the code agree (issues 18 and 42) ----------------------------------------------


def _section(text: str, title: str, until: str) -> str:
    start = text.index(title)
    return text[start : text.index(until, start)]


def _documented_names(text: str) -> set[str]:
    """Names the text shows as code: a class (CamelCase) or a call (``approve()``), not an
    attribute of something else (``chat.send(...)``, ``asyncio.run(...)``)."""
    names = set()
    for span in re.findall(r"`([^`\n]+)`", text):
        found = re.match(r"(?:agui_notebook\.)?([A-Za-z_]\w*)(\(|$)", span)
        if not found:
            continue
        name, call = found.groups()
        camel = name[0].isupper() and any(c.islower() for c in name)
        if camel or call:
            names.add(name)
    return names


def _exported(name: str) -> bool:
    modules = (agui_notebook, agui_notebook.policies, agui_notebook.record)
    return any(name in getattr(m, "__all__", ()) for m in modules) or hasattr(builtins, name)


def _read(relative: str) -> str:
    return (ROOT / relative).read_text(encoding="utf-8")


def test_every_name_the_docs_tell_a_user_to_write_is_importable() -> None:
    """The README, the first steps, the policies and the API page's overview: what a user is
    told to write must import (pages about A2UI or the store's internals are left out: their
    CamelCase names are A2UI's components and the store's private classes)."""
    texts = {
        "README.md": _read("README.md"),
        "docs/getting-started.md": _read("docs/getting-started.md"),
        "docs/policies.md": _read("docs/policies.md"),
        "docs/api.md": _section(API_PAGE, "## At a glance", "\n::: "),
    }
    for where, text in texts.items():
        names = _documented_names(text)
        assert sorted(n for n in names if not _exported(n)) == [], where
    everything = set().union(*(_documented_names(text) for text in texts.values()))
    assert {"Agent", "Chat", "ChatResult", "RunResult", "approve", "NobodyCanClick"} <= everything
    for name in everything - set(dir(builtins)):
        module = next(
            m
            for m in (agui_notebook, agui_notebook.policies, agui_notebook.record)
            if name in getattr(m, "__all__", ())
        )
        assert getattr(module, name) is not None, name


def test_every_public_name_is_described_on_the_api_page() -> None:
    """In the page's own words (its overview, its prose or the error tree), not only as one of
    the ``::: name`` entries rendered from the docstrings (tests/test_docs_site.py checks those)."""
    prose = "\n".join(line for line in API_PAGE.splitlines() if not line.startswith(":::"))
    documented = _documented_names(prose) | set(_api_page_tree())
    missing = sorted(n for n in agui_notebook.__all__ if n != "__version__" and n not in documented)
    assert missing == []


def _tree(text: str) -> dict[str, str | None]:
    """``{class: parent}`` from a tree drawn with box characters: the root alone on the first
    line, then ``├── Name`` / ``└── Name`` entries (other lines continue a description); the
    tree ends at the first blank line."""
    lines = text.strip("\n").splitlines()
    root = lines[0].strip()
    parents: dict[str, str | None] = {root: None}
    stack: list[tuple[int, str]] = [(-1, root)]
    for line in lines[1:]:
        if not line.strip():
            break
        found = re.match(r"^([\s│]*)[├└]── ([A-Z]\w+)", line)
        if not found:
            continue
        depth, name = len(found.group(1)), found.group(2)
        while stack[-1][0] >= depth:
            stack.pop()
        parents[name] = stack[-1][1]
        stack.append((depth, name))
    return parents


def _api_page_tree() -> dict[str, str | None]:
    start = API_PAGE.index("Every error the client raises")
    block = API_PAGE[API_PAGE.index("```", start) + 3 :]
    return _tree(block[: block.index("```")])


def _docstring_tree() -> dict[str, str | None]:
    doc = agui_notebook._errors.__doc__ or ""
    root = re.search(r"^\s*AGUIError\s*$", doc, re.MULTILINE)
    assert root is not None, "no tree drawn in _errors.py's docstring"
    return _tree(doc[root.start() :])


def test_the_api_pages_error_tree_is_the_one_in_errors_py() -> None:
    page, docstring = _api_page_tree(), _docstring_tree()
    assert {"NothingPending", "TransportError", "InterruptReissued"} <= set(page)  # it parses
    assert page == docstring


def test_the_error_tree_matches_the_classes_and_lists_every_public_error() -> None:
    tree = _docstring_tree()
    modules = (agui_notebook, agui_notebook.policies, agui_notebook.record)

    def resolve(name: str) -> type:
        return next(getattr(m, name) for m in modules if name in getattr(m, "__all__", ()))

    for name, parent in tree.items():
        cls = resolve(name)
        if parent is None:
            assert cls is agui_notebook.AGUIError
        else:
            assert resolve(parent) in cls.__bases__, (name, parent, cls.__bases__)
    public_errors = {
        name
        for m in modules
        for name in getattr(m, "__all__", ())
        if isinstance(getattr(m, name), type)
        and issubclass(getattr(m, name), BaseException)
        and not issubclass(getattr(m, name), Warning)  # StoreWarning: a warning, not an error
    }
    assert sorted(public_errors - set(tree)) == []
