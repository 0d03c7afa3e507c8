"""Deciding a card: who decides it, sending the decision once, and the clicks that answer it.

Who decides, in order: "always allow" rules, the chat's policy, a person (until the timeout).
The card leaves "pending" on the loop thread before the resume is sent, so a second click, a
second view or a late click gets a refusal ack instead of a second resume. A refused or failed
resume leaves the card able to retry the same decision.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone
from typing import Any, Literal

from .._decisions.audit import argument_changes
from .._decisions.decision import Decision, answer, approve, cancel, edit, reject
from .._decisions.interrupts import PendingInterrupt
from .._errors import (
    AGUIError,
    InterruptReissued,
    NobodyCanClick,
    NothingPending,
    ResumeRefused,
    ThreadBusy,
)
from .._notebook.host import KernelSupport, call_in_loop
from .._thread import RunResult, RunStream
from .._view.widget import (
    A2UIActionMessage,
    A2UIRetryMessage,
    ChatView,
    DecideMessage,
    FrontDecision,
    RetryMessage,
)
from ..policies import Policy
from .cards import Cards, _Card, _subjects
from .result import _failure, _title, background_note, late_click_text

__all__ = ["Deciding"]


class Deciding(Cards):
    """How a chat decides its cards (mixed into Chat, which owns the state below)."""

    policy: Policy | None
    always_allow: set[str]

    def _front_end(self) -> KernelSupport:
        """What the notebook front end can do (Chat's reads it at each call)."""
        raise NotImplementedError

    async def _settle(
        self, view: ChatView, interrupts: list[PendingInterrupt], card: _Card | None = None
    ) -> RunResult:
        card = card or self._new_card(view, interrupts)
        decided = await self._decide(card)
        while True:
            if decided is None:  # the interrupts were answered by another resume on the thread
                return self._answered_elsewhere(card)
            decisions, decided_by = decided
            self._record_decisions(card, decisions, decided_by)
            run: RunStream | None = None
            try:
                run = self.thread.stream(resume=decisions)
                run.decided_by = decided_by  # the audit log says who
                result = await self._stream(view, run)
            except ResumeRefused as exc:
                if isinstance(exc, ThreadBusy) or not self._still_pending(card):
                    # Code resumed the thread while the card waited: let that run finish.
                    while self.thread.busy:
                        await asyncio.sleep(0.02)
                    if not self._still_pending(card):
                        return self._answered_elsewhere(card)
                    continue  # the thread is free and the card still applies: send it now
                self._set_outcome(card, f"refused: {exc}")
                self._keep_attempt(card, decisions, decided_by, None, f"refused: {exc}")
                if decided_by != "you":
                    self._card_state(card, status="failed", error=("Not sent", str(exc)))
                    raise
                # A person's decision the client refused (e.g. it expired): nothing was sent.
                self._card_state(card, status="pending", error=("Not sent", str(exc)))
                decided = await self._wait_for_person(card)
                continue
            except AGUIError as exc:
                self._set_outcome(card, f"failed: {type(exc).__name__}")
                self._keep_attempt(
                    card,
                    decisions,
                    decided_by,
                    run.run_id if run is not None else None,
                    _failure(exc),
                )
                self._card_state(card, status="failed", error=(_title(exc), str(exc)))
                if decided_by != "you":
                    raise
                retry = await self._wait(card, "retry")
                if retry is None:
                    raise
                if isinstance(retry, tuple):  # a new decision instead of a retry
                    decided = retry
                continue
            self._set_outcome(card, result.outcome)
            self._card_state(card, status="done", error=None)
            self._mark_tools(card, decisions)
            return result

    def _still_pending(self, card: _Card) -> bool:
        pending = {p.id for p in self.thread.pending}
        return any(i.id in pending for i in card.interrupts)

    def _answered_elsewhere(self, card: _Card) -> RunResult:
        """Close a card whose interrupts another resume answered; return that run's result."""
        for record in self.audit:
            if record["card"] == card.id and not record.get("late"):
                record["outcome"] = "not sent: answered by another resume"
        self._sync_audit(card.view)
        card.decided_by = "another resume on this thread"
        self._card_state(card, status="done", error=None)
        result = self.thread.last_result
        if result is None:  # pragma: no cover - a resume that answered them also set this
            raise NothingPending("the card's interrupts were answered elsewhere")
        return result

    async def _decide(self, card: _Card) -> tuple[dict[str, Decision], str] | None:
        by_rule = {
            i.id: approve()
            for i in card.interrupts
            if i.tool_name and i.tool_name in self.always_allow
        }
        if len(by_rule) == len(card.interrupts):
            names = sorted({i.tool_name or "" for i in card.interrupts})
            return self._auto(card, by_rule, f"rule: always allow {', '.join(names)}")
        if self.policy is not None:
            decided: dict[str, Decision] = dict(by_rule)
            for interrupt in card.interrupts:
                if interrupt.id in decided:
                    continue
                decision = self.policy.decide(interrupt)
                if decision is None:
                    break
                decided[interrupt.id] = decision
            else:
                return self._auto(card, decided, f"policy: {self.policy.name}")
        support = self._front_end()
        if not support.in_kernel:
            raise self._nobody(card, support)
        return await self._wait_for_person(card)

    def _nobody(self, card: _Card, support: KernelSupport) -> NobodyCanClick:
        """Nothing can show this card or deliver a click, and no policy decides: say so now."""
        error = NobodyCanClick(
            f"{_subjects(card)} needs a decision, but nothing here can show a card or deliver a "
            f"click ({support.detail}) and no policy is set. {NobodyCanClick.hint} Nothing was "
            "sent: the interrupt stays pending (`await chat.resume(approve())` answers it)."
        )
        self._card_state(card, status="failed", error=("Nobody can decide here", str(error)))
        card.view.status = "error"
        return error

    def _auto(
        self, card: _Card, decisions: dict[str, Decision], decided_by: str
    ) -> tuple[dict[str, Decision], str]:
        for interrupt in card.interrupts:
            if interrupt.reissued:
                message = (
                    f"the server raised interrupt {interrupt.id} "
                    f"({interrupt.tool_name or interrupt.reason}) again after it was answered; "
                    f"not answering it automatically again ({decided_by}) to avoid a loop"
                )
                self._card_state(card, status="failed", error=("Interrupt raised again", message))
                raise InterruptReissued(message)
        return decisions, decided_by

    async def _wait_for_person(self, card: _Card) -> tuple[dict[str, Decision], str] | None:
        support = self._front_end()
        if support.in_kernel and not support.can_wait:
            card.items.update(card.id, note=background_note(support))
        got = await self._wait(card, "decide")
        if got is None and not self._still_pending(card):
            return None
        if got is None:
            default: Decision = (
                cancel() if self.on_timeout == "cancel" else reject("no answer in time")
            )
            return (
                {i.id: default for i in card.interrupts},
                f"timeout: {self.on_timeout} after {self.timeout:g} s",
            )
        assert isinstance(got, tuple)
        return got

    async def _wait(self, card: _Card, kind: Literal["decide", "retry"]) -> Any:
        """Wait for the card's click; None at the timeout. The handler resolves it thread-safely."""
        loop = asyncio.get_running_loop()
        card.waiter = loop.create_future()
        card.accepting = kind
        self._card_state(card, status="pending" if kind == "decide" else "failed")
        card.view.status = "waiting"
        deadline = loop.time() + self.timeout
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

    # -- messages from the front end (delivered on the loop thread) ------------------------

    def _on_front_message(
        self,
        view: ChatView,
        message: DecideMessage | RetryMessage | A2UIActionMessage | A2UIRetryMessage,
    ) -> None:
        loop = self._loop
        if loop is None:
            view.ack(message.requestId, accepted=False, error="nothing is waiting for a decision")
            return
        call_in_loop(loop, self._handle_front_message, view, message)

    def _handle_front_message(
        self,
        view: ChatView,
        message: DecideMessage | RetryMessage | A2UIActionMessage | A2UIRetryMessage,
    ) -> None:
        if isinstance(message, A2UIActionMessage | A2UIRetryMessage):
            self.surfaces.handle(view, message)
            return
        card = self._cards.get(message.card)
        if card is None:
            view.ack(message.requestId, accepted=False, error="unknown card")
            return
        waiter = card.waiter
        if waiter is None or waiter.done() or card.accepting is None:
            if isinstance(message, DecideMessage) and card.status != "pending":
                self._late_click(card, view, message)
            else:
                view.ack(message.requestId, accepted=False, error=f"already {card.status}")
            return
        if isinstance(message, RetryMessage):
            if card.accepting != "retry":
                view.ack(message.requestId, accepted=False, error="nothing to retry")
                return
            card.accepting = None
            self._card_state(card, status="sending", error=None)
            waiter.set_result("retry")
            view.ack(message.requestId, accepted=True)
            return
        try:
            decisions = self._decisions_from(card, message.decisions)
        except ValueError as exc:
            view.ack(message.requestId, accepted=False, error=str(exc))
            return
        card.accepting = None
        for tool in message.alwaysAllow:
            if any(i.tool_name == tool for i in card.interrupts):
                self.always_allow.add(tool)
        # Decided now: a click from another view handled before the resume goes out is late.
        card.decisions, card.decided_by = decisions, "you"
        self._card_state(card, status="sending", error=None)
        waiter.set_result((decisions, "you"))
        view.ack(message.requestId, accepted=True)

    def _late_click(self, card: _Card, view: ChatView, message: DecideMessage) -> None:
        """A click on a card that was already decided: nothing is sent; the clicking view says
        what happened instead, and the audit keeps the click."""
        text = late_click_text(message.decisions, card.decided_by, card.decisions)
        now = datetime.now(timezone.utc).isoformat()
        for interrupt in card.interrupts:
            front = message.decisions.get(interrupt.id)
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
                    "decidedBy": "you",
                    "decidedAt": now,
                    "outcome": f"late, not sent: {card.decided_by or card.status} had decided",
                    "late": True,
                }
            )
        self._sync_audit(card.view)
        view.ack(message.requestId, accepted=False, error=text, late=True)

    def _decisions_from(self, card: _Card, raw: dict[str, FrontDecision]) -> dict[str, Decision]:
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
