"""The built wheel carries the widget front end and works without Node.

The front end is agui_notebook/static/chat.js, the committed esbuild bundle of js/src/ (see
docs/architecture.md): it is part of the package, so the wheel carries it without a build hook.

The wheel is `$AGUI_NOTEBOOK_WHEEL` (scripts/test builds one) or built here with `python -m build`.

How the install stays fast and still honest:
- a brand-new venv with the wheel installed `--no-deps`, its dependencies borrowed from the dev
  venv (_venv.py), so no second resolve and download of ~80 packages; the child then checks
  every `Requires-Dist` of the installed wheel is satisfied, which is what a real install would
  have had to resolve;
- the child runs with `python -I`, PATH set to the new venv's bin only (no node, no npm), from a
  temp cwd, and asserts `agui_notebook` was imported from the new venv, not from this checkout,
  and that the helper the chat view loads its front end through (`chat_js_path()`, wherever it
  lives in the package) names the installed `static/chat.js`: always checked, never skipped.
"""

from __future__ import annotations

import inspect
import json
import re
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.packaging._venv import wheel_venv

REPO_ROOT = Path(__file__).resolve().parents[2]
CHAT_JS = REPO_ROOT / "agui_notebook" / "static" / "chat.js"
WHEEL_CHAT_JS = "agui_notebook/static/chat.js"


def helper_module(pkg: Path) -> str:
    """The dotted name of the one module of the package ``pkg`` that defines ``chat_js_path()``,
    the path the chat view loads its front end from. Found by reading the files, so the check
    does not depend on where the module lives (the package is being split into subpackages);
    none, or more than one, fails the check instead of skipping it."""
    found = sorted(
        ".".join(path.relative_to(pkg.parent).with_suffix("").parts)
        for path in pkg.rglob("*.py")
        if re.search(r"^def chat_js_path\(", path.read_text(encoding="utf-8"), re.MULTILINE)
    )
    assert len(found) == 1, f"expected one module of {pkg} defining chat_js_path(), found {found}"
    return found[0]


CHILD = (
    "import re\nfrom pathlib import Path\n"
    + inspect.getsource(helper_module)
    + r"""
import importlib.metadata as md
import json, pathlib, shutil, sys
from packaging.requirements import Requirement

assert shutil.which("node") is None, shutil.which("node")
assert shutil.which("npm") is None, shutil.which("npm")

import agui_notebook

pkg = pathlib.Path(agui_notebook.__file__).resolve().parent
prefix = pathlib.Path(sys.prefix).resolve()
assert pkg.is_relative_to(prefix), f"agui_notebook imported from {pkg}, not from {prefix}"
chat = pkg / "static" / "chat.js"

import importlib
helper = str(pathlib.Path(importlib.import_module(helper_module(pkg)).chat_js_path()).resolve())

unsatisfied = []
for text in md.requires("agui-notebook") or []:
    req = Requirement(text)
    if req.marker is not None and not req.marker.evaluate({"extra": ""}):
        continue
    try:
        version = md.version(req.name)
    except md.PackageNotFoundError:
        unsatisfied.append(f"{text} (not installed)")
        continue
    if not req.specifier.contains(version, prereleases=True):
        unsatisfied.append(f"{text} (have {version})")

print(json.dumps({
    "package": str(pkg),
    "chat_exists": chat.is_file(),
    "chat": chat.read_text(encoding="utf-8") if chat.is_file() else "",
    "helper": helper,
    "chat_path": str(chat.resolve()),
    "unsatisfied": unsatisfied,
}))
"""
)


@pytest.fixture(scope="module")
def chat_js_source() -> str:
    if not CHAT_JS.is_file():
        pytest.fail("agui_notebook/static/chat.js is missing: run `cd js && npm run build`")
    return CHAT_JS.read_text(encoding="utf-8")


def test_wheel_contains_chat_js(wheel: Path, chat_js_source: str) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        assert WHEEL_CHAT_JS in names, f"{WHEEL_CHAT_JS} missing from {wheel.name}"
        assert zf.read(WHEEL_CHAT_JS).decode("utf-8") == chat_js_source
    assert not [n for n in names if "node_modules" in n or n.endswith(".test.js")]


def test_installed_wheel_works_without_node(
    wheel: Path, chat_js_source: str, tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    python = wheel_venv(wheel, venv)

    cwd = tmp_path / "cwd"
    cwd.mkdir()
    env = {"PATH": str(venv / "bin"), "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    proc = subprocess.run(
        [str(python), "-I", "-c", CHILD],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert Path(result["package"]).is_relative_to(venv.resolve())
    assert result["chat_exists"], f"no static/chat.js in {result['package']}"
    assert result["chat"].strip(), "static/chat.js is empty"
    assert "export default" in result["chat"]
    assert result["helper"] == result["chat_path"]  # the view loads the installed file
    assert result["unsatisfied"] == []


def test_the_helper_is_found_wherever_it_lives_and_its_absence_fails(tmp_path: Path) -> None:
    """The check used to pass silently when it could not import the helper (a guessed module
    name, then ``if helper is not None``): moved or renamed, it was simply not checked."""
    assert helper_module(REPO_ROOT / "agui_notebook").startswith("agui_notebook.")
    pkg = tmp_path / "agui_notebook"
    (pkg / "_view").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "_view" / "__init__.py").write_text("")
    (pkg / "_view" / "_static.py").write_text("def chat_js_path():\n    return None\n")
    assert helper_module(pkg) == "agui_notebook._view._static"
    (pkg / "_view" / "_static.py").write_text("def esm_path():\n    return None\n")
    with pytest.raises(AssertionError, match="found \\[\\]"):
        helper_module(pkg)
