"""Deciding with your data: a chat's previews and checks on each card, and the verdict after it.

One :class:`Informed` per chat. When a card appears it runs, for each tool call on it, the chat's
preview for that tool and every check that matches (``previews.py`` runs them, bounded); each
result is drawn on the card's section as it comes (its ``preview`` and ``checks`` fields,
docs/widget-protocol.md). While a person edits the arguments, the card asks for the edited
arguments' preview and checks (a ``preview`` message) and they are drawn the same way.

A failing check refuses an approval (or an edit whose arguments fail) unless the person chose
"Approve anyway" with a reason, or the deciding policy says ``override_checks``: the click is
refused at once, a policy's decision raises :class:`CheckFailed` before anything is sent. What the
decision was informed by goes into its audit entry (``_decisions.evidence``). After the resumed
run, before it is committed, each decided call is judged (``_decisions.verdict``; the chat's
``verify`` hook for an executed one) and the verdict is drawn on the card and written with the
audit entry; a verdict that warns is also a warning of the run.

Nothing here blocks a decision on a preview: a preview that is slow, fails or is too large is a
note on the card. The capabilities a server declares hide the controls it says it does not take.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ag_ui.core import ToolMessage

from .._decisions.audit import canonical_json
from .._decisions.decided_by import DecidedBy
from .._decisions.decision import Decision
from .._decisions.evidence import Evidence
from .._decisions.interrupts import PendingInterrupt
from .._decisions.verdict import CallSeen, Execution, judge, verified
from .._errors import CheckFailed
from .._state.items import ItemList
from .._state.reducer import RunReducer
from .._thread import RunStream, Thread
from .._view.widget import ChatView, FrontDecision, PreviewMessage
from .previews import HookContext, Hooked, HookTable, call_hook, check_reason, render_preview
from .rules import ChatRules
from .streamer import Streamer

__all__ = ["Informed"]

PREVIEW_LABEL = "Preview (computed in this notebook)"
EDITED_LABEL = "Preview of the edited arguments (computed in this notebook)"
CHECKS_FAILED = (
    "A check failed: Approve is off. Reject, Edit (the edit is checked again), Cancel, or "
    "Approve anyway with a reason."
)


class Shown(Protocol):
    """What this module reads of a card (``cards.Card``)."""

    id: str
    view: ChatView
    items: ItemList
    interrupts: list[PendingInterrupt]


class Deck(Protocol):
    """What this module reads of the chat's card deck (``cards.CardDeck``)."""

    thread: Thread
    streamer: Streamer
    rules: ChatRules
    audit: list[dict[str, Any]]

    def sync_audit(self, view: ChatView) -> None: ...


@dataclass
class Look:
    """The preview and checks of one set of arguments."""

    arguments: Any
    edited: bool
    preview: dict[str, Any] | None = None
    checks: list[dict[str, Any]] | None = None
    preview_task: asyncio.Future[None] | None = None
    check_tasks: list[asyncio.Future[None]] = field(default_factory=list)

    def failed(self) -> list[dict[str, Any]]:
        return [c for c in self.checks or [] if c.get("passed") is False]

    def checking(self) -> bool:
        return any(c.get("passed") is None for c in self.checks or [])

    async def settle(self, previews_too: bool) -> None:
        """Wait for the checks (and the preview): each is bounded by its own time limit."""
        tasks = [*self.check_tasks]
        if previews_too and self.preview_task is not None:
            tasks.append(self.preview_task)
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)


@dataclass
class Found:
    """What the chat found for one interrupt of a card."""

    interrupt: PendingInterrupt
    proposed: Look
    edited: dict[str, Look] = field(default_factory=dict)  # by the arguments' hash
    shown: Look | None = None  # the look the section shows now
    override: str | None = None  # "Approve anyway": its reason
    held_text: str | None = None  # the call's arguments text when the card appeared
    execution: Execution | None = None


