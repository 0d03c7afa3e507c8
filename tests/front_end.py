"""Tests that play the front end (they deliver clicks through ``ChatView._handle_custom_msg``)
run in plain pytest, where nothing could show a card: they say which front end they stand for.

    def test_x(as_front_end): as_front_end(JUPYTER)      # or MARIMO, IPYKERNEL_6, NOTHING
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agui_notebook._chat import chat as _chat
from agui_notebook._notebook.host import KernelSupport

JUPYTER = KernelSupport("jupyter", True, True, "ipykernel 7.4.0 (a test front end)", "7.4.0")
IPYKERNEL_6 = KernelSupport("jupyter", True, False, "ipykernel 6.29.5 (a test front end)", "6.29.5")
MARIMO = KernelSupport("marimo", True, False, "marimo 0.25.2 (a test front end)")
NOTHING = KernelSupport("none", False, False, "plain Python: no notebook front end")


def front_end_fixture(default: KernelSupport | None) -> Callable[..., object]:
    """A fixture ``as_front_end(support)``; with ``default``, every test starts as that."""

    @pytest.fixture(autouse=default is not None)
    def as_front_end(monkeypatch: pytest.MonkeyPatch) -> Callable[[KernelSupport], None]:
        def assume(support: KernelSupport) -> None:
            monkeypatch.setattr(_chat, "kernel_support", lambda: support)

        if default is not None:
            assume(default)
        return assume

    return as_front_end
