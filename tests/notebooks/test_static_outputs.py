"""Saved notebooks read anywhere, and nbval checks what the card showed.

- ``reexecute`` (``agui-notebook notebooks --reexecute``) saves each chat view as its final
  static forms: the transcript (text/plain) and the inert HTML (text/html), updated in place by
  a real kernel when the turn ended.
- Every committed notebook, converted by ``jupyter nbconvert --to html``, shows the card's tool,
  arguments, decision line and the final answer in the page, with no JavaScript run.
- nbval compares the transcripts: a saved card with a different decision fails it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import nbformat
import pytest

from agui_notebook._notebook.execute import default_notebooks, reexecute

pytestmark = pytest.mark.kernel

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
WIDGET = "application/vnd.jupyter.widget-view+json"
STATE = "application/vnd.jupyter.widget-state+json"

CHAT_CELLS = [
    "from agui_notebook import Agent, policies\nagent = Agent.demo(text_delay=0)",
    'chat = agent.chat(policy=policies.reject_all("not today"))\n'
    'await chat.send("Transfer $500 from 1234567890 to 0987654321")',
]


def _notebook(path: Path, *sources: str) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    nb.cells = [nbformat.v4.new_code_cell(s, id=f"cell-{i}") for i, s in enumerate(sources)]
    nbformat.write(nb, path)


def _chat_outputs(nb: Any) -> list[dict[str, Any]]:
    return [
        output
        for cell in nb.cells
        for output in cell.get("outputs", [])
        if "agui-static" in "".join(output.get("data", {}).get("text/html", ""))
    ]


def test_reexecute_saves_the_final_static_forms_of_each_chat_view(tmp_path: Path) -> None:
    path = tmp_path / "chat.ipynb"
    _notebook(path, *CHAT_CELLS)
    reexecute([path], timeout=60)
    nb = nbformat.read(path, as_version=4)
    [output] = _chat_outputs(nb)
    assert output["output_type"] == "display_data"
    assert set(output["data"]) == {"text/plain", "text/html"}  # no widget reference
    assert "widgets" not in nb.metadata
    lines = output["data"]["text/plain"].splitlines()
    # The final state (the update sent when the turn ended), not the first frame.
    assert lines[0] == "Status: finished"
    assert "  Decision: rejected by policy: reject-all" in lines
    assert "  Reason: not today" in lines
    assert "approved" not in output["data"]["text/plain"]
    assert "rejected by policy: reject-all" in output["data"]["text/html"]
    assert all("execution" not in cell.metadata for cell in nb.cells)  # no timings saved


def test_with_widget_state_the_widget_and_its_final_state_are_saved(tmp_path: Path) -> None:
    path = tmp_path / "chat.ipynb"
    _notebook(path, *CHAT_CELLS)
    reexecute([path], timeout=60, store_widget_state=True)
    nb = nbformat.read(path, as_version=4)
    [output] = _chat_outputs(nb)
    assert set(output["data"]) == {WIDGET, "text/plain", "text/html"}
    model_id = output["data"][WIDGET]["model_id"]
    saved = nb.metadata["widgets"][STATE]["state"]
    state = saved[model_id]["state"]
    # The items are saved in the view's pages, each a model of its own, whole.
    items = [
        item
        for ref in state["pages"]
        for item in saved[ref.removeprefix("IPY_MODEL_")]["state"]["items"]
    ]
    card = next(item for item in items if item["kind"] == "card")
    assert card["status"] == "done" and card["decidedBy"] == "policy: reject-all"
    assert state["outcome"] == "success" and len(state["_esm"]) > 10_000


# ------------------------------------------------------------------- nbconvert, no JavaScript


class _OutputText(HTMLParser):
    """The visible text of each output area of an nbconvert page (no script, no style)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.outputs: list[list[str]] = []
        self._depth = 0  # > 0 inside an output area: its <div> nesting depth
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        if self._depth:
            self._depth += tag == "div"
            self.outputs[-1].append(" ")  # a new block, item or line: words stay apart
        elif tag == "div" and "jp-OutputArea-output" in (dict(attrs).get("class") or "").split():
            self._depth = 1
            self.outputs.append([])

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip -= 1
        if self._depth:
            self._depth -= tag == "div"
            self.outputs[-1].append(" ")

    def handle_data(self, data: str) -> None:
        if self._depth and not self._skip:
            self.outputs[-1].append(data)


