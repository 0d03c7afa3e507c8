"""Actions on A2UI surfaces: a person's click, a policy's or code's action, sent exactly once.

A surface's action goes back to the agent as a new run on the same thread whose
``forwardedProps.a2uiAction.userAction`` is ``{name, surfaceId, sourceComponentId, timestamp,
context}`` (AG-UI's a2ui middleware), and the run streams into the view that shows the surface.

Exactly once, as for a card's decision: each surface has an action state (``idle``, ``sending``,
``done``, ``failed``) and a sequence number counting the actions taken on it, both changed here on
the loop thread before anything is sent. A click is accepted only while the surface is not
sending and only if it was made against the current sequence number, so a double click, a click
in a second view of the same surface, or a click racing a policy's action gets a refusal ack and
the agent sees one run. A click that arrives while the cell's turn is still running waits for the
turn and continues in the cell; a later one continues in the background (``await chat.wait()``).
Every action lands in the chat's audit, with how its run ended.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Protocol

from .._decisions.decided_by import DecidedBy
from .._errors import AGUIError
from .._state.a2ui import SurfaceAction, action_problem, forwarded_props
from .._state.items import ItemList
from .._thread import RunResult
from .._view.widget import A2UIActionMessage, A2UIRetryMessage, ChatView
from .cards import CardDeck

__all__ = ["MAX_FOLLOW_UPS", "SurfaceActions", "Turns"]

#: Surface actions a single turn may chain (a policy answering forms the agent keeps showing).
MAX_FOLLOW_UPS = 20


class Turns(Protocol):
    """What the chat lends its surface actions: its background turn, and ending a turn."""

    background: Any

    async def _finish(self, view: ChatView, result: RunResult, start: int) -> Any: ...


@dataclass
class _Action:
    key: str
    view: ChatView
    surface_id: str
    user_action: dict[str, Any]
    decided_by: str


class SurfaceActions:
    """The surface actions of one chat."""

    def __init__(self, deck: CardDeck, turns: Turns) -> None:
        #: The chat's deck: its thread, rules and streamer, and the audit actions land in.
        self.deck = deck
        self.turns = turns
        self._queued: dict[int, list[_Action]] = {}
        self._in_turn: set[int] = set()
        self._last: dict[tuple[int, str], _Action] = {}
        self._asked: dict[tuple[int, str], int] = {}
        self._count = 0

    # -- the turn in the cell -------------------------------------------------------------

    def begin_turn(self, view: ChatView) -> None:
        self._in_turn.add(id(view))

    def end_turn(self, view: ChatView) -> None:
        """The turn is over: actions still queued for it continue in the background."""
        self._in_turn.discard(id(view))
        for action in self._queued.pop(id(view), []):
            self._start_background(action)

    async def next_action(self, view: ChatView) -> RunResult | None:
        """The run of the next action in this turn: a click made during it, else the policy's."""
        queued = self._queued.get(id(view))
        if queued:
            try:
                return await self._run(queued.pop(0))
            except AGUIError:
                return None  # a person's action: the surface says it failed and offers Retry
        return await self._policy_action(view)

    # -- messages from the front end (on the loop thread) ----------------------------------

    def handle(self, view: ChatView, message: A2UIActionMessage | A2UIRetryMessage) -> None:
        genui = view.item_list.genui
        sid = message.surfaceId
        state = genui.actions.get(sid) or {"status": "idle", "seq": 0}
        if state["status"] == "sending":
            view.ack(
                message.requestId, accepted=False, error="an action from this surface is being sent"
            )
            return
        if message.seq != state["seq"]:
            view.ack(
                message.requestId,
                accepted=False,
                error="another action was taken on this surface since this click; nothing was sent",
            )
            return
        if isinstance(message, A2UIRetryMessage):
            last = self._last.get((id(view), sid))
            if state["status"] != "failed" or last is None:
                view.ack(message.requestId, accepted=False, error="nothing to retry")
                return
            action = self._reserve(view, sid, last.user_action, DecidedBy.you(), key=last.key)
        else:
            user_action = message.action.model_dump()
            problem = (
                "the action names another surface"
                if user_action["surfaceId"] != sid
                else action_problem(genui.surface(sid), user_action)
            )
            if problem:
                view.ack(message.requestId, accepted=False, error=problem)
                return
            action = self._reserve(view, sid, user_action, DecidedBy.you())
        view.ack(message.requestId, accepted=True)
        if id(view) in self._in_turn:
            self._queued.setdefault(id(view), []).append(action)
        else:
            self._start_background(action)

    # -- code ------------------------------------------------------------------------------

    def reserve_in_code(self, views: list[ChatView], spec: SurfaceAction) -> _Action:
        """Pick the surface ``spec`` is for (the newest with actions unless named) and reserve."""
        for view in reversed(views):
            genui = view.item_list.genui
            for surface in reversed(genui.surfaces()):
                if spec.surface not in (None, surface.id) or not surface.action_components():
                    continue
                if (genui.actions.get(surface.id) or {}).get("status") == "sending":
                    raise RuntimeError(f"an action on surface {surface.id!r} is being sent")
                user_action = spec.user_action(surface)
                return self._reserve(view, surface.id, user_action, DecidedBy.you())
        where = f"surface {spec.surface!r}" if spec.surface else "a surface with actions"
        raise LookupError(f"no {where} is shown in this chat")

    async def run(self, action: _Action) -> RunResult | None:
        return await self._run(action)

    # -- internals ------------------------------------------------------------------------

    async def _policy_action(self, view: ChatView) -> RunResult | None:
        policy = self.deck.rules.policy
        act = getattr(policy, "act", None)
        if policy is None or not callable(act):
            return None
        genui = view.item_list.genui
        for surface in genui.surfaces():
            if not surface.action_components():
                continue
            key = (id(view), surface.id)
            size = len(genui.operations(surface.id))
            if self._asked.get(key) == size:
                continue  # asked about this surface as it stands already
            self._asked[key] = size
            if (genui.actions.get(surface.id) or {}).get("status") == "sending":
                continue
            spec = act(surface)
            if spec is None:
                continue
            user_action = spec.user_action(surface)
            return await self._run(
                self._reserve(view, surface.id, user_action, DecidedBy.policy(policy.name))
            )
        return None

    def _reserve(
        self,
        view: ChatView,
        sid: str,
        user_action: dict[str, Any],
        by: DecidedBy,
        *,
        key: str | None = None,
    ) -> _Action:
        """Take the surface's next action slot now (before any await) and audit it."""
        decided_by = by.text
        items: ItemList = view.item_list
        state = items.genui.actions.get(sid) or {"seq": 0}
        items.genui.set_action(
            sid,
            items.put,
            status="sending",
            seq=int(state.get("seq") or 0) + 1,
            name=user_action.get("name"),
            decidedBy=decided_by,
            outcome=None,
            error=None,
        )
        if key is None:
            self._count += 1
            key = f"surface:{sid}#{self._count}"
        action = _Action(key, view, sid, user_action, decided_by)
        self._last[(id(view), sid)] = action
        self.deck.audit_views[key] = view
        record = {
            "card": key,
            "interrupt": None,
            "tool": None,
            "reason": "a2ui_action",
            "action": user_action.get("name"),
            "surface": sid,
            "arguments": user_action.get("context"),
            "decision": "act",
            "payload": user_action,
            "decidedBy": decided_by,
            "decidedAt": datetime.now(timezone.utc).isoformat(),
            "outcome": None,
        }
        deck = self.deck
        deck.audit[:] = [r for r in deck.audit if r["card"] != key]
        deck.audit.append(record)
        deck.sync_audit(view)
        self.deck.streamer.push(view, view.state, force=True)
        return action

    async def _run(self, action: _Action) -> RunResult | None:
        view, sid = action.view, action.surface_id
        thread = self.deck.thread
        while thread.busy:  # another run on this thread (a cell still streaming): go after it
            await asyncio.sleep(0.02)
        if thread.pending:
            self._settle(action, "failed", error="the thread waits for answers to its interrupts")
            self._outcome(action, "not sent: interrupts pending")
            return None
        surface = view.item_list.genui.surface(sid)
        props = forwarded_props(action.user_action, surface)
        try:
            result = await self.deck.streamer.stream(
                view, thread.stream(None, forwarded_props=props)
            )
        except AGUIError as exc:
            self._settle(action, "failed", error=f"{type(exc).__name__}: {exc}")
            self._outcome(action, f"failed: {type(exc).__name__}")
            raise
        self._settle(action, "done", outcome=result.outcome)
        self._outcome(action, result.outcome)
        return result

    def _settle(self, action: _Action, status: str, **changes: Any) -> None:
        items: ItemList = action.view.item_list
        items.genui.set_action(action.surface_id, items.put, status=status, **changes)
        self.deck.streamer.push(action.view, action.view.state, force=True)

    def _outcome(self, action: _Action, outcome: str) -> None:
        for record in self.deck.audit:
            if record["card"] == action.key:
                record["outcome"] = outcome
        self.deck.sync_audit(action.view)

    def _start_background(self, action: _Action) -> None:
        self.turns.background = asyncio.ensure_future(self._background(action))

    async def _background(self, action: _Action) -> Any:
        """A click after the cell's turn: run it here, then finish the turn it starts."""
        view = action.view
        self.begin_turn(view)
        start = len(self.deck.audit) - 1
        try:
            result = await self._run(action)
        except AGUIError:
            result = None
        if result is None:
            self.end_turn(view)
            return None
        return await self.turns._finish(view, result, start)
