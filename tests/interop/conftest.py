"""Fixtures for the interop tests: the third-party AG-UI servers, started once per session.

The ``test_client_*`` modules drive these servers with agui_notebook itself. The servers record
what they received (``.requests``, each with ``.json``) and the tools they ran (``.executions``).

In-process servers have a fixture each below. Out-of-process servers (their own venv, see
tests/servers/external.py) are started through ``external_server(framework, *args)``: one process
per distinct argument list, shared by the session, stopped at its end. A server that cannot start
fails the test that asked for it (never a skip).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from agui_notebook import PendingInterrupt, Thread
from tests.servers import external


@pytest.fixture(scope="session")
def msaf_server() -> Iterator[Any]:
    """Microsoft Agent Framework's tutorial server (scripted model), keepalive every second."""
    from tests.servers.msaf_server import start_server

    handle = start_server(keepalive_seconds=1)
    yield handle
    handle.stop()


@pytest.fixture(scope="session")
def pydantic_ai_server() -> Iterator[Any]:
    """pydantic-ai's plain (stateless) AG-UI endpoint (scripted model)."""
    from tests.servers.pydantic_ai_server import start_server

    handle = start_server()
    yield handle
    handle.stop()


@pytest.fixture(scope="session")
def pydantic_ai_stateful_server() -> Iterator[Any]:
    """pydantic-ai's AG-UI endpoint with a conversation store (server-held history)."""
    from tests.servers.pydantic_ai_server import start_server

    handle = start_server(stateful=True)
    yield handle
    handle.stop()


ExternalServerFactory = Callable[..., external.ExternalServer]


@pytest.fixture(scope="session")
def external_server() -> Iterator[ExternalServerFactory]:
    """``external_server("langgraph", "--style", "outcome")`` -> a running ExternalServer."""
    started: dict[tuple[str, ...], external.ExternalServer] = {}

    def get(framework: str, *args: str) -> external.ExternalServer:
        key = (framework, *args)
        server = started.get(key)
        if server is None or server.process.poll() is not None:
            server = started[key] = external.start(framework, *args)
        return server

    yield get
    for server in started.values():
        server.stop()


Twin = Callable[..., Thread]


def make_twin(
    thread: Thread,
    *,
    thread_id: str | None = None,
    pending: list[PendingInterrupt] | None = None,
    history: bool = True,
) -> Thread:
    """A second ``Thread`` object that believes what ``thread`` believes, possibly wrongly.

    Our client refuses a resume naming an interrupt it does not hold as pending, so the only way to
    make it *send* an unknown interrupt id, a resume on the wrong thread or an incomplete resume
    (and so reach the server's own error codes) is to give a Thread a belief that differs from the
    server's. The public API has no way to do that (by design), so this copies the thread's private
    state (``_pending``, ``_snapshot``, ``_last_run_id``) into a fresh Thread. Only tests do this;
    the original thread is left untouched, so a corrected resume can be sent on it afterwards.
    """
    twin = thread.agent.thread(thread_id or thread.id)
    twin._pending = list(thread.pending if pending is None else pending)
    if history:
        twin._snapshot = thread._snapshot
        twin._last_run_id = thread._last_run_id
    return twin


@pytest.fixture
def twin() -> Twin:
    return make_twin


def with_id(interrupt: PendingInterrupt, new_id: str) -> PendingInterrupt:
    """The same interrupt under an id the server never issued."""
    return dataclasses.replace(interrupt, id=new_id)


@pytest.fixture
def forge_id() -> Callable[[PendingInterrupt, str], PendingInterrupt]:
    return with_id
