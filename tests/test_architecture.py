"""The import graph of agui_notebook: no circles, and the rules of its rooms (docs/architecture.md).

The graph is read from the source (AST), not from ``sys.modules``: every import counts, at the
top of a module, inside a function (lazy) or under ``if TYPE_CHECKING:``, because each one is a
dependency a reader has to keep in mind and a circle through a lazy import is still a circle.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import tokenize
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


def _from(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute name of the module a ``from ... import`` in ``module`` reads from."""
    if not node.level:
        return node.module or ""
    package = module if is_package else module.rpartition(".")[0]
    base_parts = package.split(".")
    base_parts = base_parts[: len(base_parts) - (node.level - 1)]
    return ".".join(base_parts + ([node.module] if node.module else []))


def _read_graph() -> dict[str, Module]:
    modules = {_module_name(p): Module(_module_name(p), p) for p in sorted(ROOT.rglob("*.py"))}
    for mod in modules.values():
        is_package = mod.path.name == "__init__.py"
        for node in ast.walk(ast.parse(mod.path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    _add(mod, modules, alias.name)
            elif isinstance(node, ast.ImportFrom):
                base = _from(mod.name, is_package, node)
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


# ----------------------------------------------------------------------------------- the rooms
# Keep in step with docs/architecture.md and each room's __init__ docstring ("May import").
# Names are relative to agui_notebook; a module's room is its first component.

ROOMS = {
    "_protocol", "_frameworks", "_decisions", "_state", "_view", "_transports", "_notebook",
    "_store", "_chat", "_record",
}  # fmt: skip
FLAT = {"__init__", "__main__", "policies", "record", "_errors", "_version", "_agent", "_thread",
        "_run_loop", "_run_result"}  # fmt: skip
DEMO = "demo"
BASE = {"_errors", "_version"}

#: What each room (or flat module) may import besides itself and BASE. The faces (the package,
#: record, __main__) may import anything; nothing imports them.
MAY_IMPORT: dict[str, set[str]] = {
    "_protocol": set(),
    "_frameworks": set(),
    "_decisions": {"_protocol", "_frameworks"},
    "_state": {"_protocol", "_frameworks", "_decisions"},
    "policies": {"_decisions", "_state"},
    "_view": {"_state", "_decisions"},
    "_transports": {"_protocol"},
    "_notebook": set(),
    "_run_result": {"_frameworks", "_decisions", "_state"},
    "_run_loop": {"_protocol", "_state", "_transports", "_run_result"},
    "_thread": {
        "_protocol",
        "_frameworks",
        "_decisions",
        "_state",
        "_transports",
        "_run_loop",
        "_run_result",
    },
    "_store": {"_protocol", "_state", "_decisions", "_thread"},
    "_chat": {
        "_thread",
        "_view",
        "_notebook",
        "_state",
        "_decisions",
        "_protocol",
        "policies",
        "_store",
    },  # the inbox lists the store's items (its codec's InboxItem)
    # The agent also asks the notebook whether a person decides here (the default store).
    "_agent": {
        "_thread",
        "_store",
        "_chat",
        "_transports",
        "_protocol",
        "_notebook",
        "policies",
        DEMO,
    },
    "_record": {"_agent", "_decisions", "_protocol", "_transports", "policies"},
}
FACADES = {PACKAGE, "record", "__main__"}

#: The pure core: no I/O, no event loop, no widgets. Whole rooms, and the pure modules of others.
PURE_ROOMS = {"_protocol", "_frameworks", "_decisions", "_state"}
PURE_MODULES = {
    "_errors", "_version", "policies", "_view.transcript", "_view.blocks",
    "_view.transcript_genui", "_view.html", "_view.preview", "_store.codec", "_store.pages",
    "_chat.rules", "_run_result",
}  # fmt: skip
# The protocol's own shapes (ag_ui.core, extended to 1.1): no client behaviour, so the demo, which
# stands for a remote agent, may speak them too.
PROTOCOL_MODELS = "_protocol.wire"

# Libraries that do I/O, run an event loop or draw widgets: never in the pure core.
NOT_IN_CORE = {
    "asyncio", "threading", "socket", "subprocess", "httpx", "anywidget", "ipywidgets",
    "traitlets", "IPython", "ipykernel", "uvicorn", "nbclient", "nbformat", "starlette", "sqlite3",
}  # fmt: skip
# The one exception: secrets reads URLs and requests with httpx's parsers (it sends nothing).
CORE_EXCEPTIONS = {("_protocol.secrets", "httpx")}
# Each of these libraries belongs to the modules named (the demo server aside).
OWNED = {
    "anywidget": {"_view.widget"},
    "traitlets": {"_view.widget"},
    "ipywidgets": {"_view.widget"},
    "IPython": {"_notebook.host"},
    "ipykernel": {"_notebook.host"},
    "marimo": {"_notebook.host"},  # what is running, and showing a view there
    "google": {"_notebook.host"},  # google.colab: its widget manager
    "nbclient": {"_notebook.execute"},
    # The server extension that stamps who sent each kernel message (runs in the Jupyter server).
    "jupyter_server": {"_notebook.server_identity"},
    "nbformat": {"_notebook.execute"},
    "sqlite3": {"_store.sqlite"},
    "psycopg": {"_store.postgres"},
    "uvicorn": {"demo._server"},
    # The WebSocket transport's client (the demo's WebSocket route is served by uvicorn on it).
    "websockets": {"_transports.websocket"},
    # The network is the HTTP transport's; the agent takes your client and builds the demo's,
    # a version 1 recording names httpx's errors, secrets parse URLs, the demo's in-process
    # transport.
    "httpx": {
        "_transports.http", "_transports.choose", "_agent", "_record.legacy", "_protocol.secrets",
        "demo._transport", "_transports.websocket",
    },
}  # fmt: skip
#: Framework names that only _frameworks may use in code (comments and docstrings may cite them).
FRAMEWORK_NAMES = re.compile(
    r"langgraph|crewai|\badk\b|agent_framework|confirm_changes|microsoft|pydantic[_-]ai|strands",
    re.IGNORECASE,
)


def _internal(name: str) -> set[str]:
    return {_short(m) for m in GRAPH[f"{PACKAGE}.{name}" if name != PACKAGE else PACKAGE].internal}


def _room(name: str) -> str:
    """The room (or flat module, or the package) a module belongs to."""
    if name == PACKAGE:
        return PACKAGE
    first = name.split(".")[0]
    return first


def _names() -> Iterable[str]:
    return (_short(m) for m in GRAPH)


def _is_pure(name: str) -> bool:
    return _room(name) in PURE_ROOMS or name in PURE_MODULES


# -------------------------------------------------------------------------------------- tests


def test_the_graph_is_read() -> None:
    # A broken reader would make every test below pass vacuously.
    assert len(GRAPH) > 20
    assert "_errors" in _internal("_transports.http")
    assert "demo" in _internal("_agent")  # a lazy import, inside Agent.demo()
    assert {"httpx", "asyncio"} <= GRAPH[f"{PACKAGE}._transports.http"].external
    assert "_frameworks.registry" in _internal("_state.reducer")


def test_find_cycle_finds_and_prints_a_circle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_no_import_circles() -> None:
    cycle = find_cycle({name: mod.internal for name, mod in GRAPH.items()})
    if cycle:
        pytest.fail("import circle: " + " -> ".join(_short(m) for m in cycle))


def test_no_circles_between_rooms() -> None:
    rooms: dict[str, set[str]] = {}
    for name in _names():
        room = _room(name)
        deps = {_room(d) for d in _internal(name) if _room(d) != room}
        if name == "demo.__main__":
            deps.discard("__main__")  # `python -m agui_notebook.demo` runs the package's command
        rooms.setdefault(room, set()).update(deps)
    cycle = find_cycle(rooms)
    assert cycle is None, "rooms import each other: " + " -> ".join(cycle or [])


def test_the_package_is_rooms_and_a_few_flat_faces() -> None:
    flat = sorted(p.stem for p in ROOT.glob("*.py"))
    assert len(flat) <= 12, f"at most 12 flat modules: {flat}"
    assert set(flat) == FLAT, "add a module to a room (or to FLAT and docs/architecture.md)"
    rooms = {p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert rooms == ROOMS | {DEMO}


@pytest.mark.parametrize("room", sorted(ROOMS))
def test_each_room_says_what_it_owns_and_may_import(room: str) -> None:
    init = ROOT / room / "__init__.py"
    tree = ast.parse(init.read_text(encoding="utf-8"))
    doc = ast.get_docstring(tree) or ""
    assert len(doc.split()) >= 20, f"{room}/__init__.py: say what the room owns"
    assert "May import" in doc, f"{room}/__init__.py: say what the room may import"
    assert not GRAPH[f"{PACKAGE}.{room}"].internal, f"{room}/__init__.py imports nothing"


def test_every_module_has_a_room() -> None:
    unknown = sorted(
        n for n in _names() if _room(n) not in ROOMS | FLAT | FACADES | {DEMO, PACKAGE}
    )
    assert not unknown, f"put these modules in a room: {unknown}"


def test_each_room_imports_only_what_it_may() -> None:
    problems = []
    for name in sorted(_names()):
        room = _room(name)
        if room in FACADES or room == DEMO or name in FACADES:
            continue
        allowed = MAY_IMPORT.get(room, set()) | BASE | {room}
        for dep in sorted(_internal(name)):
            if _room(dep) not in allowed:
                problems.append(f"{name} imports {dep} (room {_room(dep)})")
    assert not problems, "rooms import only what their docstring allows:\n" + "\n".join(problems)


def test_the_core_is_pure() -> None:
    problems = []
    for name in sorted(n for n in _names() if _is_pure(n)):
        for dep in sorted(_internal(name)):
            if not _is_pure(dep):
                problems.append(f"{name} imports {dep} (not pure)")
        for lib in sorted(GRAPH[f"{PACKAGE}.{name}"].external & NOT_IN_CORE):
            if (name, lib) not in CORE_EXCEPTIONS:
                problems.append(f"{name} imports {lib}")
    assert not problems, "the pure core must stay pure:\n" + "\n".join(problems)


def test_frameworks_are_reached_only_through_the_registry() -> None:
    problems = [
        f"{n} imports {dep}"
        for n in _names()
        if _room(n) != "_frameworks"
        for dep in sorted(_internal(n))
        if _room(dep) == "_frameworks" and dep != "_frameworks.registry"
    ]
    assert not problems, "ask _frameworks.registry, never a dialect:\n" + "\n".join(problems)


def _code_names(path: Path) -> list[tuple[int, str]]:
    """NAME and STRING tokens of a module's code: comments and docstrings left out."""
    tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline))
    skip = {tokenize.NL, tokenize.COMMENT}
    out = []
    for i, tok in enumerate(tokens):
        if tok.type not in (tokenize.NAME, tokenize.STRING):
            continue
        if tok.type == tokenize.STRING:
            j = i - 1
            while j >= 0 and tokens[j].type in skip:
                j -= 1
            starts = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)
            if j < 0 or tokens[j].type in starts:
                continue  # a docstring (or a bare string statement)
        out.append((tok.start[0], tok.string))
    return out


