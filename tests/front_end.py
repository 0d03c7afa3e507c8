"""Tests that play the front end (they deliver clicks through ``ChatView._handle_custom_msg``)
run in plain pytest, where nothing could show a card: they say which front end they stand for,
through a host (the chat's seam to its notebook), never by patching the package.

    def test_x(as_front_end): as_front_end(JUPYTER)      # or MARIMO, IPYKERNEL_6, NOTHING
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from agui_notebook._notebook.host import CellRun, KernelSupport, set_default_host

JUPYTER = KernelSupport("jupyter", True, True, "ipykernel 7.4.0 (a test front end)", "7.4.0")
IPYKERNEL_6 = KernelSupport("jupyter", True, False, "ipykernel 6.29.5 (a test front end)", "6.29.5")
MARIMO = KernelSupport("marimo", True, False, "marimo 0.25.2 (a test front end)")
NOTHING = KernelSupport("none", False, False, "plain Python: no notebook front end")


class FakeHost:
    """A notebook that says what it can do, shows nothing, and keeps each display update."""

    def __init__(self, support: KernelSupport = NOTHING) -> None:
        self.supports = support
        #: (display id, the widget's text/plain then) for each update a kernel would send.
        self.updates: list[tuple[str, str]] = []
        #: The header of the message "being handled" (a click's): its username names the clicker.
        self.header: dict[str, Any] | None = None
        #: Whether the header's username is the server's stamp (a server running agui_notebook's
        #: extension), as the tests' clicks are unless a test says otherwise.
        self.attested = True
        #: Set to a list to play a running cell: after_this_cell() keeps each callback there
        #: (the test calls them to end the cell); None: no cell, after_this_cell() says False.
        self.cell_ends: list[Callable[[], None]] | None = None

    def support(self) -> KernelSupport:
        return self.supports

    def current_cell(self) -> CellRun | None:
        return None

    def show(self, widget: Any, *, display_id: str | None = None) -> bool:
        return False

    def update_shown(self, widget: Any, display_id: str) -> None:
        data, _ = widget._repr_mimebundle_()
        self.updates.append((display_id, data["text/plain"]))

    def after_this_cell(self, callback: Callable[[], None]) -> bool:
        if self.cell_ends is None:
            return False
        self.cell_ends.append(callback)
        return True

    def click_header(self) -> dict[str, Any] | None:
        return self.header

    def header_attested(self) -> bool:
        return self.attested


@pytest.fixture
def fake_host() -> Iterator[FakeHost]:
    """The default host of every chat made in the test (plain Python until told otherwise)."""
    host = FakeHost()
    previous = set_default_host(host)
    try:
        yield host
    finally:
        set_default_host(previous)


def front_end_fixture(default: KernelSupport | None) -> Callable[..., object]:
    """A fixture ``as_front_end(support)``; with ``default``, every test starts as that."""

    @pytest.fixture(autouse=default is not None)
    def as_front_end(fake_host: FakeHost) -> Callable[[KernelSupport], None]:
        def assume(support: KernelSupport) -> None:
            fake_host.supports = support

        if default is not None:
            assume(default)
        return assume

    return as_front_end
