"""The store: one SQLite file (standard library ``sqlite3``) that keeps threads and the audit log.

- WAL mode, so several kernels on one machine read and write it at once; a write waits for
  another writer up to ``busy_timeout`` (5 s) instead of failing.
- One transaction per committed run: the thread's row, the run's summary and the run's audit
  records land together or not at all (a kernel killed mid-write leaves the last committed run).
- The schema version is ``PRAGMA user_version``; older files migrate forward when opened, a
  newer one is a :class:`StoreVersionError`. ``PRAGMA application_id`` marks the file as ours.
- The file, its ``-wal`` and ``-shm`` are readable by their owner only (0600); a directory this
  module creates is 0700.
- ``synchronous=NORMAL``: a process crash never loses a commit; a power cut may lose the last
  ones (SQLite's WAL guarantee), never corrupt the file.

Every failure is one of the typed :class:`StoreError` s; callers that run agents turn them into a
:class:`StoreWarning` and go on without the store (``_store.journal``).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .._decisions.audit import (
    GENESIS_HASH,
    AuditEntry,
    ChainBreak,
    ChainLink,
    canonical_json,
    link,
    verify_chain,
)
from .._errors import StoreCorrupt, StoreError, StoreUnavailable, StoreVersionError
from .codec import (
    Claim,
    RunRow,
    StoredThreadData,
    ThreadCopy,
    ThreadRow,
    ThreadSummary,
    copied_row,
    summary_from_row,
)
from .pages import KINDS, Page

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "Store", "StoredThreadData"]

#: "AGUN" in ASCII: marks a SQLite file as an agui_notebook store.
APPLICATION_ID = 0x4147554E
BUSY_TIMEOUT_MS = 5000
#: Opening may meet locks the busy handler does not wait on (another process creating or
#: migrating the schema, recovering the WAL): the whole open is retried for this long.
OPEN_WAIT_S = 30.0

_SCHEMA_V1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE threads (
    agent_url TEXT NOT NULL,
    id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    title TEXT,
    last_run_id TEXT,
    last_status TEXT,
    message_count INTEGER NOT NULL,
    pending_count INTEGER NOT NULL,
    messages TEXT NOT NULL,
    state TEXT NOT NULL,
    tool_calls TEXT NOT NULL,
    pending TEXT NOT NULL,
    answered TEXT NOT NULL,
    UNIQUE (agent_url, id)
);
CREATE INDEX threads_by_update ON threads (updated_at DESC);
CREATE TABLE runs (
    agent_url TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    run_id TEXT NOT NULL,
    summary TEXT NOT NULL,
    PRIMARY KEY (agent_url, thread_id, seq)
);
CREATE TABLE audit (
    seq INTEGER PRIMARY KEY,
    agent_url TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    record TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE INDEX audit_by_thread ON audit (agent_url, thread_id, seq);
"""

_SCHEMA_V2 = """
CREATE TABLE claims (
    agent_url TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    interrupt_id TEXT NOT NULL,
    token TEXT NOT NULL,
    claimant TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER,
    decided_by TEXT,
    claimed_at TEXT NOT NULL,
    lease_until REAL NOT NULL,
    settled INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (agent_url, thread_id, interrupt_id)
);
"""

_SCHEMA_V3 = """
CREATE TABLE thread_pages (
    agent_url TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    page INTEGER NOT NULL,
    items INTEGER NOT NULL,
    body TEXT NOT NULL,
    digest TEXT NOT NULL,
    validated_by TEXT,
    revision INTEGER NOT NULL,
    PRIMARY KEY (agent_url, thread_id, kind, page)
);
ALTER TABLE threads ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
ALTER TABLE threads ADD COLUMN tool_call_count INTEGER NOT NULL DEFAULT 0;
"""

#: (version, script) in order: a file at version N runs every script above N, in one transaction.
#: Version 2 adds the claims, so a resume goes out once across kernels sharing the store.
#: Version 3 keeps messages and tool calls in pages (``thread_pages``), so a commit writes what
#: its run changed; a thread written before keeps its JSON texts until its next commit.
MIGRATIONS: list[tuple[int, str]] = [(1, _SCHEMA_V1), (2, _SCHEMA_V2), (3, _SCHEMA_V3)]
SCHEMA_VERSION = MIGRATIONS[-1][0]


