"""Durable threads: an agent's link to its store (``Agent(store=...)``).

A :class:`Journal` is what a :class:`~agui_notebook._thread.Thread` tells about each committed run
(``Thread.journal``): it writes what the thread holds (``Thread.committed``), the run's summary and
the run's decisions in one transaction. It gives a stored thread back to a new ``Thread``
(``Thread.restore``: the journal touches no field of the thread), lists the agent's threads and
keeps the decisions a failed resume carried.

A store problem never takes a run down: the first one is a :class:`StoreWarning` naming the file
and the problem, and this journal stops using the store (a lock held too long by another process
is the exception: said once, the next commit tries again, and the decisions it could not write
go with that next commit).
"""

from __future__ import annotations

import os
import socket
import time
import uuid
import warnings
import weakref
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._decisions.audit import AuditEntry, chat_record, decision_entries, format_head
from .._decisions.decision import Decision
from .._decisions.evidence import Evidence
from .._decisions.identity import Person
from .._decisions.interrupts import PendingInterrupt
from .._errors import AlreadyDecided, StoreError, StoreUnavailable, StoreWarning
from .._protocol.secrets import Scrubber
from .._thread import CommittedThread, RunRecord
from .backend import StoreBackend, describe, is_url, open_store, url_secrets
from .codec import (
    Claim,
    InboxItem,
    ThreadSummary,
    encode_run,
    encode_thread,
    inbox_items,
)
from .pages import Layout
from .snapshot import decode_stored

if TYPE_CHECKING:
    from .._thread import RunStream, Thread

__all__ = [
    "CLAIM_LEASE_ENV",
    "STORE_ENV",
    "Journal",
    "claim_lease",
    "default_store_path",
    "resolve_store",
]

#: The environment variable that chooses the store: a path, a ``postgresql://`` URL, or ``off``.
STORE_ENV = "AGUI_NOTEBOOK_STORE"
STORE_FILE = "store.sqlite3"
#: Seconds an unsettled claim holds (its kernel may have died): ``AGUI_NOTEBOOK_CLAIM_LEASE``.
CLAIM_LEASE_ENV = "AGUI_NOTEBOOK_CLAIM_LEASE"
CLAIM_LEASE_S = 120.0
#: Who decides, as other kernels are told: ``AGUI_NOTEBOOK_USER``, JupyterHub's user, the login.
USER_ENV = "AGUI_NOTEBOOK_USER"


def claim_lease() -> float:
    """The lease of a claim, in seconds (``AGUI_NOTEBOOK_CLAIM_LEASE``, else 120)."""
    try:
        return max(0.0, float(os.environ.get(CLAIM_LEASE_ENV, "") or CLAIM_LEASE_S))
    except ValueError:
        return CLAIM_LEASE_S


def _claimant() -> str:
    for name in (USER_ENV, "JUPYTERHUB_USER"):
        if os.environ.get(name):
            return os.environ[name]
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name (a container without a passwd entry)
        return f"uid {os.getuid()}" if hasattr(os, "getuid") else "unknown"


def default_store_path() -> Path:
    """``store.sqlite3`` in the user's data directory (platformdirs' ``user_data_dir``)."""
    import platformdirs  # only when the default is needed

    return Path(platformdirs.user_data_dir("agui-notebook", appauthor=False)) / STORE_FILE


def resolve_store(
    store: str | os.PathLike[str] | None, *, given: bool, interactive: Callable[[], bool]
) -> Path | str | None:
    """The store to use: ``store`` when given (None: none), else the environment's
    ``AGUI_NOTEBOOK_STORE`` (``off`` disables), else :func:`default_store_path` where a person
    decides in a notebook (``interactive()``, asked only then), else none. A file is a ``Path``;
    a database URL (``postgresql://...``) stays the string it is.

    Without a notebook front end (a script, a test, a notebook run headless under a policy)
    nobody comes back to a pending card, and a default file shared by every such run would hand
    one run the threads an earlier one left: those keep nothing unless asked (docs/store.md)."""
    if given:
        return None if store is None else _location(store)
    env = os.environ.get(STORE_ENV, "").strip()
    if env.lower() in ("off", "none", "0", "false"):
        return None
    if env:
        return _location(env)
    return default_store_path() if interactive() else None


def _location(store: str | os.PathLike[str]) -> Path | str:
    return str(store) if is_url(store) else Path(store).expanduser()


