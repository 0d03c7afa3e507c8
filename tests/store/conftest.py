"""Fixtures for the store tests: a loopback demo server, a real PostgreSQL server, and the store
of the test, on SQLite and on PostgreSQL (``store_path`` is parametrised over both backends)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agui_notebook.demo import DemoApp, create_app, start_in_thread
from tests.front_end import JUPYTER, front_end_fixture
from tests.store import _postgres

# The chats here are clicked by the tests, as a JupyterLab front end with ipykernel 7.4 would.
as_front_end = front_end_fixture(JUPYTER)

BACKENDS = ["sqlite", "postgres"]


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[_postgres.Server]:
    """One real PostgreSQL for the session (initdb + pg_ctl); fails when it cannot start."""
    server = _postgres.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: _postgres.Server) -> str:
    """A fresh database for this test, owned by the application role; its URL has the password."""
    return postgres_server.url(postgres_server.new_database())


@pytest.fixture(params=BACKENDS)
def store_path(
    request: pytest.FixtureRequest, _isolated_store: Path, monkeypatch: pytest.MonkeyPatch
) -> Path | str:
    """The store every Agent of this test uses by default (AGUI_NOTEBOOK_STORE): the test's
    SQLite file, or a fresh PostgreSQL database's URL."""
    assert os.environ["AGUI_NOTEBOOK_STORE"] == str(_isolated_store)
    if request.param == "sqlite":
        return _isolated_store
    url: str = request.getfixturevalue("postgres_url")
    monkeypatch.setenv("AGUI_NOTEBOOK_STORE", url)
    return url


@pytest.fixture
def demo() -> Iterator[tuple[str, DemoApp]]:
    app = create_app(text_delay=0, expires_in=1.0)
    url, stop = start_in_thread(app=app)
    try:
        yield url, app
    finally:
        stop()
