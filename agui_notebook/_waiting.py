"""The event-loop side of waiting for a click while a cell runs.

Measured facts (design/kernel-waiting.md): ipykernel >= 7.4 dispatches widget messages while an
async cell is suspended at an ``await``; JupyterLab >= 4.4 may deliver them on a subshell thread,
where resolving a future directly does not wake the loop. So every hand-off to the loop goes
through ``call_soon_threadsafe``, and every wait has its own timeout.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

__all__ = ["KernelSupport", "call_in_loop", "current_cell_id", "kernel_support"]


class KernelSupport:
    """Whether a running cell can wait for a click in this kernel, and why not."""

    def __init__(self, in_kernel: bool, can_wait: bool, detail: str) -> None:
        self.in_kernel = in_kernel
        self.can_wait = can_wait
        self.detail = detail


def kernel_support() -> KernelSupport:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        return KernelSupport(False, True, "not in IPython")
    shell = get_ipython()
    if shell is None or not hasattr(shell, "kernel"):
        return KernelSupport(False, True, "not in a Jupyter kernel")
    try:
        from importlib.metadata import version as installed

        release = installed("ipykernel")
        version = tuple(int(p) for p in release.split(".")[:2])
    except (ImportError, ValueError):  # PackageNotFoundError is an ImportError
        return KernelSupport(True, False, "unknown ipykernel version")
    if version >= (7, 4):
        return KernelSupport(True, True, f"ipykernel {release}")
    return KernelSupport(
        True,
        False,
        f"ipykernel {release} delivers clicks only after the cell ends "
        "(7.4 or newer waits in the cell)",
    )


def current_cell_id() -> str | None:
    """An id for the execute request being run (None outside a kernel)."""
    try:
        from IPython import get_ipython

        shell = get_ipython()
        kernel = getattr(shell, "kernel", None)
        if kernel is None:
            return None
        parent = kernel.get_parent("shell") if _takes_channel(kernel) else kernel.get_parent()
        msg_id = (parent or {}).get("header", {}).get("msg_id")
        return str(msg_id) if msg_id else None
    except Exception:
        return None


def _takes_channel(kernel: Any) -> bool:
    import inspect

    try:
        return "channel" in inspect.signature(kernel.get_parent).parameters
    except (TypeError, ValueError):
        return False


def call_in_loop(loop: asyncio.AbstractEventLoop, fn: Callable[..., Any], *args: Any) -> None:
    """Run ``fn(*args)`` on ``loop``'s thread, from any thread (the comm handler's included)."""
    if loop.is_closed():
        return
    loop.call_soon_threadsafe(fn, *args)