class Store:
    """An open store file. Thread-safe (one connection behind a lock); use from any thread.

    >>> store = Store("/tmp/agui.sqlite3")      # doctest: +SKIP
    >>> store.threads(pending=True)             # doctest: +SKIP
    """

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        self.path = Path(path).expanduser()
        self.readonly = readonly
        self._lock = threading.Lock()
        #: The file's schema version (an older file opened read-only stays at its own).
        self.version = SCHEMA_VERSION
        self._conn = self._connect()

    # -- opening -------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        deadline = time.monotonic() + OPEN_WAIT_S
        pause = 0.01
        while True:
            try:
                return self._connect_once()
            except _Busy as busy:
                if time.monotonic() + pause > deadline:
                    raise _store_error(busy.error, self.path, "open", OPEN_WAIT_S) from None
                time.sleep(pause)
                pause = min(pause * 2, 0.5)

    def _connect_once(self) -> sqlite3.Connection:
        path = self.path
        if self.readonly:
            if not path.exists():
                raise StoreUnavailable(f"there is no store at {path}", str(path))
        else:
            _prepare_file(path)
        mode = "ro" if self.readonly else "rw"  # never let SQLite create the file (mode 0600 above)
        uri = f"file:{quote(str(path.resolve()))}?mode={mode}"
        try:
            conn = sqlite3.connect(
                uri,
                uri=True,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,  # we issue BEGIN/COMMIT ourselves
                check_same_thread=False,
            )
        except sqlite3.Error as exc:
            raise _open_error(exc, path) from None
        try:
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreVersionError(
                    f"the store {path} has schema version {version}, written by a newer "
                    f"agui_notebook; this one reads up to version {SCHEMA_VERSION}",
                    str(path),
                    found=version,
                    supported=SCHEMA_VERSION,
                )
            if app_id not in (0, APPLICATION_ID) or (
                app_id == 0 and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0
            ):
                raise StoreCorrupt(
                    f"{path} is a SQLite file of another application, not an agui_notebook store",
                    str(path),
                )
            if not self.readonly:
                journal = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                if str(journal).lower() != "wal":
                    raise StoreUnavailable(
                        f"the store {path} cannot use WAL mode (got {journal!r})", str(path)
                    )
                conn.execute("PRAGMA synchronous=NORMAL")
                if version < SCHEMA_VERSION:
                    _migrate(conn, path)
                _restrict_side_files(path)
            elif version == 0:
                raise StoreCorrupt(f"{path} is an empty store (no schema)", str(path))
            else:
                self.version = version
        except StoreError:
            conn.close()
            raise
        except sqlite3.Error as exc:
            conn.close()
            raise _open_error(exc, path) from None
        return conn

    @property
    def where(self) -> str:
        return str(self.path)

    @property
    def schema_version(self) -> int:
        """The schema version this store is at (this module's, once opened for writing)."""
        return SCHEMA_VERSION

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    # -- writing -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _write(self, action: str) -> Iterator[sqlite3.Cursor]:
        if self.readonly:
            raise StoreUnavailable(f"the store {self.path} is open read-only", str(self.path))
        with self._lock:
            cur = self._conn.cursor()
            try:
                cur.execute("BEGIN IMMEDIATE")  # take the write lock now: no upgrade deadlock
                yield cur
                cur.execute("COMMIT")
            except BaseException as exc:
                with contextlib.suppress(sqlite3.Error):
                    if self._conn.in_transaction:
                        cur.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise _store_error(exc, self.path, action) from None
                raise
            finally:
                cur.close()

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
        key = (thread.agent_url, thread.id)
        with self._write("save a run") as cur:
            # Under the write lock: nobody writes the thread between this read and the commit.
            found = cur.execute(
                "SELECT revision, messages = '' AND tool_calls = '' FROM threads "
                "WHERE agent_url = ? AND id = ?",
                key,
            ).fetchone()
            revision = (found[0] if found is not None else 0) + 1
            cur.execute(
                """
                INSERT INTO threads (agent_url, id, created_at, updated_at, title, last_run_id,
                    last_status, message_count, pending_count, messages, state, tool_calls,
                    pending, answered, revision, tool_call_count)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, '', ?, ?, ?, ?)
                ON CONFLICT (agent_url, id) DO UPDATE SET
                    updated_at = excluded.updated_at,
                    title = COALESCE(threads.title, excluded.title),
                    last_run_id = excluded.last_run_id,
                    last_status = excluded.last_status,
                    message_count = excluded.message_count,
                    pending_count = excluded.pending_count,
                    messages = '',
                    state = excluded.state,
                    tool_calls = '',
                    pending = excluded.pending,
                    answered = excluded.answered,
                    revision = excluded.revision,
                    tool_call_count = excluded.tool_call_count
                """,
                (
                    thread.agent_url,
                    thread.id,
                    thread.updated_at,
                    thread.updated_at,
                    thread.title,
                    thread.last_run_id,
                    thread.last_status,
                    thread.message_count,
                    thread.pending_count,
                    thread.state,
                    thread.pending,
                    thread.answered,
                    revision,
                    thread.tool_call_count,
                ),
            )
            known = found is not None and bool(found[1]) and found[0] == thread.base_revision
            _write_pages(cur, thread, revision, every=not known)
            cur.execute(
                """
                INSERT INTO runs (agent_url, thread_id, seq, run_id, summary)
                VALUES (?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM runs
                               WHERE agent_url = ? AND thread_id = ?), ?, ?)
                """,
                (*key, *key, run.run_id, run.summary),
            )
            _append_audit(cur, audit)
            if settled:
                cur.executemany(
                    "UPDATE claims SET settled = 1 "
                    "WHERE agent_url = ? AND thread_id = ? AND interrupt_id = ?",
                    [(*key, i) for i in settled],
                )
            if reopened:
                cur.executemany(
                    "DELETE FROM claims WHERE agent_url = ? AND thread_id = ? AND interrupt_id = ?",
                    [(*key, i) for i in reopened],
                )
        return revision

    def append_audit(self, entries: Sequence[AuditEntry]) -> None:
        """Append decisions whose run did not commit (a failed or refused resume)."""
        if entries:
            with self._write("append to the audit log") as cur:
                _append_audit(cur, entries)

    # -- reading -------------------------------------------------------------------------

    def _read(self, action: str, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise _store_error(exc, self.path, action) from None

    def load_thread(self, agent_url: str, thread_id: str) -> StoredThreadData | None:
        """A thread's row, pages and runs, read in one transaction (one snapshot of the file:
        never pages of one commit beside the row of another)."""
        key = (agent_url, thread_id)
        paged = self.version >= 3
        with self._lock:
            try:
                self._conn.execute("BEGIN")
                try:
                    row = self._conn.execute(
                        "SELECT created_at, updated_at, last_run_id, state, pending, answered, "
                        "messages, tool_calls"
                        + (", revision, message_count, tool_call_count" if paged else "")
                        + " FROM threads WHERE agent_url = ? AND id = ?",
                        key,
                    ).fetchone()
                    if row is None:
                        return None
                    pages = (
                        self._conn.execute(
                            "SELECT kind, page, items, body, digest, validated_by, revision "
                            "FROM thread_pages WHERE agent_url = ? AND thread_id = ? "
                            "ORDER BY kind, page",
                            key,
                        ).fetchall()
                        if paged
                        else []
                    )
                    runs = self._conn.execute(
                        "SELECT run_id, summary FROM runs WHERE agent_url = ? AND thread_id = ? "
                        "ORDER BY seq",
                        key,
                    ).fetchall()
                finally:
                    self._conn.execute("COMMIT")
            except sqlite3.Error as exc:
                with contextlib.suppress(sqlite3.Error):
                    if self._conn.in_transaction:
                        self._conn.execute("ROLLBACK")
                raise _store_error(exc, self.path, "read a thread") from None
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
            revision=revision,
            message_count=message_count,
            tool_call_count=tool_call_count,
            pages=[Page(*p) for p in pages],
        )

    def threads(
        self, agent_url: str | None = None, *, pending: bool | None = None
    ) -> list[ThreadSummary]:
        """Stored threads, newest first: of one agent URL (or all), only pending ones, or not."""
        where: list[str] = []
        params: list[Any] = []
        if agent_url is not None:
            where.append("agent_url = ?")
            params.append(agent_url)
        if pending is True:
            where.append("pending_count > 0")
        elif pending is False:
            where.append("pending_count = 0")
        sql = (
            "SELECT id, agent_url, created_at, updated_at, pending_count, message_count, "
            "last_status, title FROM threads"
            + (" WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY updated_at DESC, rowid DESC"
        )
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
            for r in self._read("list threads", sql, params)
        ]

    def audit_links(self) -> list[ChainLink]:
        """Every audit record in storage order, as stored (for export and verification)."""
        rows = self._read(
            "read the audit log", "SELECT seq, record, prev_hash, hash FROM audit ORDER BY seq"
        )
        return [_chain_link(*row) for row in rows]

    def audit_head(self) -> tuple[int, str] | None:
        """(seq, hash) of the last record as noted at its append; None for an empty log."""
        rows = self._read(
            "read the audit head",
            "SELECT key, value FROM meta WHERE key IN ('audit_head_seq', 'audit_head_hash')",
        )
        values = dict(rows)
        if "audit_head_seq" not in values:
            return None
        return int(values["audit_head_seq"]), str(values.get("audit_head_hash", ""))

    def verify_audit(self) -> tuple[int, ChainBreak | None]:
        """(records checked, the first break or None)."""
        return verify_chain(self.audit_links(), head=self.audit_head())

    def thread_links(self, agent_url: str, thread_id: str) -> list[ChainLink]:
        """One thread's audit records in storage order, as stored (by the thread's index: a
        restored chat's chain heads without reading the whole log)."""
        rows = self._read(
            "read a thread's audit records",
            "SELECT seq, record, prev_hash, hash FROM audit "
            "WHERE agent_url = ? AND thread_id = ? ORDER BY seq",
            (agent_url, thread_id),
        )
        return [_chain_link(*row) for row in rows]

    def thread_audit(self, agent_url: str, thread_id: str) -> list[AuditEntry]:
        rows = self._read(
            "read a thread's audit records",
            "SELECT record FROM audit WHERE agent_url = ? AND thread_id = ? ORDER BY seq",
            (agent_url, thread_id),
        )
        entries: list[AuditEntry] = []
        for (text,) in rows:
            with contextlib.suppress(ValueError, TypeError):
                entries.append(AuditEntry.from_json(json.loads(text)))
        return entries

    # -- claims: a resume goes out once across kernels ---------------------------------

    def claim(
        self, agent_url: str, thread_id: str, claims: Sequence[Claim], now: float
    ) -> Claim | None:
        """Claim every interrupt of a resume, all or none; the claim that holds against it."""
        try:
            with self._write("claim interrupts") as cur:
                for mine in claims:
                    key = (agent_url, thread_id, mine.interrupt_id)
                    taken = cur.execute(
                        "INSERT INTO claims (agent_url, thread_id, interrupt_id, token, claimant, host, pid, decided_by, claimed_at, lease_until, settled) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                        "ON CONFLICT (agent_url, thread_id, interrupt_id) DO NOTHING",
                        (agent_url, thread_id, *_claim_values(mine)),
                    ).rowcount
                    if taken == 1:
                        continue
                    row = cur.execute(
                        "SELECT interrupt_id, token, claimant, host, pid, decided_by, claimed_at, lease_until, settled FROM claims "
                        "WHERE agent_url = ? AND thread_id = ? AND interrupt_id = ?",
                        key,
                    ).fetchone()
                    held = _claim_from_row(row)
                    if held.holds_against(mine.token, now):
                        raise _Held(held)
                    cur.execute(  # ours again (a retry), or a lapsed claim taken over
                        "UPDATE claims SET token = ?, claimant = ?, host = ?, pid = ?, "
                        "decided_by = ?, claimed_at = ?, lease_until = ?, settled = ? "
                        "WHERE agent_url = ? AND thread_id = ? AND interrupt_id = ?",
                        (*_claim_values(mine)[1:], *key),
                    )
        except _Held as held:
            return held.claim
        return None

    def release(
        self, agent_url: str, thread_id: str, interrupt_ids: Sequence[str], token: str
    ) -> None:
        if not interrupt_ids:
            return
        with self._write("release claims") as cur:
            cur.executemany(
                "DELETE FROM claims WHERE agent_url = ? AND thread_id = ? "
                "AND interrupt_id = ? AND token = ? AND settled = 0",
                [(agent_url, thread_id, i, token) for i in interrupt_ids],
            )

    def pending_rows(
        self, agent_url: str | None = None
    ) -> list[tuple[str, str, str, str | None, str]]:
        where, params = ("", ()) if agent_url is None else (" AND agent_url = ?", (agent_url,))
        rows = self._read(
            "list pending threads",
            "SELECT agent_url, id, updated_at, title, pending FROM threads WHERE pending_count > 0"
            + where
            + " ORDER BY updated_at DESC, rowid DESC",
            params,
        )
        return [(str(r[0]), str(r[1]), str(r[2]), r[3], str(r[4])) for r in rows]

    def claims(self, agent_url: str | None = None, thread_id: str | None = None) -> list[Claim]:
        if self.version < 2:
            return []  # an older file, opened read-only: no claims yet
        conditions, params = [], []
        for column, value in (("agent_url", agent_url), ("thread_id", thread_id)):
            if value is not None:
                conditions.append(f"{column} = ?")
                params.append(value)
        where = (" WHERE " + " AND ".join(conditions)) if conditions else ""
        rows = self._read(
            "read the claims",
            "SELECT interrupt_id, token, claimant, host, pid, decided_by, claimed_at, lease_until, settled FROM claims"
            + where
            + " ORDER BY claimed_at",
            params,
        )
        return [_claim_from_row(r) for r in rows]

    # -- copying a whole store -----------------------------------------------------------

    def is_empty(self) -> bool:
        rows = self._read(
            "read the store",
            "SELECT (SELECT count(*) FROM threads) + (SELECT count(*) FROM audit)",
        )
        return int(rows[0][0]) == 0

    def copy_threads(self) -> list[ThreadCopy]:
        paged = self.version >= 3
        rows = self._read(
            "read the threads",
            "SELECT agent_url, id, created_at, updated_at, title, last_run_id, last_status, "
            "message_count, pending_count, messages, state, tool_calls, pending, answered"
            + (", revision, tool_call_count" if paged else "")
            + " FROM threads ORDER BY rowid",
        )
        runs: dict[tuple[str, str], list[RunRow]] = {}
        for agent_url, thread_id, run_id, summary in self._read(
            "read the runs",
            "SELECT agent_url, thread_id, run_id, summary FROM runs "
            "ORDER BY agent_url, thread_id, seq",
        ):
            runs.setdefault((agent_url, thread_id), []).append(RunRow(run_id, summary))
        pages: dict[tuple[str, str], list[Page]] = {}
        if paged:
            for agent_url, thread_id, *page in self._read(
                "read the pages",
                "SELECT agent_url, thread_id, kind, page, items, body, digest, validated_by, "
                "revision FROM thread_pages ORDER BY agent_url, thread_id, kind, page",
            ):
                pages.setdefault((agent_url, thread_id), []).append(Page(*page))
        return [
            ThreadCopy(
                row=copied_row(r, paged),
                created_at=r[2],
                runs=runs.get((r[0], r[1]), []),
                pages=pages.get((r[0], r[1]), []),
            )
            for r in rows
        ]

    def paste_thread(self, copy: ThreadCopy) -> None:
        t = copy.row
        with self._write("copy a thread") as cur:
            cur.execute(
                "INSERT INTO threads (agent_url, id, created_at, updated_at, title, last_run_id, "
                "last_status, message_count, pending_count, messages, state, tool_calls, "
                "pending, answered, revision, tool_call_count) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    t.agent_url, t.id, copy.created_at, t.updated_at, t.title, t.last_run_id,
                    t.last_status, t.message_count, t.pending_count, t.messages, t.state,
                    t.tool_calls, t.pending, t.answered, t.revision, t.tool_call_count,
                ),
            )  # fmt: skip
            cur.executemany(
                "INSERT INTO runs (agent_url, thread_id, seq, run_id, summary) "
                "VALUES (?, ?, ?, ?, ?)",
                [
                    (t.agent_url, t.id, n, run.run_id, run.summary)
                    for n, run in enumerate(copy.runs, 1)
                ],
            )
            if copy.pages:
                cur.executemany(
                    _INSERT_PAGE, [p.row(t.agent_url, t.id, p.revision) for p in copy.pages]
                )

    def append_links(self, links: Sequence[ChainLink], head: tuple[int, str] | None) -> None:
        with self._write("copy the audit log") as cur:
            cur.executemany(
                "INSERT INTO audit (seq, agent_url, thread_id, record, prev_hash, hash) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (
                        item.seq,
                        str(item.record.get("agent_url", "")),
                        str(item.record.get("thread_id", "")),
                        canonical_json(item.record),
                        item.prev_hash,
                        item.hash,
                    )
                    for item in links
                ],
            )
            if head is not None:
                cur.executemany(
                    "INSERT INTO meta (key, value) VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    [("audit_head_seq", str(head[0])), ("audit_head_hash", head[1])],
                )


