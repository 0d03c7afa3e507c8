"""A chat's cards: the card on the view, its state, and the audit records of its decisions.

A card is one question to a person (the interrupts a run ended on). Its state on the view and
the chat's audit change together here, so what the card shows and what ``chat.audit`` keeps
never disagree. Who decides a card, and sending the decision, is ``_chat_deciding``'s.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal

from .._decisions.audit import chat_record, decision_entries
from .._decisions.decision import Decision
from .._decisions.interrupts import PendingInterrupt
from .._state.items import ItemList, card_interrupt
from .._thread import Thread
from .._view.widget import ChatView
from .result import _decision_json
from .streamer import Streaming
from .surfaces import SurfaceActions

__all__ = ["Cards", "TimeoutDefault"]

TimeoutDefault = Literal["cancel", "reject"]


@dataclass
class _Card:
    id: str
    view: ChatView
    items: ItemList
    interrupts: list[PendingInterrupt]
    status: str = "pending"
    decisions: dict[str, Decision] | None = None
    decided_by: str | None = None
    waiter: asyncio.Future[Any] | None = None
    accepting: Literal["decide", "retry", None] = None


class Cards(Streaming):
    """The cards of a chat and its audit (mixed into Chat, which owns the state below)."""

    thread: Thread
    timeout: float
    on_timeout: TimeoutDefault
    audit: list[dict[str, Any]]
    surfaces: SurfaceActions
    _cards: dict[str, _Card]
    _card_count: int

    def _new_card(self, view: ChatView, interrupts: list[PendingInterrupt]) -> _Card:
        self._card_count += 1
        card = _Card(
            id=f"card-{self._card_count}", view=view, items=view.item_list, interrupts=interrupts
        )
        self._cards[card.id] = card
        for interrupt in interrupts:
            card.items.mark_tool(interrupt.tool_call_id, "awaiting")
        card.items.put(
            {
                "kind": "card",
                "id": card.id,
                "status": "pending",
                "interrupts": [card_interrupt(i, None) for i in interrupts],
                "decisions": None,
                "decidedBy": None,
                "error": None,
                "note": None,
                "timeoutAt": None,
                "timeoutDefault": self.on_timeout,
            }
        )
        self._push(view, view.state, force=True)
        return card

    def _card_state(
        self, card: _Card, *, status: str, error: tuple[str, str] | Literal[False] | None = False
    ) -> None:
        card.status = status
        changes: dict[str, Any] = {"status": status}
        if error is not False:
            changes["error"] = None if error is None else {"title": error[0], "message": error[1]}
        if status == "pending" and card.accepting is not None:
            timeout_at = datetime.now(timezone.utc).timestamp() + self.timeout
            changes["timeoutAt"] = datetime.fromtimestamp(timeout_at, timezone.utc).isoformat()
        if card.decisions is not None:
            changes["decisions"] = {k: _decision_json(v) for k, v in card.decisions.items()}
            changes["decidedBy"] = card.decided_by
        card.items.update(card.id, **changes)
        self._push(card.view, card.view.state, force=True)

    def _record_decisions(
        self, card: _Card, decisions: dict[str, Decision], decided_by: str
    ) -> None:
        card.decisions = decisions
        card.decided_by = decided_by
        entries = decision_entries(
            card.interrupts,
            decisions,
            agent_url="",  # the view's records name no agent; the store's do
            thread_id=self.thread.id,
            run_id=None,
            time=datetime.now(timezone.utc),
            decided_by=decided_by,
            outcome=None,
        )
        by_interrupt = {e.interrupt_id: e for e in entries}
        for interrupt in card.interrupts:
            entry = by_interrupt[interrupt.id]  # the card's decisions cover all its interrupts
            # The store's record shape, seen the way chat.audit has always shown it.
            record = chat_record(
                entry,
                card=card.id,
                arguments=interrupt.arguments,
                payload=decisions[interrupt.id].payload,
            )
            if decided_by == "you":
                record["decidedBy"] = "you"
            # A retried or re-decided card replaces its earlier records.
            self.audit = [
                r
                for r in self.audit
                if r.get("late") or not (r["card"] == card.id and r["interrupt"] == interrupt.id)
            ]
            self.audit.append(record)
        self._sync_audit(card.view)
        self._card_state(card, status="sending")

    def _set_outcome(self, card: _Card, outcome: str) -> None:
        for record in self.audit:
            if record["card"] == card.id and not record.get("late"):
                record["outcome"] = outcome
        self._sync_audit(card.view)

    def _sync_audit(self, view: ChatView) -> None:
        view.audit = [dict(r) for r in self.audit if self._view_of(r) is view]

    def _view_of(self, record: dict[str, Any]) -> ChatView | None:
        # A record restored from the store (card None) belongs to no view of this session.
        card = self._cards.get(record["card"])
        return card.view if card is not None else self.surfaces.audit_views.get(record["card"])

    def _keep_attempt(
        self,
        card: _Card,
        decisions: dict[str, Decision],
        decided_by: str,
        run_id: str | None,
        outcome: str,
    ) -> None:
        """A resume that did not commit still was a decision: the store's audit log keeps it."""
        journal = self.thread.journal
        record_attempt = getattr(journal, "record_attempt", None)
        if record_attempt is not None:
            record_attempt(
                card.interrupts,
                decisions,
                thread_id=self.thread.id,
                run_id=run_id,
                time=datetime.now(timezone.utc),
                decided_by=decided_by,
                outcome=outcome,
            )

    def _mark_tools(self, card: _Card, decisions: dict[str, Decision]) -> None:
        for interrupt in card.interrupts:
            kind = decisions[interrupt.id].kind
            item = (
                card.items.get(f"tool:{interrupt.tool_call_id}") if interrupt.tool_call_id else None
            )
            status = {"reject": "rejected", "cancel": "cancelled"}.get(kind)
            if item is not None and status is not None:
                # Some servers answer a denial with a result (pydantic-ai: "denied"): the
                # decision still names what happened to the call.
                card.items.mark_tool(interrupt.tool_call_id, status)
        self._push(card.view, card.view.state, force=True)


def _subjects(card: _Card) -> str:
    return ", ".join(i.tool_name or i.reason or "interrupt" for i in card.interrupts)