def test_no_framework_is_named_in_code_outside_its_dialect() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text[:60]}"
        for path in sorted(ROOT.rglob("*.py"))
        if "_frameworks" not in path.parts and DEMO not in path.parts
        for line, text in _code_names(path)
        if FRAMEWORK_NAMES.search(text)
    ]
    assert not found, "a framework's quirk belongs in its dialect:\n" + "\n".join(found)


def test_the_name_check_can_see_a_framework() -> None:
    sample = ROOT / "_frameworks" / "langgraph.py"
    assert any(FRAMEWORK_NAMES.search(text) for _, text in _code_names(sample))


@pytest.mark.parametrize("name", ["_thread", "_run_loop"])
def test_the_run_loop_knows_no_framing(name: str) -> None:
    deps = _internal(name)
    assert {d for d in deps if _room(d) == "_transports"} == {"_transports.base"}
    assert "_protocol.sse" not in deps
    assert "httpx" not in GRAPH[f"{PACKAGE}.{name}"].external


def test_chat_is_composed_not_a_tower_of_mixins() -> None:
    defined: dict[str, str] = {}
    bases: list[tuple[str, str, str]] = []
    for path in sorted((ROOT / "_chat").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                defined[node.name] = path.stem
                bases += [(path.stem, node.name, ast.unparse(b)) for b in node.bases]
    inherited = [f"{m}.{c}({b})" for m, c, b in bases if b.split(".")[-1] in defined]
    assert "Chat" in defined and not inherited, f"a chat's parts inherit each other: {inherited}"


def test_each_library_stays_in_its_module() -> None:
    problems = [
        f"{_short(mod.name)} imports {lib} (only {sorted(owners)} may)"
        for mod in GRAPH.values()
        for lib, owners in OWNED.items()
        if lib in mod.external and _short(mod.name) not in owners
    ]
    assert not problems, "\n".join(problems)


def test_thread_knows_no_agent_chat_or_store_and_policies_no_recording() -> None:
    # The edges that once closed circles, checked by name so the message is plain.
    thread = {_short(m) for m in closure(f"{PACKAGE}._thread")}
    assert not {n for n in thread if _room(n) in {"_agent", "_chat", "_store", "_record"}}
    policies = {_short(m) for m in closure(f"{PACKAGE}.policies")}
    assert not {n for n in policies if _room(n) in {"_record", "_agent", "_thread", "_chat"}}


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
        if _room(n) == DEMO
        for dep in sorted(_internal(n))
        if _room(dep) != DEMO
        and dep != PROTOCOL_MODELS
        and not (n == "demo.__main__" and dep == "__main__")
    ]
    problems += [
        f"{n} imports {dep}"
        for n in _names()
        if _room(n) != DEMO and n not in {"_agent", "__main__"}
        for dep in sorted(_internal(n))
        if _room(dep) == DEMO
    ]
    assert not problems, "\n".join(problems)


