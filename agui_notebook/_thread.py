"""Thread: one AG-UI thread, its runs and resumes, committed only when a run ends cleanly.

A run streams through the pure pipeline (the transport's event texts -> event parser -> order
verifier -> reducer) on top of the thread's committed snapshot. Only when the run closes with RUN_FINISHED
does its reducer become the thread's new snapshot. An HTTP error, a dropped connection, a
malformed stream, RUN_ERROR or an abort discard the reducer, so the thread, its messages and its
pending interrupts are exactly as before and the same request (the same decision) can be re-sent.
What the failed run delivered stays readable on its :class:`RunRecord`.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from types import TracebackType
from typing import Any, Literal, Protocol

from ag_ui.core import AssistantMessage, ReasoningMessage, ResumeEntry
from pydantic import BaseModel

from ._decisions.decision import Decision, Decisions, build_resume, check_decisions
from ._decisions.identity import Person
from ._decisions.interrupts import PendingInterrupt
from ._errors import (
    AGUIError,
    ConnectError,
    ProtocolError,
    RunAborted,
    RunError,
    StreamTimeout,
    ThreadBusy,
    TransportError,
    TruncatedRunError,
)
from ._frameworks import registry
from ._protocol.events import (
    CLIENT_VERSION,
    EventParser,
    InputCache,
    encode_run_input,
    enforce_run_input,
    type_of,
)
from ._protocol.secrets import EventGuard
from ._protocol.verify import OrderVerifier
from ._protocol.wire import UserMessage, as_message
from ._state.feed import KeptEvents, RunFeed
from ._state.history import OutgoingHistory
from ._state.reducer import RunReducer, ThreadSnapshot, ToolCallInfo
from ._transports.base import ConnectionDropped, EventStream, StreamCut, Transport

__all__ = [
    "PROTOCOL_VERSION",
    "CommittedThread",
    "Endpoint",
    "RunJournal",
    "RunRecord",
    "RunResult",
    "RunStream",
    "Thread",
]

#: The AG-UI version this client implements and declares in every RunAgentInput.
PROTOCOL_VERSION = CLIENT_VERSION

#: Seconds to keep reading after RUN_FINISHED or RUN_ERROR (for a new run, or a late RUN_ERROR,
#: on the same stream) when the server does not close it.
AFTER_FINISH_GRACE = 2.0

Outcome = Literal["success", "interrupt", "cancelled"]


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
    after each commit and gives back to a new :class:`Thread` (:meth:`Thread.restore`).

    :attr:`Thread.committed` is a view: its objects are the thread's own, to read, never change.
    """

    #: Messages, tool calls, state and subagents.
    snapshot: ThreadSnapshot
    #: Interrupts waiting for an answer.
    pending: list[PendingInterrupt]
    #: The last committed run's id: the next request's ``parentRunId``.
    last_run_id: str | None
    #: The interrupts the last resume answered, by id (so one raised again is recognised).
    answered: dict[str, PendingInterrupt]


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
        self._snapshot = committed.snapshot
        self._pending = list(committed.pending)
        self._last_run_id = committed.last_run_id
        self._answered = dict(committed.answered)
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
        pending_before = self._pending
        answered_now = {e.interrupt_id for e in run.resume}
        answered = {
            **self._answered,
            **{p.id: p for p in self._pending if p.id in answered_now},
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
        pending = [
            PendingInterrupt.from_wire(
                i,
                run_id=reducer.run_id or run.run_id,
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
        if run.resume:
            self._answered = {i: answered[i] for i in answered_now if i in answered}
        self._snapshot = reducer.snapshot()
        self._pending = pending
        self._last_run_id = reducer.run_id or run.run_id
        outcome: Outcome = "success"
        if reducer.outcome == "interrupt":
            outcome = "interrupt"
        elif reducer.outcome == "cancelled":
            outcome = "cancelled"
        record.status = outcome
        sent = {getattr(m, "id", None) for m in run.new_messages}  # the input, not the result
        messages = self._snapshot.messages
        result_messages = [messages[m] for m in reducer.touched if m in messages and m not in sent]
        self.last_result = RunResult(
            outcome=outcome,
            thread_id=self.id,
            run_id=self._last_run_id,
            interrupts=pending,
            messages=result_messages,
            state=self._snapshot.state,
            warnings=list(record.warnings),
            pending_tool_call_ids=reducer.pending_tool_call_ids,
            result=reducer.result,
            usage=reducer.usage,
            run_metadata=reducer.run_metadata,
            _kept=run.kept,
        )
        if self.journal is not None:
            self.journal.committed(self, run, pending_before)
        return self.last_result


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
        stream: EventStream | None = None
        parser = EventParser(record.warnings.append, strict=strict)
        verifier = OrderVerifier(
            () if strict else thread._snapshot.tool_calls, record.warnings.append
        )
        feed = RunFeed(parser, verifier, reducer, self.kept, record)
        handle = feed.event
        idle_limit = agent.idle_timeout
        last_event_at = time.monotonic()

        try:
            if self.resume and thread.journal is not None:
                thread.journal.claim(thread, self)  # AlreadyDecided: another kernel has them
                self._claimed = True
            body = encode_run_input(self.request_body(record.warnings.append), thread._input_cache)
            transport = agent.transport
            async with transport.open(
                body, forwarded_props=self._forwarded, max_event_bytes=agent.max_event_bytes
            ) as stream:
                # Server text is scrubbed of the credentials sent, before it is parsed: every
                # message, result, error and card made from it is clean (_protocol/secrets.py).
                parse = parser.parse
                # Nobody reads events one by one (Thread.run): the frequent ones stay plain,
                # unless the guard must read every text before it is parsed.
                plain = not deliver and not transport.scrubber
                if transport.scrubber:
                    parse = EventGuard(transport.scrubber, parse, type_of).parse
                iterator = stream.__aiter__()
                try:
                    while True:
                        try:
                            if verifier.phase in ("finished", "failed"):
                                # The run is closed; a well-behaved server closes the stream
                                # now. Wait a moment for a new run or a late RUN_ERROR, no more.
                                batch = await asyncio.wait_for(
                                    iterator.__anext__(), AFTER_FINISH_GRACE
                                )
                            else:
                                batch = await iterator.__anext__()
                        except StopAsyncIteration:
                            break
                        except (asyncio.TimeoutError, StreamTimeout):
                            if verifier.phase not in ("finished", "failed"):
                                raise
                            if verifier.phase == "finished":
                                record.warnings.append(
                                    "the server kept the stream open after RUN_FINISHED; "
                                    "stopped reading"
                                )
                            break
                        except TransportError as exc:
                            # A socket closed with an error code after the run closed: the run
                            # stands (as a drop after RUN_FINISHED does), with a warning.
                            if verifier.phase not in ("finished", "failed"):
                                raise
                            record.warnings.append(f"after the run closed: {exc}")
                            break
                        if self._aborting:
                            raise RunAborted("the run was aborted by the client")
                        seen = record.event_count
                        if plain:
                            feed.texts(batch, parse)
                        else:
                            for data in batch:
                                for event in parse(data):
                                    if handle(type_of(event), event) and deliver:
                                        yield event
                                        if self._aborting:  # abort() from the consumer
                                            raise RunAborted("the run was aborted by the client")
                        now = time.monotonic()
                        if record.event_count != seen:
                            last_event_at = now
                        elif idle_limit is not None and now - last_event_at > idle_limit:
                            raise StreamTimeout(
                                f"no event for {idle_limit:g} s (only keepalive comments); "
                                "raise idle_timeout on the Agent if the agent is just slow"
                            )
                    try:
                        tail = stream.finish()
                    except StreamCut as exc:
                        if verifier.phase in ("finished", "failed"):
                            record.warnings.append(f"ignored bytes after the run closed: {exc}")
                            tail = []
                        else:  # cut inside a character or a frame: truncated like any other
                            raise TruncatedRunError(
                                f"the stream was cut ({exc})",
                                bytes_received=stream.bytes_received,
                                events_received=record.event_count,
                                last_event=feed.last_type,
                                dropped=False,
                            ) from None
                    for data in tail:
                        for event in parse(data):
                            if handle(type_of(event), event) and deliver:
                                yield event
                except ConnectionDropped as exc:
                    if verifier.phase not in ("finished", "failed"):
                        raise TruncatedRunError(
                            f"the connection dropped ({exc})",
                            bytes_received=stream.bytes_received,
                            events_received=record.event_count,
                            last_event=feed.last_type,
                            dropped=True,
                        ) from None
            if verifier.phase == "failed":
                message_text, code = reducer.error or ("the run failed", None)
                raise RunError(message_text, code, run_id=reducer.run_id)
            if verifier.phase != "finished":
                ended_inside = stream is not None and stream.in_message
                where = "inside an event" if ended_inside else "between events"
                raise TruncatedRunError(
                    f"the stream ended {where} before RUN_FINISHED or RUN_ERROR",
                    bytes_received=stream.bytes_received if stream is not None else 0,
                    events_received=record.event_count,
                    last_event=feed.last_type,
                    dropped=False,
                )
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


def delivered_text(record: RunRecord) -> str:
    """The assistant text a (possibly failed) run delivered."""
    return "\n\n".join(
        m.content
        for m in record.delivered
        if isinstance(m, AssistantMessage | ReasoningMessage) and isinstance(m.content, str)
    )


def _plain(value: Any) -> Any:
    """A model as camelCase JSON; anything else as it is."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    return value