def _converted_outputs(notebook: Path, out_dir: Path) -> list[str]:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "jupyter",
            "nbconvert",
            "--to",
            "html",
            "--output-dir",
            str(out_dir),
            str(notebook),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    parser = _OutputText()
    parser.feed((out_dir / f"{notebook.stem}.html").read_text(encoding="utf-8"))
    return [" ".join("".join(parts).split()) for parts in parser.outputs]


# Per committed notebook: for one chat view each, what its card showed (tool, arguments,
# decision line) and the final answer. Each group must be found in one output of the page.
SHOWN = {
    "01_quickstart": [
        [
            "Tool call: transfer_money",
            'from_account: "1234567890" to_account: "0987654321" amount: 500.0',
            "Decision: approved by policy: approve-all",
            "Transferred 500.00 USD from 1234567890 to 0987654321. New balance: 2,000.00 USD.",
        ],
    ],
    "02_decisions": [
        [
            "Tool call: transfer_money",
            'to_account: "0987654321" amount: 500.0',
            "Decision: rejected by policy: scripted Reason: too much for one go",
            "OK, I did not transfer 500.00 USD from 1234567890 to 0987654321.",
        ],
        [
            "Decision: approved with edited arguments by policy: scripted"
            " Arguments sent: amount: 250",
            "With your changes: Transferred 250.00 USD",
        ],
        [
            "Tool call: cancel_subscription",
            'subscription_id: "sub_gym"',
            "Decision: rejected by policy: scripted Reason: not today",
            "OK, I did not cancel subscription sub_gym. Reason: not today",
        ],
        [
            "Decision: approved by rule: always allow transfer_money",
            "Transferred 20.00 USD from 1234567890 to 0987654321.",
        ],
    ],
    "03_headless_and_regression": [
        [
            "Decision: rejected by policy: reject-all Reason: no transfers from CI",
            "OK, I did not transfer 500.00 USD",
        ],
        [
            'amount: 50.0',
            "Decision: approved by policy: rules",
            "Transferred 50.00 USD from 1234567890 to 0987654321.",
        ],
        [
            "Decision: approved with edited arguments by policy: replay:transfer.jsonl",
            "With your changes: Transferred 250.00 USD",
        ],
    ],
    "04_microsoft_agent_framework": [
        [
            "Tool call: transfer_money",
            'from_account: "checking" to_account: "savings" amount: 100.0',
            "Decision: approved by policy: approve-all",
            "Done: Transferred 100.00 USD from checking to savings",
        ],
    ],
    "05_state_and_streaming": [
        ["You: Tell me a long story", "Chapter 1. Once upon a time", "The end.", "finished"],
    ],
    "06_durable_threads": [
        [
            "Restored from the store: 1 decision(s) pending.",
            "Tool call: transfer_money",
            'from_account: "1234567890" to_account: "0987654321" amount: 500.0',
            "Decision: approved by policy: approve-all",
            "Transferred 500.00 USD from 1234567890 to 0987654321. New balance: 2,000.00 USD.",
        ],
    ],
    "07_generative_ui": [
        [
            "Activity: PLAN: Month-end checks",
            "4 of 4 done",
            "[x] Write the summary",
            "Query: transactions over 1,000 USD this month",
            "All 4 checks are done",
        ],
        ["Generated UI: a2ui-surface", "New transfer", "From account: 1234567890", "[Send money]"],
        [
            "Action: submit_transfer (done, by policy: scripted) => success",
            "Transferred 250.00 EUR (275.00 USD) from 1234567890 to 0987654321.",
        ],
    ],
    "08_langgraph": [
        [
            "Tool call: transfer_money",
            'from_account: "checking" to_account: "savings" amount: 100.0',
            "Decision: approved by policy: approve-all",
            "Done: Transferred 100.00 USD from checking to savings",
        ],
    ],
    "10_decide_with_your_data": [
        [
            "Preview (computed in this notebook):",
            "0 1234567890 Checking -500.0 -3000.0",
            "Check no_overdraft: overdraft: 3,000.00 from a balance of 2,500.00",
            "Not sent: transfer_money: check no_overdraft failed",
        ],
        [
            "Preview of the edited arguments (computed in this notebook):",
            "Check no_overdraft: passed",
            "Decision: approved with edited arguments by policy: scripted",
            "Execution: Executed: the agent reported a result for transfer_money",
        ],
        ["Execution: Verified by new_balance_as_previewed"],
        ["The preview broken raised ValueError: the ledger is closed today. Decide without it."],
    ],
}


