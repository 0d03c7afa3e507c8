"""The store over SQL, whichever database runs it: threads, pages, runs, claims and the audit chain.

:class:`SqlStore` meets ``StoreBackend`` with the statements of ``sql`` and the rows they read;
a backend (``sqlite``, ``postgres``) subclasses it for what only it knows: connecting, creating
and migrating its schema, its transactions and locks, and turning its driver's exceptions into
typed ``StoreError`` s. It does so through three hooks: :meth:`SqlStore._write` (a write
transaction that nobody else's write to the same rows interleaves with), :meth:`SqlStore._snapshot`
(reads that see one commit) and :meth:`SqlStore._read` (one statement).

The guarantees that rest on the backend's locks: a thread's revision and its runs' numbers are
read and written under a lock held to the commit; a claim is taken (or found held) under one, so
a resume goes out once across processes; the audit chain's head is read and moved under one, so
appends from several processes never fork it.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator, Sequence
from typing import Any, Protocol, TypeVar

from .._decisions.audit import (
    GENESIS_HASH,
    AuditEntry,
    ChainBreak,
    ChainLink,
    canonical_json,
    link,
    verify_chain,
)
from .._errors import StoreVersionError
from .codec import (
    Claim,
    RunRow,
    StoredThreadData,
    ThreadCopy,
    ThreadRow,
    ThreadSummary,
    summary_from_row,
)
from .pages import KINDS, Page
from .sql import CLAIMS_SINCE, PAGES_SINCE, Sql

__all__ = ["Cursor", "SqlStore", "closed_if_failed", "newer_schema"]

_Store = TypeVar("_Store", bound="SqlStore")


class Cursor(Protocol):
    """What the core needs of a driver's cursor (sqlite3's and psycopg's both are one)."""

    @property
    def rowcount(self) -> int: ...

    def execute(self, query: str, params: Sequence[Any] = ..., /) -> Any: ...

    def executemany(self, query: str, rows: Sequence[Sequence[Any]], /) -> Any: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class SqlStore:
    """An open store: the queries, written once (``sql``), over a backend's connection."""

    def __init__(self, sql: Sql, *, where: str, readonly: bool, version: int) -> None:
        self._sql = sql
        self._where = where
        self.readonly = readonly
        #: The schema version the store is at (an older one opened read-only stays at its own):
        #: the one answer to "does it have the tables of version N".
        self.version = version
        #: One connection, one statement at a time: held around each transaction and read.
        self._lock = threading.Lock()

    # -- the backend's hooks ---------------------------------------------------------------------

    def _write(self, action: str) -> contextlib.AbstractContextManager[Cursor]:
        """A write transaction, committed when the block ends (rolled back if it raises); from
        its first statement, no other writer of the store (SQLite) or of the rows it locks
        (PostgreSQL) runs until it ends. ``action`` names it in errors."""
        raise NotImplementedError

    def _snapshot(self, action: str) -> contextlib.AbstractContextManager[Cursor]:
        """A read-only transaction whose statements all see the same commit."""
        raise NotImplementedError

    def _read(self, action: str, query: str, params: Sequence[Any] = ()) -> list[Any]:
        """The rows of one statement."""
        raise NotImplementedError

    # -- the store -------------------------------------------------------------------------------

    @property
    def where(self) -> str:
        """Where the store is, for messages (never a credential)."""
        return self._where

    @property
    def schema_version(self) -> int:
        """The schema version this store is at (the backend's newest, once opened for writing)."""
        return self.version

    def __enter__(self: _Store) -> _Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        raise NotImplementedError

    # -- writing ---------------------------------------------------------------------------------

    def save_run(
        self,
        thread: ThreadRow,
        run: RunRow,
        audit: Sequence[AuditEntry] = (),
        settled: Sequence[str] = (),
        reopened: Sequence[str] = (),
    ) -> int:
        """Write a committed run: the thread as it now is (its row and the pages its run
        changed), the run's summary, its decisions, and the claims on the interrupts it answered
        settled. Returns the thread's new revision."""
        sql = self._sql
        key = (thread.agent_url, thread.id)
        with self._write("save a run") as cur:
            # Locked to the commit: nobody writes the thread between this read and the commit.
            found = cur.execute(sql.thread_base, key).fetchone()
            cur.execute(sql.save_thread, _thread_values(thread))
            if sql.dialect.upsert_returns_revision:
                # A thread created meanwhile by another process had no row to lock above.
                revision = int(cur.fetchone()[0])
            else:
                revision = (found[0] if found is not None else 0) + 1
            # A new thread, one in version 2's layout, or one written by someone else since the
            # journal's last write: every page is written.
            known = found is not None and bool(found[1]) and found[0] == thread.base_revision
            self._write_pages(cur, thread, revision, every=not known)
            cur.execute(sql.add_run, (*key, *key, run.run_id, run.summary))
            self._append_audit(cur, audit)
            if settled:
                cur.executemany(sql.settle_claim, [(*key, i) for i in settled])
            if reopened:
                cur.executemany(sql.drop_claim, [(*key, i) for i in reopened])
        return revision

    def _write_pages(self, cur: Cursor, thread: ThreadRow, revision: int, *, every: bool) -> None:
        """The thread's pages as its row says: the plans' changed pages and nothing past each
        plan's last page, or (``every``) every page, anything else of the thread removed first."""
        key = (thread.agent_url, thread.id)
        if every:
            cur.execute(self._sql.drop_pages, key)
            pages = [p for plan in thread.pages for p in plan.every_page()]
        else:
            cur.executemany(
                self._sql.drop_pages_from,
                [(*key, kind, count) for kind, count in _page_counts(thread)],
            )
            pages = [p for plan in thread.pages for p in plan.changed]
        if pages:
            cur.executemany(self._sql.save_page, [p.row(*key, revision) for p in pages])

    def append_audit(self, entries: Sequence[AuditEntry]) -> None:
        """Append decisions whose run did not commit (a failed or refused resume)."""
        if entries:
            with self._write("append to the audit log") as cur:
                self._append_audit(cur, entries)

    def _append_audit(self, cur: Cursor, entries: Sequence[AuditEntry]) -> None:
        """Append to the chain inside the caller's transaction, the chain's head locked."""
        if not entries:
            return
        if self._sql.dialect.lock_audit:
            cur.execute(self._sql.dialect.lock_audit)  # held until the transaction ends
        head = dict(cur.execute(self._sql.audit_head).fetchall())
        seq = int(head.get("audit_head_seq", 0))
        prev = str(head.get("audit_head_hash", GENESIS_HASH))
        rows = []
        for entry in entries:
            seq += 1
            item = link(prev, seq, entry)
            record = canonical_json(item.record)
            rows.append((seq, entry.agent_url, entry.thread_id, record, prev, item.hash))
            prev = item.hash
        cur.executemany(self._sql.add_audit, rows)
        self._set_head(cur, (seq, prev))

    def _set_head(self, cur: Cursor, head: tuple[int, str]) -> None:
        rows = [("audit_head_seq", str(head[0])), ("audit_head_hash", head[1])]
        cur.executemany(self._sql.set_meta, rows)

    # -- reading ---------------------------------------------------------------------------------

    def load_thread(self, agent_url: str, thread_id: str) -> StoredThreadData | None:
        """A thread's row, pages and runs, read in one transaction (one snapshot: never pages of
        one commit beside the row of another)."""
        sql = self._sql
        key = (agent_url, thread_id)
        paged = self.version >= PAGES_SINCE
        with self._snapshot("read a thread") as cur:
            row = cur.execute(sql.load_thread if paged else sql.load_thread_v2, key).fetchone()
            if row is None:
                return None
            pages = cur.execute(sql.load_pages, key).fetchall() if paged else []
            runs = cur.execute(sql.load_runs, key).fetchall()
        created, updated, last_run_id, state, pending, answered, messages, tool_calls = row[:8]
        revision, message_count, tool_call_count = row[8:] if paged else (0, 0, 0)
        return StoredThreadData(
            agent_url=agent_url,
            id=thread_id,
            created_at=created,
            updated_at=updated,
            last_run_id=last_run_id,
            state=state,
            pending=pending,
            answered=answered,
            runs=[(run_id, json.loads(summary)) for run_id, summary in runs],
            messages=messages,
            tool_calls=tool_calls,
            revision=int(revision),
            message_count=message_count,
            tool_call_count=tool_call_count,
            pages=[Page(*p) for p in pages],
        )

    def threads(
        self, agent_url: str | None = None, *, pending: bool | None = None
    ) -> list[ThreadSummary]:
        """Stored threads, newest first: of one agent URL (or all), only pending ones, or not."""
        conditions, params = _of_agent(agent_url)
        if pending is not None:
            conditions.append("pending_count > 0" if pending else "pending_count = 0")
        sql = self._sql
        query = sql.list_threads + sql.where(conditions) + sql.newest_first
        return [
            summary_from_row(
                id=r[0],
                agent_url=r[1],
                created_at=r[2],
                updated_at=r[3],
                pending=r[4],
                messages=r[5],
                last_status=r[6],
                title=r[7],
            )
            for r in self._read("list threads", query, params)
        ]

    def pending_rows(
        self, agent_url: str | None = None
    ) -> list[tuple[str, str, str, str | None, str]]:
        """Threads with pending interrupts, newest first: (agent URL, id, updated_at, title,
        pending JSON)."""
        conditions, params = _of_agent(agent_url)
        sql = self._sql
        query = sql.pending_rows + sql.where(["pending_count > 0", *conditions]) + sql.newest_first
        rows = self._read("list pending threads", query, params)
        return [(str(r[0]), str(r[1]), str(r[2]), r[3], str(r[4])) for r in rows]

    # -- the audit log ---------------------------------------------------------------------------

    def audit_links(self) -> list[ChainLink]:
        """Every audit record in storage order, as stored (for export and verification)."""
        rows = self._read("read the audit log", self._sql.audit_links)
        return [_chain_link(*row) for row in rows]

    def audit_head(self) -> tuple[int, str] | None:
        """(seq, hash) of the last record as noted at its append; None for an empty log."""
        values = dict(self._read("read the audit head", self._sql.audit_head))
        if "audit_head_seq" not in values:
            return None
        return int(values["audit_head_seq"]), str(values.get("audit_head_hash", ""))

    def verify_audit(self) -> tuple[int, ChainBreak | None]:
        """(records checked, the first break or None)."""
        return verify_chain(self.audit_links(), head=self.audit_head())

    def thread_links(self, agent_url: str, thread_id: str) -> list[ChainLink]:
        """One thread's audit records in storage order, as stored (by the thread's index: a
        restored chat's chain heads without reading the whole log)."""
        key = (agent_url, thread_id)
        rows = self._read("read a thread's audit records", self._sql.thread_links, key)
        return [_chain_link(*row) for row in rows]

    def thread_audit(self, agent_url: str, thread_id: str) -> list[AuditEntry]:
        key = (agent_url, thread_id)
        rows = self._read("read a thread's audit records", self._sql.thread_audit, key)
        entries: list[AuditEntry] = []
        for (text,) in rows:
            with contextlib.suppress(ValueError, TypeError):
                entries.append(AuditEntry.from_json(json.loads(text)))
        return entries

    # -- claims: a resume goes out once across processes -----------------------------------------

    def claim(
        self, agent_url: str, thread_id: str, claims: Sequence[Claim], now: float
    ) -> Claim | None:
        """Claim every interrupt of a resume, all or none; the claim that holds against it."""
        sql = self._sql
        try:
            with self._write("claim interrupts") as cur:
                for mine in claims:
                    key = (agent_url, thread_id, mine.interrupt_id)
                    values = _claim_values(mine)
                    if cur.execute(sql.add_claim, (*key[:2], *values)).rowcount == 1:
                        continue
                    held = _claim_from_row(cur.execute(sql.held_claim, key).fetchone())
                    if held.holds_against(mine.token, now):
                        raise _Held(held)  # rolls back the claims taken before it
                    cur.execute(sql.retake_claim, (*values[1:], *key))
        except _Held as held:
            return held.claim
        return None

    def release(
        self, agent_url: str, thread_id: str, interrupt_ids: Sequence[str], token: str
    ) -> None:
        """Drop ``token``'s unsettled claims (its resume failed without reaching the server)."""
        if not interrupt_ids:
            return
        with self._write("release claims") as cur:
            cur.executemany(
                self._sql.release_claim, [(agent_url, thread_id, i, token) for i in interrupt_ids]
            )

    def claims(self, agent_url: str | None = None, thread_id: str | None = None) -> list[Claim]:
        """Every claim (of one agent URL, of one thread), oldest first."""
        if self.version < CLAIMS_SINCE:
            return []  # an older store, opened read-only: no claims yet
        conditions, params = _of_agent(agent_url)
        if thread_id is not None:
            conditions.append("thread_id = ?")
            params.append(thread_id)
        sql = self._sql
        query = sql.list_claims + sql.where(conditions) + sql.oldest_first
        return [_claim_from_row(r) for r in self._read("read the claims", query, params)]

    # -- copying a whole store -------------------------------------------------------------------

    def is_empty(self) -> bool:
        """No thread and no audit record yet."""
        return int(self._read("read the store", self._sql.count_rows)[0][0]) == 0

    def copy_threads(self) -> list[ThreadCopy]:
        """Every thread with its runs, as stored, in the order they were first written."""
        sql = self._sql
        paged = self.version >= PAGES_SINCE
        rows = self._read("read the threads", sql.copy_threads if paged else sql.copy_threads_v2)
        runs: dict[tuple[str, str], list[RunRow]] = {}
        for agent_url, thread_id, run_id, summary in self._read("read the runs", sql.copy_runs):
            runs.setdefault((agent_url, thread_id), []).append(RunRow(run_id, summary))
        pages: dict[tuple[str, str], list[Page]] = {}
        if paged:
            for agent_url, thread_id, *page in self._read("read the pages", sql.copy_pages):
                pages.setdefault((agent_url, thread_id), []).append(Page(*page))
        return [
            ThreadCopy(
                row=_copied_row(r, paged),
                created_at=r[2],
                runs=runs.get((r[0], r[1]), []),
                pages=pages.get((r[0], r[1]), []),
            )
            for r in rows
        ]

    def paste_thread(self, copy: ThreadCopy) -> None:
        """Write a copied thread and its runs as they were (times, numbering) in one transaction."""
        t = copy.row
        key = (t.agent_url, t.id)
        with self._write("copy a thread") as cur:
            cur.execute(
                self._sql.paste_thread,
                (
                    *key, copy.created_at, t.updated_at, t.title, t.last_run_id, t.last_status,
                    t.message_count, t.pending_count, t.messages, t.state, t.tool_calls,
                    t.pending, t.answered, t.revision, t.tool_call_count,
                ),
            )  # fmt: skip
            if copy.runs:
                runs = [(*key, n, run.run_id, run.summary) for n, run in enumerate(copy.runs, 1)]
                cur.executemany(self._sql.paste_run, runs)
            if copy.pages:
                cur.executemany(self._sql.save_page, [p.row(*key, p.revision) for p in copy.pages])

    def append_links(self, links: Sequence[ChainLink], head: tuple[int, str] | None) -> None:
        """Append audit records as they are (numbers, records, hashes) and note ``head``."""
        with self._write("copy the audit log") as cur:
            if self._sql.dialect.lock_audit:
                cur.execute(self._sql.dialect.lock_audit)
            rows = [
                (
                    item.seq,
                    str(item.record.get("agent_url", "")),
                    str(item.record.get("thread_id", "")),
                    canonical_json(item.record),
                    item.prev_hash,
                    item.hash,
                )
                for item in links
            ]
            if rows:
                cur.executemany(self._sql.add_audit, rows)
            if head is not None:
                self._set_head(cur, head)