class Journal:
    """One agent's view of a store: its URL (without credentials), and the scrubber of the
    credentials it knows (``HTTPTransport.known_scrubber``: asked at each write, it grows)."""

    def __init__(
        self, location: Path | str, agent_url: str, scrubber: Callable[[], Scrubber]
    ) -> None:
        self._location = location  # a URL may hold a password: shown as ``path``, without it
        #: Where the store is, for messages: the file, or the URL without its password.
        self.path = describe(location)
        self.agent_url = agent_url
        # The store's own password is scrubbed like the agent's credentials (a user may paste it).
        self._store_secrets = url_secrets(location)
        self._agent_scrubber = scrubber
        self._store: StoreBackend | None = None
        self._disabled: StoreError | None = None
        self._warned = False
        self._backlog: list[AuditEntry] = []
        #: This journal's claims (a retry from this agent is its own claim, not another's).
        self.token = uuid.uuid4().hex
        # Per live thread, what the store holds of it as this journal last wrote or read it
        # (see encode_thread): a commit writes the pages its run changed.
        self._layouts: weakref.WeakKeyDictionary[Thread, Layout] = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        state = f", disabled: {self._disabled}" if self._disabled else ""
        return f"Journal({self.path!r}{state})"

    def _scrubber(self) -> Scrubber:
        scrubber = self._agent_scrubber()
        return scrubber.union(self._store_secrets) if self._store_secrets else scrubber

    # -- the store, opened once ----------------------------------------------------------

    def store(self) -> StoreBackend:
        """The open store; raises the typed :class:`StoreError` that disabled it."""
        if self._disabled is not None:
            raise self._disabled
        if self._store is None:
            try:  # opened by the first run that commits
                self._store = open_store(self._location)
            except StoreError as exc:
                self._disabled = exc
                raise
        return self._store

    def close(self) -> None:
        """Close the store's connection (it is opened again when needed)."""
        store, self._store = self._store, None
        if store is not None:
            store.close()

    def _usable(self) -> StoreBackend | None:
        try:
            return self.store()
        except StoreError as exc:
            self._warn(exc)
            return None

    def _warn(self, error: StoreError) -> None:
        if self._warned:
            return
        self._warned = True
        consequence = (
            "this run was not stored; the next one will try again"
            if self._disabled is None
            else "threads and decisions of this agent are not stored from now on"
        )
        warnings.warn(
            StoreWarning(f"{error} -- {consequence} (the run itself is not affected)"),
            stacklevel=3,
        )

    def _failed(self, error: StoreError, unwritten: list[AuditEntry]) -> None:
        if isinstance(error, StoreUnavailable) and (error.transient or "locked" in str(error)):
            self._backlog = unwritten  # transient: they go with the next commit
        else:
            self._disabled = error
        self._warn(error)

    # -- the Thread's journal protocol ---------------------------------------------------

    def committed(self, thread: Thread, run: RunStream, answered: list[PendingInterrupt]) -> None:
        """Write a committed run. Never raises (a store problem is a StoreWarning)."""
        store = self._usable()
        if store is None:
            return
        audit: list[AuditEntry] = list(self._backlog)
        try:
            scrubber = self._scrubber()
            record = run.record
            now = datetime.now(timezone.utc)
            status = record.status if record is not None else "success"
            if run.decisions:
                audit += self._entries(
                    answered,
                    run.decisions,
                    thread_id=thread.id,
                    run_id=run.run_id,
                    time=record.started_at if record is not None else now,
                    decided_by=run.decided_by,
                    outcome=status,
                    scrubber=scrubber,
                    person=run.person,
                    evidence=run.evidence,
                )
            held = thread.committed
            row = encode_thread(
                agent_url=self.agent_url,
                thread_id=thread.id,
                snapshot=held.snapshot,
                pending=held.pending,
                last_run_id=held.last_run_id,
                last_status=status,
                answered=held.answered,
                now=now,
                scrubber=scrubber,
                layout=self._layouts.get(thread),
            )
            summary = encode_run(
                run_id=run.run_id,
                kind=record.kind if record is not None else "run",
                parent_run_id=record.parent_run_id if record is not None else None,
                started_at=record.started_at if record is not None else now,
                finished_at=now,
                status=status,
                event_count=record.event_count if record is not None else 0,
                warnings=list(record.warnings) if record is not None else [],
                resume=list(record.resume) if record is not None else [],
                scrubber=scrubber,
            )
            answered_ids = [e.interrupt_id for e in run.resume]
            raised = {p.id for p in held.pending}  # raised again: answerable again
            settled = [i for i in answered_ids if i not in raised]
            reopened = [i for i in answered_ids if i in raised]
            revision = store.save_run(row, summary, audit, settled, reopened)
            # Only once written: a failed write leaves the store, and so the layout, as it was.
            self._layouts[thread] = row.layout_after(revision, scrubber.secrets)
            self._backlog = []
        except StoreError as exc:
            self._failed(exc, audit)
        except (TypeError, ValueError) as exc:  # a state that is not JSON, for one
            self._warn(StoreUnavailable(f"cannot store thread {thread.id}: {exc}", self.path))

    def claim(self, thread: Thread, run: RunStream) -> None:
        """Claim the interrupts ``run`` answers before it is sent; raises :class:`AlreadyDecided`
        when another kernel's claim holds. A store problem is a StoreWarning and the resume goes
        out unclaimed (as it would without a store)."""
        store = self._usable()
        ids = [e.interrupt_id for e in run.resume]
        if store is None or not ids:
            return
        now = time.time()
        claimed_at = datetime.fromtimestamp(now, timezone.utc).isoformat(timespec="seconds")
        mine = [
            Claim(
                interrupt_id=i,
                token=self.token,
                claimant=_claimant(),
                host=socket.gethostname(),
                pid=os.getpid(),
                decided_by=run.decided_by,
                claimed_at=claimed_at,
                lease_until=now + claim_lease(),
            )
            for i in ids
        ]
        try:
            held = store.claim(self.agent_url, thread.id, mine, now)
        except StoreError as exc:
            self._warn(exc)
            return
        if held is not None:
            raise _already(held)

    def release(self, thread: Thread, run: RunStream) -> None:
        """Give up this journal's claims for ``run``: it failed before reaching the server."""
        store = self._usable()
        if store is None:
            return
        try:
            store.release(
                self.agent_url, thread.id, [e.interrupt_id for e in run.resume], self.token
            )
        except StoreError as exc:
            self._warn(exc)

    def inbox(self) -> list[InboxItem]:
        """This agent's pending approvals across threads and machines, newest first."""
        return inbox_view(self.store(), self.agent_url)

    def claimed_elsewhere(self, thread: Thread, interrupt_ids: list[str]) -> AlreadyDecided | None:
        """Another journal's claim that holds on one of these interrupts now (for the card to
        say "being decided by ada on host-2" before anyone clicks); None when there is none or
        the store cannot be read."""
        store = self._usable()
        if store is None:
            return None
        try:
            claims = store.claims(self.agent_url, thread.id)
        except StoreError:
            return None
        now = time.time()
        for claim in claims:
            if claim.interrupt_id in interrupt_ids and claim.holds_against(self.token, now):
                return _already(claim)
        return None

    def claims(self) -> list[Claim]:
        """This agent's claims, oldest first (raises the store's typed error)."""
        return self.store().claims(self.agent_url)

    def record_attempt(
        self,
        interrupts: list[PendingInterrupt],
        decisions: Mapping[str, Decision],
        *,
        thread_id: str,
        run_id: str | None,
        time: datetime,
        decided_by: str | None,
        outcome: str,
        person: Person | None = None,
        evidence: Mapping[str, Evidence] | None = None,
    ) -> None:
        """Append the decisions of a resume that did not commit (failed, or refused unsent)."""
        store = self._usable()
        if store is None:
            return
        entries = [
            *self._backlog,
            *self._entries(
                interrupts,
                decisions,
                thread_id=thread_id,
                run_id=run_id,
                time=time,
                decided_by=decided_by,
                outcome=outcome,
                scrubber=self._scrubber(),
                person=person,
                evidence=evidence,
            ),
        ]
        try:
            store.append_audit(entries)
            self._backlog = []
        except StoreError as exc:
            self._failed(exc, entries)

    def _entries(
        self,
        interrupts: list[PendingInterrupt],
        decisions: Mapping[str, Decision],
        *,
        thread_id: str,
        run_id: str | None,
        time: datetime,
        decided_by: str | None,
        outcome: str,
        scrubber: Scrubber,
        person: Person | None = None,
        evidence: Mapping[str, Evidence] | None = None,
    ) -> list[AuditEntry]:
        entries = decision_entries(
            interrupts,
            decisions,
            agent_url=self.agent_url,
            thread_id=thread_id,
            run_id=run_id,
            time=time,
            decided_by=decided_by,
            outcome=outcome,
            person=person,
            evidence=evidence,
        )
        return [_scrub_entry(e, scrubber) for e in entries] if scrubber else entries

    # -- reading back --------------------------------------------------------------------

    def restore(self, thread: Thread) -> bool:
        """Fill a new ``thread`` from its stored row; False when there is none (or no store)."""
        store = self._usable()
        if store is None:
            return False
        try:
            data = store.load_thread(self.agent_url, thread.id)
            if data is None:
                return False
            restored = decode_stored(data, thread.id)
        except StoreError as exc:
            self._warn(exc)
            return False
        except (ValueError, TypeError, KeyError) as exc:
            self._warn(
                StoreUnavailable(
                    f"the stored thread {thread.id} in {self.path} cannot be read ({exc})",
                    self.path,
                )
            )
            return False
        thread.restore(
            CommittedThread(
                restored.snapshot, restored.pending, restored.last_run_id, restored.answered
            ),
            runs=[_run_record(run_id, summary) for run_id, summary in data.runs],
        )
        if restored.layout is not None:
            self._layouts[thread] = restored.layout
        for note in restored.warnings:
            warnings.warn(StoreWarning(f"thread {thread.id}: {note}"), stacklevel=3)
        return True

    def threads(self, pending: bool | None = None) -> list[ThreadSummary]:
        """This agent's stored threads, newest first (raises the store's typed error)."""
        return self.store().threads(self.agent_url, pending=pending)

    def audit_head(self) -> str | None:
        """The store's audit chain head as ``SEQ:HASH`` (None: no store, or it cannot be read)."""
        store = self._usable()
        if store is None:
            return None
        try:
            head = store.audit_head()
        except StoreError:
            return None
        return format_head(head)

    def chat_audit(self, thread: Thread) -> list[dict[str, Any]]:
        """The thread's stored decisions in ``chat.audit``'s shape (no card: an earlier session)."""
        store = self._usable()
        if store is None:
            return []
        try:
            entries = store.thread_audit(self.agent_url, thread.id)
            links = [
                item
                for item in store.thread_links(self.agent_url, thread.id)
                if item.record.get("thread_id") == thread.id
                and item.record.get("agent_url") == self.agent_url
            ]
        except StoreError as exc:
            self._warn(exc)
            return []
        calls = thread.committed.snapshot.tool_calls
        records = []
        for entry in entries:
            call = calls.get(entry.tool_call_id) if entry.tool_call_id else None
            records.append(
                chat_record(entry, card=None, arguments=call.arguments if call else None)
            )
        if len(links) == len(records):
            # The head after each write, as the live chat noted it: a write's records share
            # their run and time, and the head after it is its last record's.
            last: dict[tuple[Any, Any], str] = {}
            for item in links:
                last[(item.record.get("run_id"), item.record.get("time"))] = format_head(
                    (item.seq, item.hash)
                )
            for record, item in zip(records, links, strict=True):
                record["auditHead"] = last[(item.record.get("run_id"), item.record.get("time"))]
        return records


