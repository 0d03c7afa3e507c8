"""Fixtures for the reliability tests: the fault server and the loopback demo server."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fault_server import FaultServer

from agui_notebook.demo import DemoApp, create_app, start_in_thread
from tests.front_end import JUPYTER, front_end_fixture

# The chats here are clicked by the tests, as a JupyterLab front end with ipykernel 7.4 would.
as_front_end = front_end_fixture(JUPYTER)


@pytest.fixture(scope="module")
def fault_server_module() -> Iterator[FaultServer]:
    server = FaultServer.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def fault_server(fault_server_module: FaultServer) -> Iterator[FaultServer]:
    fault_server_module.reset()
    yield fault_server_module
    fault_server_module.reset()


@pytest.fixture(scope="module")
def demo_module() -> Iterator[tuple[str, DemoApp]]:
    app = create_app(text_delay=0)
    url, stop = start_in_thread(app=app)
    try:
        yield url, app
    finally:
        stop()


@pytest.fixture
def demo(demo_module: tuple[str, DemoApp]) -> tuple[str, DemoApp]:
    url, app = demo_module
    app.requests.clear()
    return url, app
