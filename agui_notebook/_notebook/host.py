"""The notebook around a chat: what is running, and how a click reaches a waiting cell.

A chat reaches its notebook only through a :class:`Host`: can a click reach a running cell, which
cell is running, showing a view and updating its display, running code once the cell ends.
:class:`NotebookHost` reads all that from the running process; tests give a chat their own host
(``Chat(thread, host=...)``, or :func:`set_default_host`) instead of patching this module.

What is running is read from the running process, never from installed metadata: ``pip install``
inside a running ipykernel 6 kernel puts 7.4 on disk while the process still runs 6
(docs/front-ends.md). So: marimo's runtime if it is loaded and running a notebook; else an IPython shell
with a kernel (its loaded ``ipykernel`` module's ``__version__``; Colab if ``google.colab`` is
loaded); else nothing that can show a card.

Measured facts: ipykernel >= 7.4 dispatches widget messages while an async cell is suspended at an
``await``; older kernels and marimo handle a click only once the running cell has ended. JupyterLab
>= 4.4 may deliver messages on a subshell thread, where resolving a future directly does not wake
the loop, so every hand-off to the loop goes through ``call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

__all__ = [
    "DISPLAY_NAMES_ENV",
    "CellRun",
    "Host",
    "KernelSupport",
    "NotebookHost",
    "call_in_loop",
    "click_header",
    "current_cell_id",
    "default_host",
    "display_bundle",
    "display_names",
    "kernel_support",
    "parent_header",
    "set_default_host",
    "show",
]

FrontEndKind = Literal["jupyter", "colab", "marimo", "none"]

#: The first ipykernel that hands a click to a cell suspended at an ``await``.
WAITING_IPYKERNEL = (7, 4)


@dataclass(frozen=True)
class KernelSupport:
    """What is running this code, as far as a card is concerned."""

    #: ``jupyter`` (an ipykernel kernel: JupyterLab, Notebook 7, VS Code, nbclient...), ``colab``,
    #: ``marimo``, or ``none`` (plain Python, a terminal IPython: nothing can show a card).
    kind: FrontEndKind
    #: A card can be shown here, and a person's click can reach Python (at some point).
    in_kernel: bool
    #: The click reaches a cell that is awaiting it (ipykernel >= 7.4); else only after it ends.
    can_wait: bool
    #: Plain words for cards and errors, e.g. "ipykernel 6.29.5", "marimo 0.25.2 (edit)".
    detail: str
    #: The running kernel's ipykernel version (its loaded module's ``__version__``).
    ipykernel: str | None = None


def kernel_support(modules: Mapping[str, Any] | None = None) -> KernelSupport:
    """Decide from the loaded modules (``sys.modules`` unless given: tests pass fakes)."""
    loaded = sys.modules if modules is None else modules
    marimo = _marimo_notebook(loaded.get("marimo"))
    if marimo is not None:
        return KernelSupport("marimo", True, False, marimo)
    shell = _ipython_shell(loaded.get("IPython"))
    kernel = getattr(shell, "kernel", None)
    if kernel is None:
        where = (
            "a marimo script" if "marimo" in loaded
            else "plain Python" if shell is None
            else "IPython without a kernel"
        )  # fmt: skip
        return KernelSupport("none", False, False, f"{where}: no notebook front end")
    release = getattr(loaded.get("ipykernel"), "__version__", None)
    if not isinstance(release, str):
        release = getattr(kernel, "implementation_version", None)
    kind: FrontEndKind = "colab" if "google.colab" in loaded else "jupyter"
    where = "Colab, " if kind == "colab" else ""
    version = _version(release)
    if version is None:
        return KernelSupport(kind, True, False, f"{where}a kernel of unknown version", None)
    detail = f"{where}ipykernel {release}"
    return KernelSupport(kind, True, version >= WAITING_IPYKERNEL, detail, release)


def _marimo_notebook(marimo: Any) -> str | None:
    """Its words, "marimo 0.25.2 (edit)", when marimo is running a notebook (not a script)."""
    if marimo is None:
        return None
    try:
        if not marimo.running_in_notebook():
            return None
    except Exception:  # an unexpected marimo: not one we can rely on
        return None
    mode = None
    with contextlib.suppress(Exception):  # app_meta is newer than running_in_notebook
        mode = marimo.app_meta().mode
    version = getattr(marimo, "__version__", "?")
    return f"marimo {version}" + (f" ({mode})" if mode else "")


def _ipython_shell(ipython: Any) -> Any:
    """The running IPython shell (its ``kernel`` is set in a Jupyter kernel), or None."""
    if ipython is None:
        return None
    try:
        return ipython.get_ipython()
    except Exception:
        return None


def _version(release: Any) -> tuple[int, int] | None:
    match = re.match(r"(\d+)\.(\d+)", release) if isinstance(release, str) else None
    return (int(match[1]), int(match[2])) if match else None


# ----------------------------------------------------------------------------- the cell running


@dataclass(frozen=True)
class CellRun:
    """One execution of one cell; equal only to itself (a re-run is another)."""

    key: str
    #: What the key names (marimo's execution context), held so its id is not reused.
    holder: Any = field(default=None, compare=False, repr=False)


def current_cell_id() -> CellRun | None:
    """The cell execution running now: Jupyter's execute request, marimo's cell run; else None."""
    support = kernel_support()
    if support.kind == "marimo":
        return _marimo_cell_run()
    if not support.in_kernel:
        return None
    try:
        kernel = sys.modules["IPython"].get_ipython().kernel
        parent = kernel.get_parent("shell") if _takes_channel(kernel) else kernel.get_parent()
        msg_id = (parent or {}).get("header", {}).get("msg_id")
        return CellRun(f"jupyter:{msg_id}") if msg_id else None
    except Exception:
        return None


def _marimo_cell_run() -> CellRun | None:
    try:
        from marimo._runtime.context import get_context  # no public name for the cell's run

        run = get_context().execution_context
    except Exception:
        return None
    if run is None:
        return None
    return CellRun(f"marimo:{run.cell_id}:{id(run)}", holder=run)


def _takes_channel(kernel: Any) -> bool:
    import inspect

    try:
        return "channel" in inspect.signature(kernel.get_parent).parameters
    except (TypeError, ValueError):
        return False


# ----------------------------------------------------------------------- who sent the message

#: A JSON object of user names to display names (``{"ada": "Ada Lovelace"}``), for cards.
DISPLAY_NAMES_ENV = "AGUI_NOTEBOOK_DISPLAY_NAMES"


def parent_header() -> dict[str, Any] | None:
    """The header of the shell message the kernel is handling now (a comm message, while a
    click is handled); None outside an ipykernel kernel or when there is none."""
    if not kernel_support().in_kernel or kernel_support().kind == "marimo":
        return None
    try:
        kernel = sys.modules["IPython"].get_ipython().kernel
        parent = kernel.get_parent("shell") if _takes_channel(kernel) else kernel.get_parent()
        header = (parent or {}).get("header")
    except Exception:
        return None
    return dict(header) if isinstance(header, Mapping) and header else None


#: Set to STAMPED, by agui_notebook's server extension, for the kernels of a Jupyter server that
#: overwrites each browser message's ``header.username`` with the authenticated user.
SERVER_IDENTITY_ENV = "AGUI_NOTEBOOK_SERVER_IDENTITY"
STAMPED = "stamped"


def header_attested(host: Any) -> bool:
    """``host.header_attested()``, for hosts that have one (a host without it attests nothing)."""
    read = getattr(host, "header_attested", None)
    return bool(read()) if read is not None else False


def click_header(host: Any) -> dict[str, Any] | None:
    """``host.click_header()``, for hosts that have one (a host without it names nobody)."""
    read = getattr(host, "click_header", None)
    return read() if read is not None else None


def display_names() -> dict[str, str]:
    """The display names the kernel was given (``AGUI_NOTEBOOK_DISPLAY_NAMES``), else none."""
    import json
    import os

    raw = os.environ.get(DISPLAY_NAMES_ENV, "").strip()
    try:
        names = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    if not isinstance(names, dict):
        return {}
    return {str(k): v for k, v in names.items() if isinstance(v, str)}


# ------------------------------------------------------------------------------------ showing

_colab_widgets: list[bool] = []  # set once per process: whether Colab's manager is on


def show(
    widget: Any, support: KernelSupport | None = None, *, display_id: str | None = None
) -> bool:
    """Display ``widget`` in the running cell's output; False where nothing can show it.

    With a ``display_id`` a Jupyter output can be updated in place later (:func:`update_shown`).
    """
    support = support or kernel_support()
    if support.kind == "marimo":
        import marimo

        marimo.output.append(widget)
        return True
    if not support.in_kernel:
        return False
    if support.kind == "colab":
        enable_colab_widgets()
    from IPython.display import display

    if display_id is None:
        display(widget)  # type: ignore[no-untyped-call]
    else:
        display(widget, display_id=display_id)  # type: ignore[no-untyped-call]
    return True


def update_shown(widget: Any, display_id: str, support: KernelSupport | None = None) -> None:
    """Send ``widget``'s display again to the output :func:`show` gave ``display_id``.

    Front ends replace that output (wherever it is) with the new mime bundle; marimo redraws its
    outputs itself, and outside a kernel nothing was shown.
    """
    support = support or kernel_support()
    if support.kind == "marimo" or not support.in_kernel:
        return
    from IPython.display import update_display

    update_display(widget, display_id=display_id)  # type: ignore[no-untyped-call]


#: The ``_repr_*_`` methods read for a value's display data, by MIME type (IPython's names).
_REPR_METHODS = {
    "text/html": "_repr_html_",
    "text/markdown": "_repr_markdown_",
    "image/png": "_repr_png_",
    "image/jpeg": "_repr_jpeg_",
    "image/svg+xml": "_repr_svg_",
    "application/json": "_repr_json_",
}
_PNG = b"\x89PNG\r\n\x1a\n"


def display_bundle(value: Any) -> dict[str, Any]:
    """``value``'s display data (``{mime type: data}``) as IPython would show it, computed
    without showing anything (safe in any thread): its ``_repr_mimebundle_`` and ``_repr_*_``
    methods, the running shell's formatters registered for its type (a figure's PNG under
    matplotlib's inline backend), a figure's ``savefig`` PNG otherwise, and its text form.
    An exception from the value's own methods propagates: the caller says what failed."""
    if isinstance(value, str):
        return {"text/plain": value}
    if isinstance(value, bytes | bytearray):
        raw = bytes(value)
        return {"image/png": raw} if raw.startswith(_PNG) else {"text/plain": repr(raw[:200])}
    data: dict[str, Any] = {}
    bundle = _own_method(value, "_repr_mimebundle_")
    if bundle is not None:
        found = bundle()
        if isinstance(found, tuple):
            found = found[0]
        if isinstance(found, dict):
            data.update({k: v for k, v in found.items() if isinstance(k, str) and v is not None})
    for mime, name in _REPR_METHODS.items():
        method = _own_method(value, name)
        if mime in data or method is None:
            continue
        found = method()
        if isinstance(found, tuple):
            found = found[0]
        if found is not None:
            data[mime] = found
    shell = _ipython_shell(sys.modules.get("IPython"))
    formatters = getattr(getattr(shell, "display_formatter", None), "formatters", None) or {}
    for mime in ("image/png", "image/jpeg"):
        formatter = formatters.get(mime)
        if mime in data or formatter is None:
            continue
        try:
            printer = formatter.lookup(value)
        except KeyError:
            continue
        found = printer(value)
        if found is not None:
            data[mime] = found
    savefig = getattr(value, "savefig", None)
    if "image/png" not in data and callable(savefig):
        import io

        buffer = io.BytesIO()
        savefig(buffer, format="png", bbox_inches="tight")
        data["image/png"] = buffer.getvalue()
    if "text/plain" not in data:
        from IPython.lib.pretty import pretty

        data["text/plain"] = pretty(value)  # type: ignore[no-untyped-call]
    return data


