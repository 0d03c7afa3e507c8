"""The import graph of agui_notebook: no circles, and the layer rules of docs/architecture.md.

The graph is read from the source (AST), not from ``sys.modules``: every import counts, at the
top of a module, inside a function (lazy) or under ``if TYPE_CHECKING:``, because each one is a
dependency a reader has to keep in mind and a circle through a lazy import is still a circle.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

PACKAGE = "agui_notebook"
ROOT = Path(__file__).resolve().parents[1] / PACKAGE


@dataclass
class Module:
    name: str
    path: Path
    internal: set[str] = field(default_factory=set)  # agui_notebook modules it imports
    external: set[str] = field(default_factory=set)  # top-level names of everything else


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _read_graph() -> dict[str, Module]:
    modules = {_module_name(p): Module(_module_name(p), p) for p in sorted(ROOT.rglob("*.py"))}
    for mod in modules.values():
        is_package = mod.path.name == "__init__.py"
        package = mod.name if is_package else mod.name.rpartition(".")[0]
        for node in ast.walk(ast.parse(mod.path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    _add(mod, modules, alias.name)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base_parts = package.split(".")
                    base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                    base = ".".join(base_parts + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                if base == "__future__":
                    continue
                for alias in node.names:
                    # `from . import x` imports the submodule x when there is one.
                    sub = f"{base}.{alias.name}"
                    _add(mod, modules, sub if sub in modules else base)
    return modules


def _add(mod: Module, modules: dict[str, Module], target: str) -> None:
    if target == PACKAGE or target.startswith(PACKAGE + "."):
        while target not in modules:  # `import agui_notebook.x.y` of a name, not a module
            target = target.rpartition(".")[0]
        if target != mod.name:
            mod.internal.add(target)
    else:
        mod.external.add(target.split(".")[0])


GRAPH = _read_graph()


def _short(name: str) -> str:
    return name.removeprefix(PACKAGE + ".") if name != PACKAGE else PACKAGE


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle as [a, b, ..., a], or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def closure(name: str) -> set[str]:
    """Every agui_notebook module ``name`` imports, directly or not."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        for nxt in GRAPH[todo.pop()].internal:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


# ---------------------------------------------------------------------------------- the layers
# Keep in step with docs/architecture.md ("Python layers"). Names are relative to agui_notebook.

CORE = {
    "_errors", "_protocol.sse", "_protocol.events", "_protocol.verify", "_state.reducer", "_state.patch", "_decisions.interrupts", "_decisions.decision",
    "_frameworks.common", "_frameworks.adk", "_frameworks.crewai", "_frameworks.langgraph", "_protocol.secrets", "_state.items",
    "policies", "_version", "_state.a2ui", "_state.genui", "_protocol.wire", "_state.parts", "_decisions.audit", "_store.codec",
    "_view.transcript", "_view.blocks", "_view.transcript_genui", "_view.html",
}  # fmt: skip
# The protocol's own shapes (ag_ui.core, extended to 1.1): no client behaviour, so the demo, which
# stands for a remote agent, may speak them too.
PROTOCOL_MODELS = "_protocol.wire"
EFFECTS = {
    "_transports.http",
    "_notebook.host",
    "_view.widget",
    "_view.static",
    "_notebook.execute",
    "_store.sqlite",
}
# The session layers, lowest first: each may import the ones before it, never one after it.
SESSION = [
    "_thread", "_store.journal", "_chat.surfaces",
    "_chat.result", "_chat.streamer", "_chat.cards", "_chat.decider", "_chat.chat",  # Chat, in its parts
    "_agent", "_record", "_store.cli",
]  # fmt: skip
FACADES = {PACKAGE, "record", "__main__"}
DEMO = "demo"

# Libraries that do I/O, run an event loop or draw widgets: never in the pure core.
NOT_IN_CORE = {
    "asyncio", "threading", "socket", "subprocess", "httpx", "anywidget", "ipywidgets",
    "traitlets", "IPython", "ipykernel", "uvicorn", "nbclient", "nbformat", "starlette",
}  # fmt: skip
# The one exception: _secrets reads URLs and requests with httpx's parsers (it sends nothing).
CORE_EXCEPTIONS = {("_protocol.secrets", "httpx")}
# Each of these libraries belongs to one side-effect module (the demo server aside).
OWNED = {
    "anywidget": {"_view.widget"},
    "traitlets": {"_view.widget"},
    "ipywidgets": {"_view.widget"},
    "IPython": {
        "_notebook.host",
        "_chat.chat",
    },  # _chat: display(view), showing the view in the cell
    "ipykernel": {"_notebook.host"},
    "marimo": {"_notebook.host"},  # what is running, and showing a view there
    "google": {"_notebook.host"},  # google.colab: its widget manager
    "nbclient": {"_notebook.execute"},
    "nbformat": {"_notebook.execute"},
    "uvicorn": {"demo._server"},
}
# Side-effect modules use the core only; _widgets finds its front end through _static.
EFFECT_EXCEPTIONS = {("_view.widget", "_view.static")}


def _internal(name: str) -> set[str]:
    return {_short(m) for m in GRAPH[f"{PACKAGE}.{name}" if name != PACKAGE else PACKAGE].internal}