# -- helpers -----------------------------------------------------------------------------------

_INSERT_PAGE = """
INSERT INTO thread_pages (agent_url, thread_id, kind, page, items, body, digest, validated_by,
    revision)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (agent_url, thread_id, kind, page) DO UPDATE SET
    items = excluded.items,
    body = excluded.body,
    digest = excluded.digest,
    validated_by = excluded.validated_by,
    revision = excluded.revision
"""


def _page_counts(thread: ThreadRow) -> list[tuple[str, int]]:
    """Pages of each kind after this write (a kind without a plan has none)."""
    counts = {kind: 0 for kind in KINDS}
    counts.update({plan.kind: plan.page_count for plan in thread.pages})
    return list(counts.items())


def _write_pages(cur: sqlite3.Cursor, thread: ThreadRow, revision: int, *, every: bool) -> None:
    """The thread's pages as its row says: the plans' changed pages and nothing past each
    plan's last page, or (``every``) every page, anything else of the thread removed first."""
    key = (thread.agent_url, thread.id)
    if every:
        cur.execute("DELETE FROM thread_pages WHERE agent_url = ? AND thread_id = ?", key)
        pages = [p for plan in thread.pages for p in plan.every_page()]
    else:
        cur.executemany(
            "DELETE FROM thread_pages WHERE agent_url = ? AND thread_id = ? AND kind = ? "
            "AND page >= ?",
            [(*key, kind, count) for kind, count in _page_counts(thread)],
        )
        pages = [p for plan in thread.pages for p in plan.changed]
    if pages:
        cur.executemany(_INSERT_PAGE, [p.row(thread.agent_url, thread.id, revision) for p in pages])