class _Closable(Protocol):
    def close(self) -> None: ...


@contextlib.contextmanager
def closed_if_failed(conn: _Closable) -> Iterator[None]:
    """Closes ``conn`` when the block raises: an open that failed keeps no connection."""
    try:
        yield
    except BaseException:
        conn.close()
        raise


def newer_schema(
    where: str, found: int, supported: int, *, meanwhile: bool = False
) -> StoreVersionError:
    """A store written by a newer agui_notebook (``meanwhile``: upgraded while we opened it)."""
    said = (
        f"was upgraded to schema version {found} meanwhile"
        if meanwhile
        else f"has schema version {found}, written by a newer agui_notebook; this one reads up "
        f"to version {supported}"
    )
    return StoreVersionError(f"the store {where} {said}", where, found=found, supported=supported)


# -- rows --------------------------------------------------------------------------------------


def _thread_values(t: ThreadRow) -> tuple[Any, ...]:
    """``Sql.save_thread``'s values (its first write's time is its creation's)."""
    return (
        t.agent_url, t.id, t.updated_at, t.updated_at, t.title, t.last_run_id, t.last_status,
        t.message_count, t.pending_count, t.state, t.pending, t.answered, t.tool_call_count,
    )  # fmt: skip


def _copied_row(r: Sequence[Any], paged: bool) -> ThreadRow:
    """A row of ``Sql.copy_threads`` (``copy_threads_v2``), kept as it is."""
    revision, tool_call_count = (r[14], r[15]) if paged else (0, 0)
    return ThreadRow(
        agent_url=r[0], id=r[1], updated_at=r[3], title=r[4], last_run_id=r[5],
        last_status=r[6], message_count=r[7], pending_count=r[8], messages=r[9], state=r[10],
        tool_calls=r[11], pending=r[12], answered=r[13], revision=revision,
        tool_call_count=tool_call_count,
    )  # fmt: skip


