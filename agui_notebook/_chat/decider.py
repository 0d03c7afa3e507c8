"""Deciding a card: who decides it, sending the decision once, and the clicks that answer it.

Who decides, in order: "always allow" rules, the chat's policy, a person (until the timeout).
The card leaves "pending" on the loop thread before the resume is sent, so a second click, a
second view or a late click gets a refusal ack instead of a second resume. A refused or failed
resume leaves the card able to retry the same decision.

The :class:`Decider` keeps no state of its own: the cards and the audit are the deck's, the rules
the chat's; it reads the notebook through the chat's host.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone
from typing import Any, Literal

from .._decisions.audit import argument_changes, current_user
from .._decisions.decided_by import DecidedBy
from .._decisions.decision import Decision, answer, approve, cancel, edit, reject
from .._decisions.identity import Person, kernel_person
from .._decisions.interrupts import PendingInterrupt
from .._decisions.quorum import Count, count
from .._errors import (
    AGUIError,
    AlreadyDecided,
    InterruptReissued,
    NobodyCanClick,
    NothingPending,
    ResumeRefused,
    ThreadBusy,
    TooFewApprovers,
)
from .._notebook.host import Host, KernelSupport
from .._thread import RunResult, RunStream, Thread
from .._view.widget import (
    A2UIActionMessage,
    A2UIRetryMessage,
    ChatView,
    DecideMessage,
    FrontDecision,
    RetryMessage,
)
from .cards import Card, CardDeck, subjects
from .rules import ChatRules
from .streamer import Streamer
from .surfaces import SurfaceActions
from .texts import background_note, error_title, failure_outcome, late_click_text

__all__ = ["Decided", "Decider"]

#: A card's decisions (by interrupt id) and who took them.
Decided = tuple[dict[str, Decision], DecidedBy]


class Decider:
    """How a chat decides its cards."""

    def __init__(self, deck: CardDeck, host: Host, surfaces: SurfaceActions) -> None:
        self.deck = deck
        self.host = host
        self.surfaces = surfaces

    @property
    def thread(self) -> Thread:
        return self.deck.thread

    @property
    def rules(self) -> ChatRules:
        return self.deck.rules

    @property
    def streamer(self) -> Streamer:
        return self.deck.streamer

    async def settle(
        self, view: ChatView, interrupts: list[PendingInterrupt], card: Card | None = None
    ) -> RunResult:
        """Decide the card for ``interrupts`` (a new one unless given), send the decision once,
        and return the run that answered it."""
        deck = self.deck
        card = card or deck.new_card(view, interrupts)
        self._show_claim_elsewhere(card)
        decided = await self.decide(card)
        while True:
            if decided is None:  # the interrupts were answered by another resume on the thread
                return self._answered_elsewhere(card)
            decisions, decided_by = decided
            deck.record_decisions(card, decisions, decided_by)
            run: RunStream | None = None
            try:
                run = self.thread.stream(resume=decisions)
                run.decided_by = decided_by.text  # the audit log says who
                run.person = decided_by.person
                result = await self.streamer.stream(view, run)
            except AlreadyDecided as exc:
                # Another kernel sharing the store claimed them: the card says who, and where.
                deck.set_outcome(card, "not sent: decided elsewhere")
                deck.keep_attempt(card, decisions, decided_by, None, f"refused: {exc}")
                title = "Decided elsewhere" if exc.settled else "Being decided elsewhere"
                self.deck.state(card, status="failed", error=(title, str(exc)))
                if not decided_by.is_person:
                    raise
                retry = await self._wait(card, "retry")  # e.g. once a dead kernel's claim lapsed
                if retry is None:
                    raise
                if isinstance(retry, tuple):
                    decided = retry
                continue
            except ResumeRefused as exc:
                if isinstance(exc, ThreadBusy) or not self._still_pending(card):
                    # Code resumed the thread while the card waited: let that run finish.
                    while self.thread.busy:
                        await asyncio.sleep(0.02)
                    if not self._still_pending(card):
                        return self._answered_elsewhere(card)
                    continue  # the thread is free and the card still applies: send it now
                deck.set_outcome(card, f"refused: {exc}")
                deck.keep_attempt(card, decisions, decided_by, None, f"refused: {exc}")
                if not decided_by.is_person:
                    self.deck.state(card, status="failed", error=("Not sent", str(exc)))
                    raise
                # A person's decision the client refused (e.g. it expired): nothing was sent.
                self.deck.state(card, status="pending", error=("Not sent", str(exc)))
                decided = await self._wait_for_person(card)
                continue
            except AGUIError as exc:
                deck.set_outcome(card, f"failed: {type(exc).__name__}")
                deck.keep_attempt(
                    card,
                    decisions,
                    decided_by,
                    run.run_id if run is not None else None,
                    failure_outcome(exc),
                )
                self.deck.state(card, status="failed", error=(error_title(exc), str(exc)))
                if not decided_by.is_person:
                    raise
                retry = await self._wait(card, "retry")
                if retry is None:
                    raise
                if isinstance(retry, tuple):  # a new decision instead of a retry
                    decided = retry
                continue
            deck.set_outcome(card, result.outcome)
            self.deck.state(card, status="done", error=None)
            deck.mark_tools(card, decisions)
            return result

    def show_claim_elsewhere_on_cards(self) -> None:
        """Every card still waiting for a person says who else holds a claim on it now."""
        for card in self.deck.cards.values():
            if card.accepting == "decide":
                self._show_claim_elsewhere(card)

    def _show_claim_elsewhere(self, card: Card) -> None:
        """A kernel sharing the store is deciding these interrupts now: the card says who."""
        asked = getattr(self.thread.journal, "claimed_elsewhere", None)  # a store's journal
        held = asked(self.thread, [i.id for i in card.interrupts]) if asked else None
        if held is not None:
            title = "Decided elsewhere" if held.settled else "Being decided elsewhere"
            self.deck.state(card, status="pending", error=(title, str(held)))

    def _still_pending(self, card: Card) -> bool:
        pending = {p.id for p in self.thread.pending}
        return any(i.id in pending for i in card.interrupts)

    def _answered_elsewhere(self, card: Card) -> RunResult:
        """Close a card whose interrupts another resume answered; return that run's result."""
        for record in self.deck.audit:
            if record["card"] == card.id and not record.get("late") and not record.get("approval"):
                record["outcome"] = "not sent: answered by another resume"
        self.deck.sync_audit(card.view)
        card.decided_by = DecidedBy.another_resume()
        self.deck.state(card, status="done", error=None)
        result = self.thread.last_result
        if result is None:  # pragma: no cover - a resume that answered them also set this
            raise NothingPending("the card's interrupts were answered elsewhere")
        return result

    async def decide(self, card: Card) -> Decided | None:
        by_rule = {
            i.id: approve()
            for i in card.interrupts
            if i.tool_name and i.tool_name in self.rules.always_allow
        }
        if len(by_rule) == len(card.interrupts):
            by = DecidedBy.always_allow(sorted({i.tool_name or "" for i in card.interrupts}))
            return await self._counted(card, self._auto(card, by_rule, by))
        if self.rules.policy is not None:
            decided: dict[str, Decision] = dict(by_rule)
            for interrupt in card.interrupts:
                if interrupt.id in decided:
                    continue
                decision = self.rules.policy.decide(interrupt)
                if decision is None:
                    break
                decided[interrupt.id] = decision
            else:
                auto = self._auto(card, decided, DecidedBy.policy(self.rules.policy.name))
                return await self._counted(card, auto)
        support = self.host.support()
        if not support.in_kernel:
            raise self._nobody(card, support)
        return await self._wait_for_person(card)

    async def _counted(self, card: Card, auto: Decided) -> Decided | None:
        """A rule's or policy's decision, when several approvers are needed: it counts as one
        approval, and people give the rest (a "no" still decides at once)."""
        decisions, decided_by = auto
        needed = self.rules.needed(card.interrupts)
        if needed == 1:
            return auto
        step = count(None, needed, decided_by.as_approver(), decisions)
        if step.action == "send":
            return auto
        support = self.host.support()
        if not support.in_kernel:
            error = TooFewApprovers(
                f"{subjects(card)} needs {needed} different approvers, but only {decided_by.text} "
                f"approved and nobody can click here ({support.detail}). Nothing was sent: the "
                f"interrupt stays pending. {TooFewApprovers.hint}"
            )
            self.deck.state(card, status="failed", error=("Too few approvers", str(error)))
            card.view.status = "error"
            raise error
        card.count = step.count
        self.deck.record_approval(card, decided_by)
        return await self._wait_for_person(card)

    def _nobody(self, card: Card, support: KernelSupport) -> NobodyCanClick:
        """Nothing can show this card or deliver a click, and no policy decides: say so now."""
        error = NobodyCanClick(
            f"{subjects(card)} needs a decision, but nothing here can show a card or deliver a "
            f"click ({support.detail}) and no policy is set. {NobodyCanClick.hint} Nothing was "
            "sent: the interrupt stays pending (`await chat.resume(approve())` answers it)."
        )
        self.deck.state(card, status="failed", error=("Nobody can decide here", str(error)))
        card.view.status = "error"
        return error

    def _auto(self, card: Card, decisions: dict[str, Decision], decided_by: DecidedBy) -> Decided:
        for interrupt in card.interrupts:
            if interrupt.reissued:
                message = (
                    f"the server raised interrupt {interrupt.id} "
                    f"({interrupt.tool_name or interrupt.reason}) again after it was answered; "
                    f"not answering it automatically again ({decided_by.text}) to avoid a loop"
                )
                self.deck.state(card, status="failed", error=("Interrupt raised again", message))
                raise InterruptReissued(message)
        return decisions, decided_by

    async def _wait_for_person(self, card: Card) -> Decided | None:
        support = self.host.support()
        if support.in_kernel and not support.can_wait:
            card.items.update(card.id, note=background_note(support))
        got = await self._wait(card, "decide")
        if got is None and not self._still_pending(card):
            return None
        if got is None:
            default: Decision = (
                cancel() if self.rules.on_timeout == "cancel" else reject("no answer in time")
            )
            return (
                {i.id: default for i in card.interrupts},
                DecidedBy.timeout(self.rules.on_timeout, self.rules.timeout),
            )
        assert isinstance(got, tuple)
        return got

    async def _wait(self, card: Card, kind: Literal["decide", "retry"]) -> Any:
        """Wait for the card's click; None at the timeout. The handler resolves it thread-safely."""
        loop = asyncio.get_running_loop()
        card.waiter = loop.create_future()
        card.accepting = kind
        self.deck.state(card, status="pending" if kind == "decide" else "failed")
        card.view.status = "waiting"
        deadline = loop.time() + self.rules.timeout
        try:
            # In slices, so a card whose interrupts code answered meanwhile stops waiting.
            while True:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return None
                try:
                    return await asyncio.wait_for(asyncio.shield(card.waiter), min(0.25, remaining))
                except asyncio.TimeoutError:
                    if kind == "decide" and not self._still_pending(card) and not self.thread.busy:
                        return None
        finally:
            card.accepting = None
            card.waiter = None

    # -- messages from the front end (handed to the loop thread by the chat) ---------------

    def handle(
        self,
        view: ChatView,
        message: DecideMessage | RetryMessage | A2UIActionMessage | A2UIRetryMessage,
        clicker: Person | None = None,
    ) -> None:
        if isinstance(message, A2UIActionMessage | A2UIRetryMessage):
            self.surfaces.handle(view, message)
            return
        card = self.deck.cards.get(message.card)
        if card is None:
            view.ack(message.requestId, accepted=False, error="unknown card")
            return
        waiter = card.waiter
        if waiter is None or waiter.done() or card.accepting is None:
            if isinstance(message, DecideMessage) and card.status != "pending":
                self._late_click(card, view, message, clicker)
            else:
                view.ack(message.requestId, accepted=False, error=f"already {card.status}")
            return
        if isinstance(message, RetryMessage):
            if card.accepting != "retry":
                view.ack(message.requestId, accepted=False, error="nothing to retry")
                return
            card.accepting = None
            self.deck.state(card, status="sending", error=None)
            waiter.set_result("retry")
            view.ack(message.requestId, accepted=True)
            return
        try:
            decisions = self._decisions_from(card, message.decisions)
        except ValueError as exc:
            view.ack(message.requestId, accepted=False, error=str(exc))
            return
        person = clicker or kernel_person(current_user(), "the click came with no header")
        needed = self.rules.needed(card.interrupts)
        if needed > 1:
            step = count(card.count, needed, person, decisions)
            if step.action == "again":
                view.ack(
                    message.requestId,
                    accepted=False,
                    error=f"{person.shown} already approved these arguments; "
                    f"{_more(step.count)} from someone else",
                )
                return
            card.count = step.count
            if step.action == "wait":
                self.deck.record_approval(card, DecidedBy.you(person))
                view.ack(message.requestId, accepted=True, waiting=True)
                return
            assert step.decisions is not None
            decisions = dict(step.decisions)
        card.accepting = None
        for tool in message.alwaysAllow:
            if any(i.tool_name == tool for i in card.interrupts):
                self.rules.always_allow.add(tool)
        # Decided now: a click from another view handled before the resume goes out is late.
        card.decisions, card.decided_by = decisions, DecidedBy.you(person)
        self.deck.state(card, status="sending", error=None)
        waiter.set_result((decisions, card.decided_by))
        view.ack(message.requestId, accepted=True)

    def _late_click(
        self, card: Card, view: ChatView, message: DecideMessage, clicker: Person | None = None
    ) -> None:
        """A click on a card that was already decided: nothing is sent; the clicking view says
        what happened instead, and the audit keeps the click."""
        decider = self.deck.shown_decider(card)  # "you", "Ada Lovelace", "policy: ..."
        text = late_click_text(message.decisions, decider, card.decisions)
        now = datetime.now(timezone.utc).isoformat()
        kernel_user = current_user()
        person = clicker or kernel_person(kernel_user, "the click came with no header")
        late_by = DecidedBy.you(person).shown
        for interrupt in card.interrupts:
            front = message.decisions.get(interrupt.id)
            if front is None:
                continue
            self.deck.audit.append(
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
                    "kernel_user": kernel_user,
                    "identity": person.identity,
                    "identity_note": person.note,
                }
            )
        self.deck.sync_audit(card.view)
        view.ack(message.requestId, accepted=False, error=text, late=True)

    def _decisions_from(self, card: Card, raw: dict[str, FrontDecision]) -> dict[str, Decision]:
        ids = [i.id for i in card.interrupts]
        missing = [i for i in ids if i not in raw]
        unknown = [k for k in raw if k not in ids]
        if missing or unknown:
            raise ValueError(
                f"decide every interrupt of the card (missing {missing}, unknown {unknown})"
            )
        out: dict[str, Decision] = {}
        for interrupt_id, d in raw.items():
            if d.action == "approve":
                out[interrupt_id] = approve()
            elif d.action == "reject":
                out[interrupt_id] = reject(d.reason or None)
            elif d.action == "cancel":
                out[interrupt_id] = cancel()
            elif d.action == "edit":
                if not d.args:
                    raise ValueError("an edit needs the edited arguments")
                out[interrupt_id] = edit(d.args)
            else:
                out[interrupt_id] = answer(d.payload)
        return out


def _more(current: Count | None) -> str:
    missing = 1 if current is None else max(1, current.needed - len(current.approvers))
    return "one more approval is needed" if missing == 1 else f"{missing} more approvals are needed"
