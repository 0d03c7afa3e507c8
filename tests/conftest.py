"""Every test gets its own store file: nothing a test runs reaches the user's data directory.

``Agent`` keeps threads in ``AGUI_NOTEBOOK_STORE`` (default: the user's data directory). Kernels,
Jupyter servers and subprocesses a test starts inherit the variable, so they write there too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_store(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("store") / "store.sqlite3"
    monkeypatch.setenv("AGUI_NOTEBOOK_STORE", str(path))
    yield path
