"""``agui-notebook threads`` and ``agui-notebook audit export|verify``: the store from a shell.

The store is opened read-only, so a command never creates or changes one. Exit codes: 0 done
(for ``verify``: the chain is intact), 1 ``verify`` found a broken chain, 2 the store cannot be
read (missing, damaged, newer schema, turned off).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from .._decisions.audit import AuditEntry, canonical_json
from .._errors import StoreError
from .backend import StoreBackend, open_store
from .journal import STORE_ENV, resolve_store

__all__ = ["add_store_commands", "run_audit", "run_threads"]

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
    _store_option(verify)


def _store_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--store",
        metavar="PATH|URL",
        default=None,
        help=f"the store file or postgresql:// URL (default: ${STORE_ENV}, else the user data "
        "directory's file)",
    )


def _path(args: argparse.Namespace) -> Path | str:
    path = resolve_store(args.store, given=args.store is not None)
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
    rows = [[_printable(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        cells = [c.ljust(w) for c, w in zip(row, widths, strict=False)]
        print("  ".join([*cells, row[-1]]).rstrip(), file=out)
    return 0


def run_audit(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    if args.audit_command == "export" and _nothing_yet(args):
        return 0
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
    except StoreError as exc:
        return _error(exc)
    if problem is not None:
        print(
            f"audit log BROKEN at record {problem.seq}: {problem.problem}: {problem.detail}",
            file=out,
        )
        print(f"({count} records read from {store.where})", file=out)
        return 1
    if count == 0:
        print(f"audit log intact: no records yet ({store.where})", file=out)
    else:
        last = head[1] if head else "?"
        noun = "record" if count == 1 else "records"
        print(f"audit log intact: {count} {noun}; head {last} ({store.where})", file=out)
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
