"""The built-in demo agent: a scripted, LLM-free banking assistant that speaks real AG-UI.

In-process (no socket), for ``Agent.demo()``::

    transport, app = demo_transport(text_delay=0)
    client = httpx.AsyncClient(transport=transport, base_url="http://agui-demo.invalid/")

Over HTTP on loopback: ``agui-notebook demo-server --port 8000`` or
``python -m agui_notebook.demo``; from Python, ``url, stop = start_in_thread()``.
What it answers to is tabled in ``agui_notebook.demo._scenarios`` and in the README.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._app import DemoApp
from ._options import DemoOptions
from ._transport import InProcessTransport

__all__ = [
    "DemoApp",
    "DemoOptions",
    "InProcessTransport",
    "create_app",
    "demo_transport",
    "start_in_thread",
]


def create_app(options: DemoOptions | None = None, **overrides: Any) -> DemoApp:
    """A fresh demo ASGI app with its own (empty) thread store."""
    return DemoApp(DemoOptions.from_kwargs(options, **overrides))


def demo_transport(**options: Any) -> tuple[InProcessTransport, DemoApp]:
    """An in-process httpx transport serving a fresh demo app, and that app."""
    app = create_app(**options)
    return InProcessTransport(app), app


def start_in_thread(
    port: int = 0, *, host: str = "127.0.0.1", app: DemoApp | None = None, **options: Any
) -> tuple[str, Callable[[], None]]:
    """A loopback demo server in a daemon thread: ``(url, stop)``. Imports uvicorn only now."""
    from ._server import start_in_thread as start

    return start(port, host=host, app=app, **options)
