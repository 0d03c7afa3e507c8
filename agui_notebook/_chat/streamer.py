"""Streaming a run into a chat's view, its pushes coalesced to at most 30 a second.

One of the collaborators a :class:`~agui_notebook._chat.chat.Chat` is composed of; it keeps no
state of its own beyond what each view holds (its pending state, whether a flush is due).
"""

from __future__ import annotations

import asyncio
from typing import Any

from .._errors import AGUIError, ResumeRefused
from .._protocol.events import type_of
from .._state.items import ItemList
from .._thread import RunResult, RunStream
from .._view.widget import ChatView
from .texts import error_title

__all__ = ["Streamer"]


class Streamer:
    """A chat's runs, streamed into its views."""

    async def stream(self, view: ChatView, run: RunStream) -> RunResult:
        items: ItemList = view.item_list
        view.status = "sending" if run.resume else "running"
        try:
            async with run:
                async for event in run:
                    etype = type_of(event)
                    items.apply(etype, event)
                    if items.dirty or etype.startswith("STATE"):
                        self.push(view, run.reducer.state if run.reducer else None)
        except AGUIError as exc:
            if not isinstance(exc, ResumeRefused):
                items.add_error(error_title(exc), str(exc), exc.hint)
                view.status = "error"
            self.push(view, view.state, force=True)
            raise
        except asyncio.CancelledError:
            items.add_notice("The run was aborted.")
            view.status = "idle"
            self.push(view, view.state, force=True)
            raise
        self.push(view, run.result.state, force=True)
        return run.result

    def push(self, view: ChatView, state: Any, *, force: bool = False) -> None:
        """Send the view's items, coalesced to at most 30 pushes a second."""
        items: ItemList = view.item_list
        view.pending_state = state
        if not (force or items.dirty):
            return
        if force or view.due():
            view.push(items.snapshot(), state)
            return
        # Too soon: a trailing push makes sure the last update shows even if the stream pauses.
        if view.flush_scheduled:
            return
        try:
            loop = asyncio.get_running_loop()  # pushes come from the loop's thread, or none
        except RuntimeError:
            return
        view.flush_scheduled = True
        loop.call_later(1.0 / view.max_updates_per_second, self._flush, view)

    def _flush(self, view: ChatView) -> None:
        view.flush_scheduled = False
        if view.item_list.dirty:
            self.push(view, view.pending_state)  # pushes now, or schedules once more
