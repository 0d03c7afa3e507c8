"""Deciding a card: who decides it, sending the decision once, and the clicks that answer it.

Who decides, in order: "always allow" rules, the chat's policy, a person (until the timeout).
Wherever a decision is taken it is recorded at once (the card's decisions and who took them,
the audit, the card's "sending" state pushed to the view), and then :meth:`Decider.settle`, the
coroutine that waited for it, sends it. A click's whole path is :meth:`Decider.handle`, on the
loop's thread: the card, whether it still asks, what the click decides (counted when several
approvers are needed), recorded, the waiter resolved, one ack. The card leaves "pending" there,
before the resume is sent, so a second click, a second view or a late click gets a refusal ack
instead of a second resume. A refused or failed resume leaves the card able to retry the same
decision.

The :class:`Decider` keeps no state of its own: the cards and the audit are the deck's, the rules
the chat's; it reads the notebook through the chat's host.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from .._decisions.audit import current_user
from .._decisions.decided_by import DecidedBy
from .._decisions.decision import Decision, answer, approve, cancel, edit, reject
from .._decisions.identity import Person, kernel_person
from .._decisions.interrupts import PendingInterrupt
from .._decisions.quorum import count, missing_text
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
from .cards import Card, CardDeck, Decided, subjects
from .rules import ChatRules
from .streamer import Streamer
from .surfaces import SurfaceActions
from .texts import background_note, error_title, failure_outcome, late_click_text

__all__ = ["Decider"]


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
        and return the run that answered it.

        Each decision is on the card and in the audit when it gets here (recorded where it was
        taken: a click's handler, the timeout, a rule or the policy); this loop sends it, and
        after a failure waits for a Retry or a new decision."""
        deck = self.deck
        card = card or deck.new_card(view, interrupts)
        self._show_claim_elsewhere(card)
        decided = await self.decide(card)
        while True:
            if decided is None:  # the interrupts were answered by another resume on the thread
                return self._answered_elsewhere(card)
            decisions, decided_by = decided
            run: RunStream | None = None
            try:
                # What the decision was informed by; CheckFailed when a failed check refuses it.
                await deck.informed.before_send(card, decisions, decided_by)
                run = self.thread.stream(resume=decisions)
                run.decided_by = decided_by.text  # the audit log says who
                run.person = decided_by.person
                deck.informed.attach(card, run)  # the execution verdict, before the commit
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
                decided = retry  # the same decision, or a new click's
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
                decided = retry  # the same decision, or a new click's
                continue
            deck.finish(card, result.outcome)
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
        """Who decides ``card``: the rules, the policy, else a person (until the timeout). The
        decision is recorded when this returns; None: another resume answered the card's
        interrupts while it waited."""
        self.deck.informed.start(card)  # a restored card's previews, once a loop runs
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
        step = count(None, needed, decided_by.as_approver(), decisions) if needed > 1 else None
        if step is None or step.action == "send":
            self.deck.record_decisions(card, decisions, decided_by)
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
        """A click's decision (the handler recorded it), else the timeout's (recorded here); None
        when another resume answered the card's interrupts meanwhile."""
        support = self.host.support()
        if support.in_kernel and not support.can_wait:
            card.items.update(card.id, note=background_note(support))
        clicked = await self._wait(card, "decide")
        if clicked is not None:
            return clicked
        if not self._still_pending(card):
            return None
        default = cancel() if self.rules.on_timeout == "cancel" else reject("no answer in time")
        decisions = {i.id: default for i in card.interrupts}
        by = DecidedBy.timeout(self.rules.on_timeout, self.rules.timeout)
        self.deck.record_decisions(card, decisions, by)
        return decisions, by

    async def _wait(self, card: Card, kind: Literal["decide", "retry"]) -> Decided | None:
        """Wait for the card's click (:meth:`handle` resolves the waiter, on this loop's thread);
        None at the timeout, or when another resume answered the card's interrupts."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[Decided] = loop.create_future()
        card.waiter, card.accepting = waiter, kind
        self.deck.state(card, status="pending" if kind == "decide" else "failed")
        card.view.status = "waiting"
        deadline = loop.time() + self.rules.timeout
        try:
            # In slices, so a card whose interrupts code answered meanwhile stops waiting.
            while not waiter.done():
                remaining = deadline - loop.time()
                if remaining <= 0:
                    break
                try:
                    return await asyncio.wait_for(asyncio.shield(waiter), min(0.25, remaining))
                except asyncio.TimeoutError:
                    if kind == "decide" and not self._still_pending(card) and not self.thread.busy:
                        break
            # A click handled as the wait ended was accepted (and acked): it decides.
            return waiter.result() if waiter.done() else None
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
        """A message from a card, on the loop's thread (the chat hands it over from whichever
        thread the comm message came on; ``clicker`` was read there). Every message gets one
        ack. A click that decides is recorded (the audit, and the card's new state pushed once)
        and then resolves the card's waiter, exactly once: the coroutine waiting on it sends."""
        if isinstance(message, A2UIActionMessage | A2UIRetryMessage):
            self.surfaces.handle(view, message)
            return
        card = self.deck.cards.get(message.card)
        if card is None:
            view.ack(message.requestId, accepted=False, error="unknown card")
            return
        waiter = card.waiter
        if waiter is None or waiter.done() or card.accepting is None:
            # Decided, or not asking now: nothing is sent, and the click is told why.
            if isinstance(message, DecideMessage) and card.status != "pending":
                self._late_click(card, view, message, clicker)
            else:
                view.ack(message.requestId, accepted=False, error=f"already {card.status}")
            return
        if isinstance(message, RetryMessage):
            if card.accepting != "retry" or card.decisions is None or card.decided_by is None:
                view.ack(message.requestId, accepted=False, error="nothing to retry")
                return
            decided: Decided = (card.decisions, card.decided_by)  # the same decision, again
        else:
            try:
                decisions = self._decisions_from(card, message.decisions)
            except ValueError as exc:
                view.ack(message.requestId, accepted=False, error=str(exc))
                return
            refused = self.deck.informed.refusal(card, message.decisions)  # a failed check
            if refused is not None:
                view.ack(message.requestId, accepted=False, error=f"Not sent: {refused}.")
                return
            person = clicker or kernel_person(current_user(), "the click came with no header")
            needed = self.rules.needed(card.interrupts)
            if needed > 1:
                step = count(card.count, needed, person, decisions)
                if step.action == "again":
                    assert step.count is not None  # the count this person is already in
                    more = missing_text(step.count)
                    error = f"{person.shown} already approved these arguments; {more}"
                    view.ack(message.requestId, accepted=False, error=f"{error} from someone else")
                    return
                card.count = step.count
                if step.action == "wait":  # counted; the card shows the count and stays pending
                    self.deck.record_approval(card, DecidedBy.you(person))
                    view.ack(message.requestId, accepted=True, waiting=True)
                    return
                assert step.decisions is not None
                decisions = dict(step.decisions)
            for tool in message.alwaysAllow:
                if any(i.tool_name == tool for i in card.interrupts):
                    self.rules.always_allow.add(tool)
            decided = (decisions, DecidedBy.you(person))
        # Decided now, before the resume goes out: from here a click from any view is late.
        card.accepting = None
        self.deck.record_decisions(card, *decided, error=None)
        waiter.set_result(decided)
        view.ack(message.requestId, accepted=True)

    def _late_click(
        self, card: Card, view: ChatView, message: DecideMessage, clicker: Person | None = None
    ) -> None:
        """A click on a card that was already decided: nothing is sent; the clicking view says
        what happened instead, and the audit keeps the click."""
        decider = self.deck.shown_decider(card)  # "you", "Ada Lovelace", "policy: ..."
        person = clicker or kernel_person(current_user(), "the click came with no header")
        self.deck.record_late_click(card, message.decisions, person, decider)
        text = late_click_text(message.decisions, decider, card.decisions)
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