# The rooms' __init__ modules: docstrings only.
ROOMS = {"_protocol", "_state", "_decisions", "_frameworks", "_transports", "_store", "_view",
         "_chat", "_notebook"}  # fmt: skip


def _layer_of(name: str) -> str:
    if name in ROOMS:
        return "room"
    if name in CORE:
        return "core"
    if name in EFFECTS:
        return "effects"
    if name in SESSION:
        return "session"
    if name in FACADES:
        return "facade"
    if name == DEMO or name.startswith(DEMO + "."):
        return "demo"
    return "unknown"


def _names() -> Iterable[str]:
    return (_short(m) for m in GRAPH)


# -------------------------------------------------------------------------------------- tests


def test_the_graph_is_read() -> None:
    # A broken reader would make every test below pass vacuously.
    assert len(GRAPH) > 20
    assert "_errors" in _internal("_transports.http")
    assert "demo" in _internal("_agent")  # a lazy import, inside Agent.demo()
    assert {"httpx", "asyncio"} <= GRAPH[f"{PACKAGE}._transports.http"].external


def test_find_cycle_finds_and_prints_a_circle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_no_import_circles() -> None:
    cycle = find_cycle({name: mod.internal for name, mod in GRAPH.items()})
    if cycle:
        pytest.fail("import circle: " + " -> ".join(_short(m) for m in cycle))


def test_every_module_has_a_layer() -> None:
    unknown = sorted(n for n in _names() if _layer_of(n) == "unknown")
    assert not unknown, f"add these modules to a layer in docs/architecture.md and here: {unknown}"


def test_the_core_imports_only_the_core() -> None:
    problems = []
    for name in sorted(CORE):
        for dep in sorted(_internal(name) - CORE):
            problems.append(f"{name} imports {dep} ({_layer_of(dep)})")
        for lib in sorted(GRAPH[f"{PACKAGE}.{name}"].external & NOT_IN_CORE):
            if (name, lib) not in CORE_EXCEPTIONS:
                problems.append(f"{name} imports {lib}")
    assert not problems, "the pure core must stay pure:\n" + "\n".join(problems)


def test_side_effect_modules_use_only_the_core() -> None:
    problems = [
        f"{name} imports {dep} ({_layer_of(dep)})"
        for name in sorted(EFFECTS)
        for dep in sorted(_internal(name) - CORE)
        if (name, dep) not in EFFECT_EXCEPTIONS
    ]
    assert not problems, "\n".join(problems)


def test_each_library_stays_in_its_module() -> None:
    problems = [
        f"{_short(mod.name)} imports {lib} (only {sorted(owners)} may)"
        for mod in GRAPH.values()
        for lib, owners in OWNED.items()
        if lib in mod.external and _short(mod.name) not in owners
    ]
    assert not problems, "\n".join(problems)


def test_session_layers_import_only_downwards() -> None:
    problems = []
    for i, name in enumerate(SESSION):
        for dep in sorted(_internal(name)):
            if dep in SESSION[i + 1 :]:
                problems.append(f"{name} imports {dep}, a layer above it")
            if dep in FACADES:
                problems.append(f"{name} imports the facade {dep}")
    assert not problems, "\n".join(problems)


def test_thread_knows_no_agent_and_policies_no_recording() -> None:
    # The two edges that once closed the circle, checked by name so the message is plain.
    assert not closure(f"{PACKAGE}._thread") & {f"{PACKAGE}.{m}" for m in ("_agent", "_chat.chat")}
    assert not closure(f"{PACKAGE}.policies") & {
        f"{PACKAGE}.{m}" for m in ("_record", "_agent", "_thread", "_transports.http", "_chat.chat")
    }


def test_nothing_imports_the_facades() -> None:
    problems = [
        f"{n} imports {dep}"
        for n in _names()
        for dep in sorted(_internal(n) & FACADES)
        # `python -m agui_notebook.demo` is the same command as `agui-notebook demo-server`.
        if not (n == "demo.__main__" and dep == "__main__")
    ]
    assert not problems, "\n".join(problems)


def test_the_demo_is_a_separate_server() -> None:
    # The demo stands for a remote agent: it knows nothing of the client, and the client loads
    # it only when asked for (Agent.demo(), the demo-server command).
    problems = [
        f"{n} imports {dep}"
        for n in _names()
        if _layer_of(n) == "demo"
        for dep in sorted(_internal(n))
        if _layer_of(dep) != "demo"
        and dep != PROTOCOL_MODELS
        and not (n == "demo.__main__" and dep == "__main__")
    ]
    problems += [
        f"{n} imports {dep}"
        for n in _names()
        if _layer_of(n) != "demo" and n not in {"_agent", "__main__"}
        for dep in sorted(_internal(n))
        if _layer_of(dep) == "demo"
    ]
    assert not problems, "\n".join(problems)


def test_replay_text_form_works_whatever_is_imported_first() -> None:
    # policies does not import recording; the package wires ``replay:`` in on any import path.
    code = (
        "import agui_notebook.policies as p\n"
        "try:\n"
        "    p.parse('replay:/nonexistent/chat.jsonl')\n"
        "except FileNotFoundError:\n"
        "    print('replay is wired')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "replay is wired", out.stderr
