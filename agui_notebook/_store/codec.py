"""What the store keeps of a thread, as JSON text, and back. Pure: no I/O.

A committed thread becomes a :class:`ThreadRow` (its state, pending interrupts with everything a
card needs, the interrupts its last resume answered, and the pages of its messages and tool calls
that the commit writes: ``pages``) and each committed run a :class:`RunRow` summary. Every text
that goes into a row passes through the shared ``_protocol.secrets.Scrubber`` of the credential
values the agent knows, so a token the server echoed into a message, the state or an interrupt is
stored as ``<redacted>``. Threads written before schema version 3 hold every message in one JSON
text (``messages``, ``tool_calls``): :func:`decode_thread` reads them.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import MISSING, dataclass, field, fields
from datetime import datetime
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from .._decisions.interrupts import PendingInterrupt, parse_expiry
from .._protocol.secrets import Scrubber
from .._protocol.wire import MESSAGE, ContentPart, Message, UserMessage
from .._state.reducer import ThreadSnapshot, ToolCallInfo
from .pages import MESSAGES, TOOL_CALLS, Layout, Page, PagePlan, Written, plan

__all__ = [
    "RestoredThread",
    "RunRow",
    "StoredThreadData",
    "ThreadRow",
    "ThreadSummary",
    "decode_thread",
    "encode_run",
    "encode_thread",
    "scrubbed_json",
    "summary_from_row",
]

_TITLE_CHARS = 60
# One encoder for every write (json.dumps with options builds a new one per call).
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


@dataclass(frozen=True)
class ThreadSummary:
    """A stored thread, as ``agent.threads()`` and ``agui-notebook threads`` list it."""

    id: str
    agent_url: str
    created_at: datetime
    updated_at: datetime
    #: How many interrupts wait for an answer.
    pending: int
    #: How many messages the thread holds.
    messages: int
    #: How its latest committed run ended (success, interrupt, cancelled).
    last_status: str | None
    #: The start of its first user message.
    title: str | None

    def __repr__(self) -> str:
        return (
            f"ThreadSummary(id={self.id!r}, updated_at={self.updated_at.isoformat()!r}, "
            f"pending={self.pending}, messages={self.messages}, title={self.title!r})"
        )


@dataclass(frozen=True)
class StoredThreadData:
    """A thread's row as read back (JSON texts), its pages, and its runs' summaries in order,
    all read in one transaction."""

    agent_url: str
    id: str
    created_at: str
    updated_at: str
    last_run_id: str | None
    state: str
    pending: str
    answered: str
    runs: list[tuple[str, dict[str, Any]]]
    #: Version 2's layout: every message (tool call) in one JSON text; '' once in pages.
    messages: str = ""
    tool_calls: str = ""
    #: Bumped by every write of the thread (a journal's pages apply to the revision it knows).
    revision: int = 0
    message_count: int = 0
    tool_call_count: int = 0
    pages: list[Page] = field(default_factory=list)

    @property
    def paged(self) -> bool:
        """Its messages and tool calls are in pages (not a row from before version 3)."""
        return self.messages == "" and self.tool_calls == ""


@dataclass(frozen=True)
class ThreadRow:
    """A thread's row of JSON texts, and the pages of its items this write changes."""

    agent_url: str
    id: str
    updated_at: str
    title: str | None
    last_run_id: str | None
    last_status: str | None
    message_count: int
    pending_count: int
    state: str
    pending: str
    answered: str
    tool_call_count: int = 0
    #: One plan per kind of item (messages, tool calls); a kind without one has no items.
    pages: tuple[PagePlan, ...] = ()
    #: The revision the plans' changed pages apply to (None: nothing known, write every page).
    base_revision: int | None = None
    #: As stored, for a copy (``store copy``): version 2's texts and the revision.
    messages: str = ""
    tool_calls: str = ""
    revision: int = 0

    def layout_after(self, revision: int, secrets: frozenset[str]) -> Layout:
        """What the store holds once this row is written at ``revision``."""
        kinds: dict[str, Any] = {MESSAGES: None, TOOL_CALLS: None}
        kinds.update({p.kind: p.written for p in self.pages})
        return Layout(revision, secrets, kinds)


