"""What the journal and the commands need from a store, whichever database holds it.

A backend keeps threads (one row each, as the codec's JSON texts), a summary of each committed
run, and the append-only audit log with its hash chain. The journal (``journal``) and the
commands (``cli``) talk to :class:`StoreBackend` only; :func:`open_store` picks the backend for
a location. SQLite (``sqlite``, one file) is the one there is; another database is a new module
that meets the protocol and one branch in :func:`open_store`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Protocol

from .._decisions.audit import AuditEntry, ChainBreak, ChainLink
from .codec import RunRow, StoredThreadData, ThreadRow, ThreadSummary

__all__ = ["StoreBackend", "StoredThreadData", "open_store"]


class StoreBackend(Protocol):
    """An open store. Thread-safe; every error is a typed ``StoreError``."""

    @property
    def where(self) -> str:
        """Where the store is, for messages (never a credential)."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> StoreBackend: ...

    def __exit__(self, *exc: object) -> None: ...

    def save_run(self, thread: ThreadRow, run: RunRow, audit: Sequence[AuditEntry] = ()) -> None:
        """One transaction: the thread's row, the run's summary, the run's audit entries."""
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


def open_store(location: str | os.PathLike[str], *, readonly: bool = False) -> StoreBackend:
    """The store at ``location`` (a SQLite file's path)."""
    from .sqlite import Store  # sqlite3 is imported only when a store is opened

    return Store(location, readonly=readonly)
