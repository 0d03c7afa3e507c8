"""Start marimo (`marimo edit` or `marimo run`, headless) for a browser test, and stop it.

Like _jupyter.py: the project's venv Python (marimo is pinned in the `test-frontends` extra), a
free port on 127.0.0.1, a temporary home and config (marimo reads `.marimo.toml` from the working
directory upwards, then the home), no update check, no token, `--no-sandbox`. The config turns on
`auto_instantiate`, so `marimo edit` runs the notebook when it opens, as `marimo run` always does.
The kernels are children of the server; their PIDs are recorded and killed after the server if
they outlive it (never by name). A server that cannot start fails the test.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import psutil
from _jupyter import free_port, project_python

Mode = Literal["edit", "run"]
STARTUP_TIMEOUT = 90.0
CONFIG = '[runtime]\nauto_instantiate = true\n\n[display]\ntheme = "light"\n'


@dataclass
class MarimoServer:
    mode: Mode
    url: str  # with a trailing slash
    root: Path  # the directory served (edit) or holding the notebook (run)
    process: subprocess.Popen[bytes]
    log_path: Path
    children: dict[int, psutil.Process] = field(default_factory=dict)

    def notebook_url(self, name: str) -> str:
        return f"{self.url}?file={name}" if self.mode == "edit" else self.url

    def read_log(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def record_children(self) -> None:
        with contextlib.suppress(psutil.Error):
            for child in psutil.Process(self.process.pid).children(recursive=True):
                self.children.setdefault(child.pid, child)

    def shutdown(self) -> None:
        self.record_children()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        leftovers = [p for p in self.children.values() if _alive(p)]
        for proc in leftovers:
            with contextlib.suppress(psutil.Error):
                proc.kill()
        psutil.wait_procs(leftovers, timeout=5)


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def start_marimo(mode: Mode, root: Path, notebook: str | None = None) -> MarimoServer:
    """`marimo edit root/` (every notebook in it, opened by `?file=`) or `marimo run root/name`."""
    home = root.parent / f"marimo-home-{mode}"
    home.mkdir(parents=True, exist_ok=True)
    (root / ".marimo.toml").write_text(CONFIG, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "AGUI_NOTEBOOK_POLICY"}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_STATE_HOME=str(home / ".state"),
        MARIMO_SKIP_UPDATE_CHECK="1",
    )
    port = free_port()
    target = str(root if mode == "edit" else root / (notebook or ""))
    cmd = [project_python(), "-m", "marimo", mode, "--headless", "--no-token"]
    cmd += ["--host", "127.0.0.1", "--port", str(port), "--no-sandbox"]
    if mode == "edit":
        cmd.append("--skip-update-check")
    cmd.append(target)
    log_path = root.parent / f"marimo-{mode}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            cmd, cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
        )
    server = MarimoServer(mode, f"http://127.0.0.1:{port}/", root, process, log_path)
    try:
        _wait_until_ready(server)
    except BaseException:
        server.shutdown()
        raise
    return server


def _wait_until_ready(server: MarimoServer) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    error: Exception | None = None
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(
                f"marimo {server.mode} exited with {server.process.returncode} before it was "
                f"ready:\n{server.read_log()[-4000:]}"
            )
        try:
            with urllib.request.urlopen(server.url, timeout=5) as response:
                if response.status == 200:
                    return
        except (OSError, urllib.error.URLError, ValueError) as exc:
            error = exc
        time.sleep(0.25)
    raise TimeoutError(
        f"marimo {server.mode} not ready after {STARTUP_TIMEOUT}s ({error}):\n"
        f"{server.read_log()[-4000:]}"
    )
