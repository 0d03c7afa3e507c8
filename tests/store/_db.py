"""Reading (and changing) a store directly, as another process would: a SQLite file or a PostgreSQL
URL."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any


def rows(location: Path | str, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Read the store directly (a separate connection, as another process would)."""
    if isinstance(location, str) and "://" in location:
        import psycopg

        with psycopg.connect(location, autocommit=True) as pg:
            pg.execute("SET search_path TO agui_notebook")
            return [tuple(r) for r in pg.execute(sql.replace("?", "%s").encode(), params)]
    conn = sqlite3.connect(f"file:{location}?mode=ro", uri=True)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def execute(location: Path | str, sql: str, params: tuple[Any, ...] = ()) -> None:
    """Change the store directly, as another program (or a damaged disk) would."""
    if isinstance(location, str) and "://" in location:
        import psycopg

        with psycopg.connect(location, autocommit=True) as pg:
            pg.execute("SET search_path TO agui_notebook")
            pg.execute(sql.replace("?", "%s").encode(), params)
        return
    conn = sqlite3.connect(location, isolation_level=None)
    try:
        conn.execute(sql, params)
    finally:
        conn.close()
