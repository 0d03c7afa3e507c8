"""Fixtures for the store tests: a loopback demo server and the store file of the test."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agui_notebook.demo import DemoApp, create_app, start_in_thread


@pytest.fixture
def store_path(_isolated_store: Path) -> Path:
    """The store file every Agent of this test uses by default (AGUI_NOTEBOOK_STORE)."""
    assert os.environ["AGUI_NOTEBOOK_STORE"] == str(_isolated_store)
    return _isolated_store


@pytest.fixture
def demo() -> Iterator[tuple[str, DemoApp]]:
    app = create_app(text_delay=0, expires_in=1.0)
    url, stop = start_in_thread(app=app)
    try:
        yield url, app
    finally:
        stop()


def rows(path: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Read the store file directly (a separate connection, as another process would)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()
