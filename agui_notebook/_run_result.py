"""What a run leaves: its result, its record, and the thread it commits (pure, no I/O).

A :class:`RunRecord` is kept for every request on a thread, whatever became of it; a
:class:`RunResult` only for a run that closed with RUN_FINISHED. :func:`settle` turns such a run
into what its thread holds next (:class:`CommittedThread`) and its result: the interrupts it
raised, told apart from one the last resume answered and the server raised again.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from ag_ui.core import AssistantMessage, ReasoningMessage
from pydantic import BaseModel

from ._decisions.interrupts import PendingInterrupt
from ._errors import AGUIError
from ._frameworks import registry
from ._state.feed import KeptEvents
from ._state.reducer import RunReducer, ThreadSnapshot

__all__ = [
    "CommittedThread",
    "Outcome",
    "RunRecord",
    "RunResult",
    "delivered_text",
    "settle",
]

Outcome = Literal["success", "interrupt", "cancelled"]


@dataclass(frozen=True)
class RunResult:
    """How a run ended and what it produced."""

    outcome: Outcome
    thread_id: str
    run_id: str
    #: Interrupts this run raised (empty unless ``outcome == "interrupt"``).
    interrupts: list[PendingInterrupt]
    #: Messages this run created or changed, in thread order (ag_ui.core message models).
    messages: list[Any]
    state: Any
    warnings: list[str]
    pending_tool_call_ids: list[str] = field(default_factory=list)
    result: Any = None
    #: Token usage the server reported on RUN_FINISHED (``ag_ui.core`` TokenUsage models, one
    #: per provider and model; an absent count is unknown, not zero).
    usage: list[Any] = field(default_factory=list)
    #: RUN_FINISHED's own ``metadata`` (finish reasons, latencies...), when the server sent it.
    run_metadata: dict[str, Any] | None = None
    _kept: KeptEvents = field(default_factory=KeptEvents, repr=False, compare=False)

    @property
    def events(self) -> list[BaseModel]:
        """Verified events of this run, in order (see ``Agent(max_events_kept=...)``)."""
        return self._kept.models()

    @property
    def text(self) -> str:
        """The assistant text this run produced (its assistant messages joined by blank lines)."""
        parts = [
            m.content
            for m in self.messages
            if isinstance(m, AssistantMessage) and isinstance(m.content, str) and m.content
        ]
        return "\n\n".join(parts)

    def __repr__(self) -> str:
        extra = ""
        if self.interrupts:
            names = ", ".join(f"{i.tool_name or i.reason}" for i in self.interrupts)
            extra = f", interrupts=[{names}]"
        text = self.text
        if text:
            extra += f", text={text[:200] + ('...' if len(text) > 200 else '')!r}"
        return f"{type(self).__name__}(outcome={self.outcome!r}{extra})"


@dataclass
class RunRecord:
    """One request on the thread: what was sent, how it ended, what arrived."""

    run_id: str
    kind: Literal["run", "resume"]
    parent_run_id: str | None
    started_at: datetime
    status: str = "running"  # running|success|interrupt|cancelled|failed|truncated|aborted
    finished_at: datetime | None = None
    resume: list[dict[str, Any]] = field(default_factory=list)
    error: AGUIError | None = None
    event_count: int = 0
    warnings: list[str] = field(default_factory=list)
    #: Messages the run delivered, kept even when the run failed (they were not committed).
    delivered: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class CommittedThread:
    """What a thread holds between runs, as its last committed run left it: what a store writes
    after each commit and gives back to a new ``Thread`` (``Thread.restore``).

    ``Thread.committed`` is a view: its objects are the thread's own, to read, never change.
    """

    #: Messages, tool calls, state and subagents.
    snapshot: ThreadSnapshot
    #: Interrupts waiting for an answer.
    pending: list[PendingInterrupt]
    #: The last committed run's id: the next request's ``parentRunId``.
    last_run_id: str | None
    #: The interrupts the last resume answered, by id (so one raised again is recognised).
    answered: dict[str, PendingInterrupt]


def settle(
    before: CommittedThread,
    reducer: RunReducer,
    record: RunRecord,
    *,
    thread_id: str,
    run_id: str,
    answered_ids: Collection[str],
    sent_ids: Collection[Any],
    kept: KeptEvents,
) -> tuple[CommittedThread, RunResult]:
    """A run that closed with RUN_FINISHED, on top of ``before``: what the thread holds next, and
    the run's result. ``answered_ids``: the interrupts a resume answered; ``sent_ids``: the
    messages the request carried (the input, not the result). Notes on ``record`` what was
    raised again, and its outcome."""
    answered_now = set(answered_ids)
    answered = {
        **before.answered,
        **{p.id: p for p in before.pending if p.id in answered_now},
    }
    # Raised again by the resume that answered it (or by a later run): a server bug to
    # surface, not an interrupt to answer the same way in a loop.
    reissued_ids = {
        i.id
        for i in reducer.interrupts
        if i.id in answered
        and registry.is_same_interrupt(
            answered[i.id].raw, i.model_dump(by_alias=True, exclude_none=True)
        )
    }
    last_run_id = reducer.run_id or run_id
    pending = [
        PendingInterrupt.from_wire(
            i,
            run_id=last_run_id,
            tool_calls=reducer.tool_calls,
            reissued=i.id in reissued_ids,
            subagents=reducer.subagents,
        )
        for i in reducer.interrupts
    ]
    for interrupt in pending:
        if interrupt.reissued:
            record.warnings.append(
                f"the server raised interrupt {interrupt.id} again after it was answered; "
                "answering it the same way may loop (a known server bug with mixed decisions)"
            )
    after = CommittedThread(
        snapshot=reducer.snapshot(),
        pending=pending,
        last_run_id=last_run_id,
        answered=(
            {i: answered[i] for i in answered_now if i in answered}
            if answered_now
            else before.answered
        ),
    )
    outcome: Outcome = "success"
    if reducer.outcome == "interrupt":
        outcome = "interrupt"
    elif reducer.outcome == "cancelled":
        outcome = "cancelled"
    record.status = outcome
    messages = after.snapshot.messages
    result = RunResult(
        outcome=outcome,
        thread_id=thread_id,
        run_id=last_run_id,
        interrupts=pending,
        messages=[messages[m] for m in reducer.touched if m in messages and m not in sent_ids],
        state=after.snapshot.state,
        warnings=list(record.warnings),
        pending_tool_call_ids=reducer.pending_tool_call_ids,
        result=reducer.result,
        usage=reducer.usage,
        run_metadata=reducer.run_metadata,
        _kept=kept,
    )
    return after, result


def delivered_text(record: RunRecord) -> str:
    """The assistant text a (possibly failed) run delivered."""
    return "\n\n".join(
        m.content
        for m in record.delivered
        if isinstance(m, AssistantMessage | ReasoningMessage) and isinstance(m.content, str)
    )