class Informed:
    """A chat's previews, checks and verify hooks, and what they found on its cards."""

    def __init__(
        self,
        deck: Deck,
        previews: Mapping[str, Any] | None = None,
        checks: Mapping[str, Any] | None = None,
        verify: Mapping[str, Any] | None = None,
    ) -> None:
        self.deck = deck
        self.thread = deck.thread
        self.streamer = deck.streamer
        self.previews = HookTable("preview", previews)
        self.checks = HookTable("check", checks)
        self.verifiers = HookTable("verify hook", verify)
        self._cards: dict[str, tuple[Shown, dict[str, Found]]] = {}
        self._said_declared = False

    def _wanted(self, interrupt: PendingInterrupt) -> bool:
        tool = interrupt.tool_name
        return bool(self.previews.first(tool) or self.checks.matching(tool))

    # -- a card appears ------------------------------------------------------------------

    def section(self, interrupt: PendingInterrupt) -> dict[str, Any]:
        """The fields a card's section starts with: the preview and checks being computed,
        and the controls the server's declared capabilities take away (with why)."""
        fields: dict[str, Any] = {"preview": None, "checks": None, "verdict": None}
        tool = interrupt.tool_name
        if self.previews.first(tool) is not None:
            fields["preview"] = {"status": "computing", "label": PREVIEW_LABEL, "of": "proposed"}
        if self.checks.matching(tool):
            fields["checks"] = _checks_field([], computing=True, edited=False)
        declared = getattr(self.thread.agent, "declared_capabilities", None)
        hitl = declared.human_in_the_loop if declared is not None else None
        if hitl is not None and hitl.approve_with_edits is False and tool is not None:
            fields["canEdit"] = False
            fields["editNote"] = (
                "Edit is not offered: this server declares that it does not take edited "
                "arguments (humanInTheLoop.approveWithEdits is false)."
            )
        return fields

    def start(self, card: Shown) -> None:
        """Compute the card's previews and checks (once; later when no loop runs yet)."""
        if card.id in self._cards:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # a restored card in a script: started when it is decided
        found: dict[str, Found] = {}
        self._cards[card.id] = (card, found)
        calls = self.thread.tool_calls
        state: Any = None  # copied once, and only for a card with something to compute
        for interrupt in card.interrupts:
            held = calls.get(interrupt.tool_call_id or "")
            look = Look(interrupt.arguments, edited=False)  # each hook gets its own copy
            found[interrupt.id] = Found(
                interrupt, look, shown=look, held_text=held.arguments_text if held else None
            )
            if self._wanted(interrupt):
                state = _copy(self.thread.state) if state is None else state
                self._compute(card, found[interrupt.id], look, state)

    def _compute(self, card: Shown, found: Found, look: Look, state: Any) -> None:
        interrupt = found.interrupt
        call = self.thread.tool_calls.get(interrupt.tool_call_id or "")
        context = HookContext(state, interrupt, call, edited=look.edited)
        preview = self.previews.first(interrupt.tool_name)
        if preview is not None:
            look.preview = {
                "status": "computing",
                "label": EDITED_LABEL if look.edited else PREVIEW_LABEL,
                "of": "edited" if look.edited else "proposed",
            }
            look.preview_task = asyncio.ensure_future(
                self._preview(card, found, look, preview, context)
            )
        checks = self.checks.matching(interrupt.tool_name)
        look.checks = [{"name": h.name, "passed": None, "text": "checking…"} for h in checks]
        look.check_tasks = [
            asyncio.ensure_future(self._check(card, found, look, index, hook, context))
            for index, hook in enumerate(checks)
        ]

    async def _preview(
        self, card: Shown, found: Found, look: Look, hook: Hooked, context: HookContext
    ) -> None:
        outcome = await call_hook(
            hook.fn, (_copy(look.arguments), context), timeout=hook.timeout, then=render_preview
        )
        assert look.preview is not None
        if outcome.error is not None:
            look.preview = {
                **look.preview,
                "status": "failed",
                "note": f"The preview {hook.name} {outcome.error}. Decide without it.",
            }
        else:
            look.preview = {**look.preview, **outcome.value, "status": "shown"}
            look.preview["seconds"] = round(outcome.seconds, 3)
        self._draw(card, found, look)

    async def _check(
        self,
        card: Shown,
        found: Found,
        look: Look,
        index: int,
        hook: Hooked,
        context: HookContext,
    ) -> None:
        outcome = await call_hook(hook.fn, (_copy(look.arguments), context), timeout=hook.timeout)
        reason = outcome.error if outcome.error is not None else check_reason(outcome.value)
        assert look.checks is not None
        look.checks[index] = {
            "name": hook.name,
            "passed": reason is None,
            "text": "passed" if reason is None else reason,
        }
        self._draw(card, found, look)

    def _draw(self, card: Shown, found: Found, look: Look) -> None:
        """Show ``look`` on its section if it is the one the section shows now."""
        if found.shown is not look:
            return
        self._update(
            card,
            found.interrupt.id,
            preview=look.preview,
            checks=_checks_field(look.checks, edited=look.edited) if look.checks else None,
        )

    def _update(self, card: Shown, interrupt_id: str, *, push: bool = True, **fields: Any) -> None:
        item = card.items.get(card.id)
        if item is None:
            return
        sections = [
            {**section, **fields} if section.get("id") == interrupt_id else section
            for section in item.get("interrupts") or []
        ]
        card.items.update(card.id, interrupts=sections)
        if push:
            self.streamer.push(card.view, card.view.state, force=True)

    # -- a person edits ------------------------------------------------------------------

    def handle_preview(self, view: ChatView, message: PreviewMessage) -> None:
        """The card asks for the edited arguments' preview and checks (on the loop's thread)."""
        held = self._cards.get(message.card)
        found = held[1].get(message.interrupt) if held is not None else None
        if held is None or found is None:
            view.ack(message.requestId, accepted=False, error="nothing to preview here")
            return
        card = held[0]
        look = self._edited_look(card, found, message.args)
        found.shown = look
        self._draw(card, found, look)
        view.ack(message.requestId, accepted=True)

    def _edited_look(self, card: Shown, found: Found, arguments: dict[str, Any]) -> Look:
        key = _hash(arguments)
        look = found.edited.get(key)
        if look is None:
            look = found.edited[key] = Look(_copy(arguments), edited=True)
            if self._wanted(found.interrupt):
                self._compute(card, found, look, _copy(self.thread.state))
        return look

    # -- deciding ------------------------------------------------------------------------

    def refusal(self, card: Shown, decisions: Mapping[str, FrontDecision]) -> str | None:
        """Why a click's decisions must not go out now (a check failed, or is still running,
        and no "Approve anyway" reason came); None: they may. Notes the overrides."""
        held = self._cards.get(card.id)
        if held is None:
            return None
        problems: list[str] = []
        for interrupt_id, front in decisions.items():
            found = held[1].get(interrupt_id)
            if found is None or front.action not in ("approve", "edit"):
                continue
            override = (front.override or "").strip()
            found.override = override or None
            look: Look | None = found.proposed
            if front.action == "edit":
                # Not asked for yet (no live preview): checked before it is sent.
                look = found.edited.get(_hash(front.args)) if front.args is not None else None
            if look is None:
                continue
            if look.checking():
                problems.append(f"the checks of {_name(found)} are still running")
            elif look.failed() and not override:
                problems.append(_failed_text(found, look) + "; Approve anyway needs a reason")
        return "; ".join(problems) or None

    async def before_send(
        self,
        card: Shown,
        decisions: Mapping[str, Decision],
        decided_by: DecidedBy,
        *,
        enforce: bool = True,
    ) -> None:
        """Settle what the decisions were informed by (a policy's, or code's, waits for the
        previews too) and note it in their audit records; raise :class:`CheckFailed`
        (``enforce``; code's decisions are not refused) for an approval a failed check refuses."""
        self.start(card)
        held = self._cards.get(card.id)
        if held is None:
            return
        policy = self.deck.rules.policy
        # A person decides on what the card shows now; a policy, or code, on the previews too.
        waits = not decided_by.is_person or not enforce
        override_policy = (
            not decided_by.is_person and getattr(policy, "override_checks", False) is True
        )
        failed: list[tuple[str, str, str]] = []
        for interrupt_id, decision in decisions.items():
            found = held[1].get(interrupt_id)
            if found is None:
                continue
            look = found.proposed
            if decision.kind == "edit" and decision.arguments is not None:
                look = self._edited_look(card, found, _decided(found.interrupt, decision))
                if found.shown is not look:  # the card shows what is sent
                    found.shown = look
                    self._draw(card, found, look)
            await found.proposed.settle(previews_too=waits)
            await look.settle(previews_too=waits)
            if decision.kind in ("approve", "edit") and look.failed():
                if override_policy and found.override is None:
                    found.override = f"{decided_by.text} (override_checks)"
                if found.override is None:
                    failed += [(_name(found), c["name"], c["text"]) for c in look.failed()]
        evidence = self.evidence(card, decisions)
        for record in self.deck.audit:
            found_evidence = evidence.get(record.get("interrupt") or "")
            if (
                found_evidence is not None
                and record.get("card") == card.id
                and not record.get("late")  # a late click decided nothing
            ):
                record.update(found_evidence.fields())
        self.deck.sync_audit(card.view)
        if failed and enforce:
            text = "; ".join(f"{tool}: check {name} failed: {why}" for tool, name, why in failed)
            if not decided_by.is_person:
                card.view.status = "error"  # the turn ends here (a person's card asks again)
            raise CheckFailed(f"{text}; nothing was sent", failed)

    def evidence(self, card: Shown, decisions: Mapping[str, Decision]) -> dict[str, Evidence]:
        """What each decision on the card was informed by, as the audit keeps it."""
        held = self._cards.get(card.id)
        out: dict[str, Evidence] = {}
        for interrupt_id, found in (held[1] if held else {}).items():
            decision = decisions.get(interrupt_id)
            if decision is None or not self._wanted(found.interrupt):
                continue
            look = found.proposed
            if decision.kind == "edit" and decision.arguments is not None:
                look = found.edited.get(_hash(_decided(found.interrupt, decision)), look)
            out[interrupt_id] = Evidence(
                preview_sha256=_sha(found.proposed.preview),
                edited_preview_sha256=_sha(look.preview) if look is not found.proposed else None,
                checks=[dict(c) for c in look.checks] if look.checks else None,
                checks_override=found.override if look.failed() else None,
                execution=found.execution.to_json() if found.execution else None,
            )
        return out

    # -- after the resumed run -----------------------------------------------------------

    def attach(self, card: Shown, run: RunStream) -> None:
        """``run`` carries the card's decisions: judge its calls before it is committed."""
        held = self._cards.get(card.id)
        if held is None:
            self.start(card)
            held = self._cards.get(card.id)
        if held is None:
            return
        run.evidence = self.evidence(card, run.decisions)
        found = held[1]

        async def judge_calls(reducer: RunReducer) -> None:
            try:
                await self._judge(found, run, reducer)
            except Exception as exc:  # never the run's failure: said, and the run goes on
                if run.record is not None:
                    run.record.warnings.append(f"the execution verdict failed: {exc!r}")

        run.before_commit = judge_calls

    async def _judge(self, found: dict[str, Found], run: RunStream, reducer: RunReducer) -> None:
        messages = reducer.messages
        for interrupt_id, decision in run.decisions.items():
            item = found.get(interrupt_id)
            interrupt = item.interrupt if item is not None else None
            if item is None or interrupt is None or not interrupt.tool_call_id:
                continue
            call = reducer.tool_calls.get(interrupt.tool_call_id)
            report: Any = None
            if call is not None and call.result_message_id is not None:
                report = messages.get(call.result_message_id)
                if not isinstance(report, ToolMessage):
                    report = ToolMessage(
                        id=call.result_message_id,
                        content=call.result if isinstance(call.result, str) else "",
                        tool_call_id=call.id,
                    )
            seen = CallSeen(call.arguments_text if call is not None else None, report)
            execution = judge(
                tool=interrupt.tool_name,
                decision=decision.kind,
                proposed=interrupt.arguments,
                edited=_decided(interrupt, decision) if decision.arguments else None,
                held_text=item.held_text,
                seen=seen,
            )
            if execution is None:
                continue
            verifier = self.verifiers.first(interrupt.tool_name)
            if execution.verdict == "executed" and verifier is not None and call is not None:
                approved = _decided(interrupt, decision)
                context = HookContext(
                    _copy(reducer.state), interrupt, call, decision.kind == "edit"
                )
                outcome = await call_hook(
                    verifier.fn, (_copy(approved), call.result, context), timeout=verifier.timeout
                )
                reason = check_reason(outcome.value) if outcome.error is None else None
                execution = verified(
                    execution, interrupt.tool_name, verifier.name, reason, outcome.error
                )
            item.execution = execution
            if interrupt_id in run.evidence:
                run.evidence[interrupt_id].execution = execution.to_json()
            else:
                run.evidence[interrupt_id] = Evidence(execution=execution.to_json())
            if execution.warning and run.record is not None:
                detail = f" ({execution.detail})" if execution.detail else ""
                run.record.warnings.append(f"{execution.text}{detail}")

    def finished(self, card: Shown) -> None:
        """The card's resume committed: each section gets its verdict, each audit record its
        execution (shown with the caller's next push)."""
        held = self._cards.get(card.id)
        for interrupt_id, found in (held[1] if held else {}).items():
            execution = found.execution
            if execution is None:
                continue
            for record in self.deck.audit:
                if (
                    record.get("card") == card.id
                    and record.get("interrupt") == interrupt_id
                    and not record.get("late")
                    and not record.get("approval")
                ):
                    record["execution"] = execution.to_json()
            verdict = {**execution.to_json(), "warning": execution.warning}
            self._update(card, interrupt_id, verdict=verdict, push=False)  # the caller pushes
        if held is not None:
            self.deck.sync_audit(card.view)
            del self._cards[card.id]  # decided and judged: nothing more to find for it

    # -- what the server declares ----------------------------------------------------------

    def say_declared(self, items: ItemList) -> None:
        """Once per chat: what the server's capabilities (if the agent asked) mean here."""
        if self._said_declared:
            return
        self._said_declared = True
        declared = getattr(self.thread.agent, "declared_capabilities", None)
        if declared is not None and declared.declines_human_in_the_loop:
            items.add_notice(
                "This server declares no human-in-the-loop support (humanInTheLoop.supported "
                "is false): it may run tools without asking for approval."
            )


