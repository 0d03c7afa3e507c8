"""The store on PostgreSQL (psycopg 3): one database that every kernel of a team points at.

- The same tables as the SQLite store (``threads``, ``runs``, ``audit``, ``meta``), in their own
  PostgreSQL schema ``agui_notebook`` so they never meet another application's tables. Texts are
  stored as TEXT, exactly as the SQLite store keeps them (an audit record's canonical JSON is
  hashed byte for byte, so never ``jsonb``, which would reorder it).
- One transaction per committed run, as on SQLite. Appends to the audit chain are serialised by
  a transaction-scoped advisory lock taken before the head is read, so kernels on several
  machines never fork the chain.
- The schema version is ``meta.schema_version``; an older schema migrates forward when opened
  (under an advisory lock, the version re-read under it), a newer one is a
  :class:`StoreVersionError`. ``agui-notebook store init URL`` runs the same migrations and,
  given the application's role, its grants.
- Append-only audit: a trigger refuses UPDATE, DELETE and TRUNCATE on ``audit`` for everyone but
  a superuser who disables it; ``store init --app-role`` grants that role SELECT and INSERT only.
- Every failure is a typed :class:`StoreError` whose message names the user, host, port and
  database, never the password (``where``; psycopg's text is scrubbed of it too).

psycopg is imported here only (``pip install "agui_notebook[postgres]"``).
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import quote

import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict

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

__all__ = ["MIGRATIONS", "SCHEMA", "SCHEMA_VERSION", "PostgresStore", "describe_url"]

#: The PostgreSQL schema (namespace) that holds the store's tables.
SCHEMA = "agui_notebook"
#: Seconds to wait for a connection, and for a lock another kernel holds (SQLite's busy_timeout).
CONNECT_TIMEOUT_S = 10
LOCK_TIMEOUT_MS = 5000
# Advisory lock keys (pg_advisory_xact_lock): one for migrations, one for the audit chain.
_MIGRATE_LOCK = 0x4147554E0001
_AUDIT_LOCK = 0x4147554E0002

_SCHEMA_V1 = f"""
CREATE SCHEMA IF NOT EXISTS {SCHEMA};
CREATE TABLE {SCHEMA}.meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE {SCHEMA}.threads (
    row_id BIGINT GENERATED ALWAYS AS IDENTITY,
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
CREATE INDEX threads_by_update ON {SCHEMA}.threads (updated_at DESC);
CREATE TABLE {SCHEMA}.runs (
    agent_url TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    run_id TEXT NOT NULL,
    summary TEXT NOT NULL,
    PRIMARY KEY (agent_url, thread_id, seq)
);
CREATE TABLE {SCHEMA}.audit (
    seq BIGINT PRIMARY KEY,
    agent_url TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    record TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE INDEX audit_by_thread ON {SCHEMA}.audit (agent_url, thread_id, seq);
CREATE FUNCTION {SCHEMA}.audit_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the agui_notebook audit log is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON {SCHEMA}.audit
    FOR EACH ROW EXECUTE FUNCTION {SCHEMA}.audit_is_append_only();
CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON {SCHEMA}.audit
    FOR EACH STATEMENT EXECUTE FUNCTION {SCHEMA}.audit_is_append_only();
"""

_SCHEMA_V2 = f"""
CREATE TABLE {SCHEMA}.claims (
    agent_url TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    interrupt_id TEXT NOT NULL,
    token TEXT NOT NULL,
    claimant TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER,
    decided_by TEXT,
    claimed_at TEXT NOT NULL,
    lease_until DOUBLE PRECISION NOT NULL,
    settled INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (agent_url, thread_id, interrupt_id)
);
"""

_SCHEMA_V3 = f"""
CREATE TABLE {SCHEMA}.thread_pages (
    agent_url TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    page INTEGER NOT NULL,
    items INTEGER NOT NULL,
    body TEXT NOT NULL,
    digest TEXT NOT NULL,
    validated_by TEXT,
    revision BIGINT NOT NULL,
    PRIMARY KEY (agent_url, thread_id, kind, page)
);
ALTER TABLE {SCHEMA}.threads ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {SCHEMA}.threads ADD COLUMN tool_call_count INTEGER NOT NULL DEFAULT 0;
"""

#: (version, script) in order: a database at version N runs every script above N, in one
#: transaction. Statements are separated by a line holding only ``;`` or ending in ``;``
#: outside a ``$$`` body (see :func:`_statements`).
#: Version 2 adds the claims, so a resume goes out once across kernels sharing the store.
#: Version 3 keeps messages and tool calls in pages (``thread_pages``), so a commit writes what
#: its run changed; a thread written before keeps its JSON texts until its next commit.
MIGRATIONS: list[tuple[int, str]] = [(1, _SCHEMA_V1), (2, _SCHEMA_V2), (3, _SCHEMA_V3)]
SCHEMA_VERSION = MIGRATIONS[-1][0]

#: What ``store init --app-role`` grants: everything but changing or removing audit records.
_GRANTS = """
GRANT USAGE ON SCHEMA {schema} TO {role};
GRANT SELECT, INSERT, UPDATE, DELETE ON {schema}.threads, {schema}.runs, {schema}.meta,
    {schema}.claims, {schema}.thread_pages TO {role};
GRANT SELECT, INSERT ON {schema}.audit TO {role};
REVOKE UPDATE, DELETE, TRUNCATE ON {schema}.audit FROM {role};
GRANT USAGE ON ALL SEQUENCES IN SCHEMA {schema} TO {role};
"""


def is_postgres_url(location: str) -> bool:
    return location.startswith(("postgresql://", "postgres://"))


def _params(url: str) -> dict[str, Any]:
    try:
        return dict(conninfo_to_dict(url))
    except psycopg.Error as exc:
        raise StoreError(
            f"the store URL is not a valid PostgreSQL URL ({_first_line(exc)}): "
            f"{_safe_url(url)}; expected postgresql://user@host:port/database"
        ) from None


def describe_url(url: str) -> str:
    """``postgresql://user@host:port/db``: the URL without its password (for messages)."""
    try:
        params = dict(conninfo_to_dict(url))
    except psycopg.Error:
        return _safe_url(url)
    return _describe(params)


def _describe(params: Mapping[str, Any]) -> str:
    user = params.get("user")
    host = str(params.get("host") or "")
    port = params.get("port")
    netloc = (quote(str(user), safe="") + "@" if user else "") + (
        f"[{host}]" if ":" in host else quote(host, safe="/")
    )
    if port:
        netloc += f":{port}"
    return f"postgresql://{netloc}/{quote(str(params.get('dbname') or ''), safe='')}"


def _safe_url(url: str) -> str:
    """A URL we could not parse, with anything between ``://`` and ``@`` replaced."""
    head, sep, rest = url.partition("://")
    if sep and "@" in rest.split("/", 1)[0]:
        userinfo, _, tail = rest.partition("@")
        user = userinfo.split(":", 1)[0]
        return f"{head}://{user}{':<redacted>' if ':' in userinfo else ''}@{tail}"
    return url


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class PostgresStore:
    """An open store in a PostgreSQL database. Thread-safe (one connection behind a lock).

    >>> store = PostgresStore("postgresql://ada@db.example/agui")   # doctest: +SKIP
    """

    def __init__(self, url: str, *, readonly: bool = False, migrate: bool = True) -> None:
        self._url = url  # may carry the password: never shown, never stored
        params = _params(url)
        self._secret = str(params.get("password") or "")
        self._where = _describe(params)
        self.readonly = readonly
        self._lock = threading.Lock()
        #: The schema version (an older one opened read-only, or not migrated, stays at its own).
        self.version = SCHEMA_VERSION
        self._conn = self._connect(migrate=migrate)

    # -- opening -------------------------------------------------------------------------

    def _connect(self, *, migrate: bool) -> psycopg.Connection[Any]:
        try:
            conn = psycopg.connect(
                self._url,
                autocommit=True,
                connect_timeout=CONNECT_TIMEOUT_S,
                application_name="agui_notebook",
            )
        except psycopg.Error as exc:
            raise self._error(exc, "connect") from None
        try:
            conn.execute(f"SET lock_timeout = {int(LOCK_TIMEOUT_MS)}")
            if self.readonly:
                conn.execute("SET default_transaction_read_only = on")
            version = _version(conn)
            if version > SCHEMA_VERSION:
                raise StoreVersionError(
                    f"the store {self._where} has schema version {version}, written by a newer "
                    f"agui_notebook; this one reads up to version {SCHEMA_VERSION}",
                    self._where,
                    found=version,
                    supported=SCHEMA_VERSION,
                )
            if version < SCHEMA_VERSION:
                if version == 0 and (self.readonly or not migrate):
                    raise StoreUnavailable(
                        f"the database {self._where} holds no agui_notebook store "
                        f"(schema version {version}); create it with: agui-notebook store init URL",
                        self._where,
                    )
                if not self.readonly and migrate:  # read-only: an older schema is read as is
                    self._migrate(conn)
                else:
                    self.version = version
        except StoreError:
            conn.close()
            raise
        except psycopg.Error as exc:
            conn.close()
            raise self._error(exc, "open") from None
        return conn

    def _migrate(self, conn: psycopg.Connection[Any]) -> None:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATE_LOCK,))
            version = _version(conn)  # another kernel may have migrated meanwhile
            if version > SCHEMA_VERSION:
                raise StoreVersionError(
                    f"the store {self._where} was upgraded to schema version {version} meanwhile",
                    self._where,
                    found=version,
                    supported=SCHEMA_VERSION,
                )
            for target, script in MIGRATIONS:
                if target > version:
                    for statement in _statements(script):
                        conn.execute(statement.encode())
                    conn.execute(
                        f"INSERT INTO {SCHEMA}.meta (key, value) VALUES ('schema_version', %s) "
                        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        (str(target),),
                    )

    def grant(self, role: str) -> None:
        """Grant ``role`` what a kernel needs, and not changing or removing audit records."""
        from psycopg import sql

        script = _GRANTS.format(schema=SCHEMA, role="{role}")
        with self._write("grant privileges") as conn:
            for statement in _statements(script):
                conn.execute(sql.SQL(statement).format(role=sql.Identifier(role)))

    @property
    def where(self) -> str:
        return self._where

    @property
    def schema_version(self) -> int:
        """The schema version this store is at (this module's, once opened for writing)."""
        return SCHEMA_VERSION

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"PostgresStore({self._where!r})"

    # -- errors --------------------------------------------------------------------------

    def _error(self, exc: BaseException, action: str) -> StoreError:
        """A typed error for a psycopg exception; its text never holds the password."""
        text = _first_line(exc)
        if self._secret:
            for form in {self._secret, quote(self._secret, safe="")}:
                text = text.replace(form, "<redacted>")
        where = f"the store {self._where}"
        state = getattr(exc, "sqlstate", None) or ""
        lowered = text.lower()
        error: StoreError
        if state.startswith("28") or "password authentication failed" in lowered:
            error = StoreUnavailable(
                f"cannot sign in to {where}: {text} (check the user and password)", self._where
            )
        elif state == "3D000" or (action == "connect" and "does not exist" in lowered):
            error = StoreUnavailable(f"{where}: the database does not exist ({text})", self._where)
        elif state in ("42501",) or "permission denied" in lowered:
            error = StoreUnavailable(
                f"{where}: permission denied ({text}); cannot {action}", self._where
            )
        elif state.startswith("53"):
            error = StoreUnavailable(
                f"{where} cannot grow: the disk is full or out of resources ({text})", self._where
            )
        elif state == "55P03" or isinstance(exc, pg_errors.LockNotAvailable):
            error = StoreUnavailable(
                f"{where} stayed locked by another kernel for {LOCK_TIMEOUT_MS / 1000:g} s; "
                f"cannot {action}",
                self._where,
            )
            error.transient = True
        elif state == "25006":
            error = StoreUnavailable(f"{where} is open read-only; cannot {action}", self._where)
        elif action == "connect" and "invalid" in lowered and "connection option" in lowered:
            error = StoreError(
                f"the store URL {self._where} is not valid ({text}); expected "
                "postgresql://user@host:port/database",
                self._where,
            )
        elif state.startswith("42") and action != "connect":
            error = StoreCorrupt(
                f"{where} does not hold the tables this agui_notebook expects ({text}); "
                f"cannot {action}",
                self._where,
            )
        elif isinstance(exc, psycopg.OperationalError) or state.startswith("08"):
            error = StoreUnavailable(
                f"cannot {action}: {where} is unreachable ({text})", self._where
            )
            error.transient = True
        else:
            error = StoreUnavailable(f"cannot {action} in {where}: {text}", self._where)
        return error

    def _usable_conn(self) -> psycopg.Connection[Any]:
        """The connection, opened again when the last one broke (a server restart)."""
        if self._conn.closed or self._conn.broken:
            with contextlib.suppress(psycopg.Error):
                self._conn.close()
            self._conn = self._connect(migrate=False)
        return self._conn

    # -- writing -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _write(self, action: str) -> Iterator[psycopg.Connection[Any]]:
        if self.readonly:
            raise StoreUnavailable(f"the store {self._where} is open read-only", self._where)
        with self._lock:
            try:
                conn = self._usable_conn()
                with conn.transaction():
                    yield conn
            except psycopg.Error as exc:
                raise self._error(exc, action) from None

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
        with self._write("save a run") as conn:
            # The row's lock, held to the commit: another kernel's write of this thread waits.
            found = conn.execute(
                f"SELECT revision, messages = '' AND tool_calls = '' FROM {SCHEMA}.threads "
                "WHERE agent_url = %s AND id = %s FOR UPDATE",
                key,
            ).fetchone()
            written = conn.execute(
                f"""
                INSERT INTO {SCHEMA}.threads (agent_url, id, created_at, updated_at, title,
                    last_run_id, last_status, message_count, pending_count, messages, state,
                    tool_calls, pending, answered, revision, tool_call_count)
                VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, '', %s, '', %s, %s, 1, %s)
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
                    revision = threads.revision + 1,
                    tool_call_count = excluded.tool_call_count
                RETURNING revision
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
                    thread.tool_call_count,
                ),
            ).fetchone()
            assert written is not None  # an upsert always returns its row
            revision = int(written[0])
            # No row to lock above (a new thread, perhaps created meanwhile by another kernel),
            # one in version 2's layout, or one written by someone else: write every page.
            known = found is not None and bool(found[1]) and found[0] == thread.base_revision
            _write_pages(conn, thread, revision, every=not known)
            # The upsert holds the thread's row lock: runs of one thread are numbered in turn.
            conn.execute(
                f"""
                INSERT INTO {SCHEMA}.runs (agent_url, thread_id, seq, run_id, summary)
                VALUES (%s, %s, (SELECT COALESCE(MAX(seq), 0) + 1 FROM {SCHEMA}.runs
                                 WHERE agent_url = %s AND thread_id = %s), %s, %s)
                """,
                (*key, *key, run.run_id, run.summary),
            )
            _append_audit(conn, audit)
            if settled:
                with conn.cursor() as cur:
                    cur.executemany(
                        f"UPDATE {SCHEMA}.claims SET settled = 1 "
                        "WHERE agent_url = %s AND thread_id = %s AND interrupt_id = %s",
                        [(*key, i) for i in settled],
                    )
            if reopened:
                with conn.cursor() as cur:
                    cur.executemany(
                        f"DELETE FROM {SCHEMA}.claims "
                        "WHERE agent_url = %s AND thread_id = %s AND interrupt_id = %s",
                        [(*key, i) for i in reopened],
                    )
        return revision

    def append_audit(self, entries: Sequence[AuditEntry]) -> None:
        """Append decisions whose run did not commit (a failed or refused resume)."""
        if entries:
            with self._write("append to the audit log") as conn:
                _append_audit(conn, entries)

    def append_links(self, links: Sequence[ChainLink], head: tuple[int, str] | None) -> None:
        """Copy audit records as they are (``store copy``): same numbers, records and hashes."""
        with self._write("copy the audit log") as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_AUDIT_LOCK,))
            with conn.cursor() as cur:
                cur.executemany(
                    f"INSERT INTO {SCHEMA}.audit (seq, agent_url, thread_id, record, prev_hash, "
                    "hash) VALUES (%s, %s, %s, %s, %s, %s)",
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
                _set_head(conn, *head)

    # -- reading -------------------------------------------------------------------------

    def _read(self, action: str, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                conn = self._usable_conn()
                return conn.execute(sql.encode(), params).fetchall()
            except psycopg.Error as exc:
                raise self._error(exc, action) from None

    def load_thread(self, agent_url: str, thread_id: str) -> StoredThreadData | None:
        """A thread's row, pages and runs, read in one REPEATABLE READ transaction (one
        snapshot: never pages of one commit beside the row of another)."""
        key = (agent_url, thread_id)
        paged = self.version >= 3
        with self._lock:
            try:
                conn = self._usable_conn()
                with conn.transaction():
                    conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                    row = conn.execute(
                        "SELECT created_at, updated_at, last_run_id, state, pending, answered, "
                        "messages, tool_calls"
                        + (", revision, message_count, tool_call_count" if paged else "")
                        + f" FROM {SCHEMA}.threads WHERE agent_url = %s AND id = %s",
                        key,
                    ).fetchone()
                    if row is None:
                        return None
                    pages = (
                        conn.execute(
                            "SELECT kind, page, items, body, digest, validated_by, revision "
                            f"FROM {SCHEMA}.thread_pages WHERE agent_url = %s AND thread_id = %s "
                            "ORDER BY kind, page",
                            key,
                        ).fetchall()
                        if paged
                        else []
                    )
                    runs = conn.execute(
                        f"SELECT run_id, summary FROM {SCHEMA}.runs "
                        "WHERE agent_url = %s AND thread_id = %s ORDER BY seq",
                        key,
                    ).fetchall()
            except psycopg.Error as exc:
                raise self._error(exc, "read a thread") from None
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
        where: list[str] = []
        params: list[Any] = []
        if agent_url is not None:
            where.append("agent_url = %s")
            params.append(agent_url)
        if pending is True:
            where.append("pending_count > 0")
        elif pending is False:
            where.append("pending_count = 0")
        sql = (
            "SELECT id, agent_url, created_at, updated_at, pending_count, message_count, "
            f"last_status, title FROM {SCHEMA}.threads"
            + (" WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY updated_at DESC, row_id DESC"
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
            "read the audit log",
            f"SELECT seq, record, prev_hash, hash FROM {SCHEMA}.audit ORDER BY seq",
        )
        return [_chain_link(*row) for row in rows]

    def audit_head(self) -> tuple[int, str] | None:
        """(seq, hash) of the last record as noted at its append; None for an empty log."""
        rows = self._read(
            "read the audit head",
            f"SELECT key, value FROM {SCHEMA}.meta "
            "WHERE key IN ('audit_head_seq', 'audit_head_hash')",
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
            f"SELECT seq, record, prev_hash, hash FROM {SCHEMA}.audit "
            "WHERE agent_url = %s AND thread_id = %s ORDER BY seq",
            (agent_url, thread_id),
        )
        return [_chain_link(*row) for row in rows]

    def thread_audit(self, agent_url: str, thread_id: str) -> list[AuditEntry]:
        rows = self._read(
            "read a thread's audit records",
            f"SELECT record FROM {SCHEMA}.audit WHERE agent_url = %s AND thread_id = %s "
            "ORDER BY seq",
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
            with self._write("claim interrupts") as conn:
                for mine in claims:
                    key = (agent_url, thread_id, mine.interrupt_id)
                    taken = conn.execute(
                        f"INSERT INTO {SCHEMA}.claims (agent_url, thread_id, interrupt_id, token, claimant, host, pid, decided_by, claimed_at, lease_until, settled) "
                        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                        "ON CONFLICT (agent_url, thread_id, interrupt_id) DO NOTHING",
                        (agent_url, thread_id, *_claim_values(mine)),
                    ).rowcount
                    if taken == 1:
                        continue
                    row = conn.execute(
                        f"SELECT interrupt_id, token, claimant, host, pid, decided_by, claimed_at, lease_until, settled FROM {SCHEMA}.claims "
                        "WHERE agent_url = %s AND thread_id = %s AND interrupt_id = %s FOR UPDATE",
                        key,
                    ).fetchone()
                    held = _claim_from_row(row)
                    if held.holds_against(mine.token, now):
                        raise _Held(held)
                    conn.execute(  # ours again (a retry), or a lapsed claim taken over
                        f"UPDATE {SCHEMA}.claims SET token = %s, claimant = %s, host = %s, pid = %s, "
                        "decided_by = %s, claimed_at = %s, lease_until = %s, settled = %s "
                        "WHERE agent_url = %s AND thread_id = %s AND interrupt_id = %s",
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
        with self._write("release claims") as conn, conn.cursor() as cur:
            cur.executemany(
                f"DELETE FROM {SCHEMA}.claims WHERE agent_url = %s AND thread_id = %s "
                "AND interrupt_id = %s AND token = %s AND settled = 0",
                [(agent_url, thread_id, i, token) for i in interrupt_ids],
            )

    def pending_rows(
        self, agent_url: str | None = None
    ) -> list[tuple[str, str, str, str | None, str]]:
        where, params = ("", ()) if agent_url is None else (" AND agent_url = %s", (agent_url,))
        rows = self._read(
            "list pending threads",
            f"SELECT agent_url, id, updated_at, title, pending FROM {SCHEMA}.threads WHERE pending_count > 0"
            + where
            + " ORDER BY updated_at DESC, row_id DESC",
            params,
        )
        return [(str(r[0]), str(r[1]), str(r[2]), r[3], str(r[4])) for r in rows]

    def claims(self, agent_url: str | None = None, thread_id: str | None = None) -> list[Claim]:
        if self.version < 2:
            return []  # an older schema, opened read-only: no claims yet
        conditions, params = [], []
        for column, value in (("agent_url", agent_url), ("thread_id", thread_id)):
            if value is not None:
                conditions.append(f"{column} = %s")
                params.append(value)
        where = (" WHERE " + " AND ".join(conditions)) if conditions else ""
        rows = self._read(
            "read the claims",
            f"SELECT interrupt_id, token, claimant, host, pid, decided_by, claimed_at, lease_until, settled FROM {SCHEMA}.claims"
            + where
            + " ORDER BY claimed_at",
            params,
        )
        return [_claim_from_row(r) for r in rows]

    # -- copying a whole store -----------------------------------------------------------

    def is_empty(self) -> bool:
        rows = self._read(
            "read the store",
            f"SELECT (SELECT count(*) FROM {SCHEMA}.threads) + (SELECT count(*) FROM {SCHEMA}.audit)",
        )
        return int(rows[0][0]) == 0

    def copy_threads(self) -> list[ThreadCopy]:
        paged = self.version >= 3
        rows = self._read(
            "read the threads",
            "SELECT agent_url, id, created_at, updated_at, title, last_run_id, last_status, "
            "message_count, pending_count, messages, state, tool_calls, pending, answered"
            + (", revision, tool_call_count" if paged else "")
            + f" FROM {SCHEMA}.threads ORDER BY row_id",
        )
        runs: dict[tuple[str, str], list[RunRow]] = {}
        for agent_url, thread_id, run_id, summary in self._read(
            "read the runs",
            f"SELECT agent_url, thread_id, run_id, summary FROM {SCHEMA}.runs "
            "ORDER BY agent_url, thread_id, seq",
        ):
            runs.setdefault((agent_url, thread_id), []).append(RunRow(run_id, summary))
        pages: dict[tuple[str, str], list[Page]] = {}
        if paged:
            for agent_url, thread_id, *page in self._read(
                "read the pages",
                "SELECT agent_url, thread_id, kind, page, items, body, digest, validated_by, "
                f"revision FROM {SCHEMA}.thread_pages ORDER BY agent_url, thread_id, kind, page",
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
        with self._write("copy a thread") as conn:
            conn.execute(
                f"INSERT INTO {SCHEMA}.threads (agent_url, id, created_at, updated_at, title, "
                "last_run_id, last_status, message_count, pending_count, messages, state, "
                "tool_calls, pending, answered, revision, tool_call_count) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    t.agent_url, t.id, copy.created_at, t.updated_at, t.title, t.last_run_id,
                    t.last_status, t.message_count, t.pending_count, t.messages, t.state,
                    t.tool_calls, t.pending, t.answered, t.revision, t.tool_call_count,
                ),
            )  # fmt: skip
            with conn.cursor() as cur:
                cur.executemany(
                    f"INSERT INTO {SCHEMA}.runs (agent_url, thread_id, seq, run_id, summary) "
                    "VALUES (%s, %s, %s, %s, %s)",
                    [
                        (t.agent_url, t.id, n, run.run_id, run.summary)
                        for n, run in enumerate(copy.runs, 1)
                    ],
                )
                if copy.pages:
                    cur.executemany(
                        _INSERT_PAGE, [p.row(t.agent_url, t.id, p.revision) for p in copy.pages]
                    )


# -- helpers -----------------------------------------------------------------------------------

_INSERT_PAGE = f"""
INSERT INTO {SCHEMA}.thread_pages (agent_url, thread_id, kind, page, items, body, digest,
    validated_by, revision)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)
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


