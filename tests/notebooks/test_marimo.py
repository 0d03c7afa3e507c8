"""notebooks/09_marimo.py headless: as a script and through `marimo export html`, decided by
AGUI_NOTEBOOK_POLICY; without a policy a script fails fast instead of waiting. And nbval, which
runs the .ipynb tutorials, does not try to collect the marimo notebook.

The notebook is copied to a temporary directory first: marimo writes a session cache beside it.
marimo is pinned in the `test-frontends` extra (scripts/test's main venv); the browser side is
tests/browser/test_marimo_e2e.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.marimo

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "09_marimo.py"
DONE = "completed: True | decided by: policy: approve-all"


def _env(tmp_path: Path, policy: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "AGUI_NOTEBOOK_POLICY"}
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), MARIMO_SKIP_UPDATE_CHECK="1")
    if policy is not None:
        env["AGUI_NOTEBOOK_POLICY"] = policy
    return env


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / NOTEBOOK.name
    shutil.copyfile(NOTEBOOK, target)
    return target


def test_as_a_script_with_a_policy(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(_copy(tmp_path))],
        env=_env(tmp_path, "approve"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stderr
    assert DONE in run.stdout, run.stdout + run.stderr
    assert "Transferred 500.00 USD from 1234567890 to 0987654321" in run.stdout


def test_as_a_script_without_a_policy_fails_fast_and_says_how(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(_copy(tmp_path))],
        env=_env(tmp_path, None),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,  # the chat's own timeout is 600 s: this proves it is not waited out
    )
    assert run.returncode != 0
    assert "NobodyCanClick: transfer_money needs a decision" in run.stderr, run.stderr
    assert "a marimo script: no notebook front end" in run.stderr
    assert "AGUI_NOTEBOOK_POLICY=approve" in run.stderr
    assert "completed:" not in run.stdout


# The last cell's mo.stop message as rendered output (the source text has it too, unrendered).
STOPPED = "\\u003Cstrong\\u003EDecide on the card above"


def _export(tmp_path: Path, policy: str | None) -> str:
    out = tmp_path / "out.html"
    run = subprocess.run(
        [sys.executable, "-m", "marimo", "export", "html", str(_copy(tmp_path)), "-o", str(out)],
        env=_env(tmp_path, policy),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return out.read_text(encoding="utf-8")


def test_exported_to_html_with_a_policy(tmp_path: Path) -> None:
    html = _export(tmp_path, "approve")
    assert DONE in html
    assert STOPPED not in html


def test_exported_without_a_policy_ends_with_the_card_waiting(tmp_path: Path) -> None:
    # marimo's kernel runs the export: a card there continues in the background, so the export
    # ends at once, and its page says the decision is still to be made.
    html = _export(tmp_path, None)
    assert STOPPED in html
    assert "In marimo a click reaches Python only after the running cell has finished" in html
    assert "completed: True" not in html


def test_nbval_collects_the_ipynb_tutorials_only() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "--nbval", "--nbval-current-env", "notebooks/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    collected = {line.split("::")[0] for line in run.stdout.splitlines() if "::" in line}
    assert "notebooks/01_quickstart.ipynb" in collected, run.stdout
    assert not any("marimo" in c for c in collected), collected


TWO_CELLS = """
import marimo

app = marimo.App()


@app.cell
async def _():
    from agui_notebook import Agent

    agent = Agent.demo(text_delay=0)
    chat = agent.chat()
    first = await chat.send("What is my balance?")
    return chat, first


@app.cell
async def _(chat, first):
    second = await chat.send("What is my balance?")
    print("VIEWS", len(chat.views), chat.views[0] is not chat.views[1], first.completed)
    return (second,)
"""


def test_each_cell_run_gets_its_own_view(tmp_path: Path) -> None:
    # Which cell run is running is read from marimo's execution context (no public name for
    # it): a second cell sending on the same chat must fill its own output, not the first's.
    (tmp_path / NOTEBOOK.name).write_text(TWO_CELLS, encoding="utf-8")
    out = tmp_path / "out.html"
    run = subprocess.run(
        [sys.executable, "-m", "marimo", "export", "html", NOTEBOOK.name, "-o", str(out)],
        env=_env(tmp_path, None),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "VIEWS 2 True True" in out.read_text(encoding="utf-8")
