"""Chat: a thread with a live view, where a click (or a policy) answers an interrupt in-cell.

``await chat.send(text)`` streams the run into a :class:`ChatView` shown in the current cell. When
the run ends on interrupts, a card asks for a decision; the same coroutine awaits it, sends the
resume on the same thread and keeps streaming, so the question, the click, the continuation and
the final answer all stay in the one cell. Who decides, in order:

1. "always allow <tool>" rules chosen on earlier cards in this chat;
2. the chat's policy (``agent.chat(policy=...)`` or ``AGUI_NOTEBOOK_POLICY``);
3. a person, clicking on the card; the wait ends at ``timeout`` with ``on_timeout``.

A decision goes out once: the card leaves "pending" on the loop thread before the resume is sent,
so a second click, a second view or a late click gets a refusal ack, and a thread never has two
runs in flight (ThreadBusy). A click that comes after the card was decided (by a timeout, a
policy, another view) is never silent: its ack says what happened, in words the card shows, and
the audit keeps it. A failed resume leaves the interrupts pending (see _thread.py); the card
shows the error and a Retry that re-sends the same decision.

Where a click cannot reach a running cell (marimo; ipykernel < 7.4), ``send()`` returns with the
interrupts pending and the card live; the click resumes the thread in the background and the same
output updates (docs/front-ends.md). Where nothing can show a card and no policy is set,
``send()`` raises :class:`NobodyCanClick` instead of waiting.

Chat is composed of collaborators, each with its own state and module: the ``streamer``
streams a run into a view, the ``deck`` keeps the cards and their audit records, the ``decider``
decides them (rules, policy, a person's click) and sends each decision once, ``surfaces`` takes
A2UI actions; ``result`` holds the result, ``texts`` the words the chat shows. The notebook around it is
its ``host`` (``_notebook.host``). This module holds the turn, the waits, restored threads and the
views.
"""

from __future__ import annotations

import asyncio
import uuid
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from .._decisions.audit import current_user
from .._decisions.decided_by import DecidedBy
from .._decisions.decision import Decision, Decisions, build_resume
from .._decisions.identity import person_from_header
from .._decisions.interrupts import PendingInterrupt
from .._decisions.quorum import Approvals
from .._errors import InterruptReissued, NobodyCanClick, RunAborted
from .._notebook.host import (
    CellRun,
    Host,
    KernelSupport,
    call_in_loop,
    click_header,
    default_host,
    display_names,
    header_attested,
)
from .._state.a2ui import SurfaceAction
from .._state.items import ItemList
from .._thread import RunResult, Thread
from .._view.transcript import audit_head_line, audit_line
from .._view.widget import (
    A2UIActionMessage,
    A2UIRetryMessage,
    ChatView,
    DecideMessage,
    PreviewMessage,
    RetryMessage,
)
from ..policies import Policy, from_env
from .cards import Card, CardDeck, subjects
from .decider import Decider
from .informed import Informed
from .previews import Hook
from .result import ChatResult, chat_result
from .rules import ChatRules, TimeoutDefault
from .streamer import Streamer
from .surfaces import MAX_FOLLOW_UPS, SurfaceActions
from .texts import PAST_TENSE
from .texts import background_note as background_note  # its home before the split
from .texts import late_click_text as late_click_text  # its home before the split

__all__ = ["Chat", "ChatResult", "InterruptReissued"]