#: Underscored names a module may import from another module of the package, each with its
#: reason. What modules share is public within its room: a name with a leading underscore is its
#: own module's business. (Importing a private *module*, ``from . import _bank``, is fine.)
PRIVATE_NAMES_SHARED: dict[tuple[str, str], str] = {}


def private_names_imported(source: str, module: str, *, is_package: bool = False) -> list[str]:
    """``module``'s imports of underscored names from other agui_notebook modules: ``from m
    import _name`` (unless ``m._name`` is a module), and ``m._name`` read off an imported
    module ``m``."""
    found: list[str] = []
    modules: dict[str, str] = {}  # local name -> the agui_notebook module it is
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _from(module, is_package, node)
            if base != PACKAGE and not base.startswith(PACKAGE + "."):
                continue
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in GRAPH:
                    modules[alias.asname or alias.name] = full
                elif _private(alias.name):
                    found.append(f"{_short(module)}:{node.lineno}: {_short(base)}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name in GRAPH:
                    modules[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and _private(node.attr)
            and f"{modules[node.value.id]}.{node.attr}" not in GRAPH
        ):
            found.append(
                f"{_short(module)}:{node.lineno}: {_short(modules[node.value.id])}.{node.attr}"
            )
    return found


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_no_module_imports_another_modules_private_names() -> None:
    found = [
        hit
        for mod in GRAPH.values()
        for hit in private_names_imported(
            mod.path.read_text(encoding="utf-8"),
            mod.name,
            is_package=mod.path.name == "__init__.py",
        )
        if (_short(mod.name), hit.rpartition(": ")[2]) not in PRIVATE_NAMES_SHARED
    ]
    assert not found, (
        "a module imports another's underscored names (make what is shared public within the "
        "room, or move it where it belongs):\n" + "\n".join(found)
    )


def test_the_private_name_check_sees_each_way_in() -> None:
    source = (
        "from .result import _title, ChatResult\n"  # a private name: found
        "from . import cards\n"  # a module: fine
        "from ..demo import _bank\n"  # a private module: fine
        "from .._protocol import wire as _wire\n"  # a module under a private alias: fine
        "from .texts import error_title as _error_title\n"  # a public name, aliased: fine
        "import agui_notebook._view.widget as w\n"
        "x = cards._VERDICT\n"  # a private name read off a module: found
        "y = w.ChatView, w._Msg, cards.__name__\n"  # found once (_Msg)
        "def f():\n"
        "    from ..policies import _kinds\n"  # lazily: still found
    )
    found = private_names_imported(source, f"{PACKAGE}._chat.decider")
    assert found == [
        "_chat.decider:1: _chat.result._title",
        "_chat.decider:10: policies._kinds",
        "_chat.decider:7: _chat.cards._VERDICT",
        "_chat.decider:8: _view.widget._Msg",
    ], found


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
