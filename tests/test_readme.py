"""The README's examples run as shown (issue 18): the script form of "In ten lines" is executed
in a fresh interpreter, exactly as a reader would save and run it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def python_block_after(heading: str) -> str:
    start = README.index(heading)
    fence = README.index("```python\n", start) + len("```python\n")
    return README[fence : README.index("```", fence)]


@pytest.mark.timeout(180)
def test_the_script_form_runs_to_the_transfer(tmp_path: Path) -> None:
    code = python_block_after("### As a script")
    assert "asyncio.run(" in code and "policy=" in code  # nobody clicks in a script
    script = tmp_path / "transfer.py"
    script.write_text(code, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "AGUI_NOTEBOOK_POLICY"}
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=150,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "True policy: approve-all"  # completed, and who decided
    assert lines[1].startswith("Transferred 500.00 USD from 1234567890 to 0987654321")
    assert lines[2].startswith("transfer_money(") and lines[2].endswith(
        "-> approve (by policy: approve-all) => success"
    )