def _own_method(value: Any, name: str) -> Any:
    """A display method of ``value`` (not of its class object, and not an anything-goes
    ``__getattr__``'s invention, as IPython checks)."""
    if inspect.isclass(value):
        return None
    try:
        method = getattr(value, name, None)
        if getattr(value, "_ipython_canary_method_should_not_exist_", None) is not None:
            return None  # answers any attribute: not a display method
    except Exception:
        return None
    return method if callable(method) else None


def enable_colab_widgets() -> bool:
    """Turn on Colab's custom widget manager (anywidgets render only with it), once."""
    if not _colab_widgets:
        try:
            from google.colab import output

            output.enable_custom_widget_manager()
            _colab_widgets.append(True)
        except Exception:  # not Colab after all, or an API that moved: the card says nothing
            _colab_widgets.append(False)
    return _colab_widgets[0]


def call_in_loop(loop: asyncio.AbstractEventLoop, fn: Callable[..., Any], *args: Any) -> None:
    """Run ``fn(*args)`` on ``loop``'s thread, from any thread (the comm handler's included)."""
    if loop.is_closed():
        return
    loop.call_soon_threadsafe(fn, *args)


# ------------------------------------------------------------------------------ the host seam


class Host(Protocol):
    """What a chat needs from the notebook it runs in."""

    def support(self) -> KernelSupport:
        """What the front end can do now (read at each call: a kernel can change under us)."""
        ...

    def current_cell(self) -> CellRun | None: ...

    def show(self, widget: Any, *, display_id: str | None = None) -> bool:
        """Display ``widget`` in the running cell; False where nothing can show it."""
        ...

    def update_shown(self, widget: Any, display_id: str) -> None: ...

    def after_this_cell(self, callback: Callable[[], None]) -> bool:
        """Call ``callback`` once when the running cell ends; False where there is no such cell."""
        ...

    # Optional: ``click_header() -> dict | None``, the header of the message being handled now
    # (read while a click is handled: its ``username`` names the clicker). See click_header().
    # Optional: ``header_attested() -> bool``, whether the server stamped that username (else it
    # is only the page's claim). See header_attested().


