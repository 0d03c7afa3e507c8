"""Serve the demo over HTTP+SSE with uvicorn: the CLI's ``serve`` and a thread helper for tests.

Loopback by default: the demo has no authentication, so it binds 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import uvicorn

from ._app import DemoApp
from ._options import DemoOptions
from ._resume import load_validator


def serve(host: str = "127.0.0.1", port: int = 8000, **options: Any) -> None:
    """Run the demo server in the foreground until interrupted (Ctrl+C)."""
    app = DemoApp(DemoOptions.from_kwargs(**options))
    load_validator()
    print(
        f"AG-UI demo agent on http://{host}:{port}/ (POST a RunAgentInput) and "
        f"ws://{host}:{port}/ (one run per WebSocket); Ctrl+C stops"
    )
    uvicorn.run(
        app, host=host, port=port, log_level="info", lifespan="off", timeout_graceful_shutdown=1
    )


def start_in_thread(
    port: int = 0, *, host: str = "127.0.0.1", app: DemoApp | None = None, **options: Any
) -> tuple[str, Callable[[], None]]:
    """Start a demo server in a daemon thread; return ``(url, stop)``. ``port=0``: a free port.

    >>> url, stop = start_in_thread()   # doctest: +SKIP
    >>> url                              # doctest: +SKIP
    'http://127.0.0.1:53117/'
    >>> stop()                           # doctest: +SKIP

    Pass ``app`` to keep a handle on it (``app.requests``, ``app.executions``).
    """
    app = app or DemoApp(DemoOptions.from_kwargs(**options))
    # Binding here, before the thread starts, makes the port known and taken at once (no race).
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    bound_port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, log_level="warning", lifespan="off", ws="auto", timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, daemon=True, name=f"agui-demo-{bound_port}"
    )
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            sock.close()
            raise RuntimeError("the demo server did not start")
        time.sleep(0.01)

    def stop() -> None:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()

    url_host = f"[{host}]" if ":" in host else host
    return f"http://{url_host}:{bound_port}/", stop
