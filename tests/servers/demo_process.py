"""The demo agent in its own process, for tests that kill kernels or restart Jupyter kernels.

A server started inside the kernel dies with it; one in the test process would share its event
loop with Playwright. This one outlives both::

    with DemoProcess(text_delay=0) as demo:
        demo.url                  # http://127.0.0.1:PORT/
        demo.executions()         # the tools the demo ran so far, asked over a pipe

Run by hand: ``python -m tests.servers.demo_process --text-delay 0``; it prints its URL, then
answers ``executions`` with one JSON line and stops on ``quit`` or end of input.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]


class DemoProcess:
    def __init__(self, **options: float) -> None:
        args = [sys.executable, "-m", "tests.servers.demo_process"]
        for name, value in options.items():
            args += [f"--{name.replace('_', '-')}", str(value)]
        self._proc = subprocess.Popen(
            args,
            cwd=REPO_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline().strip()
        if not line.startswith("http://127.0.0.1:"):
            self.stop()
            raise RuntimeError(f"the demo process did not start: {line!r}")
        self.url = line

    def executions(self) -> list[dict[str, Any]]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write("executions\n")
        self._proc.stdin.flush()
        result: list[dict[str, Any]] = json.loads(self._proc.stdout.readline())
        return result

    def stop(self) -> None:
        if self._proc.poll() is None:
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.write("quit\n")
                self._proc.stdin.flush()
                self._proc.wait(timeout=15)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait(timeout=15)

    def __enter__(self) -> DemoProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--text-delay", type=float, default=0.0)
    parser.add_argument("--expires-in", type=float, default=60.0)
    args = parser.parse_args(argv)
    from agui_notebook.demo import create_app, start_in_thread

    app = create_app(text_delay=args.text_delay, expires_in=args.expires_in)
    url, stop = start_in_thread(app=app)
    print(url, flush=True)
    try:
        for line in sys.stdin:
            command = line.strip()
            if command == "executions":
                print(json.dumps(app.executions), flush=True)
            elif command == "quit":
                break
    finally:
        stop()


if __name__ == "__main__":
    main()
