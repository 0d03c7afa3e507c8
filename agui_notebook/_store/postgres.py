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
from collections.abc import Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import quote

import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict

from .._errors import StoreCorrupt, StoreError, StoreUnavailable
from .sql import Dialect, Sql
from .sqlstore import SqlStore, closed_if_failed, newer_schema

__all__ = ["MIGRATIONS", "SCHEMA", "SCHEMA_VERSION", "PostgresStore", "describe_url"]

#: The PostgreSQL schema (namespace) that holds the store's tables.
SCHEMA = "agui_notebook"
#: Seconds to wait for a connection, and for a lock another kernel holds (SQLite's busy_timeout).
CONNECT_TIMEOUT_S = 10
LOCK_TIMEOUT_MS = 5000
# Advisory lock keys (pg_advisory_xact_lock): one for migrations, one for the audit chain.
_MIGRATE_LOCK = 0x4147554E0001
_AUDIT_LOCK = 0x4147554E0002

#: Kernels on several machines write at once: a thread's row (a claim's) is locked when read,
#: to the commit; appends to the audit chain take a transaction-scoped advisory lock before the
#: head is read, so the chain never forks.
POSTGRES = Dialect(
    placeholder="%s",
    namespace=f"{SCHEMA}.",
    insertion_order="row_id",
    lock_row=" FOR UPDATE",
    lock_audit=f"SELECT pg_advisory_xact_lock({_AUDIT_LOCK})",
    upsert_returns_revision=True,
    big_integer="BIGINT",
    double="DOUBLE PRECISION",
    identity="row_id BIGINT GENERATED ALWAYS AS IDENTITY,\n    ",
)
_SQL = Sql(POSTGRES)

# What only PostgreSQL has: the tables' own schema, and an audit log that refuses to change.
_AUDIT_APPEND_ONLY = f"""
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

#: (version, script) in order: a database at version N runs every script above N, in one
#: transaction (``sql.Sql``: what each version adds). Statements are separated by a line holding
#: only ``;`` or ending in ``;`` outside a ``$$`` body (see :func:`_statements`).
_TABLES = _SQL.schema_scripts()
MIGRATIONS: list[tuple[int, str]] = [
    (1, f"CREATE SCHEMA IF NOT EXISTS {SCHEMA};{_TABLES[0][1]}{_AUDIT_APPEND_ONLY}"),
    *_TABLES[1:],
]
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


class PostgresStore(SqlStore):
    """An open store in a PostgreSQL database. Thread-safe (one connection behind a lock).

    >>> store = PostgresStore("postgresql://ada@db.example/agui")   # doctest: +SKIP
    """

    def __init__(self, url: str, *, readonly: bool = False, migrate: bool = True) -> None:
        self._url = url  # may carry the password: never shown, never stored
        params = _params(url)
        self._secret = str(params.get("password") or "")
        super().__init__(_SQL, where=_describe(params), readonly=readonly, version=SCHEMA_VERSION)
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
            with closed_if_failed(conn):
                conn.execute(f"SET lock_timeout = {int(LOCK_TIMEOUT_MS)}")
                if self.readonly:
                    conn.execute("SET default_transaction_read_only = on")
                version = _version(conn)
                if version > SCHEMA_VERSION:
                    raise newer_schema(self._where, version, SCHEMA_VERSION)
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
        except psycopg.Error as exc:
            raise self._error(exc, "open") from None
        return conn

    def _migrate(self, conn: psycopg.Connection[Any]) -> None:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATE_LOCK,))
            version = _version(conn)  # another kernel may have migrated meanwhile
            if version > SCHEMA_VERSION:
                raise newer_schema(self._where, version, SCHEMA_VERSION, meanwhile=True)
            for target, script in MIGRATIONS:
                if target > version:
                    for statement in _statements(script):
                        conn.execute(statement.encode())
                    conn.execute(_SQL.set_meta.encode(), ("schema_version", str(target)))

    def grant(self, role: str) -> None:
        """Grant ``role`` what a kernel needs, and not changing or removing audit records."""
        from psycopg import sql

        script = _GRANTS.format(schema=SCHEMA, role="{role}")
        with self._write("grant privileges") as cur:
            for statement in _statements(script):
                cur.execute(sql.SQL(statement).format(role=sql.Identifier(role)))

    def close(self) -> None:
        with self._lock:
            self._conn.close()

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

    # -- transactions ----------------------------------------------------------------------

    @contextlib.contextmanager
    def _write(self, action: str) -> Iterator[psycopg.Cursor[Any]]:
        if self.readonly:
            raise StoreUnavailable(f"the store {self._where} is open read-only", self._where)
        with self._lock:
            try:
                conn = self._usable_conn()
                with conn.transaction(), conn.cursor() as cur:
                    yield cur
            except psycopg.Error as exc:
                raise self._error(exc, action) from None

    @contextlib.contextmanager
    def _snapshot(self, action: str) -> Iterator[psycopg.Cursor[Any]]:
        with self._lock:
            try:
                conn = self._usable_conn()
                with conn.transaction(), conn.cursor() as cur:
                    cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                    yield cur
            except psycopg.Error as exc:
                raise self._error(exc, action) from None

    def _read(self, action: str, query: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                conn = self._usable_conn()
                return conn.execute(query.encode(), params).fetchall()
            except psycopg.Error as exc:
                raise self._error(exc, action) from None


# -- helpers -----------------------------------------------------------------------------------


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
