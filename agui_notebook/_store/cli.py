"""``agui-notebook threads``, ``audit export|verify`` and ``store init|copy``: the store from a shell.

``threads`` and ``audit`` open the store read-only, so they never create or change one.
``store init`` creates or upgrades a store's schema (a PostgreSQL database's too, with the
application role's grants); ``store copy`` copies one store into another, empty one. A store is
a file path or a ``postgresql://`` URL (``--store``, else ``AGUI_NOTEBOOK_STORE``); a URL's
password is never printed. Exit codes: 0 done (for ``verify``: the chain is intact), 1 ``verify``
(or the check after a copy) found a broken chain, 2 a store cannot be used (missing, damaged,
newer schema, unreachable, a wrong password, turned off, a copy into a store that is not empty).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from .._decisions.audit import (
    AuditEntry,
    ChainLink,
    canonical_json,
    format_head,
    head_problem,
    parse_head,
)
from .._errors import StoreError
from .backend import StoreBackend, open_store
from .journal import STORE_ENV, inbox_view, resolve_store

__all__ = [
    "add_global_store_option",
    "add_store_commands",
    "run_audit",
    "run_inbox",
    "run_store",
    "run_threads",
]

AUDIT_COLUMNS = ["seq", *AuditEntry.__dataclass_fields__, "prev_hash", "hash"]


def add_store_commands(commands: Any) -> None:
    """Add ``threads`` and ``audit`` to the ``agui-notebook`` parser's subcommands."""
    threads = commands.add_parser(
        "threads",
        help="list the threads kept in the store (newest first)",
        description="A table of the stored threads of every agent, newest first.",
    )
    threads.add_argument(
        "--pending", action="store_true", help="only threads waiting for a decision"
    )
    _store_option(threads)

    audit = commands.add_parser(
        "audit",
        help="export or verify the audit log of decisions",
        description="The store's audit log: every decision on an interrupt, hash-chained.",
    )
    actions = audit.add_subparsers(dest="audit_command", metavar="<action>", required=True)
    export = actions.add_parser(
        "export", help="write the audit log to stdout", description="Write every record, in order."
    )
    export.add_argument("--format", choices=["jsonl", "csv"], default="jsonl", help="default jsonl")
    _store_option(export)
    verify = actions.add_parser(
        "verify",
        help="check the hash chain (exit 1 naming the first bad record)",
        description="Exit 0 when every record is intact and in order; exit 1 and name the first "
        "record that was altered, removed or reordered.",
    )
    verify.add_argument(
        "--head",
        metavar="SEQ:HASH",
        default=None,
        help="a head printed earlier by `audit head`: exit 1 unless the log still holds it",
    )
    _store_option(verify)
    head = actions.add_parser(
        "head",
        help="print the chain head as SEQ:HASH, to keep elsewhere",
        description="Print the last record's number and hash as SEQ:HASH (0:000... for an empty "
        "log). Kept outside the store (a ticket, a CI log, a colleague), it lets `audit verify "
        "--head SEQ:HASH` catch a rewrite the chain alone cannot: a record altered and every later "
        "hash recomputed, or the last records removed. Exit 1 when the chain is broken.",
    )
    _store_option(head)

    inbox = commands.add_parser(
        "inbox",
        help="every approval waiting in the store, and who is deciding it",
        description="A table of the pending interrupts of every thread and agent in the store "
        "(a shared PostgreSQL store: the whole team's), newest first, with their status: "
        "waiting, expired, or being decided by someone on some host.",
    )
    _store_option(inbox)

    store = commands.add_parser(
        "store",
        help="create or upgrade a store's schema, or copy a store",
        description="Set a store up (a SQLite file or a PostgreSQL database), or copy one.",
    )
    store_actions = store.add_subparsers(dest="store_command", metavar="<action>", required=True)
    init = store_actions.add_parser(
        "init",
        help="create or upgrade the schema (idempotent)",
        description="Create the store's tables, or upgrade them to this version's schema. On "
        "PostgreSQL, run it as the tables' owner and name the role kernels connect as with "
        "--app-role: it may read and write threads and append to the audit log, never change "
        "or remove an audit record.",
    )
    init.add_argument("location", metavar="PATH|URL", help="a file path or a postgresql:// URL")
    init.add_argument(
        "--app-role",
        metavar="ROLE",
        default=None,
        help="PostgreSQL: the role the kernels use (granted what they need, audit append-only)",
    )
    copy = store_actions.add_parser(
        "copy",
        help="copy every thread, pending interrupt and audit record into an empty store",
        description="Copy SRC into DST (SQLite -> PostgreSQL and back): threads with their runs "
        "and pending interrupts, and the audit log record by record with its hashes, so "
        "`audit verify` passes on the copy. DST is created if needed and must be empty.",
    )
    copy.add_argument("source", metavar="SRC", help="the store to read (opened read-only)")
    copy.add_argument("target", metavar="DST", help="the empty store to write")


