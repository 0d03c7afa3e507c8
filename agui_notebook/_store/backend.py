"""What the journal and the commands need from a store, whichever database holds it.

A backend keeps threads (one row each, as the codec's JSON texts, and their messages and tool
calls in pages: ``pages``), a summary of each committed run, and the append-only audit log with
its hash chain. The journal (``journal``) and the commands (``cli``) talk to
:class:`StoreBackend` only; :func:`open_store` picks the backend for a location: SQLite
(``sqlite``, one file, the embedded default) for a path, PostgreSQL (``postgres``, psycopg 3,
the ``postgres`` extra) for a ``postgresql://`` or ``postgres://`` URL. Another database is a new
module that meets the protocol and one branch in :func:`open_store`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Protocol

from .._decisions.audit import AuditEntry, ChainBreak, ChainLink
from .._errors import StoreError
from .codec import Claim, RunRow, StoredThreadData, ThreadCopy, ThreadRow, ThreadSummary

__all__ = [
    "POSTGRES_EXTRA",
    "StoreBackend",
    "StoredThreadData",
    "describe",
    "is_url",
    "open_store",
    "url_secrets",
]


class StoreBackend(Protocol):
    """An open store. Thread-safe; every error is a typed ``StoreError``."""

    @property
    def where(self) -> str:
        """Where the store is, for messages (never a credential)."""
        ...

    @property
    def schema_version(self) -> int:
        """The schema version the store is at."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> StoreBackend: ...

    def __exit__(self, *exc: object) -> None: ...

    def save_run(
        self,
        thread: ThreadRow,
        run: RunRow,
        audit: Sequence[AuditEntry] = (),
        settled: Sequence[str] = (),
        reopened: Sequence[str] = (),
    ) -> int:
        """One transaction: the thread's row, its pages, the run's summary, the run's audit
        entries, and the claims on the interrupts the run answered (``settled``) marked settled,
        and those on interrupts the server raised again (``reopened``) dropped, so they can be
        answered. The pages written are the plans' changed ones when the thread is still at
        ``thread.base_revision``, else every page (someone else wrote it, or it is new, or in
        version 2's layout). Returns the thread's new revision."""
        ...

    def claim(
        self, agent_url: str, thread_id: str, claims: Sequence[Claim], now: float
    ) -> Claim | None:
        """Claim every interrupt of a resume, all or none, in one transaction: None when taken
        (or already ours), else the first claim that holds against it (see ``Claim``)."""
        ...

    def release(
        self, agent_url: str, thread_id: str, interrupt_ids: Sequence[str], token: str
    ) -> None:
        """Drop ``token``'s unsettled claims (its resume failed without reaching the server)."""
        ...

    def pending_rows(
        self, agent_url: str | None = None
    ) -> list[tuple[str, str, str, str | None, str]]:
        """Threads with pending interrupts, newest first: (agent URL, id, updated_at, title,
        pending JSON)."""
        ...

    def claims(self, agent_url: str | None = None, thread_id: str | None = None) -> list[Claim]:
        """Every claim (of one agent URL, of one thread), oldest first."""
        ...

    def append_audit(self, entries: Sequence[AuditEntry]) -> None: ...

    def load_thread(self, agent_url: str, thread_id: str) -> StoredThreadData | None: ...

    def threads(
        self, agent_url: str | None = None, *, pending: bool | None = None
    ) -> list[ThreadSummary]: ...

    def audit_links(self) -> list[ChainLink]: ...

    def audit_head(self) -> tuple[int, str] | None: ...

    def verify_audit(self) -> tuple[int, ChainBreak | None]: ...

    def thread_audit(self, agent_url: str, thread_id: str) -> list[AuditEntry]: ...

    def thread_links(self, agent_url: str, thread_id: str) -> list[ChainLink]: ...

    # -- copying a whole store (``agui-notebook store copy``) ---------------------------------

    def is_empty(self) -> bool:
        """No thread and no audit record yet."""
        ...

    def copy_threads(self) -> list[ThreadCopy]:
        """Every thread with its runs, as stored, in the order they were first written."""
        ...

    def paste_thread(self, copy: ThreadCopy) -> None:
        """Write a copied thread and its runs as they were (times, numbering) in one transaction."""
        ...

    def append_links(self, links: Sequence[ChainLink], head: tuple[int, str] | None) -> None:
        """Append audit records as they are (numbers, records, hashes) and note ``head``."""
        ...