class Chat:
    """A thread with a live view in the notebook.

    >>> chat = agent.chat()                                   # doctest: +SKIP
    >>> await chat.send("Transfer $500 from 1234567890 to 0987654321")   # doctest: +SKIP

    ``policy`` decides without a person (see :mod:`agui_notebook.policies`); by default the
    ``AGUI_NOTEBOOK_POLICY`` environment variable's, else a person. ``timeout`` bounds every wait
    for a person (seconds); then ``on_timeout`` ("cancel" or "reject") applies, and says so.
    ``host`` is the notebook around the chat (by default the one this process runs in).
    ``approvals`` is how many different people must approve the same arguments before an
    approval is sent (a policy or an "always allow" rule counts as one; a Reject or Cancel by
    anyone decides at once); per tool, ``approvals={"transfer_*": 2}`` (tool-name globs; a card
    needs the most any of its tools needs, other tools 1).
    ``previews``, ``checks`` and ``verify`` (by tool-name glob; also ``@chat.preview(glob)``,
    ``@chat.check(glob)``, ``@chat.verify(glob)``) run in this kernel for each card: see
    docs/previews.md. A failing check refuses an approval unless a person approves anyway.
    """

    def __init__(
        self,
        thread: Thread,
        *,
        policy: Policy | None = None,
        timeout: float = 600.0,
        on_timeout: TimeoutDefault = "cancel",
        display: bool = True,
        host: Host | None = None,
        approvals: Approvals = 1,
        previews: Mapping[str, Hook] | None = None,
        checks: Mapping[str, Hook] | None = None,
        verify: Mapping[str, Hook] | None = None,
    ) -> None:
        self.thread = thread
        self.rules = ChatRules(
            policy if policy is not None else from_env(), timeout, on_timeout, approvals=approvals
        )
        self.display = display
        self.host: Host = host if host is not None else default_host()
        self.streamer = Streamer()
        self.deck = CardDeck(thread, self.rules, self.streamer)
        informed = self.deck.informed = Informed(self.deck, previews, checks, verify)
        self.preview, self.check = informed.previews.decorator, informed.checks.decorator
        self.verify = informed.verifiers.decorator
        #: Actions on A2UI surfaces (clicks, policies, code), each sent once.
        self.surfaces = SurfaceActions(self.deck, self)
        self.decider = Decider(self.deck, self.host, self.surfaces)
        self.views: list[ChatView] = []
        #: The loop the chat's turns run on (clicks are handed to it); None before the first.
        self._loop: asyncio.AbstractEventLoop | None = None
        self._view_cell: CellRun | None = None
        #: A turn continuing after its cell returned (marimo, kernels older than ipykernel 7.4,
        #: a surface action taken after the cell's turn ended, a restored thread's cards).
        self.background: asyncio.Future[Any] | None = None
        self._last: ChatResult | None = None  # the latest turn's final result
        self._restored: Card | None = None
        self._shown: set[int] = set()  # views on screen (ids), so none is shown twice
        #: Views whose display is updated when the running cell ends (ids).
        self._display_due: set[int] = set()
        journal = thread.journal
        if thread.runs and journal is not None and hasattr(journal, "chat_audit"):
            self.deck.audit = journal.chat_audit(thread)  # decisions kept from earlier sessions
        if thread.pending:
            self._show_restored()

    # -- the rules and the audit, as a chat's own attributes -------------------------------

    @property
    def policy(self) -> Policy | None:
        return self.rules.policy

    @policy.setter
    def policy(self, policy: Policy | None) -> None:
        self.rules.policy = policy

    @property
    def timeout(self) -> float:
        return self.rules.timeout

    @timeout.setter
    def timeout(self, seconds: float) -> None:
        self.rules.timeout = seconds

    @property
    def on_timeout(self) -> TimeoutDefault:
        return self.rules.on_timeout

    @on_timeout.setter
    def on_timeout(self, default: TimeoutDefault) -> None:
        if default not in ("cancel", "reject"):
            raise ValueError("on_timeout must be 'cancel' or 'reject'")
        self.rules.on_timeout = default

    @property
    def always_allow(self) -> set[str]:
        """Tools a person chose to always allow in this chat."""
        return self.rules.always_allow

    @property
    def audit(self) -> list[dict[str, Any]]:
        """Every decision taken in this chat, as plain records."""
        return self.deck.audit

    def __repr__(self) -> str:
        policy = f", policy={self.policy.name!r}" if self.policy else ""
        return f"Chat(turns={len(self.views)}{policy})"

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        if not self.views:
            # `chat` as a cell's result shows the view that this cell's send() will fill.
            self._new_view(show=False)
            self._view_cell = self.host.current_cell()
        self._shown.add(id(self.views[-1]))
        return self.views[-1]._repr_mimebundle_(**kwargs)

    @property
    def view(self) -> ChatView | None:
        """The view of the latest turn."""
        return self.views[-1] if self.views else None

    # -- the turn -------------------------------------------------------------------------

    async def send(self, message: Any, **options: Any) -> ChatResult:
        """Send ``message``, answer interrupts as they come, and return the final result."""
        self._loop = asyncio.get_running_loop()
        view = self._view_for_this_cell()
        with self._turn(view):
            items: ItemList = view.item_list
            if isinstance(message, str):
                items.add_user(message)
            self.deck.informed.say_declared(items)  # what the server's capabilities mean
            start = len(self.deck.audit)
            self.surfaces.begin_turn(view)  # a surface click made during this turn continues in it
            try:
                result = await self.streamer.stream(view, self.thread.stream(message, **options))
            except BaseException:
                self.surfaces.end_turn(view)
                raise
            if result.outcome == "interrupt" and self._needs_background(result.interrupts):
                # A click reaches Python only once this cell ends: return now and let the card's
                # decision resume the thread in the background (docs/front-ends.md).
                self.background = asyncio.ensure_future(self._background(view, result, start))
                self._update_display(view)  # the cell ends here: its output says the card waits
                return self._result(result, start)
            final = await self._finish(view, result, start, in_cell=True)
            self.background = (
                None  # an earlier turn in the background has ended: this one is latest
            )
            return final

    async def _background(self, view: ChatView, result: RunResult, start: int) -> ChatResult:
        with self._turn(view):
            return await self._finish(view, result, start)

    async def _finish(
        self, view: ChatView, result: RunResult, start: int, *, in_cell: bool = False
    ) -> ChatResult:
        """Answer interrupts and take surface actions until the turn rests; then end it.

        ``in_cell``: the turn is the running cell's own (``send()``), so its display is updated
        once, when the cell ends (:meth:`_update_display_when_cell_ends`)."""
        try:
            for _ in range(MAX_FOLLOW_UPS + 1):
                while result.outcome == "interrupt":
                    result = await self.decider.settle(view, result.interrupts)
                follow = await self.surfaces.next_action(view)
                if follow is None:
                    break
                result = follow
            else:
                raise RuntimeError(
                    f"more than {MAX_FOLLOW_UPS} surface actions in one turn; stopping "
                    "(does the policy answer a form the agent keeps showing?)"
                )
        finally:
            self.surfaces.end_turn(view)
        view.status = "idle"
        view.outcome = result.outcome
        if in_cell:
            self._update_display_when_cell_ends(view)
        else:
            self._update_display(view)
        final = self._result(result, start)
        if final.timed_out:
            warnings.warn(final.warnings[-1], UserWarning, stacklevel=2)
        self._last = final
        return final

    def _result(self, result: RunResult, start: int) -> ChatResult:
        decisions = self.deck.audit[start:]
        deciders = [r["decidedBy"] for r in decisions if not r.get("late")]
        timeouts = [r for r in decisions if DecidedBy.from_text(r["decidedBy"]).kind == "timeout"]
        turn_warnings = result.warnings
        if timeouts:
            verb = PAST_TENSE.get(self.on_timeout, self.on_timeout)
            names = ", ".join(
                dict.fromkeys(r.get("tool") or r.get("reason") or "?" for r in timeouts)
            )
            turn_warnings = [
                *result.warnings,
                f"nobody decided within {self.timeout:g} s: the timeout {verb} {names}, "
                "so it was not done",
            ]
        return chat_result(
            result,
            warnings=turn_warnings,
            decisions=decisions,
            decided_by=deciders[-1] if deciders else None,
            timed_out=bool(timeouts),
        )

    def _needs_background(self, interrupts: list[PendingInterrupt]) -> bool:
        """A person must decide, and a click cannot reach this cell while it runs."""
        support = self.host.support()
        if not support.in_kernel or support.can_wait or self.policy is not None:
            return False
        return not all(i.tool_name in self.rules.always_allow for i in interrupts)

    async def wait(self) -> ChatResult | None:
        """The latest turn's final result; waits for a turn continuing in the background (marimo,
        kernels older than ipykernel 7.4, a surface action taken after its cell returned, a
        restored thread's pending cards).

        Where a click cannot reach a running cell (marimo, ipykernel < 7.4), waiting here while a
        card still needs your click would hold that click back until the timeout: that raises
        :class:`NobodyCanClick` at once instead. Decide on the card, then run this again.
        """
        if self._restored is not None:
            # On screen before waiting: in the cell that made the chat, the view would otherwise
            # appear only when the cell ends, and nobody could click the card it waits for.
            self._show_restored_view()
            if self.background is None:
                self._start_restored(asyncio.get_running_loop())
        task = self.background
        if task is None:
            return self._last
        support = self.host.support()
        if support.in_kernel and not support.can_wait:
            asking_since: float | None = None
            loop = asyncio.get_running_loop()
            while not task.done():
                asking = self.deck.asking()
                if asking is None:
                    asking_since = None
                elif asking_since is None:
                    asking_since = loop.time()
                elif loop.time() - asking_since > _CLICK_IN_FLIGHT:
                    raise self._held_back(asking, support)
                await asyncio.wait({task}, timeout=0.05)
        final: ChatResult | None = await task
        return final

    def _held_back(self, card: Card, support: KernelSupport) -> NobodyCanClick:
        where = (
            "in marimo a click reaches Python only when no cell is running"
            if support.kind == "marimo"
            else f"this kernel ({support.detail}) delivers a click only when no cell is running"
        )
        return NobodyCanClick(
            f"{card.id} ({subjects(card)}) still waits for your decision, and {where}: "
            "waiting here would hold your click back until the timeout. Decide on the card "
            "first, then run this cell again (the decision resumes the run on its own)."
        )

    # -- a restored thread's pending interrupts --------------------------------------------

    def _show_restored(self) -> None:
        """Cards for the interrupts a restored thread still waits on; a decision resumes it."""
        view = self._new_view(show=False)
        self._view_cell = self.host.current_cell()
        view.item_list.add_notice(
            f"Restored from the store: {len(self.thread.pending)} decision(s) pending."
        )
        self.streamer.push(
            view, self.thread.state, force=True
        )  # the state panel shows where it stood
        calls = self.thread.tool_calls
        for interrupt in self.thread.pending:
            call = calls.get(interrupt.tool_call_id or "")
            if call is not None:
                view.item_list.add_tool_call(call.id, call.name, call.arguments_text)
        self._restored = self.deck.new_card(view, self.thread.pending)
        if self.display and not self.host.after_this_cell(self._show_restored_view):
            self._show_restored_view()  # no IPython cell to wait for (marimo): show it now
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop yet (a script): wait() starts it
            return
        self._start_restored(loop)

    def _show_restored_view(self) -> None:
        """Display the restored view once, unless the cell's result already showed it."""
        view = self.views[0] if self.views else None
        if view is None or id(view) in self._shown or not self.display:
            return
        # With a display id, so the resumed turn's end updates its text forms in place.
        display_id = f"agui-chat-{uuid.uuid4().hex}"
        if self.host.show(view, display_id=display_id):
            self._shown.add(id(view))
            view.display_id, view.display_cell = display_id, self.host.current_cell()

    def _start_restored(self, loop: asyncio.AbstractEventLoop) -> None:
        card = self._restored
        if card is None or self.background is not None:
            return
        self._loop = loop
        self.background = asyncio.ensure_future(self._finish_restored(card))

    async def _finish_restored(self, card: Card) -> ChatResult:
        with self._turn(card.view):
            start = len(self.deck.audit)
            result = await self.decider.settle(card.view, card.interrupts, card=card)
            return await self._finish(card.view, result, start)  # further interrupts, the result

    # -- views ----------------------------------------------------------------------------

    def _view_for_this_cell(self) -> ChatView:
        cell = self.host.current_cell()
        if self.views and (cell is None or cell == self._view_cell):
            return self.views[-1]
        view = self._new_view(show=self.display)
        self._view_cell = cell
        return view

    def _new_view(self, *, show: bool) -> ChatView:
        view = ChatView(on_message=self._on_front_message)
        self.views.append(view)
        if show:
            # With a display id, so the turn's end can update the text forms in place.
            view.display_id = f"agui-chat-{uuid.uuid4().hex}"
            if self.host.show(view, display_id=view.display_id):
                view.display_cell = self.host.current_cell()
            else:
                view.display_id = None
        return view

    def _show_here(self, view: ChatView) -> None:
        """Show ``view`` again in this cell when it was shown in an earlier one.

        A turn that streams into an earlier cell's view (``chat.act``) ends here: its final
        text forms belong to this cell's output. The earlier output keeps the text of its own
        turn (what nbval compared when that cell ran); the widget is live in both.
        """
        cell = self.host.current_cell()
        if view.display_id is None or cell is None or cell == view.display_cell:
            return
        display_id = f"agui-chat-{uuid.uuid4().hex}"
        if self.host.show(view, display_id=display_id):
            view.display_id, view.display_cell = display_id, cell

    # -- conveniences ---------------------------------------------------------------------

    def allow_always(self, tool_name: str) -> None:
        """Approve ``tool_name``'s interrupts in this chat without asking (what the card's
        "Always allow" box does); cards it decides say "rule: always allow <tool>"."""
        self.rules.always_allow.add(tool_name)

    def audit_text(self) -> str:
        """The audit log as text lines (no times, no ids), each decision followed by the
        store's chain head once it was written (``  audit head SEQ:HASH``) when there is a
        store: a head to publish, for ``agui-notebook audit verify --head``."""
        lines = []
        for record in self.deck.audit:
            lines.append(audit_line(record))
            head = audit_head_line(record)
            if head is not None:
                lines.append(head)
        return "\n".join(lines)

    async def act(
        self,
        name: str | SurfaceAction | None = None,
        values: dict[str, Any] | None = None,
        *,
        surface: str | None = None,
    ) -> ChatResult:
        """Take an action on a shown A2UI surface in code, as a person's click would: type
        ``values`` (``{"/json/pointer": value}``) into its data model, press the button whose
        action is ``name``, and stream the run that carries it into the surface's view.

        >>> await chat.act("submit_transfer", {"/transfer/amount": 250})   # doctest: +SKIP
        """
        self._loop = asyncio.get_running_loop()
        spec = (
            name
            if isinstance(name, SurfaceAction)
            else SurfaceAction(name, dict(values or {}), surface)
        )
        action = self.surfaces.reserve_in_code(self.views, spec)
        view = action.view
        self._show_here(view)
        with self._turn(view):
            start = len(self.deck.audit) - 1
            self.surfaces.begin_turn(view)
            try:
                result = await self.surfaces.run(action)
            except BaseException:
                self.surfaces.end_turn(view)
                raise
            if result is None:
                self.surfaces.end_turn(view)
                raise RuntimeError(
                    "the action was not sent: the thread waits for answers to its interrupts"
                )
            return await self._finish(view, result, start)

    async def resume(self, decisions: Decisions) -> ChatResult:
        """Answer the thread's pending interrupts in code, streaming into the latest view."""
        self._loop = asyncio.get_running_loop()
        pending = self.thread.pending
        build_resume(pending, decisions)  # refuse before showing anything
        by_id: dict[str, Decision] = (
            {pending[0].id: decisions} if isinstance(decisions, Decision) else dict(decisions)
        )
        view = self._view_for_this_cell()
        with self._turn(view):
            card = self.deck.new_card(view, pending)
            start = len(self.deck.audit)
            you = DecidedBy.you()  # code decides, as the kernel's user
            self.deck.record_decisions(card, by_id, you)
            await self.deck.informed.before_send(card, by_id, you, enforce=False)
            run = self.thread.stream(resume=decisions)
            run.decided_by = you.text
            self.deck.informed.attach(card, run)
            result = await self.streamer.stream(view, run)
            self.deck.informed.finished(card)
            self.deck.set_outcome(card, result.outcome)
            self.deck.state(card, status="done", error=None)
            while result.outcome == "interrupt":
                result = await self.decider.settle(view, result.interrupts)
            view.status = "idle"
            view.outcome = result.outcome
            self._update_display(view)
            return chat_result(result, decisions=self.deck.audit[start:])

    # -- messages from the front end ------------------------------------------------------

    def _on_front_message(
        self,
        view: ChatView,
        message: DecideMessage
        | RetryMessage
        | A2UIActionMessage
        | A2UIRetryMessage
        | PreviewMessage,
    ) -> None:
        """A click (any thread): handed to the loop the chat's turns run on, to the decider."""
        loop = self._loop
        if loop is None:
            view.ack(message.requestId, accepted=False, error="nothing is waiting for a decision")
            return
        if isinstance(message, PreviewMessage):  # edited arguments to preview and check
            call_in_loop(loop, self.deck.informed.handle_preview, view, message)
            return
        # Read now, on the thread handling the comm message: its parent header is this click's.
        clicker = person_from_header(
            click_header(self.host),
            kernel_user=current_user(),
            display_names=display_names(),
            attested=header_attested(self.host),
        )
        call_in_loop(loop, self.decider.handle, view, message, clicker)

    # -- the display of a turn ------------------------------------------------------------

    @contextmanager
    def _turn(self, view: ChatView) -> Iterator[None]:
        """A turn on ``view``: how it ended when it fails, and its display brought up to date then.

        The display's text/plain and text/html are what a saved notebook, nbconvert and nbval see,
        so they must be the final state, not the first frame (the widget itself updates live). A
        turn that ends well updates it in ``_finish``, whichever way it got there (a cell, a
        click after the cell, ``chat.act``).
        """
        view.outcome = None
        try:
            yield
        except (asyncio.CancelledError, RunAborted):
            view.outcome = "aborted"
            self._update_display(view)
            raise
        except Exception:
            view.outcome = "error"
            self._update_display(view)
            raise

    def _update_display_when_cell_ends(self, view: ChatView) -> None:
        """Update ``view``'s display once, when the running cell ends (now where no cell can say).

        A cell looping over turns in one view would otherwise re-send the whole transcript's text
        forms after every turn, and each re-sent display makes JupyterLab build a new view of the
        widget (all its items) while the old one stays subscribed: O(turns) views, each redrawn on
        every push. The text forms only matter once the cell is done (a saved notebook, nbval).
        """
        if view.display_id is None or id(view) in self._display_due:
            return
        self._display_due.add(id(view))

        def update() -> None:
            self._display_due.discard(id(view))
            self._update_display(view)

        if not self.host.after_this_cell(update):
            update()

    def _update_display(self, view: ChatView) -> None:
        """Re-send the view's display (the output its display id names): new text forms, same
        widget."""
        if view.display_id is not None:
            self.host.update_shown(view, view.display_id)


#: How long a click already on its way (handed to the loop) may take to be handled.
_CLICK_IN_FLIGHT = 0.3