class _Held(Exception):
    """Rolls a claim back: another kernel's claim holds."""

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


def _append_audit(cur: sqlite3.Cursor, entries: Sequence[AuditEntry]) -> None:
    """Append to the chain inside the caller's (write-locked) transaction."""
    if not entries:
        return
    head = dict(
        cur.execute(
            "SELECT key, value FROM meta WHERE key IN ('audit_head_seq', 'audit_head_hash')"
        ).fetchall()
    )
    seq = int(head.get("audit_head_seq", 0))
    prev = str(head.get("audit_head_hash", GENESIS_HASH))
    rows = []
    for entry in entries:
        seq += 1
        item = link(prev, seq, entry)
        rows.append(
            (seq, entry.agent_url, entry.thread_id, canonical_json(item.record), prev, item.hash)
        )
        prev = item.hash
    cur.executemany(
        "INSERT INTO audit (seq, agent_url, thread_id, record, prev_hash, hash) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        rows,
    )
    cur.executemany(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [("audit_head_seq", str(seq)), ("audit_head_hash", prev)],
    )


def _chain_link(seq: Any, record: Any, prev_hash: Any, hash_: Any) -> ChainLink:
    try:
        parsed = json.loads(record)
        if not isinstance(parsed, dict):
            raise ValueError("not an object")
    except (ValueError, TypeError):
        parsed = {"unreadable": str(record)}  # cannot match its hash: reported as altered
    return ChainLink(int(seq), parsed, str(prev_hash), str(hash_))