class NotebookHost:
    """The notebook this process runs in, read from the process at each call."""

    def support(self) -> KernelSupport:
        return kernel_support()

    def current_cell(self) -> CellRun | None:
        return current_cell_id()

    def show(self, widget: Any, *, display_id: str | None = None) -> bool:
        return show(widget, display_id=display_id)

    def update_shown(self, widget: Any, display_id: str) -> None:
        update_shown(widget, display_id)

    def click_header(self) -> dict[str, Any] | None:
        return parent_header()

    def header_attested(self) -> bool:
        import os

        return os.environ.get(SERVER_IDENTITY_ENV) == STAMPED

    def after_this_cell(self, callback: Callable[[], None]) -> bool:
        if kernel_support().kind == "marimo":
            return False
        shell = _ipython_shell(sys.modules.get("IPython"))
        if shell is None or not hasattr(shell, "kernel"):
            return False

        def once(*_: Any) -> None:
            shell.events.unregister("post_run_cell", once)
            callback()

        shell.events.register("post_run_cell", once)
        return True


_default: list[Host] = [NotebookHost()]


def default_host() -> Host:
    """The host a chat made without ``host=`` uses."""
    return _default[0]


def set_default_host(host: Host) -> Host:
    """Make ``host`` the default for chats made from now on; returns the one it replaces."""
    previous, _default[0] = _default[0], host
    return previous
