"""agui_notebook._notebook.execute.reexecute: the helper that re-saves the tutorial notebooks' outputs."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

from agui_notebook._notebook.execute import default_notebooks, reexecute

pytestmark = pytest.mark.kernel

ROOT = Path(__file__).resolve().parents[2]


def _notebook(path: Path, *sources: str) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    nb.cells = [nbformat.v4.new_code_cell(s, id=f"cell-{i}") for i, s in enumerate(sources)]
    nbformat.write(nb, path)


def test_reexecute_saves_outputs_in_place_with_this_interpreter_and_the_policy(
    tmp_path: Path,
) -> None:
    path = tmp_path / "probe.ipynb"
    _notebook(
        path,
        "import os, sys\nprint(sys.prefix)\nprint(os.environ['AGUI_NOTEBOOK_POLICY'])",
        "print(os.getcwd())",
    )
    reexecute([path], policy="reject:from the test", timeout=60)
    nb = nbformat.read(path, as_version=4)
    assert [c.id for c in nb.cells] == ["cell-0", "cell-1"]
    prefix, policy = nb.cells[0].outputs[0]["text"].splitlines()
    assert prefix == sys.prefix
    assert policy == "reject:from the test"
    assert nb.cells[1].outputs[0]["text"].strip() == str(tmp_path.resolve())
    assert [c.execution_count for c in nb.cells] == [1, 2]


def test_a_failing_notebook_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "broken.ipynb"
    _notebook(path, "print('ran')", "1 / 0")
    before = path.read_bytes()
    with pytest.raises(Exception, match="ZeroDivisionError"):
        reexecute([path], timeout=60)
    assert path.read_bytes() == before


def test_the_tutorials_are_found_in_order() -> None:
    names = [p.name for p in default_notebooks(ROOT)]
    assert names == [
        "01_quickstart.ipynb",
        "02_decisions.ipynb",
        "03_headless_and_regression.ipynb",
        "04_microsoft_agent_framework.ipynb",
        "05_state_and_streaming.ipynb",
        "06_durable_threads.ipynb",
        "07_generative_ui.ipynb",
        "08_langgraph.ipynb",
        "10_decide_with_your_data.ipynb",
    ]


def test_reexecute_keeps_the_tutorials_threads_out_of_the_users_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "store_probe.ipynb"
    _notebook(path, "import os\nprint(os.environ.get('AGUI_NOTEBOOK_STORE'))")
    monkeypatch.delenv("AGUI_NOTEBOOK_STORE")
    reexecute([path], timeout=60)
    used = Path(nbformat.read(path, as_version=4).cells[0].outputs[0]["text"].strip())
    assert used.name == "store.sqlite3" and used.parent.name.startswith("agui-notebooks-")
    assert not used.parent.exists()  # a throwaway directory, removed afterwards
    mine = tmp_path / "mine.sqlite3"
    monkeypatch.setenv("AGUI_NOTEBOOK_STORE", str(mine))
    reexecute([path], timeout=60)
    assert nbformat.read(path, as_version=4).cells[0].outputs[0]["text"].strip() == str(mine)