def _write_pages(
    conn: psycopg.Connection[Any], thread: ThreadRow, revision: int, *, every: bool
) -> None:
    """The thread's pages as its row says: the plans' changed pages and nothing past each
    plan's last page, or (``every``) every page, anything else of the thread removed first."""
    key = (thread.agent_url, thread.id)
    if every:
        conn.execute(
            f"DELETE FROM {SCHEMA}.thread_pages WHERE agent_url = %s AND thread_id = %s", key
        )
        pages = [p for plan in thread.pages for p in plan.every_page()]
    else:
        with conn.cursor() as cur:
            cur.executemany(
                f"DELETE FROM {SCHEMA}.thread_pages WHERE agent_url = %s AND thread_id = %s "
                "AND kind = %s AND page >= %s",
                [(*key, kind, count) for kind, count in _page_counts(thread)],
            )
        pages = [p for plan in thread.pages for p in plan.changed]
    if pages:
        with conn.cursor() as cur:
            cur.executemany(
                _INSERT_PAGE, [p.row(thread.agent_url, thread.id, revision) for p in pages]
            )


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


def _version(conn: psycopg.Connection[Any]) -> int:
    # A scan of the catalog under this statement's snapshot, not to_regclass: that goes through
    # the session's catalog cache, which may still say "no such schema" after another kernel
    # migrated while we waited for the advisory lock (which does not refresh the cache).
    row = conn.execute(
        "SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
        "ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relname = 'meta'",
        (SCHEMA,),
    ).fetchone()
    if row is None:
        return 0
    found = conn.execute(f"SELECT value FROM {SCHEMA}.meta WHERE key = 'schema_version'").fetchone()
    try:
        return int(found[0]) if found else 0
    except ValueError:
        return 0


