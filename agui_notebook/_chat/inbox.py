"""The inbox: every approval waiting in an agent's store, across threads and kernels, with cards.

``agent.inbox()`` is the list of :class:`InboxItem` read from the store (newest first). Shown in a
notebook it is one card per pending thread: each is a restored chat's card, so a click there
resumes that thread from this kernel, once (the store's claim makes it once across kernels too),
and a card another kernel is deciding, or has decided, says who and sends nothing. While the
notebook's loop runs it reads the store again every ``interval`` seconds (polling, stated so:
SQLite has no notifications): new approvals get a card, and cards say when another kernel
claims theirs. Its ``text/plain`` and ``text/html`` list each pending thread id and tool.
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._store.codec import InboxItem

if TYPE_CHECKING:
    from .chat import Chat

__all__ = ["DEFAULT_INTERVAL", "Inbox"]

#: Seconds between two reads of the store while an inbox is on screen.
DEFAULT_INTERVAL = 5.0


class Inbox(list[InboxItem]):
    """The pending approvals of an agent's store, as a list, and a view that decides them.

    >>> inbox = agent.inbox()           # doctest: +SKIP
    >>> inbox                            # a card per pending thread  # doctest: +SKIP
    >>> inbox.refresh()                  # read the store again now  # doctest: +SKIP
    """

    def __init__(
        self,
        read: Callable[[], list[InboxItem]],
        open_chat: Callable[[str], Chat],
        *,
        interval: float = DEFAULT_INTERVAL,
    ) -> None:
        if not interval > 0:
            raise ValueError("interval must be a positive number of seconds")
        super().__init__(read())
        self._read = read
        self._open_chat = open_chat
        self.interval = interval
        #: The chat of each thread shown, by thread id (made when the inbox is first shown).
        self.chats: dict[str, Chat] = {}
        self._widget: Any = None
        self._polling: asyncio.Task[None] | None = None

    def refresh(self) -> Inbox:
        """Read the store again; shown, new approvals get a card and the cards say who else is
        deciding theirs."""
        self[:] = self._read()
        if self._widget is not None:
            self._show_new()
            for chat in self.chats.values():
                chat.decider.show_claim_elsewhere_on_cards()
        return self

    def text(self) -> str:
        """One line per pending approval: thread id, tool, status (what a saved notebook shows)."""
        if not self:
            return "Inbox: no approval is waiting."
        noun = "approval" if len(self) == 1 else "approvals"
        lines = [f"Inbox: {len(self)} pending {noun}"]
        for item in self:
            what = item.interrupt.tool_name or item.interrupt.reason
            lines.append(f"- thread {item.thread_id}: {what} ({item.status})")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.text()

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        if self._widget is None:
            from .._view.widget import stack  # the widget library loads only when it is shown

            self._widget = stack([])
            self._show_new()
        self._start_polling()
        bundle = self._widget._repr_mimebundle_(**kwargs)  # ipywidgets: data, or (data, meta)
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle or {}, {})
        lines = "".join(f"<div>{html.escape(line)}</div>" for line in self.text().splitlines())
        return {
            **data,
            "text/plain": self.text(),
            "text/html": f'<div class="agui-inbox">{lines}</div>',
        }, metadata

    def _show_new(self) -> None:
        views = list(self._widget.children)
        for item in self:
            if item.thread_id in self.chats:
                continue
            chat = self._open_chat(item.thread_id)
            self.chats[item.thread_id] = chat
            if chat.view is not None:
                views.append(chat.view)
        self._widget.children = tuple(views)

    def _start_polling(self) -> None:
        if self._polling is not None and not self._polling.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a script): refresh() reads again when asked
            return
        self._polling = loop.create_task(self._poll())

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            self.refresh()

    def stop(self) -> None:
        """Stop reading the store again (a view left on screen keeps its cards)."""
        if self._polling is not None:
            self._polling.cancel()