def _page_counts(thread: ThreadRow) -> list[tuple[str, int]]:
    """Pages of each kind after this write (a kind without a plan has none)."""
    counts = {kind: 0 for kind in KINDS}
    counts.update({plan.kind: plan.page_count for plan in thread.pages})
    return list(counts.items())


def _of_agent(agent_url: str | None) -> tuple[list[str], list[Any]]:
    """The condition and parameter that keep one agent URL's rows (none: every agent's)."""
    return ([], []) if agent_url is None else (["agent_url = ?"], [agent_url])


class _Held(Exception):
    """Rolls a claim back: another process's claim holds."""

    def __init__(self, claim: Claim) -> None:
        self.claim = claim


def _claim_values(c: Claim) -> tuple[Any, ...]:
    return (
        c.interrupt_id, c.token, c.claimant, c.host, c.pid, c.decided_by, c.claimed_at,
        c.lease_until, int(c.settled),
    )  # fmt: skip


def _claim_from_row(row: Any) -> Claim:
    interrupt_id, token, claimant, host, pid, decided_by, claimed_at, lease_until, settled = row
    return Claim(
        interrupt_id=str(interrupt_id),
        token=str(token),
        claimant=str(claimant),
        host=str(host),
        pid=None if pid is None else int(pid),
        decided_by=decided_by,
        claimed_at=str(claimed_at),
        lease_until=float(lease_until),
        settled=bool(settled),
    )


def _chain_link(seq: Any, record: Any, prev_hash: Any, hash_: Any) -> ChainLink:
    try:
        parsed = json.loads(record)
        if not isinstance(parsed, dict):
            raise ValueError("not an object")
    except (ValueError, TypeError):
        parsed = {"unreadable": str(record)}  # cannot match its hash: reported as altered
    return ChainLink(int(seq), parsed, str(prev_hash), str(hash_))