def _already(held: Claim) -> AlreadyDecided:
    return AlreadyDecided(
        held.interrupt_id,
        claimant=held.claimant,
        host=held.host,
        pid=held.pid,
        decided_by=held.decided_by,
        claimed_at=held.claimed_at,
        lease_until=datetime.fromtimestamp(held.lease_until, timezone.utc).isoformat(
            timespec="seconds"
        ),
        settled=held.settled,
    )


def inbox_view(store: StoreBackend, agent_url: str | None = None) -> list[InboxItem]:
    """Every pending approval in ``store`` (of one agent URL, or all), with who is deciding."""
    return inbox_items(store.pending_rows(agent_url), store.claims(agent_url), time.time())


def _scrub_entry(entry: AuditEntry, scrubber: Scrubber) -> AuditEntry:
    edited = entry.edited_arguments
    if edited is not None:
        edited = scrubber.value(edited)
    reason = scrubber.text(entry.reason) if entry.reason else entry.reason
    if edited == entry.edited_arguments and reason == entry.reason:
        return entry
    return AuditEntry(**{**entry.to_json(), "edited_arguments": edited, "reason": reason})


def _run_record(run_id: str, summary: Mapping[str, Any]) -> RunRecord:
    finished = summary.get("finishedAt")
    return RunRecord(
        run_id=run_id,
        kind="resume" if summary.get("kind") == "resume" else "run",
        parent_run_id=summary.get("parentRunId"),
        started_at=datetime.fromisoformat(summary["startedAt"]),
        status=str(summary.get("status", "success")),
        finished_at=datetime.fromisoformat(finished) if finished else None,
        resume=list(summary.get("resume") or []),
        event_count=int(summary.get("eventCount") or 0),
        warnings=list(summary.get("warnings") or []),
    )