def _migrate(conn: sqlite3.Connection, path: Path) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Another process may have migrated while we waited for the write lock.
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreVersionError(
                f"the store {path} was upgraded to schema version {version} meanwhile",
                str(path),
                found=version,
                supported=SCHEMA_VERSION,
            )
        for target, script in MIGRATIONS:
            if target > version:
                for statement in _statements(script):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version={int(target)}")
        conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise


def _statements(script: str) -> list[str]:
    # executescript() would COMMIT our transaction first; run the statements one by one.
    return [s.strip() for s in script.split(";") if s.strip()]


def _prepare_file(path: Path) -> None:
    """Create the directory (0700) and the file (0600) if needed; tighten an existing file."""
    try:
        parent = path.parent
        if not parent.exists():
            missing = [p for p in [parent, *parent.parents] if not p.exists()]
            parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            for created in missing:
                with contextlib.suppress(OSError):
                    created.chmod(0o700)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
            os.close(fd)
        except FileExistsError:
            pass
        _restrict(path)
    except OSError as exc:
        raise StoreUnavailable(
            f"cannot create the store {path}: {exc.strerror or exc}", str(path)
        ) from None


def _restrict(path: Path) -> None:
    """Owner-only permissions on a file we own (a store holds conversations)."""
    with contextlib.suppress(FileNotFoundError):
        info = path.stat()
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            return
        if stat.S_IMODE(info.st_mode) & 0o077:
            path.chmod(0o600)


