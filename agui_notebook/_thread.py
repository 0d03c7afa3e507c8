"""Thread: one AG-UI thread, its runs and resumes, committed only when a run ends cleanly.

A :class:`RunStream` is one request on the thread: it builds the run's pipeline (event parser ->
order verifier -> reducer) on top of the thread's committed snapshot and has it read off the
transport (``_run_loop``). Only when the run closes with RUN_FINISHED does its reducer become the
thread's new snapshot (``_run_result.settle``). An HTTP error, a dropped connection, a malformed
stream, RUN_ERROR or an abort discard the reducer, so the thread, its messages and its pending
interrupts are exactly as before and the same request (the same decision) can be re-sent. What
the failed run delivered stays readable on its :class:`RunRecord`.

The seams: :class:`Endpoint` (what a thread needs of its agent), :class:`RunJournal` (told about
each committed run: the store), and :class:`CommittedThread` (what a journal reads after a commit,
:attr:`Thread.committed`, and gives back to a new thread, :meth:`Thread.restore`).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Mapping
from contextlib import aclosing
from datetime import datetime, timezone
from types import TracebackType
from typing import Any, Protocol

from ag_ui.core import ResumeEntry
from pydantic import BaseModel

from ._decisions.decision import Decision, Decisions, build_resume, check_decisions
from ._decisions.evidence import Evidence
from ._decisions.identity import Person
from ._decisions.interrupts import PendingInterrupt
from ._errors import (
    AGUIError,
    ConnectError,
    ProtocolError,
    RunAborted,
    ThreadBusy,
    TransportError,
    TruncatedRunError,
)
from ._frameworks import registry
from ._protocol.compat import CLIENT_VERSION
from ._protocol.events import EventParser
from ._protocol.run_input import InputCache, encode_run_input, enforce_run_input
from ._protocol.verify import OrderVerifier
from ._protocol.wire import UserMessage, as_message
from ._run_loop import read_run
from ._run_result import CommittedThread, RunRecord, RunResult, delivered_text, settle
from ._state.feed import KeptEvents, RunFeed
from ._state.history import OutgoingHistory
from ._state.reducer import RunReducer, ThreadSnapshot, ToolCallInfo
from ._transports.base import Transport

__all__ = [
    "PROTOCOL_VERSION",
    "CommittedThread",
    "Endpoint",
    "RunJournal",
    "RunRecord",
    "RunResult",
    "RunStream",
    "Thread",
    "delivered_text",
]

#: The AG-UI version this client implements and declares in every RunAgentInput.
PROTOCOL_VERSION = CLIENT_VERSION


class Endpoint(Protocol):
    """What a Thread needs from the agent it runs on (``Agent`` is one).

    Defined here, below the agent, so that the thread layer never imports the agent layer.
    """

    @property
    def transport(self) -> Transport: ...

    send_history: bool
    max_events_kept: int | None
    max_event_bytes: int
    idle_timeout: float | None


class RunJournal(Protocol):
    """Told about every run a thread commits (the store writes it down); never about a failed
    run. Must not raise: a journal that cannot write says so itself and lets the run go on."""

    def committed(self, thread: Thread, run: RunStream, answered: list[PendingInterrupt]) -> None:
        """``answered``: the interrupts that were pending before this run (a resume answered them)."""

    def claim(self, thread: Thread, run: RunStream) -> None:
        """Before a resume is sent: claim its interrupts, so kernels sharing a store send it once.
        The one method that raises: ``AlreadyDecided`` (a ``ResumeRefused``) when another kernel
        holds them; nothing is sent then."""

    def release(self, thread: Thread, run: RunStream) -> None:
        """The claimed resume failed before it could reach the server: others may decide."""


class Thread:
    """A conversation with an agent on one ``threadId``.

    >>> thread = agent.thread()                                     # doctest: +SKIP
    >>> result = await thread.run("Transfer $500 from 1234567890 to 0987654321")  # doctest: +SKIP
    >>> result.outcome, thread.pending[0].tool_name                 # doctest: +SKIP
    ('interrupt', 'transfer_money')
    >>> result = await thread.resume(approve())                     # doctest: +SKIP
    """

    def __init__(self, agent: Endpoint, thread_id: str | None = None) -> None:
        self.agent = agent
        self.id = thread_id or str(uuid.uuid4())
        self._snapshot = ThreadSnapshot()
        self._pending: list[PendingInterrupt] = []
        self.runs: list[RunRecord] = []
        self._active: RunStream | None = None
        self._last_run_id: str | None = None
        self._answered: dict[str, PendingInterrupt] = {}  # by the last resume, by id
        #: The result of the latest run that finished cleanly on this thread.
        self.last_result: RunResult | None = None
        #: Keeps each committed run (the agent's store); None keeps nothing.
        self.journal: RunJournal | None = None
        #: What the outgoing messages' enforcement established, so a run does not redo it.
        self._input_cache = InputCache()
        self._history = OutgoingHistory()

    # -- what the thread holds ------------------------------------------------------------

    @property
    def messages(self) -> list[Any]:
        return list(self._snapshot.messages.values())

    @property
    def state(self) -> Any:
        return self._snapshot.state

    @property
    def tool_calls(self) -> dict[str, ToolCallInfo]:
        return dict(self._snapshot.tool_calls)

    @property
    def pending(self) -> list[PendingInterrupt]:
        """Interrupts waiting for an answer; ``resume`` must answer all of them."""
        return list(self._pending)

    @property
    def busy(self) -> bool:
        return self._active is not None

    @property
    def committed(self) -> CommittedThread:
        """What this thread holds as its last committed run left it (what a journal writes)."""
        return CommittedThread(self._snapshot, self._pending, self._last_run_id, self._answered)

    def restore(self, committed: CommittedThread, runs: Iterable[RunRecord] = ()) -> None:
        """Take up what a store kept of this thread: ``committed`` as its own, ``runs`` as its
        record. Refused while a run is in flight (its commit would overwrite what is restored)."""
        if self._active is not None:
            raise ThreadBusy(f"thread {self.id} has a run in flight; it cannot be restored now")
        self._hold(committed)
        self.runs = list(runs)

    def __repr__(self) -> str:
        return (
            f"Thread(id={self.id!r}, messages={len(self._snapshot.messages)}, "
            f"pending={[p.id for p in self._pending]})"
        )

    # -- running --------------------------------------------------------------------------

    async def run(
        self,
        message: str | BaseModel | Iterable[BaseModel] | None = None,
        **options: Any,
    ) -> RunResult:
        """Send ``message`` (text or ag_ui.core messages) and stream the run to its end."""
        async with self.stream(message, **options) as run:
            await run.drain()
        return run.result

    async def resume(self, decisions: Decisions, **options: Any) -> RunResult:
        """Answer every pending interrupt and stream the continuing run.

        ``decisions`` is one decision when exactly one interrupt is pending, else a mapping
        ``{interrupt_id: decision}`` covering all of them. Refused before anything is sent when
        an interrupt would go unanswered or an expired one is resolved; a value that is not a
        decision (``resume("approve")``) is a TypeError that names the fix.
        """
        check_decisions(decisions)  # None here would otherwise mean "no resume": a plain run
        async with self.stream(resume=decisions, **options) as run:
            await run.drain()
        return run.result

    def stream(
        self,
        message: str | BaseModel | Iterable[BaseModel] | None = None,
        *,
        resume: Decisions | None = None,
        state: Any = None,
        tools: list[Any] | None = None,
        context: list[Any] | None = None,
        forwarded_props: Any = None,
    ) -> RunStream:
        """A run whose verified events you iterate as they arrive.

        >>> async with thread.stream("hello") as run:      # doctest: +SKIP
        ...     async for event in run:
        ...         print(event.type)
        >>> run.result                                      # doctest: +SKIP
        """
        if self._active is not None:
            raise ThreadBusy(f"thread {self.id} already has a run in flight")
        new_messages = _as_messages(message)
        entries: list[ResumeEntry] = []
        notes: list[str] = []
        resume_on_wire = True
        if resume is not None:
            if new_messages:
                raise TypeError("send a message or a resume, not both")
            entries, notes = build_resume(self._pending, resume)
            forwarded_props, resume_on_wire = registry.route_resume(
                self._pending, entries, forwarded_props
            )
        elif new_messages:
            registry.refuse_new_message(self._pending)  # a paused framework would strand it
        if resume is None and self._pending:
            # Not a resume, so nothing answers them: say so rather than move on silently (1.1
            # interrupt-resume: a consumer must not silently continue past an interrupt).
            ids = ", ".join(p.id for p in self._pending)
            notes.append(
                f"this run was sent while interrupt(s) {ids} were pending and does not answer "
                "them; the server may refuse it, or drop them (answer with resume() instead)"
            )
        run = RunStream(
            self,
            new_messages=new_messages,
            resume=entries,
            notes=notes,
            state=state,
            tools=tools,
            context=context,
            forwarded_props=forwarded_props,
            resume_on_wire=resume_on_wire,
        )
        if resume is not None:  # build_resume checked it covers exactly the pending ones
            run.decisions = (
                {self._pending[0].id: resume} if isinstance(resume, Decision) else dict(resume)
            )
        self._active = run
        return run

    async def abort(self) -> None:
        """Abort the run in flight (if any); it is recorded as aborted, the thread unchanged."""
        run = self._active
        if run is not None:
            await run.abort()

    # -- used by RunStream ----------------------------------------------------------------

    def _commit(self, run: RunStream, reducer: RunReducer, record: RunRecord) -> RunResult:
        before = self.committed
        after, result = settle(
            before,
            reducer,
            record,
            thread_id=self.id,
            run_id=run.run_id,
            answered_ids=[e.interrupt_id for e in run.resume],
            sent_ids={getattr(m, "id", None) for m in run.new_messages},
            kept=run.kept,
        )
        self._hold(after)
        self.last_result = result
        if self.journal is not None:
            self.journal.committed(self, run, before.pending)
        return result

    def _hold(self, committed: CommittedThread) -> None:
        self._snapshot = committed.snapshot
        self._pending = committed.pending
        self._last_run_id = committed.last_run_id
        self._answered = committed.answered


def _as_messages(message: str | BaseModel | Iterable[BaseModel] | None) -> list[BaseModel]:
    if message is None:
        return []
    if isinstance(message, Decision | Mapping):
        raise TypeError(
            "run() sends a message; to answer pending interrupts use "
            "thread.resume(approve()) (or chat.resume(...))"
        )
    if isinstance(message, str):
        return [UserMessage(id=str(uuid.uuid4()), content=message)]
    if isinstance(message, BaseModel):
        return [as_message(message)]
    return [as_message(m) for m in message]


class RunStream:
    """One request's run: iterate for events, then read :attr:`result`. Use as ``async with``."""

    def __init__(
        self,
        thread: Thread,
        *,
        new_messages: list[BaseModel],
        resume: list[ResumeEntry],
        notes: list[str],
        state: Any,
        tools: list[Any] | None,
        context: list[Any] | None,
        forwarded_props: Any,
        resume_on_wire: bool = True,
    ) -> None:
        self.thread = thread
        self.run_id = str(uuid.uuid4())
        self.new_messages = new_messages
        self.resume = resume
        self._notes = notes
        self._state = state
        self._tools = tools or []
        self._context = context or []
        self._forwarded = forwarded_props if forwarded_props is not None else {}
        #: False when the answer travels in forwardedProps instead (_compat_langgraph).
        self._resume_on_wire = resume_on_wire
        #: The events kept so far (``Agent(max_events_kept=...)``): see :attr:`events`.
        self.kept = KeptEvents(thread.agent.max_events_kept)
        self._result: RunResult | None = None
        self._error: BaseException | None = None
        self._started = False
        self._task: asyncio.Task[Any] | None = None
        self._aborting = False
        self.reducer: RunReducer | None = None
        self.record: RunRecord | None = None
        #: The decisions this resume sends, by interrupt id, and who took them as a chat says
        #: it ("you", "policy: ..."; None: the code's user). The audit log keeps both.
        self.decisions: dict[str, Decision] = {}
        self.decided_by: str | None = None
        #: The person who clicked, as the notebook host read them (None: the kernel's user).
        self.person: Person | None = None
        #: What each decision was informed by, and what came of it, by interrupt id (a chat's
        #: previews, checks and execution verdicts): the audit log keeps it with the decision.
        self.evidence: dict[str, Evidence] = {}
        #: Awaited once the run ended well, before it is committed: a chat judges the calls it
        #: decided there, so the audit written at the commit has the verdict. Must not raise.
        self.before_commit: Callable[[RunReducer], Awaitable[None]] | None = None
        self._claimed = False  # the journal claimed this resume's interrupts

    # -- results --------------------------------------------------------------------------

    @property
    def events(self) -> list[BaseModel]:
        """The verified events of this run so far, in order (the first ``max_events_kept``)."""
        return self.kept.models()

    @property
    def result(self) -> RunResult:
        if self._result is None:
            if self._error is not None:
                raise self._error
            raise RuntimeError("the run has not finished yet")
        return self._result

    def request_body(self, warn: Callable[[str], None] | None = None) -> dict[str, Any]:
        """The RunAgentInput this run sends, as camelCase JSON.

        Activity messages stay home (they are the client's rendering material, 1.1 run-input);
        everything else goes as the server sent it, encrypted values and content parts included.
        Unknown material is stripped (``warn`` hears what); a malformed value raises before
        anything is sent.
        """
        thread = self.thread
        history = (
            thread._history(list(thread._snapshot.messages.values()))
            if thread.agent.send_history
            else []
        )
        state = self._state if self._state is not None else thread._snapshot.state
        body: dict[str, Any] = {
            "threadId": thread.id,
            "runId": self.run_id,
            "protocolVersion": PROTOCOL_VERSION,
            "tools": [_plain(t) for t in self._tools],
            "context": [_plain(c) for c in self._context],
            "forwardedProps": _plain(self._forwarded),
        }
        if thread._last_run_id is not None:
            body["parentRunId"] = thread._last_run_id
        if state is not None:
            body["state"] = state
        if self.resume and self._resume_on_wire:  # else it travels in forwardedProps (LangGraph)
            body["resume"] = [_plain(e) for e in self.resume]
        messages = [*history, *self.new_messages]
        return enforce_run_input(body, messages, thread._input_cache, warn or (lambda _: None))

    # -- context manager and iteration ----------------------------------------------------

    async def __aenter__(self) -> RunStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._started:
            await self._gen.aclose()  # closes the HTTP stream if the body broke out early
        else:
            self._release()

    def __aiter__(self) -> AsyncGenerator[BaseModel, None]:
        if self._started:
            raise RuntimeError("a RunStream can be iterated once")
        self._started = True
        self._gen: AsyncGenerator[BaseModel, None] = self._events(deliver=True)
        return self._gen

    async def drain(self) -> None:
        """Run to the end without handing out events (``Thread.run``): with nobody reading
        them one by one, the frequent events stay plain (``_protocol.plain``), built into
        models only if :attr:`events` is read."""
        if self._started:
            raise RuntimeError("a RunStream can be iterated once")
        self._started = True
        self._gen = self._events(deliver=False)
        async for _ in self._gen:
            pass

    async def abort(self) -> None:
        """Stop reading and close the HTTP stream; the run is recorded as aborted."""
        self._aborting = True
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()

    def _release(self) -> None:
        if self.thread._active is self:
            self.thread._active = None

    async def _events(self, *, deliver: bool) -> AsyncGenerator[BaseModel, None]:
        thread = self.thread
        agent = thread.agent
        self._task = asyncio.current_task()
        record = RunRecord(
            run_id=self.run_id,
            kind="resume" if self.resume else "run",
            parent_run_id=thread._last_run_id,
            started_at=datetime.now(timezone.utc),
            resume=[
                e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in self.resume
            ],
            warnings=list(self._notes),
        )
        self.record = record
        thread.runs.append(record)
        strict = getattr(agent, "strict", False)
        reducer = RunReducer(thread._snapshot, record.warnings.append, strict=strict)
        for message in self.new_messages:
            reducer.messages[getattr(message, "id")] = message  # noqa: B009 - any Message model
        self.reducer = reducer
        parser = EventParser(record.warnings.append, strict=strict)
        verifier = OrderVerifier(
            () if strict else thread._snapshot.tool_calls, record.warnings.append
        )
        feed = RunFeed(parser, verifier, reducer, self.kept, record)

        try:
            if self.resume and thread.journal is not None:
                thread.journal.claim(thread, self)  # AlreadyDecided: another kernel has them
                self._claimed = True
            body = encode_run_input(self.request_body(record.warnings.append), thread._input_cache)
            events = read_run(
                agent.transport,
                body,
                forwarded_props=self._forwarded,
                max_event_bytes=agent.max_event_bytes,
                idle_timeout=agent.idle_timeout,
                parser=parser,
                verifier=verifier,
                reducer=reducer,
                feed=feed,
                record=record,
                deliver=deliver,
                aborting=lambda: self._aborting,
            )
            async with aclosing(events):
                async for event in events:
                    yield event
            if self.before_commit is not None:
                await self.before_commit(reducer)
            self._result = thread._commit(self, reducer, record)
        except asyncio.CancelledError:
            aborted = RunAborted("the run was aborted by the client")
            self._fail(record, reducer, aborted, "aborted")
            task = asyncio.current_task()
            if self._aborting and task is not None and hasattr(task, "uncancel"):
                task.uncancel()  # our own abort(): report it as RunAborted, not a cancellation
                raise aborted from None
            raise
        except GeneratorExit:
            self._fail(
                record, reducer, RunAborted("the run was closed before it finished"), "aborted"
            )
            raise
        except TruncatedRunError as exc:
            self._fail(record, reducer, exc, "truncated")
            raise
        except AGUIError as exc:
            self._fail(record, reducer, exc, "failed")
            raise
        except RecursionError:
            error = ProtocolError("an event is nested too deeply to process")
            self._fail(record, reducer, error, "failed")
            raise error from None
        finally:
            record.finished_at = datetime.now(timezone.utc)
            self._release()

    def _fail(self, record: RunRecord, reducer: RunReducer, error: AGUIError, status: str) -> None:
        if self._aborting and status != "aborted":
            status = "aborted"
        record.status = status
        record.error = error
        error.during = "resume" if self.resume else "run"
        # Sent, and then no clear answer: the server may have applied the decision before the
        # connection broke. Say so; a retry sends the same entries (same interrupt ids).
        error.maybe_applied = bool(self.resume) and (
            isinstance(error, TruncatedRunError | RunAborted)
            or (isinstance(error, TransportError) and not isinstance(error, ConnectError))
        )
        journal = self.thread.journal
        if self._claimed and not error.maybe_applied and journal is not None:
            journal.release(self.thread, self)  # it never reached the server: others may decide
        delivered = reducer.snapshot().messages  # joins text still streaming when it broke
        record.delivered = [delivered[m] for m in reducer.touched if m in delivered]
        self._error = error


def _plain(value: Any) -> Any:
    """A model as camelCase JSON; anything else as it is."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    return value