POSTGRES_EXTRA = 'pip install "agui_notebook[postgres]"'
URL_SCHEMES = ("postgresql://", "postgres://")


def is_url(location: str | os.PathLike[str]) -> bool:
    """A database URL (``scheme://...``), not a file path."""
    return isinstance(location, str) and "://" in location


# A URL that went through ``Path()``: it folds ``//`` into ``/`` (``postgresql:/ada@host/db``).
# Opened as a path it would become a SQLite file in a directory named for the URL, password and
# all; two letters at least, so that a Windows drive (``C:/``) stays a path.
_FOLDED_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]+):/(?!/)")


def open_store(location: str | os.PathLike[str], *, readonly: bool = False) -> StoreBackend:
    """The store at ``location``: a SQLite file's path, or a ``postgresql://`` URL."""
    folded = None if is_url(location) else _FOLDED_URL.match(os.fspath(location))
    if folded is not None:
        raise StoreError(
            f"the store location looks like a {folded.group(1)}:// URL that was made a path "
            "(Path() folds '//' into '/'): pass the URL as a str"
        )
    if is_url(location):
        text = str(location)
        if not text.startswith(URL_SCHEMES):
            scheme = text.split("://", 1)[0]
            raise StoreError(
                f"unknown store URL scheme {scheme!r}: a store is a file path or a "
                "postgresql:// (postgres://) URL"
            )
        try:  # psycopg is optional, and imported only when such a store is opened
            from .postgres import PostgresStore
        except ImportError as exc:
            raise StoreError(
                f"a PostgreSQL store needs psycopg 3, which is not installed ({exc}): "
                f"{POSTGRES_EXTRA}"
            ) from None
        return PostgresStore(text, readonly=readonly)
    from .sqlite import Store  # sqlite3 is imported only when a store is opened

    return Store(location, readonly=readonly)


def url_secrets(location: str | os.PathLike[str]) -> set[str]:
    """The passwords a store URL carries (in its userinfo or a ``password=`` option)."""
    if not is_url(location):
        return set()
    from urllib.parse import parse_qsl, unquote, urlsplit

    found: set[str] = set()
    try:
        parts = urlsplit(str(location))
        if parts.password:
            found |= {parts.password, unquote(parts.password)}
        found |= {v for k, v in parse_qsl(parts.query) if k == "password"}
    except ValueError:  # a port that is not a number: take the userinfo by hand
        netloc = str(location).partition("://")[2].split("/", 1)[0]
        userinfo = netloc.rpartition("@")[0]
        if ":" in userinfo:
            secret = userinfo.split(":", 1)[1]
            found |= {secret, unquote(secret)}
    return {s for s in found if s}


def describe(location: str | os.PathLike[str]) -> str:
    """Where ``location`` is, for messages and reprs: a URL without its password."""
    if not is_url(location):
        return str(location)
    from urllib.parse import parse_qsl, urlencode

    text = str(location)
    head, _, rest = text.partition("://")
    netloc, slash, path = rest.partition("/")
    if "@" in netloc:
        userinfo, _, hostport = netloc.rpartition("@")
        netloc = userinfo.split(":", 1)[0] + "@" + hostport
    path, mark, query = path.partition("?")
    if mark:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, "<redacted>" if k == "password" else v) for k, v in pairs])
    return f"{head}://{netloc}{slash}{path}{mark}{query}"