def test_every_tutorial_has_expectations() -> None:
    assert sorted(SHOWN) == [p.stem for p in default_notebooks(ROOT)]


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_nbconvert_html_shows_the_cards_without_javascript(name: str, tmp_path: Path) -> None:
    notebook = NOTEBOOKS / f"{name}.ipynb"
    outputs = _converted_outputs(notebook, tmp_path)
    assert not any("ChatView()" in text for text in outputs)
    for group in SHOWN[name]:
        holders = [text for text in outputs if all(expected in text for expected in group)]
        assert holders, f"no output of {name} shows all of {group}"
    # Every chat view output of the notebook is there as text, not as a widget reference.
    nb = nbformat.read(notebook, as_version=4)
    views = _chat_outputs(nb)
    assert views and all(WIDGET not in output["data"] for output in views)
    assert "widgets" not in nb.metadata


# ------------------------------------------------------------- nbval compares the transcripts


def _nbval(directory: Path, notebook: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AGUI_NOTEBOOK_POLICY": "approve"}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--nbval",
            "--nbval-current-env",
            "--nbval-cell-timeout=120",
            "--nbval-sanitize-with",
            str(NOTEBOOKS / "nbval_sanitize.cfg"),
            "--rootdir",
            str(directory),
            str(notebook),
        ],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_nbval_fails_when_the_card_showed_a_different_decision(tmp_path: Path) -> None:
    # The quickstart with its plugin (notebooks/conftest.py), once as committed, once with the
    # saved card's decision line changed: the first passes, the second fails on that line.
    for name in ("conftest.py", "01_quickstart.ipynb"):
        shutil.copy(NOTEBOOKS / name, tmp_path / name)
    same = _nbval(tmp_path, tmp_path / "01_quickstart.ipynb")
    assert same.returncode == 0, same.stdout[-3000:]

    changed = tmp_path / "changed.ipynb"
    nb = json.loads((tmp_path / "01_quickstart.ipynb").read_text(encoding="utf-8"))
    edits = 0
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            text = "".join(output.get("data", {}).get("text/plain", ""))
            line = "Decision: approved by policy: approve-all"
            if line in text:  # one line of the saved transcript
                swapped = "Decision: rejected by policy: approve-all"
                output["data"]["text/plain"] = text.replace(line, swapped)
                edits += 1
    assert edits == 1
    changed.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    result = _nbval(tmp_path, changed)
    assert result.returncode == 1, result.stdout[-3000:]
    assert "Cell outputs differ" in result.stdout
    assert "mismatch 'text/plain'" in result.stdout  # the transcript, on the changed line:
    assert "+ Decision: rejected by pol" in result.stdout  # (pytest's diff, cut short)
    assert "1 failed" in result.stdout