@dataclass(frozen=True)
class RunRow:
    """A committed run's summary."""

    run_id: str
    summary: str  # JSON: kind, parentRunId, startedAt, finishedAt, status, eventCount, ...


@dataclass(frozen=True)
class Claim:
    """Who claimed an interrupt before sending its resume (exactly once across kernels).

    ``token`` is the claiming journal's own id (a retry from the same agent is its own claim);
    ``lease_until`` (seconds since the epoch) is when an unsettled claim lapses; ``settled``: the
    resume committed."""

    interrupt_id: str
    token: str
    claimant: str
    host: str
    pid: int | None
    decided_by: str | None
    claimed_at: str
    lease_until: float
    settled: bool = False

    def holds_against(self, token: str, now: float) -> bool:
        """This claim stops a claim by ``token`` at ``now``."""
        return self.settled or (self.token != token and self.lease_until > now)


@dataclass(frozen=True)
class ThreadCopy:
    """A thread's row, pages and runs exactly as stored (``agui-notebook store copy``)."""

    row: ThreadRow
    created_at: str
    runs: list[RunRow]
    pages: list[Page] = field(default_factory=list)


@dataclass(frozen=True)
class RestoredThread:
    """What a stored row gives back to a :class:`Thread`."""

    snapshot: ThreadSnapshot
    pending: list[PendingInterrupt]
    last_run_id: str | None
    answered: dict[str, PendingInterrupt]
    warnings: list[str]
    #: What a journal may take the store to hold now (None: its next commit writes every page).
    layout: Layout | None = None


# -- encoding ----------------------------------------------------------------------------------


def scrubbed_json(value: Any, scrubber: Scrubber) -> str:
    """``value`` as compact JSON with every known secret value replaced by ``<redacted>``."""
    text = _ENCODE(value)
    return _scrub_text(text, lambda: value, scrubber)


def _scrub_text(text: str, value: Callable[[], Any], scrubber: Scrubber) -> str:
    """JSON ``text`` scrubbed as text (one pass); string by string when that broke the JSON."""
    if not scrubber:
        return text
    cleaned = scrubber.text(text)
    if cleaned == text:
        return text
    try:
        json.loads(cleaned)
    except ValueError:  # a secret that spans JSON syntax
        cleaned = _ENCODE(scrubber.value(value()))
    return cleaned


def encode_thread(
    *,
    agent_url: str,
    thread_id: str,
    snapshot: ThreadSnapshot,
    pending: list[PendingInterrupt],
    last_run_id: str | None,
    last_status: str | None,
    answered: Mapping[str, PendingInterrupt],
    now: datetime,
    scrubber: Scrubber,
    layout: Layout | None = None,
) -> ThreadRow:
    """A thread as a row and the pages its commit writes. ``layout`` is what the store holds of
    it as this journal last wrote (or restored) it: messages and tool calls are immutable (a run
    replaces what it changes), so only a new or changed one is serialised and only the pages
    holding one are written; the commit costs what the run changed, not the whole thread."""
    messages = snapshot.messages
    calls = snapshot.tool_calls
    before_messages = before_calls = None
    if layout is not None:
        before_messages = _rescrubbed(layout.written(MESSAGES), layout.secrets, scrubber)
        before_calls = _rescrubbed(layout.written(TOOL_CALLS), layout.secrets, scrubber)

    def message_text(message: Any) -> str:
        return _line(
            _scrub_text(
                _message_json(message),
                lambda: message.model_dump(mode="json", by_alias=True, exclude_none=True),
                scrubber,
            )
        )

    def call_text(call: ToolCallInfo) -> str:
        text = _tool_call_json(call)
        return _line(_scrub_text(text, lambda: json.loads(text), scrubber))

    values = list(messages.values())
    message_plan = plan(
        MESSAGES, values, list(messages), before_messages, message_text, validate_messages
    )
    call_plan = plan(TOOL_CALLS, list(calls.values()), list(calls), before_calls, call_text, None)
    # The stored title is the first one written (the first user message's text) and is kept:
    # only a message new to the store can give a thread without one its title.
    title = _title([values[i] for i in message_plan.fresh], scrubber)
    return ThreadRow(
        agent_url=agent_url,
        id=thread_id,
        updated_at=now.isoformat(timespec="microseconds"),
        title=title,
        last_run_id=last_run_id,
        last_status=last_status,
        message_count=len(messages),
        pending_count=len(pending),
        state=scrubbed_json(snapshot.state, scrubber),
        pending=scrubbed_json([_interrupt_json(p) for p in pending], scrubber),
        answered=scrubbed_json([_interrupt_json(p) for p in answered.values()], scrubber),
        tool_call_count=len(calls),
        pages=(message_plan, call_plan),
        base_revision=layout.revision if layout is not None else None,
    )


