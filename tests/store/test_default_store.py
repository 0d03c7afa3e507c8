"""Where an Agent keeps its threads when nobody said (issue 29): the user data directory's file
in a notebook a person decides in, and nothing in a script, a test or a notebook run headless
under a policy, so no run picks up the threads an earlier one left (docs/store.md).

What is running is faked the way the front-end tests do it: modules in ``sys.modules`` that
look like a running kernel or marimo notebook (``kernel_support`` reads nothing else).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import platformdirs
import pytest

from agui_notebook import Agent

URL = "http://127.0.0.1:1/"


@pytest.fixture
def nothing_said(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No store= and no AGUI_NOTEBOOK_STORE (tests/conftest.py sets one for every test), no
    policy; the data directory a temporary one. Returns the default file's path."""
    monkeypatch.delenv("AGUI_NOTEBOOK_STORE")
    monkeypatch.delenv("AGUI_NOTEBOOK_POLICY", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return Path(platformdirs.user_data_dir("agui-notebook", appauthor=False)) / "store.sqlite3"


def in_a_kernel(monkeypatch: pytest.MonkeyPatch, version: str = "7.4.0") -> None:
    shell = SimpleNamespace(kernel=object())
    monkeypatch.setitem(sys.modules, "IPython", SimpleNamespace(get_ipython=lambda: shell))
    monkeypatch.setitem(sys.modules, "ipykernel", SimpleNamespace(__version__=version))


def in_marimo(monkeypatch: pytest.MonkeyPatch) -> None:
    marimo = SimpleNamespace(
        __version__="0.25.2",
        running_in_notebook=lambda: True,
        app_meta=lambda: SimpleNamespace(mode="edit"),
    )
    monkeypatch.setitem(sys.modules, "marimo", marimo)


def test_outside_a_notebook_an_agent_keeps_nothing_unless_asked(nothing_said: Path) -> None:
    agent = Agent(URL)
    assert agent.store_path is None
    assert agent.threads() == []
    assert Agent.demo().store_path is None


@pytest.mark.parametrize("front_end", [in_a_kernel, in_marimo], ids=["jupyter", "marimo"])
def test_in_a_notebook_a_person_decides_in_threads_go_to_the_data_dir(
    nothing_said: Path, monkeypatch: pytest.MonkeyPatch, front_end: object
) -> None:
    front_end(monkeypatch)  # type: ignore[operator]
    assert nothing_said.parent.parent.name == "data"  # XDG_DATA_HOME is honoured
    assert Agent(URL).store_path == nothing_said
    in_a_kernel(monkeypatch, version="6.29.5")  # an older kernel: a person still clicks there
    assert Agent(URL).store_path == nothing_said


def test_a_notebook_run_headless_under_a_policy_keeps_nothing(
    nothing_said: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    in_a_kernel(monkeypatch)  # nbval, nbclient and papermill run a real kernel
    monkeypatch.setenv("AGUI_NOTEBOOK_POLICY", "approve")
    assert Agent(URL).store_path is None
    monkeypatch.setenv("AGUI_NOTEBOOK_POLICY", "  ")  # blank: no policy
    assert Agent(URL).store_path == nothing_said


def test_the_argument_and_the_environment_still_decide_everywhere(
    nothing_said: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert Agent(URL, store=tmp_path / "mine.db").store_path == tmp_path / "mine.db"
    monkeypatch.setenv("AGUI_NOTEBOOK_STORE", str(tmp_path / "env.db"))
    assert Agent(URL).store_path == tmp_path / "env.db"
    in_a_kernel(monkeypatch)
    monkeypatch.setenv("AGUI_NOTEBOOK_STORE", "off")
    assert Agent(URL).store_path is None
    assert Agent(URL, store=tmp_path / "mine.db").store_path == tmp_path / "mine.db"


SCRIPT = """
import asyncio
from agui_notebook import Agent

async def main():
    agent = Agent.demo(text_delay=0)
    thread = agent.thread("t1")
    print(len(thread.messages), len(thread.pending), agent.store_path)
    await thread.run("Transfer $500 from 1234567890 to 0987654321")
    await agent.aclose()

asyncio.run(main())
"""


def _clean_env(tmp_path: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("AGUI_NOTEBOOK_STORE", "AGUI_NOTEBOOK_POLICY", "XDG_DATA_HOME")
    }
    env.update(HOME=str(tmp_path / "home"), XDG_DATA_HOME=str(tmp_path / "data"))
    return env


@pytest.mark.timeout(120)
def test_a_script_run_twice_starts_afresh_each_time(tmp_path: Path) -> None:
    """The loose end itself: with the old default the second run printed `2 1 <file>`, thread
    t1 as the first run had left it (its messages and its pending transfer)."""
    script = tmp_path / "twice.py"
    script.write_text(SCRIPT, encoding="utf-8")
    seen = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, str(script)],
            capture_output=True,
            text=True,
            timeout=90,
            cwd=tmp_path,
            env=_clean_env(tmp_path),
        )
        assert done.returncode == 0, done.stderr
        seen.append(done.stdout.splitlines()[0])
    assert seen == ["0 0 None", "0 0 None"]
    assert not (tmp_path / "data").exists() and not (tmp_path / "home" / ".local").exists()


@pytest.mark.timeout(120)
def test_the_command_line_reads_the_notebooks_file(tmp_path: Path) -> None:
    cli = Path(sys.executable).with_name("agui-notebook")
    done = subprocess.run(
        [str(cli), "threads"],
        capture_output=True,
        text=True,
        timeout=60,
        env=_clean_env(tmp_path),
    )
    expected = tmp_path / "data" / "agui-notebook" / "store.sqlite3"
    assert f"no store at {expected} yet" in done.stderr, done.stderr