STORE_HELP = (
    f"the store file or postgresql:// URL (default: ${STORE_ENV}, else the user data directory's "
    "file); also accepted before the command: agui-notebook --store URL threads"
)


def add_global_store_option(parser: argparse.ArgumentParser) -> None:
    """``agui-notebook --store URL <command>``: the same option, before the command."""
    parser.add_argument("--store", metavar="PATH|URL", default=None, help=STORE_HELP)


def _store_option(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS: when not given after the command, the one given before it (or None) stays.
    parser.add_argument("--store", metavar="PATH|URL", default=argparse.SUPPRESS, help=STORE_HELP)


def _path(args: argparse.Namespace) -> Path | str:
    # The notebooks' store: a shell is where a person reads what their notebooks kept.
    path = resolve_store(args.store, given=args.store is not None, interactive=lambda: True)
    if path is None:
        raise StoreError(f"no store: {STORE_ENV} is 'off' (pass --store PATH)")
    return path


def _open(args: argparse.Namespace) -> StoreBackend:
    return open_store(_path(args), readonly=True)


def _nothing_yet(args: argparse.Namespace) -> bool:
    """No store file yet: nothing was stored (listing and export say so; verify is an error)."""
    try:
        path = _path(args)
    except StoreError:
        return False
    if not isinstance(path, Path) or path.exists():  # a database URL: asked when opened
        return False
    print(f"agui-notebook: no store at {path} yet (nothing stored)", file=sys.stderr)
    return True


def run_threads(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    if _nothing_yet(args):
        return 0
    try:
        with _open(args) as store:
            threads = store.threads(pending=True if args.pending else None)
    except StoreError as exc:
        return _error(exc)
    if not threads:
        print("no pending threads" if args.pending else "no stored threads", file=out)
        return 0
    rows = [["UPDATED (UTC)", "THREAD", "PENDING", "MESSAGES", "LAST RUN", "AGENT", "TITLE"]]
    for t in threads:
        rows.append(
            [
                t.updated_at.strftime("%Y-%m-%d %H:%M:%S"),
                t.id,
                str(t.pending),
                str(t.messages),
                t.last_status or "",
                t.agent_url,
                t.title or "",
            ]
        )
    _table(rows, out)
    return 0


def run_inbox(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    if _nothing_yet(args):
        return 0
    try:
        with _open(args) as store:
            items = inbox_view(store)
    except StoreError as exc:
        return _error(exc)
    if not items:
        print("no pending approvals", file=out)
        return 0
    rows = [["UPDATED (UTC)", "THREAD", "INTERRUPT", "TOOL", "STATUS", "AGENT", "TITLE"]]
    for item in items:
        rows.append(
            [
                item.updated_at.strftime("%Y-%m-%d %H:%M:%S"),
                item.thread_id,
                item.interrupt.id,
                item.interrupt.tool_name or item.interrupt.reason,
                item.status,
                item.agent_url,
                item.title or "",
            ]
        )
    _table(rows, out)
    return 0


def _table(rows: list[list[str]], out: TextIO) -> None:
    rows = [[_printable(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        cells = [c.ljust(w) for c, w in zip(row, widths, strict=False)]
        print("  ".join([*cells, row[-1]]).rstrip(), file=out)


def run_audit(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    if args.audit_command == "export" and _nothing_yet(args):
        return 0
    published: tuple[int, str] | None = None
    if args.audit_command == "verify" and args.head is not None:
        try:
            published = parse_head(args.head)
        except ValueError as exc:
            print(f"agui-notebook: {exc}", file=sys.stderr)
            return 2
    try:
        with _open(args) as store:
            if args.audit_command == "export":
                links = store.audit_links()
                rows = [
                    {"seq": item.seq, **item.record, "prev_hash": item.prev_hash, "hash": item.hash}
                    for item in links
                ]
                _export(rows, args.format, out)
                return 0
            count, problem = store.verify_audit()
            head = store.audit_head()
            links = store.audit_links() if published is not None or head is None else []
    except StoreError as exc:
        return _error(exc)
    if args.audit_command == "head":
        if problem is not None:
            print(
                f"agui-notebook: the audit log is BROKEN at record {problem.seq} "
                f"({problem.problem}: {problem.detail}): no head to publish",
                file=sys.stderr,
            )
            return 1
        print(format_head(head if head is not None else _last(links)), file=out)
        return 0
    if problem is not None:
        print(
            f"audit log BROKEN at record {problem.seq}: {problem.problem}: {problem.detail}",
            file=out,
        )
        print(f"({count} records read from {store.where})", file=out)
        return 1
    if published is not None:
        lost = head_problem(links, published)
        if lost is not None:
            print(f"audit log does NOT hold the head {format_head(published)}: {lost}", file=out)
            print(f"({count} records read from {store.where})", file=out)
            return 1
        print(f"audit log holds the head {format_head(published)}", file=out)
    if count == 0:
        print(f"audit log intact: no records yet ({store.where})", file=out)
    else:
        last = head[1] if head else "?"
        noun = "record" if count == 1 else "records"
        print(f"audit log intact: {count} {noun}; head {last} ({store.where})", file=out)
    return 0


def _last(links: list[ChainLink]) -> tuple[int, str] | None:
    return (links[-1].seq, links[-1].hash) if links else None


def run_store(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    if args.store_command == "init":
        return _init(args.location, args.app_role, out)
    return _copy(args.source, args.target, out)


def _location(text: str) -> Path | str:
    found = resolve_store(text, given=True, interactive=lambda: True)
    assert found is not None
    return found


def _init(location: str, app_role: str | None, out: TextIO) -> int:
    try:
        with open_store(_location(location)) as store:
            grant = getattr(store, "grant", None)
            if app_role is not None:
                if grant is None:
                    raise StoreError(f"--app-role is for a PostgreSQL store, not {store.where}")
                grant(app_role)
            version = store.schema_version
            where = store.where
    except StoreError as exc:
        return _error(exc)
    granted = f"; role {app_role} may append to the audit log, never change it" if app_role else ""
    print(f"store ready: {where} (schema version {version}){granted}", file=out)
    return 0


def _copy(source: str, target: str, out: TextIO) -> int:
    try:
        with (
            open_store(_location(source), readonly=True) as src,
            open_store(_location(target)) as dst,
        ):
            if not dst.is_empty():
                raise StoreError(
                    f"{dst.where} is not empty: a copy goes into a new store, so its audit "
                    "chain is the source's record for record"
                )
            threads = src.copy_threads()
            for thread in threads:
                dst.paste_thread(thread)
            links = src.audit_links()
            if links:
                dst.append_links(links, src.audit_head())
            count, problem = dst.verify_audit()
            src_where, dst_where = src.where, dst.where
    except StoreError as exc:
        return _error(exc)
    pending = sum(1 for t in threads if t.row.pending_count)
    print(
        f"copied {len(threads)} threads ({pending} pending) and {len(links)} audit records "
        f"from {src_where} to {dst_where}",
        file=out,
    )
    if problem is not None:
        print(
            f"audit log BROKEN on the copy at record {problem.seq}: {problem.problem}: "
            f"{problem.detail}",
            file=out,
        )
        return 1
    print(f"audit log intact on the copy: {count} records", file=out)
    return 0


def _export(rows: list[dict[str, Any]], fmt: str, out: TextIO) -> None:
    if fmt == "jsonl":
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
        return
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(AUDIT_COLUMNS)
    for row in rows:
        writer.writerow([_csv_cell(row.get(column)) for column in AUDIT_COLUMNS])


def _csv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return canonical_json(value)
    return _formula_safe(str(value))


def _formula_safe(text: str) -> str:
    # A cell starting with = + - @ runs as a formula in spreadsheets (CSV injection).
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _printable(text: str) -> str:
    """Terminal-safe: control characters (escape sequences included) shown as \\x.. escapes."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _error(exc: StoreError) -> int:
    message = str(exc)
    hint = getattr(exc, "hint", None)
    print(f"agui-notebook: {type(exc).__name__}: {message}", file=sys.stderr)
    if hint:
        print(f"  {hint}", file=sys.stderr)
    return 2
