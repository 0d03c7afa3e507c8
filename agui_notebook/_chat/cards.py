"""A chat's card deck: the cards on its views, their state, and the audit of their decisions.

A card is one question to a person (the interrupts a run ended on). Its state on the view and
the chat's audit change together here, so what the card shows and what ``chat.audit`` keeps
never disagree. Who decides a card, and sending the decision, is the decider's
(``decider.py``); the deck only records.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal

from .._decisions.audit import argument_changes, chat_record, current_user, decision_entries
from .._decisions.decided_by import DecidedBy, shown_name
from .._decisions.decision import Decision, prepare_validators
from .._decisions.identity import Person
from .._decisions.interrupts import PendingInterrupt
from .._decisions.quorum import Count, count_text, missing_text
from .._state.items import ItemList, card_interrupt
from .._thread import Thread
from .._view.widget import ChatView, FrontDecision
from .informed import Informed
from .rules import ChatRules
from .streamer import Streamer

__all__ = ["Card", "CardDeck", "Decided", "subjects"]

#: A card's decisions (by interrupt id) and who took them.
Decided = tuple[dict[str, Decision], DecidedBy]


@dataclass
class Card:
    id: str
    view: ChatView
    items: ItemList
    interrupts: list[PendingInterrupt]
    status: str = "pending"
    decisions: dict[str, Decision] | None = None
    #: Who decided it (a person's click carries the person, as the host read them).
    decided_by: DecidedBy | None = None
    #: Approvals gathered so far when several approvers are needed (``approvals=N``).
    count: Count | None = None
    #: Resolved by the decider's front-message handler when a click decides (or retries) it.
    waiter: asyncio.Future[Decided] | None = None
    accepting: Literal["decide", "retry", None] = None


class CardDeck:
    """The cards of one chat and its audit records."""

    def __init__(self, thread: Thread, rules: ChatRules, streamer: Streamer) -> None:
        self.thread = thread
        self.rules = rules
        self.streamer = streamer
        self.cards: dict[str, Card] = {}
        self._count = 0
        #: Every decision taken in this chat, as plain records (``chat.audit``).
        self.audit: list[dict[str, Any]] = []
        #: Records that belong to no card (surface actions): their audit key -> their view.
        self.audit_views: dict[str, ChatView] = {}
        #: Previews, checks and verdicts on the cards (the chat gives it its functions).
        self.informed = Informed(self)

    def asking(self) -> Card | None:
        """A card waiting for a person's click (or Retry), if any."""
        return next((c for c in self.cards.values() if c.accepting is not None), None)

    def new_card(self, view: ChatView, interrupts: list[PendingInterrupt]) -> Card:
        self._count += 1
        card = Card(
            id=f"card-{self._count}", view=view, items=view.item_list, interrupts=interrupts
        )
        self.cards[card.id] = card
        for interrupt in interrupts:
            card.items.mark_tool(interrupt.tool_call_id, "awaiting")
        card.items.put(
            {
                "kind": "card",
                "id": card.id,
                "status": "pending",
                "interrupts": [
                    {**card_interrupt(i, None), **self.informed.section(i)} for i in interrupts
                ],
                "decisions": None,
                "decidedBy": None,
                "approvals": None,
                "verdict": None,
                "error": None,
                "note": None,
                "timeoutAt": None,
                "timeoutDefault": self.rules.on_timeout,
            }
        )
        self.streamer.push(view, view.state, force=True)
        self.informed.start(card)  # previews and checks, drawn on the card as they come
        if any(i.response_schema for i in interrupts):
            # While the person reads the card, not after the click: the first validator costs
            # about a second (see prepare_validators).
            threading.Thread(
                target=_prepare_quietly, args=(interrupts,), name="agui-validators", daemon=True
            ).start()
        return card

    def state(
        self, card: Card, *, status: str, error: tuple[str, str] | Literal[False] | None = False
    ) -> None:
        """Set the card's status (and error: False leaves it) and show it now."""
        card.status = status
        changes: dict[str, Any] = {"status": status}
        if error is not False:
            changes["error"] = None if error is None else {"title": error[0], "message": error[1]}
        if status == "pending" and card.accepting is not None:
            timeout_at = datetime.now(timezone.utc).timestamp() + self.rules.timeout
            changes["timeoutAt"] = datetime.fromtimestamp(timeout_at, timezone.utc).isoformat()
        if card.decisions is not None:
            changes["decisions"] = {k: _decision_json(v) for k, v in card.decisions.items()}
            changes["decidedBy"] = self.shown_decider(card)
        changes["approvals"] = self._approvals(card)
        changes["verdict"] = self._verdict(card)
        card.items.update(card.id, **changes)
        self.streamer.push(card.view, card.view.state, force=True)

    def shown_decider(self, card: Card) -> str | None:
        """Who the card says decided: the approvers' names (display names where known)."""
        by = card.decided_by
        if by is None:
            return None
        if by.person is not None and card.count is not None and card.count.done:
            return ", ".join(shown_name(p) for p in card.count.approvers)
        return by.shown

    def _verdict(self, card: Card) -> str | None:
        """The card's one line on the person who decided, "Approved by Ada Lovelace" (None:
        undecided, or decided by a policy, a rule or a timeout: those keep "done (decided by
        policy: ...)", the words saved notebooks already hold)."""
        if card.decisions is None or card.status not in ("done", "failed", "sending"):
            return None
        if card.decided_by is None or not card.decided_by.is_person:
            return None
        kinds = {d.kind for d in card.decisions.values()}
        verb = _VERDICT.get(next(iter(kinds)), "Decided") if len(kinds) == 1 else "Decided"
        who = self.shown_decider(card)
        return f"{verb} by {who}" if who else verb

    def _approvals(self, card: Card) -> dict[str, Any] | None:
        """The count the card shows while several approvers are needed (its words, from here)."""
        current = card.count
        if current is None or current.needed == 1:
            return None
        return {
            "count": len(current.approvers),
            "needed": current.needed,
            "names": [p.shown for p in current.approvers],
            "text": count_text(current),
            "missing": missing_text(current),
            "edited": any(d.kind == "edit" for d in current.decisions.values()),
        }

    def record_approval(self, card: Card, decided_by: DecidedBy) -> None:
        """One approval of several (a person's click, or a policy's or rule's decision counted
        as one): an audit entry now; the card shows the count."""
        assert card.count is not None
        decisions = dict(card.count.decisions)
        outcome = f"not sent yet: {count_text(card.count)}"
        records = self._records(card, decisions, decided_by, outcome)
        for record in records:
            record["approval"] = True
        self.audit.extend(records)
        self._store_attempt(card, decisions, decided_by, None, outcome)
        self._note_head(records)
        self.sync_audit(card.view)
        self.state(card, status="pending")

    def record_decisions(
        self,
        card: Card,
        decisions: dict[str, Decision],
        decided_by: DecidedBy,
        *,
        error: Literal[False] | None = False,
    ) -> None:
        """The card is decided: its audit records now, and the card shows "sending" (``error``
        None also clears the error it showed; a click's does)."""
        card.decisions = decisions
        card.decided_by = decided_by
        for record in self._records(card, decisions, decided_by, None):
            if decided_by.is_person:
                record["decidedBy"] = decided_by.shown
            # A retried or re-decided card replaces its earlier records (not its approvals).
            self.audit = [
                r
                for r in self.audit
                if r.get("late")
                or r.get("approval")
                or not (r["card"] == card.id and r["interrupt"] == record["interrupt"])
            ]
            self.audit.append(record)
        self.sync_audit(card.view)
        self.state(card, status="sending", error=error)

    def _records(
        self,
        card: Card,
        decisions: dict[str, Decision],
        decided_by: DecidedBy,
        outcome: str | None,
    ) -> list[dict[str, Any]]:
        """``decisions`` as audit records, one per interrupt in the card's order: the store's
        record shape, seen the way ``chat.audit`` has always shown it."""
        entries = decision_entries(
            card.interrupts,
            decisions,
            agent_url="",  # the view's records name no agent; the store's do
            thread_id=self.thread.id,
            run_id=None,
            time=datetime.now(timezone.utc),
            decided_by=decided_by.text,
            outcome=outcome,
            person=decided_by.person,
        )
        arguments = {i.id: i.arguments for i in card.interrupts}
        return [
            chat_record(
                entry,
                card=card.id,
                arguments=arguments[entry.interrupt_id],
                payload=decisions[entry.interrupt_id].payload,
            )
            for entry in entries
        ]

    def record_late_click(
        self,
        card: Card,
        clicked: dict[str, FrontDecision],
        person: Person,
        decider: str | None,
    ) -> None:
        """A click that came after ``decider`` had decided the card: kept, sent nowhere."""
        now = datetime.now(timezone.utc).isoformat()
        late_by = DecidedBy.you(person).shown
        for interrupt in card.interrupts:
            front = clicked.get(interrupt.id)
            if front is None:
                continue
            self.audit.append(
                {
                    "card": card.id,
                    "interrupt": interrupt.id,
                    "tool": interrupt.tool_name,
                    "reason": interrupt.reason,
                    "arguments": interrupt.arguments,
                    "decision": front.action,
                    "editedArguments": front.args,
                    "changes": argument_changes(interrupt.arguments, front.args),
                    "rejectReason": front.reason,
                    "payload": front.payload,
                    "decidedBy": late_by,
                    "decidedAt": now,
                    "outcome": f"late, not sent: {decider or card.status} had decided",
                    "late": True,
                    "decided_by": person.username,
                    "kernel_user": current_user(),
                    "identity": person.identity,
                    "identity_note": person.note,
                }
            )
        self.sync_audit(card.view)

    def finish(self, card: Card, outcome: str) -> None:
        """The card's resume ran to ``outcome``: the audit says so, the card is done, and its
        tools say what the decision did to them, in one push."""
        self.set_outcome(card, outcome)
        assert card.decisions is not None
        for interrupt in card.interrupts:
            kind = card.decisions[interrupt.id].kind
            item = (
                card.items.get(f"tool:{interrupt.tool_call_id}") if interrupt.tool_call_id else None
            )
            status = {"reject": "rejected", "cancel": "cancelled"}.get(kind)
            if item is not None and status is not None:
                # Some servers answer a denial with a result (pydantic-ai: "denied"): the
                # decision still names what happened to the call.
                card.items.mark_tool(interrupt.tool_call_id, status)
        self.informed.finished(card)  # the execution verdicts, on the card and in the audit
        self.state(card, status="done", error=None)

    def set_outcome(self, card: Card, outcome: str) -> None:
        mine = [
            r
            for r in self.audit
            if r["card"] == card.id and not r.get("late") and not r.get("approval")
        ]
        for record in mine:
            record["outcome"] = outcome
        self._note_head(mine)
        self.sync_audit(card.view)

    def _note_head(self, records: list[dict[str, Any]]) -> None:
        """The store's chain head once these decisions were written (``SEQ:HASH``), for the
        audit text and the saved output: a head others can hold (``audit verify --head``)."""
        read = getattr(self.thread.journal, "audit_head", None)
        head = read() if read is not None else None
        if head is not None:
            for record in records:
                record["auditHead"] = head

    def sync_audit(self, view: ChatView) -> None:
        view.audit_records = [r for r in self.audit if self._view_of(r) is view]

    def _view_of(self, record: dict[str, Any]) -> ChatView | None:
        # A record restored from the store (card None) belongs to no view of this session.
        card = self.cards.get(record["card"])
        return card.view if card is not None else self.audit_views.get(record["card"])

    def keep_attempt(
        self,
        card: Card,
        decisions: dict[str, Decision],
        decided_by: DecidedBy,
        run_id: str | None,
        outcome: str,
    ) -> None:
        """A resume that did not commit still was a decision: the store's audit log keeps it."""
        if self._store_attempt(card, decisions, decided_by, run_id, outcome):
            mine = [r for r in self.audit if r["card"] == card.id and not r.get("late")]
            self._note_head([r for r in mine if not r.get("approval")])
            self.sync_audit(card.view)

    def _store_attempt(
        self,
        card: Card,
        decisions: dict[str, Decision],
        decided_by: DecidedBy,
        run_id: str | None,
        outcome: str,
    ) -> bool:
        """The decision into the store's audit log (a person's name only for a person's click);
        False when the thread keeps no store."""
        record_attempt = getattr(self.thread.journal, "record_attempt", None)
        if record_attempt is None:
            return False
        record_attempt(
            card.interrupts,
            decisions,
            thread_id=self.thread.id,
            run_id=run_id,
            time=datetime.now(timezone.utc),
            decided_by=decided_by.text,
            outcome=outcome,
            person=decided_by.person,
            evidence=self.informed.evidence(card, decisions),
        )
        return True


def _decision_json(decision: Decision) -> dict[str, Any]:
    """A decision as the card's ``decisions`` show it (docs/widget-protocol.md)."""
    return {
        "action": decision.kind,
        "reason": decision.reason,
        "args": dict(decision.arguments) if decision.arguments else None,
        "payload": decision.payload,
    }


def _prepare_quietly(interrupts: list[PendingInterrupt]) -> None:
    with contextlib.suppress(Exception):  # a failure here shows, typed, when the decision is made
        prepare_validators(interrupts)


def subjects(card: Card) -> str:
    return ", ".join(i.tool_name or i.reason or "interrupt" for i in card.interrupts)


_VERDICT = {
    "approve": "Approved",
    "edit": "Approved with edited arguments",
    "reject": "Rejected",
    "cancel": "Cancelled",
    "answer": "Answered",
}
