"""Reading a store file directly, as another process would."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any


def rows(path: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Read the store file directly (a separate connection, as another process would)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()
