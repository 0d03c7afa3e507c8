"""Every SQL text the store runs, written once for SQLite and PostgreSQL. Pure: no I/O.

The two databases hold the same tables and run the same queries; what differs in the text is a
:class:`Dialect`: how a parameter is written (sqlite3's ``?``, psycopg's ``%s``), the schema
that prefixes each table (PostgreSQL keeps them in ``agui_notebook``), the column that orders
rows as inserted, how a row read before it is written is locked, what serialises appends to the
audit chain, and a few column types. A backend names its dialect (``sqlite``, ``postgres``);
:class:`Sql` puts every statement into its words once, when the backend is imported.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = ["CLAIMS_SINCE", "PAGES_SINCE", "Dialect", "Sql"]

#: The schema version that added a table: a store opened read-only at an older version has none
#: (``SqlStore.version`` is the one answer to "is the schema at least version N").
CLAIMS_SINCE = 2
PAGES_SINCE = 3


@dataclass(frozen=True)
class Dialect:
    """What differs between the databases in the text of a statement."""

    #: How a parameter is written in a statement (``?`` in :class:`Sql`'s templates).
    placeholder: str
    #: Written before each table's name: ``""``, or a PostgreSQL schema and a dot.
    namespace: str
    #: The column that orders a table's rows as inserted (``rowid``, or an identity column).
    insertion_order: str
    #: Appended to a read of a row the transaction goes on to write: ``" FOR UPDATE"``, or
    #: ``""`` where the transaction already holds the whole store's write lock.
    lock_row: str
    #: A statement that serialises appends to the audit chain until the transaction ends
    #: (``""``: the transaction's write lock already does).
    lock_audit: str
    #: The thread's upsert returns the revision it wrote; else the write lock, held since the
    #: row was read, makes it the one read plus one.
    upsert_returns_revision: bool
    #: Column types that the SQL standard leaves to each database.
    big_integer: str
    double: str
    #: A column definition before a thread's first one (an identity for ``insertion_order``).
    identity: str = ""


class Sql:
    """The store's statements in one dialect's words: each template below with ``{ns}`` (the
    table's namespace) and the dialect's other fields filled in, and ``?`` its placeholder."""

    # -- the tables, by the schema version that adds them (``schema_scripts``) ----------------

    tables_v1 = """
CREATE TABLE {ns}meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE {ns}threads (
    {identity}agent_url TEXT NOT NULL,
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
CREATE INDEX threads_by_update ON {ns}threads (updated_at DESC);
CREATE TABLE {ns}runs (
    agent_url TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    run_id TEXT NOT NULL,
    summary TEXT NOT NULL,
    PRIMARY KEY (agent_url, thread_id, seq)
);
CREATE TABLE {ns}audit (
    seq {big_integer} PRIMARY KEY,
    agent_url TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    record TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE INDEX audit_by_thread ON {ns}audit (agent_url, thread_id, seq);
"""
    tables_v2 = """
CREATE TABLE {ns}claims (
    agent_url TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    interrupt_id TEXT NOT NULL,
    token TEXT NOT NULL,
    claimant TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER,
    decided_by TEXT,
    claimed_at TEXT NOT NULL,
    lease_until {double} NOT NULL,
    settled INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (agent_url, thread_id, interrupt_id)
);
"""
    tables_v3 = """
CREATE TABLE {ns}thread_pages (
    agent_url TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    page INTEGER NOT NULL,
    items INTEGER NOT NULL,
    body TEXT NOT NULL,
    digest TEXT NOT NULL,
    validated_by TEXT,
    revision {big_integer} NOT NULL,
    PRIMARY KEY (agent_url, thread_id, kind, page)
);
ALTER TABLE {ns}threads ADD COLUMN revision {big_integer} NOT NULL DEFAULT 0;
ALTER TABLE {ns}threads ADD COLUMN tool_call_count INTEGER NOT NULL DEFAULT 0;
"""

    # -- a committed run ------------------------------------------------------------------------

    #: The thread's revision, and whether it is in pages (not a row of version 2's layout).
    thread_base = (
        "SELECT revision, messages = '' AND tool_calls = '' FROM {ns}threads "
        "WHERE agent_url = ? AND id = ?{lock_row}"
    )
    #: A thread's row as a commit leaves it: its items are in pages, so no JSON text of them.
    save_thread = """
INSERT INTO {ns}threads (agent_url, id, created_at, updated_at, title, last_run_id,
    last_status, message_count, pending_count, messages, state, tool_calls, pending, answered,
    revision, tool_call_count)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, '', ?, ?, 1, ?)
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
    tool_call_count = excluded.tool_call_count{returning}
"""
    drop_pages = "DELETE FROM {ns}thread_pages WHERE agent_url = ? AND thread_id = ?"
    drop_pages_from = drop_pages + " AND kind = ? AND page >= ?"
    #: Values: ``Page.row``.
    save_page = """
INSERT INTO {ns}thread_pages (agent_url, thread_id, kind, page, items, body, digest,
    validated_by, revision)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (agent_url, thread_id, kind, page) DO UPDATE SET
    items = excluded.items,
    body = excluded.body,
    digest = excluded.digest,
    validated_by = excluded.validated_by,
    revision = excluded.revision
"""
    #: The run numbered after the thread's last (the thread's row is locked: runs go in turn).
    add_run = """
INSERT INTO {ns}runs (agent_url, thread_id, seq, run_id, summary)
VALUES (?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM {ns}runs
               WHERE agent_url = ? AND thread_id = ?), ?, ?)
"""
    settle_claim = (
        "UPDATE {ns}claims SET settled = 1 WHERE agent_url = ? AND thread_id = ? "
        "AND interrupt_id = ?"
    )
    drop_claim = "DELETE FROM {ns}claims WHERE agent_url = ? AND thread_id = ? AND interrupt_id = ?"

    # -- the audit chain ------------------------------------------------------------------------

    audit_head = (
        "SELECT key, value FROM {ns}meta WHERE key IN ('audit_head_seq', 'audit_head_hash')"
    )
    set_meta = (
        "INSERT INTO {ns}meta (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
    )
    add_audit = (
        "INSERT INTO {ns}audit (seq, agent_url, thread_id, record, prev_hash, hash) "
        "VALUES (?, ?, ?, ?, ?, ?)"
    )
    audit_links = "SELECT seq, record, prev_hash, hash FROM {ns}audit ORDER BY seq"
    thread_links = (
        "SELECT seq, record, prev_hash, hash FROM {ns}audit "
        "WHERE agent_url = ? AND thread_id = ? ORDER BY seq"
    )
    thread_audit = "SELECT record FROM {ns}audit WHERE agent_url = ? AND thread_id = ? ORDER BY seq"

    # -- reading threads ------------------------------------------------------------------------

    _stored = "created_at, updated_at, last_run_id, state, pending, answered, messages, tool_calls"
    #: A thread's row (``load_thread_v2``: a store opened read-only before version 3).
    load_thread = (
        "SELECT " + _stored + ", revision, message_count, tool_call_count "
        "FROM {ns}threads WHERE agent_url = ? AND id = ?"
    )
    load_thread_v2 = "SELECT " + _stored + " FROM {ns}threads WHERE agent_url = ? AND id = ?"
    load_pages = (
        "SELECT kind, page, items, body, digest, validated_by, revision FROM {ns}thread_pages "
        "WHERE agent_url = ? AND thread_id = ? ORDER BY kind, page"
    )
    load_runs = (
        "SELECT run_id, summary FROM {ns}runs WHERE agent_url = ? AND thread_id = ? ORDER BY seq"
    )
    #: Followed by conditions (``where``) and ``newest_first``.
    list_threads = (
        "SELECT id, agent_url, created_at, updated_at, pending_count, message_count, "
        "last_status, title FROM {ns}threads"
    )
    #: Followed by conditions (``pending_count > 0``, ...) and ``newest_first``.
    pending_rows = "SELECT agent_url, id, updated_at, title, pending FROM {ns}threads"
    newest_first = " ORDER BY updated_at DESC, {insertion_order} DESC"

    # -- claims ---------------------------------------------------------------------------------

    _claim = (
        "interrupt_id, token, claimant, host, pid, decided_by, claimed_at, lease_until, settled"
    )
    #: Values: the thread's key, then ``claim_values``.
    add_claim = (
        "INSERT INTO {ns}claims (agent_url, thread_id, " + _claim + ") "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (agent_url, thread_id, interrupt_id) DO NOTHING"
    )
    held_claim = (
        "SELECT " + _claim + " FROM {ns}claims "
        "WHERE agent_url = ? AND thread_id = ? AND interrupt_id = ?{lock_row}"
    )
    #: Ours again (a retry), or a lapsed claim taken over.
    retake_claim = (
        "UPDATE {ns}claims SET token = ?, claimant = ?, host = ?, pid = ?, decided_by = ?, "
        "claimed_at = ?, lease_until = ?, settled = ? "
        "WHERE agent_url = ? AND thread_id = ? AND interrupt_id = ?"
    )
    release_claim = drop_claim + " AND token = ? AND settled = 0"
    #: Followed by conditions (``where``) and ``oldest_first``.
    list_claims = "SELECT " + _claim + " FROM {ns}claims"
    oldest_first = " ORDER BY claimed_at"

    # -- copying a whole store ------------------------------------------------------------------

    count_rows = "SELECT (SELECT count(*) FROM {ns}threads) + (SELECT count(*) FROM {ns}audit)"
    _copied = (
        "agent_url, id, created_at, updated_at, title, last_run_id, last_status, message_count, "
        "pending_count, messages, state, tool_calls, pending, answered"
    )
    #: Every thread as stored (``copy_threads_v2``: a store read before version 3).
    copy_threads = (
        "SELECT " + _copied + ", revision, tool_call_count FROM {ns}threads "
        "ORDER BY {insertion_order}"
    )
    copy_threads_v2 = "SELECT " + _copied + " FROM {ns}threads ORDER BY {insertion_order}"
    copy_runs = (
        "SELECT agent_url, thread_id, run_id, summary FROM {ns}runs "
        "ORDER BY agent_url, thread_id, seq"
    )
    copy_pages = (
        "SELECT agent_url, thread_id, kind, page, items, body, digest, validated_by, revision "
        "FROM {ns}thread_pages ORDER BY agent_url, thread_id, kind, page"
    )
    paste_thread = (
        "INSERT INTO {ns}threads (" + _copied + ", revision, tool_call_count) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    paste_run = (
        "INSERT INTO {ns}runs (agent_url, thread_id, seq, run_id, summary) VALUES (?, ?, ?, ?, ?)"
    )

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        values = {f.name: getattr(dialect, f.name) for f in fields(dialect)}
        values.update(
            ns=dialect.namespace,
            returning=" RETURNING revision" if dialect.upsert_returns_revision else "",
        )
        for name, template in vars(Sql).items():
            if isinstance(template, str) and not name.startswith("_"):
                setattr(self, name, self.words(template.format(**values)))

    def words(self, text: str) -> str:
        """``text`` with each ``?`` written as this dialect's placeholder."""
        return text.replace("?", self.dialect.placeholder)

    def where(self, conditions: list[str]) -> str:
        """`` WHERE`` and ``conditions`` (``column = ?`` or others) joined with AND, or ``""``."""
        return self.words(" WHERE " + " AND ".join(conditions)) if conditions else ""

    def schema_scripts(self) -> list[tuple[int, str]]:
        """(version, the tables it adds) in order: the part of each migration both share."""
        return [(1, self.tables_v1), (2, self.tables_v2), (3, self.tables_v3)]
