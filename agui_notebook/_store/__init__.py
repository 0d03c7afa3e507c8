"""Threads and decisions kept across sessions, and the audit log.

Owns the store's schema and backends (``backend``: the protocol a backend meets; ``sql``: every
statement, written once, and the ``Dialect`` that puts it in a database's words, pure;
``sqlstore``: the store over SQL, every query and row mapping, through three hooks a backend
fills; ``sqlite``: one SQLite file, WAL, the embedded default; ``postgres``: a PostgreSQL
database a team shares, over psycopg 3, the optional ``postgres`` extra; each of the two keeps
only connecting, migrating, its transactions and locks, and its errors), a thread <-> the
store's JSON texts (``codec``, pure, scrubbed), messages and tool calls in pages and which pages
a commit writes (``pages``, pure), a stored thread back with its messages decoded when first read
(``snapshot``), the journal that writes each committed run and restores threads (``journal``),
and the commands (``cli``: threads, audit export, audit verify, store init, store copy).

May import: the pure rooms (``_protocol``, ``_state``, ``_decisions``), ``_errors``; ``journal``
and ``cli`` also the thread (``_thread``). SQLite lives in ``sqlite`` only, psycopg in ``postgres`` only.
"""
