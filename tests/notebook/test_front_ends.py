"""What is running, decided from the loaded modules (fakes here; real kernels and marimo in
tests/kernel and tests/browser), and showing a view there."""

from __future__ import annotations

import importlib.metadata
import sys
import types
from typing import Any

import pytest

from agui_notebook._notebook import host as _waiting
from agui_notebook._notebook.host import KernelSupport, enable_colab_widgets, kernel_support, show


def module(name: str, **attrs: Any) -> types.ModuleType:
    mod = types.ModuleType(name)
    for key, value in attrs.items():
        setattr(mod, key, value)
    return mod


def ipython(kernel: Any) -> types.ModuleType:
    """A fake IPython whose shell has ``kernel`` (None: a terminal IPython)."""
    shell = types.SimpleNamespace(kernel=kernel) if kernel is not None else object()
    return module("IPython", get_ipython=lambda: shell)


def in_kernel(version: str, **more: Any) -> dict[str, Any]:
    return {
        "IPython": ipython(object()),
        "ipykernel": module("ipykernel", __version__=version),
        **more,
    }


def marimo(running: Any, mode: str = "edit", version: str = "0.25.2") -> types.ModuleType:
    def running_in_notebook() -> bool:
        if isinstance(running, Exception):
            raise running
        return bool(running)

    return module(
        "marimo",
        __version__=version,
        running_in_notebook=running_in_notebook,
        app_meta=lambda: types.SimpleNamespace(mode=mode),
    )


def test_plain_python_and_terminal_ipython_can_show_nothing() -> None:
    assert kernel_support({}) == KernelSupport(
        "none", False, False, "plain Python: no notebook front end"
    )
    terminal = kernel_support({"IPython": ipython(None)})
    assert (terminal.kind, terminal.in_kernel) == ("none", False)
    assert terminal.detail == "IPython without a kernel: no notebook front end"
    no_shell = kernel_support({"IPython": module("IPython", get_ipython=lambda: None)})
    assert no_shell.kind == "none"


@pytest.mark.parametrize(
    ("version", "can_wait"),
    [("7.4.0", True), ("7.4.0rc1", True), ("7.10.1", True), ("8.0", True), ("7.3.0", False),
     ("6.29.5", False), ("6.17.1", False)],
)  # fmt: skip
def test_a_jupyter_kernel_waits_from_ipykernel_7_4(version: str, can_wait: bool) -> None:
    support = kernel_support(in_kernel(version))
    assert support == KernelSupport("jupyter", True, can_wait, f"ipykernel {version}", version)


def test_the_running_module_decides_not_the_installed_metadata(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `pip install` in a running 6.x kernel puts 7.4 on disk; the process still runs 6.29.5.
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "7.4.0")
    support = kernel_support(in_kernel("6.29.5"))
    assert support.can_wait is False and support.ipykernel == "6.29.5"


def test_a_kernel_of_unknown_version_does_not_wait() -> None:
    support = kernel_support({"IPython": ipython(object())})
    assert (support.kind, support.in_kernel, support.can_wait) == ("jupyter", True, False)
    assert support.detail == "a kernel of unknown version"
    # A kernel object that says its version (ipykernel's implementation_version) is enough.
    kernel = types.SimpleNamespace(implementation_version="7.4.1")
    support = kernel_support({"IPython": ipython(kernel)})
    assert support.can_wait is True and support.ipykernel == "7.4.1"


def test_colab_is_a_kernel_with_its_own_name() -> None:
    support = kernel_support(in_kernel("6.17.1", **{"google.colab": module("google.colab")}))
    assert support == KernelSupport("colab", True, False, "Colab, ipykernel 6.17.1", "6.17.1")


def test_marimo_running_a_notebook_never_waits_in_the_cell() -> None:
    support = kernel_support({"marimo": marimo(True, mode="run"), **in_kernel("7.4.0")})
    assert support == KernelSupport("marimo", True, False, "marimo 0.25.2 (run)")


def test_marimo_loaded_but_not_running_a_notebook_is_not_marimo() -> None:
    # A script (`python notebook.py`) imports marimo; nothing can show a card there.
    assert kernel_support({"marimo": marimo(False)}).kind == "none"
    # marimo imported inside a Jupyter kernel: the kernel decides.
    assert kernel_support({"marimo": marimo(False), **in_kernel("7.4.0")}).kind == "jupyter"
    # A marimo whose API broke is not trusted.
    assert kernel_support({"marimo": marimo(RuntimeError("moved"))}).kind == "none"


def test_the_process_itself_is_plain_python_under_pytest() -> None:
    # What the chat tests replace with fakes: pytest runs no notebook front end.
    assert kernel_support().kind == "none"


# ------------------------------------------------------------------------------ showing a view


@pytest.fixture
def fresh_colab(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Fake google.colab.output (and IPython.display) modules; returns the calls made."""
    calls: list[str] = []
    output = module(
        "google.colab.output",
        enable_custom_widget_manager=lambda: calls.append("enable_custom_widget_manager"),
    )
    colab = module("google.colab", output=output)
    monkeypatch.setitem(sys.modules, "google", module("google", colab=colab))
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    monkeypatch.setitem(sys.modules, "google.colab.output", output)
    display = module("IPython.display", display=lambda obj: calls.append(f"display {obj}"))
    monkeypatch.setitem(sys.modules, "IPython", module("IPython", display=display))
    monkeypatch.setitem(sys.modules, "IPython.display", display)
    monkeypatch.setattr(_waiting, "_colab_widgets", [])
    return calls


def test_in_colab_the_custom_widget_manager_is_enabled_once_before_display(
    fresh_colab: list[str],
) -> None:
    colab = KernelSupport("colab", True, False, "Colab, ipykernel 6.17.1", "6.17.1")
    assert show("view-1", colab) is True
    assert show("view-2", colab) is True
    assert fresh_colab == ["enable_custom_widget_manager", "display view-1", "display view-2"]


def test_jupyter_displays_without_touching_colab(fresh_colab: list[str]) -> None:
    jupyter = KernelSupport("jupyter", True, True, "ipykernel 7.4.0", "7.4.0")
    assert show("view", jupyter) is True
    assert fresh_colab == ["display view"]


def test_a_colab_that_moved_its_api_still_displays(
    fresh_colab: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken() -> None:
        raise AttributeError("enable_custom_widget_manager is gone")

    monkeypatch.setattr(sys.modules["google.colab.output"], "enable_custom_widget_manager", broken)
    assert enable_colab_widgets() is False
    assert show("view", KernelSupport("colab", True, False, "Colab", None)) is True
    assert fresh_colab == ["display view"]


def test_marimo_shows_through_its_own_output(monkeypatch: pytest.MonkeyPatch) -> None:
    appended: list[Any] = []
    fake = module("marimo", output=types.SimpleNamespace(append=appended.append))
    monkeypatch.setitem(sys.modules, "marimo", fake)
    assert show("view", KernelSupport("marimo", True, False, "marimo 0.25.2 (edit)")) is True
    assert appended == ["view"]


def test_nothing_to_show_on() -> None:
    assert show("view", KernelSupport("none", False, False, "plain Python")) is False