def _rescrubbed(
    written: Written | None, secrets: frozenset[str] | None, scrubber: Scrubber
) -> Written | None:
    """``written``, with any text that holds a secret the scrubber knows now (and did not when
    it was written, or read back from the store) marked changed, so it is written again."""
    if written is None or secrets == scrubber.secrets or not scrubber:
        return written
    if not scrubber.might_contain("\n".join(written.texts)):
        return written
    objects = list(written.objects)
    for i, text in enumerate(written.texts):
        if scrubber.might_contain(text) and scrubber.text(text) != text:
            objects[i] = object()  # no item is this object: encoded again, with the scrubber
    return Written(written.ids, objects, written.texts, written.clean, written.sizes, written.tags)


def _line(text: str) -> str:
    # Pages hold one text per line: compact JSON never holds a raw newline.
    if "\n" in text:
        raise ValueError("a stored JSON text holds a line break")
    return text


def validate_messages(texts: list[str]) -> list[bool]:
    """Which message texts validate back into a message model: one pass of pydantic's validator
    for all (the texts joined are an array of as many messages), else text by text."""
    try:
        models = messages_adapter().validate_json("[" + ",".join(texts) + "]")
    except ValidationError:
        pass
    else:
        if len(models) == len(texts):
            return [True] * len(texts)
    return [_message_validates(t) for t in texts]


def _message_validates(text: str) -> bool:
    try:
        MESSAGE.validate_json(text)
    except ValidationError:
        return False
    return True


def _message_json(message: Any) -> str:
    # ag_ui.core's own JSON dump: camelCase, as on the wire.
    text: str = message.model_dump_json(by_alias=True, exclude_none=True)
    return text


def _tool_call_json(call: ToolCallInfo) -> str:
    return _ENCODE({f.name: _plain(getattr(call, f.name)) for f in fields(call)})


