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
import os
import sqlite3
import stat
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .._errors import StoreCorrupt, StoreError, StoreUnavailable
from .codec import StoredThreadData
from .sql import Dialect, Sql
from .sqlstore import SqlStore, closed_if_failed, newer_schema

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "Store", "StoredThreadData"]

#: "AGUN" in ASCII: marks a SQLite file as an agui_notebook store.
APPLICATION_ID = 0x4147554E
BUSY_TIMEOUT_MS = 5000
#: Opening may meet locks the busy handler does not wait on (another process creating or
#: migrating the schema, recovering the WAL): the whole open is retried for this long.
OPEN_WAIT_S = 30.0

#: One file, written under ``BEGIN IMMEDIATE``: a write transaction holds the whole file's write
#: lock from its start, so rows it reads stay as read and the audit chain's head is its own.
SQLITE = Dialect(
    placeholder="?",
    namespace="",
    insertion_order="rowid",
    lock_row="",
    lock_audit="",
    upsert_returns_revision=False,  # RETURNING needs SQLite 3.35; the file's lock suffices
    big_integer="INTEGER",  # the audit's ``seq INTEGER PRIMARY KEY`` is the rowid
    double="REAL",
)
_SQL = Sql(SQLITE)

#: (version, script) in order: a file at version N runs every script above N, in one
#: transaction (``sql.Sql``: what each version adds).
MIGRATIONS: list[tuple[int, str]] = _SQL.schema_scripts()
SCHEMA_VERSION = MIGRATIONS[-1][0]


class Store(SqlStore):
    """An open store file. Thread-safe (one connection behind a lock); use from any thread.

    >>> store = Store("/tmp/agui.sqlite3")      # doctest: +SKIP
    >>> store.threads(pending=True)             # doctest: +SKIP
    """

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        self.path = Path(path).expanduser()
        super().__init__(_SQL, where=str(self.path), readonly=readonly, version=SCHEMA_VERSION)
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
            with closed_if_failed(conn):
                conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                app_id = conn.execute("PRAGMA application_id").fetchone()[0]
                if version > SCHEMA_VERSION:
                    raise newer_schema(str(path), version, SCHEMA_VERSION)
                if app_id not in (0, APPLICATION_ID) or (
                    app_id == 0
                    and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0
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
        except sqlite3.Error as exc:
            raise _open_error(exc, path) from None
        return conn

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    # -- transactions ----------------------------------------------------------------------

    def _write(self, action: str) -> contextlib.AbstractContextManager[sqlite3.Cursor]:
        if self.readonly:
            raise StoreUnavailable(f"the store {self.path} is open read-only", str(self.path))
        # The write lock at once, not at the first write: no deadlock upgrading a read lock.
        return self._transaction("BEGIN IMMEDIATE", action)

    def _snapshot(self, action: str) -> contextlib.AbstractContextManager[sqlite3.Cursor]:
        return self._transaction("BEGIN", action)

    @contextlib.contextmanager
    def _transaction(self, begin: str, action: str) -> Iterator[sqlite3.Cursor]:
        with self._lock:
            cur = self._conn.cursor()
            try:
                cur.execute(begin)
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

    def _read(self, action: str, query: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._conn.execute(query, params).fetchall()
            except sqlite3.Error as exc:
                raise _store_error(exc, self.path, action) from None


# -- opening -----------------------------------------------------------------------------------


def _migrate(conn: sqlite3.Connection, path: Path) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Another process may have migrated while we waited for the write lock.
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise newer_schema(str(path), version, SCHEMA_VERSION, meanwhile=True)
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
