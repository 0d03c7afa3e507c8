"""The ``agui-notebook`` command line. Subcommands import what they need only when they run.

agui-notebook                      version and the list of subcommands
agui-notebook demo-server --port 8000
agui-notebook notebooks --reexecute [PATHS...] [--widget-state]
agui-notebook [--store PATH|URL] threads [--pending] [--store PATH|URL]
agui-notebook audit export --format jsonl|csv [--store PATH|URL]
agui-notebook audit verify [--store PATH|URL]
agui-notebook inbox [--store PATH|URL]
agui-notebook store init PATH|URL [--app-role ROLE]
agui-notebook store copy SRC DST
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from importlib import metadata


def _version() -> str:
    try:
        return metadata.version("agui-notebook")
    except metadata.PackageNotFoundError:  # a source checkout: the package itself knows
        package = sys.modules.get("agui_notebook")
        return str(getattr(package, "__version__", "unknown"))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agui-notebook",
        description="Work with AG-UI agents from Jupyter notebooks.",
    )
    parser.add_argument("--version", action="version", version=f"agui-notebook {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="<command>")
    demo = commands.add_parser(
        "demo-server",
        help="serve the built-in demo agent over HTTP+SSE (loopback by default)",
        description="Serve the scripted demo banking agent at http://HOST:PORT/ "
        "(POST a RunAgentInput, read SSE). No API key, no LLM.",
    )
    demo.add_argument(
        "--host",
        default="127.0.0.1",
        help="interface to bind (default 127.0.0.1; the demo has no auth)",
    )
    demo.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    demo.add_argument(
        "--text-delay",
        type=float,
        default=None,
        metavar="S",
        help="seconds between streamed text deltas (default 0.02)",
    )
    demo.add_argument(
        "--expires-in",
        type=float,
        default=None,
        metavar="S",
        help="lifetime of the expiring interrupt (default 60)",
    )
    demo.add_argument(
        "--keepalive-interval",
        type=float,
        default=None,
        metavar="S",
        help="seconds of silence before a ': keepalive' comment (default 15)",
    )
    books = commands.add_parser(
        "notebooks",
        help="re-execute the tutorial notebooks and save their outputs (what nbval compares)",
        description="Run notebooks top to bottom in this interpreter's kernel, with "
        "AGUI_NOTEBOOK_POLICY set, and save their outputs in place.",
    )
    books.add_argument(
        "--reexecute",
        action="store_true",
        required=True,
        help="run and re-save (the only action; required so nothing is rewritten by accident)",
    )
    books.add_argument("paths", nargs="*", help="notebooks (default: notebooks/*.ipynb)")
    books.add_argument("--policy", default="approve", help="AGUI_NOTEBOOK_POLICY (default approve)")
    books.add_argument("--timeout", type=int, default=120, help="seconds per cell (default 120)")
    books.add_argument(
        "--widget-state",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="also save widget references and state (default: chat views as static text+HTML)",
    )
    from agui_notebook._store.cli import add_global_store_option, add_store_commands

    add_global_store_option(parser)
    add_store_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        print(f"agui-notebook {_version()}\n")
        parser.print_help()
        return 0
    if args.command == "demo-server":
        from agui_notebook.demo._server import serve

        options = {
            name: getattr(args, name)
            for name in ("text_delay", "expires_in", "keepalive_interval")
            if getattr(args, name) is not None
        }
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C is the normal way to stop
            serve(args.host, args.port, **options)
        return 0
    if args.command == "notebooks":
        from agui_notebook._notebook.execute import main as notebooks_main

        forwarded = [*args.paths, "--policy", args.policy, "--timeout", str(args.timeout)]
        if args.widget_state:
            forwarded.append("--widget-state")
        return notebooks_main(forwarded)
    if args.command in ("threads", "audit", "store", "inbox"):
        from agui_notebook._store.cli import run_audit, run_inbox, run_store, run_threads

        if args.command == "store":
            return run_store(args)
        if args.command == "inbox":
            return run_inbox(args)
        return run_threads(args) if args.command == "threads" else run_audit(args)
    parser.error(f"unknown command {args.command}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