def _plain(value: Any) -> Any:
    """JSON-ready: a result's content parts (ag_ui.core models) as their wire form."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _title(messages: list[Any], scrubber: Scrubber) -> str | None:
    for message in messages:
        if isinstance(message, UserMessage) and isinstance(message.content, str):
            text = " ".join(message.content.split())
            text = scrubber.text(text)
            return text if len(text) <= _TITLE_CHARS else text[: _TITLE_CHARS - 3] + "..."
    return None


def _interrupt_json(interrupt: PendingInterrupt) -> dict[str, Any]:
    # Every field (a field added later is kept too) but the expiry, which is read again from
    # the raw ``expiresAt`` when restored.
    return {f.name: getattr(interrupt, f.name) for f in fields(interrupt) if f.name != "expires_at"}


def encode_run(
    *,
    run_id: str,
    kind: str,
    parent_run_id: str | None,
    started_at: datetime,
    finished_at: datetime,
    status: str,
    event_count: int,
    warnings: list[str],
    resume: list[dict[str, Any]],
    scrubber: Scrubber,
) -> RunRow:
    summary = {
        "kind": kind,
        "parentRunId": parent_run_id,
        "startedAt": started_at.isoformat(),
        "finishedAt": finished_at.isoformat(),
        "status": status,
        "eventCount": event_count,
        "warnings": warnings,
        "resume": resume,
    }
    return RunRow(run_id=run_id, summary=scrubbed_json(summary, scrubber))


# -- decoding ----------------------------------------------------------------------------------


@functools.cache
def _part_adapter() -> TypeAdapter[Any]:
    return TypeAdapter(ContentPart)


_TOOL_CALL_FIELDS = frozenset(f.name for f in fields(ToolCallInfo))
# Each field's default, in field order (a required one's placeholder is always overwritten).
_TOOL_CALL_DEFAULTS = {f.name: f.default for f in fields(ToolCallInfo)}
_TOOL_CALL_REQUIRED = frozenset(
    f.name for f in fields(ToolCallInfo) if f.default is MISSING and f.default_factory is MISSING
)
# A call is rebuilt without its frozen __init__ (one object.__setattr__ per field: most of a
# restore's tool-call time), which only applies defaults: none may need a factory.
_TOOL_CALL_PLAIN = all(f.default_factory is MISSING for f in fields(ToolCallInfo))


def tool_call_from_json(data: Mapping[str, Any]) -> ToolCallInfo:
    values = (
        dict(data)
        if data.keys() <= _TOOL_CALL_FIELDS
        else {k: v for k, v in data.items() if k in _TOOL_CALL_FIELDS}
    )
    result = values.get("result")
    if isinstance(result, list):  # content parts: back into their models, when they still parse
        with contextlib.suppress(ValidationError):
            values["result"] = [_part_adapter().validate_python(p) for p in result]
    return new_tool_call(values)


def new_tool_call(values: dict[str, Any]) -> ToolCallInfo:
    """``ToolCallInfo(**values)`` (``values``: field names only), built without calling the
    dataclass's ``__init__``; a missing required field raises its TypeError as before
    (tests/store/test_decode_messages.py holds the two to the same result)."""
    if not _TOOL_CALL_PLAIN or not values.keys() >= _TOOL_CALL_REQUIRED:
        return ToolCallInfo(**values)
    call = object.__new__(ToolCallInfo)
    state = call.__dict__
    state.update(_TOOL_CALL_DEFAULTS)
    state.update(values)
    return call


@functools.cache
def messages_adapter() -> TypeAdapter[list[Any]]:
    return TypeAdapter(list[Message])


def decode_messages(text: str, warnings: list[str]) -> dict[str, Any]:
    """A stored thread's messages by id. The whole text is parsed and validated in one pass of
    pydantic's JSON validator (what a thread this client wrote takes); any error there, and the
    text is read message by message (:func:`decode_messages_one_by_one`), which leaves out what
    does not validate with a warning. Both give the same messages for a text that validates
    (tests/store/test_decode_messages.py holds them to it, differentially)."""
    try:
        models = messages_adapter().validate_json(text)
    except ValidationError:
        return decode_messages_one_by_one(text, warnings)
    restored: dict[str, Any] = {}
    for message in models:
        restored[message.id] = message
    return restored


def decode_messages_one_by_one(text: str, warnings: list[str], first: int = 0) -> dict[str, Any]:
    """The general path: ``json.loads``, then each message validated on its own (``first``: the
    number of the text's first message in the thread, for the warnings)."""
    restored: dict[str, Any] = {}
    for n, data in enumerate(json.loads(text), first):
        try:
            message = MESSAGE.validate_python(data)
        except ValidationError as exc:  # written by an ag-ui-protocol with other message kinds
            warnings.append(
                f"stored message {n} could not be read ({exc.error_count()} errors); left out"
            )
            continue
        restored[message.id] = message
    return restored


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic collector paused while a stored thread is rebuilt: the tens of thousands
    of models and dicts it allocates at once set off collections that walk them (and the rest
    of the heap) to find no cycle: 20 restores of 10,000 messages kept back to back, the worst
    363 -> 174 ms. Nothing built here refers back to itself; the collector runs again right
    after, and one paused elsewhere (``gc.disable()`` by the caller) stays paused."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def decode_thread(
    *,
    messages: str,
    state: str,
    tool_calls: str,
    pending: str,
    answered: str,
    last_run_id: str | None,
) -> RestoredThread:
    """A thread stored before version 3 (every message in one JSON text) back into the pieces a
    Thread holds, every message validated now; raises ValueError when unreadable. Paged threads:
    ``_store.snapshot.decode_stored``."""
    warnings: list[str] = []
    with collector_paused():
        restored = decode_messages(messages, warnings)
        calls = {c["id"]: tool_call_from_json(c) for c in json.loads(tool_calls)}
    snapshot = ThreadSnapshot(messages=restored, state=json.loads(state), tool_calls=calls)
    interrupts = [interrupt_from_json(p) for p in json.loads(pending)]
    return RestoredThread(
        snapshot=snapshot,
        pending=interrupts,
        last_run_id=last_run_id,
        answered={
            p.id: p
            for p in (interrupt_from_json(a) for a in json.loads(answered) if isinstance(a, dict))
        },
        warnings=warnings,
    )