def _restrict_side_files(path: Path) -> None:
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(OSError):
            _restrict(path.with_name(path.name + suffix))


class _Busy(Exception):
    """An open that met a lock: ``Store._connect`` tries again until ``OPEN_WAIT_S``."""

    def __init__(self, error: sqlite3.Error) -> None:
        super().__init__(str(error))
        self.error = error


def _is_busy(exc: sqlite3.Error) -> bool:
    name = getattr(exc, "sqlite_errorname", "") or ""
    return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in str(exc).lower()


def _open_error(exc: sqlite3.Error, path: Path) -> Exception:
    return _Busy(exc) if _is_busy(exc) else _store_error(exc, path, "open")


def _store_error(
    exc: sqlite3.Error, path: Path, action: str, waited_s: float | None = None
) -> StoreError:
    """A typed error for an sqlite3 exception; a lock was waited on for ``waited_s`` (by default
    the busy timeout, read now)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc)
    lowered = text.lower()
    where = f"the store {path}"
    if name in ("SQLITE_CORRUPT", "SQLITE_NOTADB") or any(
        s in lowered for s in ("not a database", "malformed", "file is encrypted")
    ):
        return StoreCorrupt(f"{where} is damaged ({text}); cannot {action}", str(path))
    if name == "SQLITE_FULL" or "full" in lowered:
        return StoreUnavailable(f"{where} cannot grow: the disk is full ({text})", str(path))
    if name.startswith("SQLITE_READONLY") or "readonly" in lowered or "read-only" in lowered:
        return StoreUnavailable(f"{where} is read-only ({text}); cannot {action}", str(path))
    if _is_busy(exc):
        waited = BUSY_TIMEOUT_MS / 1000 if waited_s is None else waited_s
        return StoreUnavailable(
            f"{where} stayed locked by another process for {waited:g} s; cannot {action}",
            str(path),
        )
    return StoreUnavailable(f"cannot {action} in {where}: {text}", str(path))
