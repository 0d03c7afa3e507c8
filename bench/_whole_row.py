"""Before schema version 3: a commit wrote the thread's whole row, for bench/store.py's before/after.

A faithful copy of what version 2's journal did per committed run (``encode_thread`` with its
memo of each message's and tool call's JSON, then one transaction: the ``threads`` upsert with
every message in one JSON text, scrubbed as a whole, and the run's summary), into a file made
with version 2's schema (``_store.sqlite.MIGRATIONS[:2]``). The codec's own helpers make the
texts, so only the layout differs from the journal measured beside it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agui_notebook._protocol.secrets import Scrubber
from agui_notebook._store.codec import (
    _interrupt_json,
    _message_json,
    _scrub_text,
    _title,
    _tool_call_json,
    encode_run,
    scrubbed_json,
)
from agui_notebook._store.sqlite import MIGRATIONS

_UPSERT = """
INSERT INTO threads (agent_url, id, created_at, updated_at, title, last_run_id, last_status,
    message_count, pending_count, messages, state, tool_calls, pending, answered)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (agent_url, id) DO UPDATE SET
    updated_at = excluded.updated_at, title = COALESCE(threads.title, excluded.title),
    last_run_id = excluded.last_run_id, last_status = excluded.last_status,
    message_count = excluded.message_count, pending_count = excluded.pending_count,
    messages = excluded.messages, state = excluded.state, tool_calls = excluded.tool_calls,
    pending = excluded.pending, answered = excluded.answered
"""
_RUN = """
INSERT INTO runs (agent_url, thread_id, seq, run_id, summary)
VALUES (?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM runs WHERE agent_url = ? AND thread_id = ?),
    ?, ?)
"""


class WholeRowJournal:
    """Version 2's commit: the whole thread row rewritten each time (its memo kept per thread)."""

    def __init__(self, path: Path, agent_url: str, scrubber: Callable[[], Scrubber]) -> None:
        self.agent_url = agent_url
        self.scrubber = scrubber  # asked at every commit, as the journal asks it
        self.memo: dict[str, tuple[Any, str]] = {}
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("BEGIN IMMEDIATE")
        for _, script in MIGRATIONS[:2]:
            for statement in (s.strip() for s in script.split(";")):
                if statement:
                    self.conn.execute(statement)
        self.conn.execute("COMMIT")

    def committed(self, thread: Any, run_id: str) -> None:
        now = datetime.now(timezone.utc)
        snapshot = thread._snapshot
        scrubber = self.scrubber()
        messages = list(snapshot.messages.values())
        kept: dict[str, tuple[Any, str]] = {}
        messages_text = (
            "[" + ",".join(self._memo(m, "m:" + m.id, kept, _message_json) for m in messages) + "]"
        )
        calls = snapshot.tool_calls.values()
        calls_text = (
            "[" + ",".join(self._memo(c, "c:" + c.id, kept, _tool_call_json) for c in calls) + "]"
        )
        self.memo = kept
        if scrubber:
            messages_text = _scrub_text(
                messages_text,
                lambda: [
                    m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in messages
                ],
                scrubber,
            )
        stamp = now.isoformat(timespec="microseconds")
        row = (
            self.agent_url, thread.id, stamp, stamp, _title(messages, scrubber), run_id,
            "interrupt", len(messages), len(thread._pending), messages_text,
            scrubbed_json(snapshot.state, scrubber),
            _scrub_text(calls_text, lambda: [json.loads(_tool_call_json(c)) for c in calls], scrubber),
            scrubbed_json([_interrupt_json(p) for p in thread._pending], scrubber),
            scrubbed_json([], scrubber),
        )  # fmt: skip
        summary = encode_run(
            run_id=run_id, kind="run", parent_run_id=None, started_at=now, finished_at=now,
            status="interrupt", event_count=120, warnings=[], resume=[], scrubber=scrubber,
        )  # fmt: skip
        cur = self.conn.cursor()
        cur.execute("BEGIN IMMEDIATE")
        cur.execute(_UPSERT, row)
        key = (self.agent_url, thread.id)
        cur.execute(_RUN, (*key, *key, summary.run_id, summary.summary))
        cur.execute("COMMIT")

    def _memo(self, item: Any, key: str, kept: dict[str, tuple[Any, str]], encode: Any) -> str:
        hit = self.memo.get(key)
        text: str = hit[1] if hit is not None and hit[0] is item else encode(item)
        kept[key] = (item, text)
        return text

    def close(self) -> None:
        self.conn.close()