def interrupt_from_json(data: Mapping[str, Any]) -> PendingInterrupt:
    known = {f.name for f in fields(PendingInterrupt)} - {"expires_at"}
    values = {k: v for k, v in data.items() if k in known}
    values["raw"] = dict(values.get("raw") or {})
    values["reissued"] = bool(values.get("reissued"))
    return PendingInterrupt(**values, expires_at=parse_expiry(values.get("expires_at_raw")))


@dataclass(frozen=True)
class InboxItem:
    """One pending approval in the store, as ``agent.inbox()`` and ``agui-notebook inbox`` show
    it: which thread waits, for what, and whether a kernel is deciding it now."""

    agent_url: str
    thread_id: str
    updated_at: datetime
    title: str | None
    interrupt: PendingInterrupt
    #: The claim of a kernel deciding it now (None: nobody is).
    claim: Claim | None = None

    @property
    def status(self) -> str:
        """``waiting``, ``expired``, or ``being decided by ada on host-2``."""
        if self.claim is not None:
            who = self.claim.claimant
            state = "decided" if self.claim.settled else "being decided"
            return f"{state} by {who} on {self.claim.host}"
        return "expired" if self.interrupt.is_expired() else "waiting"

    def __repr__(self) -> str:
        return (
            f"InboxItem(thread_id={self.thread_id!r}, interrupt={self.interrupt.id!r}, "
            f"tool={self.interrupt.tool_name!r}, status={self.status!r})"
        )


def inbox_items(
    rows: list[tuple[str, str, str, str | None, str]], claims: list[Claim], now: float
) -> list[InboxItem]:
    """Pending rows (agent URL, thread id, updated_at, title, pending JSON), newest first, with
    the claims that still hold (settled, or within their lease)."""
    live = {c.interrupt_id: c for c in claims if c.settled or c.lease_until > now}
    items: list[InboxItem] = []
    for agent_url, thread_id, updated_at, title, pending in rows:
        try:
            interrupts = [interrupt_from_json(p) for p in json.loads(pending)]
        except (ValueError, TypeError, KeyError):
            continue  # an unreadable row: agent.thread(id) says so with a warning
        for interrupt in interrupts:
            items.append(
                InboxItem(
                    agent_url=agent_url,
                    thread_id=thread_id,
                    updated_at=datetime.fromisoformat(updated_at),
                    title=title,
                    interrupt=interrupt,
                    claim=live.get(interrupt.id),
                )
            )
    return items


def summary_from_row(
    *,
    id: str,
    agent_url: str,
    created_at: str,
    updated_at: str,
    pending: int,
    messages: int,
    last_status: str | None,
    title: str | None,
) -> ThreadSummary:
    # Built without the frozen dataclass's __init__ (one object.__setattr__ per field), which
    # checks nothing: a listing of 10,000 threads costs what reading them does (issue 28).
    summary = object.__new__(ThreadSummary)
    summary.__dict__.update(
        id=id,
        agent_url=agent_url,
        created_at=datetime.fromisoformat(created_at),
        updated_at=datetime.fromisoformat(updated_at),
        pending=pending,
        messages=messages,
        last_status=last_status,
        title=title,
    )
    return summary