def _append_audit(conn: psycopg.Connection[Any], entries: Sequence[AuditEntry]) -> None:
    """Append to the chain inside the caller's transaction, the chain's lock held."""
    if not entries:
        return
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_AUDIT_LOCK,))  # until COMMIT/ROLLBACK
    head = dict(
        conn.execute(
            f"SELECT key, value FROM {SCHEMA}.meta "
            "WHERE key IN ('audit_head_seq', 'audit_head_hash')"
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
    with conn.cursor() as cur:
        cur.executemany(
            f"INSERT INTO {SCHEMA}.audit (seq, agent_url, thread_id, record, prev_hash, hash) "
            "VALUES (%s, %s, %s, %s, %s, %s)",
            rows,
        )
    _set_head(conn, seq, prev)


def _set_head(conn: psycopg.Connection[Any], seq: int, hash_: str) -> None:
    with conn.cursor() as cur:
        cur.executemany(
            f"INSERT INTO {SCHEMA}.meta (key, value) VALUES (%s, %s) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [("audit_head_seq", str(seq)), ("audit_head_hash", hash_)],
        )


def _chain_link(seq: Any, record: Any, prev_hash: Any, hash_: Any) -> ChainLink:
    try:
        parsed = json.loads(record)
        if not isinstance(parsed, dict):
            raise ValueError("not an object")
    except (ValueError, TypeError):
        parsed = {"unreadable": str(record)}  # cannot match its hash: reported as altered
    return ChainLink(int(seq), parsed, str(prev_hash), str(hash_))


def _statements(script: str) -> list[str]:
    """The script's statements: split on ``;`` at the end of a line, ``$$`` bodies kept whole."""
    out: list[str] = []
    current: list[str] = []
    in_body = False
    for line in script.splitlines():
        current.append(line)
        if line.count("$$") % 2:
            in_body = not in_body
        if not in_body and line.rstrip().endswith(";"):
            statement = "\n".join(current).strip().rstrip(";").strip()
            if statement:
                out.append(statement)
            current = []
    rest = "\n".join(current).strip()
    if rest:
        out.append(rest)
    return out