def _checks_field(
    results: list[dict[str, Any]] | None, *, edited: bool, computing: bool = False
) -> dict[str, Any]:
    results = list(results or [])
    running = computing or any(r.get("passed") is None for r in results)
    failed = any(r.get("passed") is False for r in results)
    return {
        "status": "running" if running else "done",
        "of": "edited" if edited else "proposed",
        "results": results,
        "passed": None if running and not failed else not failed,
        "text": CHECKS_FAILED if failed else None,
    }


def _failed_text(found: Found, look: Look) -> str:
    return "; ".join(
        f"{_name(found)}: check {c['name']} failed: {c['text']}" for c in look.failed()
    )


def _decided(interrupt: PendingInterrupt, decision: Decision) -> Any:
    """The arguments a decision sends: an edit's changes over the proposed ones (as the resume
    fills them in), else the proposed ones."""
    proposed = interrupt.arguments
    if decision.arguments is None:
        return proposed
    base = proposed if isinstance(proposed, dict) else {}
    return {**base, **dict(decision.arguments)}


def _name(found: Found) -> str:
    return found.interrupt.tool_name or found.interrupt.reason


def _sha(preview: dict[str, Any] | None) -> str | None:
    return preview.get("sha256") if preview and preview.get("status") == "shown" else None


def _hash(arguments: Any) -> str:
    try:
        text = canonical_json(arguments)
    except (TypeError, ValueError):
        text = repr(arguments)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _copy(value: Any) -> Any:
    """A copy a notebook function may change without changing the thread."""
    try:
        return copy.deepcopy(value)
    except Exception:  # something that cannot be copied: handed over as it is
        return value
