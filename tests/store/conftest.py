"""Fixtures for the store tests: a loopback demo server and the store file of the test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agui_notebook.demo import DemoApp, create_app, start_in_thread
from tests.front_end import JUPYTER, front_end_fixture

# The chats here are clicked by the tests, as a JupyterLab front end with ipykernel 7.4 would.
as_front_end = front_end_fixture(JUPYTER)


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
