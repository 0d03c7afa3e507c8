"""Drive a Chat's view the way the front end does: custom messages into ``_handle_custom_msg``.

No kernel: the views exist as objects; acks the view sends back are captured per view.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any

from agui_notebook._chat.chat import Chat
from agui_notebook._view.widget import ChatView

_request_ids = itertools.count(1)


class Driver:
    def __init__(self, chat: Chat) -> None:
        self.chat = chat
        self.acks: list[dict[str, Any]] = []
        self._patched: set[int] = set()

    async def view(self, timeout: float = 5.0) -> ChatView:
        deadline = time.monotonic() + timeout
        while self.chat.view is None:
            if time.monotonic() > deadline:
                raise AssertionError("the chat never made a view")
            await asyncio.sleep(0.005)
        view = self.chat.view
        if id(view) not in self._patched:
            self._patched.add(id(view))

            def send(content: Any, buffers: Any = None) -> None:
                self.acks.append(content)

            view.send = send  # capture the acks instead of writing to a (dummy) comm
        return view

    def cards(self) -> list[dict[str, Any]]:
        view = self.chat.view
        return [i for i in (view.items if view else []) if i.get("kind") == "card"]

    def card(self, card_id: str) -> dict[str, Any]:
        return next(c for c in self.cards() if c["id"] == card_id)

    async def waiting_card(
        self, status: str = "pending", timeout: float = 5.0, *, error_title: str | None = None
    ) -> dict[str, Any]:
        """The newest card once it has ``status`` (and that error title) and the chat waits
        for a click on it."""
        view = await self.view()
        deadline = time.monotonic() + timeout
        while True:
            cards = self.cards()
            if (
                cards
                and cards[-1]["status"] == status
                and view.status == "waiting"
                and (error_title is None or (cards[-1]["error"] or {}).get("title") == error_title)
            ):
                return cards[-1]
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"no card waiting with status {status!r}: view {view.status!r}, "
                    f"cards {[(c['id'], c['status']) for c in cards]}"
                )
            await asyncio.sleep(0.005)

    async def card_status(self, card_id: str, status: str, timeout: float = 5.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            card = self.card(card_id)
            if card["status"] == status:
                return card
            if time.monotonic() > deadline:
                raise AssertionError(f"card {card_id} is {card['status']!r}, not {status!r}")
            await asyncio.sleep(0.005)

    def decide(
        self,
        card: dict[str, Any],
        action: str = "approve",
        *,
        view: ChatView | None = None,
        request_id: str | None = None,
        **fields: Any,
    ) -> str:
        """Send a decide message for every interrupt of ``card``; returns its requestId."""
        request_id = request_id or f"req-{next(_request_ids)}"
        message = {
            "type": "decide",
            "requestId": request_id,
            "card": card["id"],
            "decisions": {i["id"]: {"action": action, **fields} for i in card["interrupts"]},
        }
        target = view or self.chat.view
        assert target is not None
        target._handle_custom_msg(target, message, [])
        return request_id

    def retry(self, card: dict[str, Any], *, request_id: str | None = None) -> str:
        request_id = request_id or f"req-{next(_request_ids)}"
        view = self.chat.view
        assert view is not None
        view._handle_custom_msg(
            view, {"type": "retry", "requestId": request_id, "card": card["id"]}, []
        )
        return request_id

    async def ack(self, request_id: str, timeout: float = 5.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            for ack in self.acks:
                if ack.get("type") == "ack" and ack.get("requestId") == request_id:
                    return ack
            if time.monotonic() > deadline:
                raise AssertionError(f"no ack for {request_id}; acks: {self.acks}")
            await asyncio.sleep(0.005)
