"""The wheel the packaging tests install: ``$AGUI_NOTEBOOK_WHEEL`` (scripts/test builds one from
the sdist) or one built here, once per session, with ``python -m build --wheel``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("AGUI_NOTEBOOK_WHEEL")
    if given:
        path = Path(given)
        assert path.is_file(), f"AGUI_NOTEBOOK_WHEEL={given} does not exist"
        return path
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(REPO_ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (path,) = out.glob("agui_notebook-*.whl")
    return path
