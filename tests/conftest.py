"""Nothing a test runs reaches the user's data directory: every store is a temporary file.

``Agent`` keeps threads in ``AGUI_NOTEBOOK_STORE`` (default, in a notebook: the user's data
directory). Kernels, Jupyter servers and subprocesses a test starts inherit the variable, so they
write there too.
It is set for the whole session when pytest starts (so servers and kernels that module- or
session-scoped fixtures start before any test are covered), and to a file of its own for each
test.

It also loads the Hypothesis profile (``HYPOTHESIS_PROFILE``: ``ci`` by default, ``nightly`` for a
long run; tests/_hypothesis.py) before any test module is imported.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import _hypothesis
from tests.front_end import fake_host  # noqa: F401  (a fixture for every test)

_hypothesis.load()

_SESSION_DIR = tempfile.mkdtemp(prefix="agui-test-store-")


def pytest_configure(config: pytest.Config) -> None:
    os.environ["AGUI_NOTEBOOK_STORE"] = str(Path(_SESSION_DIR) / "session.sqlite3")


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_SESSION_DIR, ignore_errors=True)


@pytest.fixture(autouse=True)
def _isolated_store(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("store") / "store.sqlite3"
    monkeypatch.setenv("AGUI_NOTEBOOK_STORE", str(path))
    yield path
