"""Start JupyterLab or Notebook 7 for a browser test, drive it, and shut it down cleanly.

The recipe is docs/browser-testing.md: the project's venv Python, a free port, a known token, a
temporary root dir, throwaway config/runtime/data/settings/workspace dirs, no news, `--allow-root`,
`--port-retries=0`. The kernels are children of the server; their PIDs are recorded while the test
runs and killed after `POST /api/shutdown` if they outlive it (never by name).

jupyter-collaboration is installed in the test venv, which turns real-time collaboration on in
every server; `start_server` turns it off (`--YDocExtension.disable_rtc=True`) unless asked for
`collaborative=True`, and `users=` gives each named person a token of their own (_named_users.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import psutil

Kind = Literal["lab", "notebook"]

REPO_ROOT = Path(__file__).resolve().parents[2]
STARTUP_TIMEOUT = 90.0

# docs/browser-testing.md: the news prompt shows even with news_url=None unless the user setting
# says so; windowingMode "none" keeps every cell in the DOM for locators.
USER_SETTINGS: dict[str, dict[str, Any]] = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


def project_python() -> str:
    """The interpreter that serves Jupyter and runs kernels: the venv running the tests."""
    return os.environ.get("AGUI_NOTEBOOK_JUPYTER_PYTHON", sys.executable)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make_notebook(cells: Iterable[str], *, kernel: str = "python3") -> dict[str, Any]:
    """A v4 notebook with kernelspec metadata (without it a "Select Kernel" dialog opens)."""
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {
            "kernelspec": {"name": kernel, "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        },
        "cells": [
            {
                "cell_type": "code",
                "id": f"cell-{i}",
                "metadata": {},
                "execution_count": None,
                "outputs": [],
                "source": source,
            }
            for i, source in enumerate(cells)
        ],
    }


@dataclass
class JupyterServer:
    """A running JupyterLab (`kind="lab"`) or Notebook 7 (`kind="notebook"`) server."""

    kind: Kind
    url: str  # base URL with a trailing slash, e.g. http://127.0.0.1:41234/
    token: str
    root_dir: Path
    python: str
    process: subprocess.Popen[bytes]
    log_path: Path
    kernel_processes: dict[int, psutil.Process] = field(default_factory=dict)
    #: username -> the token that logs a browser context in as that person (`users=`).
    user_tokens: dict[str, str] = field(default_factory=dict)
    collaborative: bool = False

    # ----------------------------------------------------------------------------- REST API
    def api(self, method: str, path: str, body: Any = None, timeout: float = 10.0) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path.lstrip("/"),
            data=data,
            method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
        return json.loads(raw) if raw else None

    def sessions(self) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self.api("GET", "api/sessions")
        return result

    def write_notebook(self, name: str, cells: Iterable[str]) -> Path:
        """Write a notebook (kernelspec metadata included) into the root dir."""
        path = self.root_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(make_notebook(cells), indent=1), encoding="utf-8")
        return path

    def put_user_setting(self, plugin_id: str, value: dict[str, Any]) -> None:
        """Write a user setting through the settings API (e.g. the theme); pages opened later use it.

        `plugin_id` is the schema id, e.g. ``"@jupyterlab/apputils-extension:themes"``.
        """
        self.api("PUT", f"lab/api/settings/{plugin_id}", {"raw": json.dumps(value)})

    def shutdown_notebook_kernel(self, notebook: str) -> None:
        """Delete the notebook's session (its kernel stops); other notebooks keep theirs."""
        self.record_kernel_pids()
        for session in self.sessions():
            if session.get("path") == notebook:
                with contextlib.suppress(OSError, urllib.error.URLError, TimeoutError):
                    self.api("DELETE", f"api/sessions/{session['id']}", timeout=15)

    def record_kernel_pids(self) -> None:
        """Remember the server's child processes (the kernels) so cleanup can kill leftovers."""
        with contextlib.suppress(psutil.Error):
            for child in psutil.Process(self.process.pid).children(recursive=True):
                self.kernel_processes.setdefault(child.pid, child)

    def wait_for_kernel_idle(
        self, notebook: str | None = None, timeout: float = 60.0
    ) -> dict[str, Any]:
        """Wait until /api/sessions shows the notebook's kernel (any kernel if None) idle.

        The kernel indicator in the page reads "idle" before the session exists (a race that makes
        Run All open the kernel dialog and run nothing): the REST API is the truth.
        """
        deadline = time.monotonic() + timeout
        last: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            last = self.sessions()
            for session in last:
                if notebook is not None and session.get("path") != notebook:
                    continue
                kernel = session.get("kernel") or {}
                if kernel.get("execution_state") == "idle":
                    self.record_kernel_pids()
                    return session
            time.sleep(0.25)
        raise TimeoutError(
            f"no idle kernel for {notebook or 'any notebook'} after {timeout}s; sessions: {last}"
        )

    # --------------------------------------------------------------------------- the page
    def notebook_url(self, name: str, user: str | None = None) -> str:
        """The page of notebook `name`, logged in as `user` (one of `users=`) or with the
        server's token."""
        token = self.user_tokens[user] if user is not None else self.token
        if self.kind == "lab":
            # `reset`: start from an empty workspace, or a server that served earlier pages
            # reopens their notebooks too (and `.jp-Cell` locators find hidden tabs first).
            return f"{self.url}lab/tree/{name}?reset&token={token}"
        return f"{self.url}notebooks/{name}?token={token}"

    def open_notebook(
        self, page: Any, name: str, timeout: float = 60.0, *, user: str | None = None
    ) -> None:
        """Open `name` (relative to root_dir) as `user` and wait until its kernel is idle."""
        page.goto(self.notebook_url(name, user), wait_until="domcontentloaded")
        page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=timeout * 1000)
        self.wait_for_kernel_idle(name, timeout=timeout)

    def run_all(self, page: Any, notebook: str | None = None, timeout: float = 60.0) -> None:
        """Menu Run -> Run All Cells, once /api/sessions shows the kernel idle."""
        self.wait_for_kernel_idle(notebook, timeout=timeout)
        page.locator(".lm-MenuBar-item").filter(
            has=page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$"))
        ).click()
        item = page.locator(".lm-Menu-item").filter(
            has=page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$"))
        )
        item.click(timeout=timeout * 1000)

    # --------------------------------------------------------------------------- lifecycle
    def read_log(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def shutdown(self) -> None:
        """POST /api/shutdown, wait, then kill (by recorded PID) whatever outlived it."""
        self.record_kernel_pids()
        if self.process.poll() is None:
            with contextlib.suppress(OSError, urllib.error.URLError, TimeoutError):
                self.api("POST", "api/shutdown", timeout=5)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.terminate()
                try:
                    self.process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait(timeout=5)
        leftovers = [p for p in self.kernel_processes.values() if _alive(p)]
        for proc in leftovers:
            with contextlib.suppress(psutil.Error):
                proc.kill()
        psutil.wait_procs(leftovers, timeout=5)


class PageLog:
    """Console messages and page errors of one page, kept for assertions and artifacts."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.errors: list[str] = []

    def console(self, msg: Any) -> None:
        self.lines.append(f"[{msg.type}] {msg.text}")
        if msg.type == "error":
            self.errors.append(msg.text)

    def pageerror(self, exc: Any) -> None:
        self.lines.append(f"[pageerror] {exc}")
        self.errors.append(str(exc))

    def errors_matching(self, pattern: str) -> list[str]:
        """Errors from our own code; others are often harmless (docs/browser-testing.md)."""
        return [e for e in self.errors if re.search(pattern, e)]


def _alive(proc: psutil.Process) -> bool:
    # is_running() also compares the creation time, so a reused PID is not mistaken for ours.
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def start_server(
    kind: Kind,
    base_dir: Path,
    notebooks_dir: Path | None = None,
    python: str | None = None,
    user_settings: dict[str, dict[str, Any]] | None = None,
    *,
    collaborative: bool = False,
    users: Mapping[str, Mapping[str, str]] | None = None,
    extra_args: Iterable[str] = (),
) -> JupyterServer:
    """Start a server under `base_dir` (a fresh temp dir) and wait until it answers.

    `notebooks_dir`, if given, is copied into the server's root dir. `user_settings` adds or
    replaces user settings files (relative path -> value), e.g. a dark theme:
    ``{"@jupyterlab/apputils-extension/themes.jupyterlab-settings": {"theme": "JupyterLab Dark"}}``.
    The kernels never inherit a headless decision policy (AGUI_NOTEBOOK_POLICY): a browser test
    is the person who clicks.

    `collaborative`: real-time collaboration on (jupyter-collaboration; off otherwise). `users`:
    username -> the rest of a jupyter_server user model (``{"name": "Ada Lovelace"}``), each
    given a token (`JupyterServer.user_tokens`, `notebook_url(name, user=...)`) by the test
    identity provider. `extra_args` go last on the server's command line.
    """
    python = python or project_python()
    root_dir = base_dir / "root"
    if notebooks_dir is not None and notebooks_dir.is_dir():
        shutil.copytree(
            notebooks_dir, root_dir, ignore=shutil.ignore_patterns(".ipynb_checkpoints")
        )
    root_dir.mkdir(parents=True, exist_ok=True)

    dirs = {
        name: base_dir / name
        for name in ("config", "runtime", "data", "settings", "workspaces", "ipython")
    }
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
    for rel, value in {**USER_SETTINGS, **(user_settings or {})}.items():
        target = dirs["settings"] / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(value), encoding="utf-8")
    # news_url=None so the server calls out nowhere; in a config file because both apps read it.
    config: dict[str, Any] = {
        "LabApp": {"news_url": None},
        "JupyterNotebookApp": {"news_url": None},
    }
    user_tokens = {username: secrets.token_hex(16) for username in users or {}}
    if users:
        config["NamedUsers"] = {
            "users": {
                user_tokens[username]: {"username": username, **fields}
                for username, fields in users.items()
            }
        }
        # The provider's module, importable in the server only (the kernels' path stays clean).
        (dirs["config"] / "jupyter_server_config.py").write_text(
            f"import sys\nsys.path.insert(0, {str(Path(__file__).resolve().parent)!r})\n"
            'c.ServerApp.identity_provider_class = "_named_users.NamedUsers"\n',
            encoding="utf-8",
        )
    (dirs["config"] / "jupyter_server_config.json").write_text(json.dumps(config), encoding="utf-8")

    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("JUPYTER", "PYTHONPATH")) and k != "AGUI_NOTEBOOK_POLICY"
    }
    env.update(
        JUPYTER_CONFIG_DIR=str(dirs["config"]),
        JUPYTER_RUNTIME_DIR=str(dirs["runtime"]),
        # A private data dir: a user-level "python3" kernelspec must not replace the venv's kernel.
        JUPYTER_DATA_DIR=str(dirs["data"]),
        JUPYTERLAB_SETTINGS_DIR=str(dirs["settings"]),
        JUPYTERLAB_WORKSPACES_DIR=str(dirs["workspaces"]),
        IPYTHONDIR=str(dirs["ipython"]),
        JUPYTER_PLATFORM_DIRS="1",
    )

    port = free_port()
    token = secrets.token_hex(16)
    module = "jupyterlab" if kind == "lab" else "notebook"
    cmd = [
        python,
        "-m",
        module,
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--port-retries=0",
        "--allow-root",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root_dir}",
        f"--LabServerApp.user_settings_dir={dirs['settings']}",
        f"--LabServerApp.workspaces_dir={dirs['workspaces']}",
        "--ServerApp.terminals_enabled=False",
        # The collaboration extension is installed for the two-user tests; off unless asked.
        f"--YDocExtension.disable_rtc={not collaborative}",
    ]
    cmd.extend(extra_args)
    log_path = base_dir / f"jupyter-{kind}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            cmd,
            cwd=root_dir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    server = JupyterServer(
        kind=kind,
        url=f"http://127.0.0.1:{port}/",
        token=token,
        root_dir=root_dir,
        python=python,
        process=process,
        log_path=log_path,
        user_tokens=user_tokens,
        collaborative=collaborative,
    )
    try:
        _wait_until_ready(server)
    except BaseException:
        server.shutdown()
        raise
    return server


def _wait_until_ready(server: JupyterServer) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    error: Exception | None = None
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(
                f"Jupyter {server.kind} exited with {server.process.returncode} before it was "
                f"ready:\n{server.read_log()[-4000:]}"
            )
        try:
            server.api("GET", "api/status", timeout=2)
            # The front-end page itself must be served too (lab assets, notebook assets).
            page = "lab" if server.kind == "lab" else "tree"
            with urllib.request.urlopen(
                f"{server.url}{page}?token={server.token}", timeout=5
            ) as response:
                if response.status == 200:
                    return
        except (OSError, urllib.error.URLError, ValueError) as exc:
            error = exc
        time.sleep(0.25)
    raise TimeoutError(
        f"Jupyter {server.kind} not ready after {STARTUP_TIMEOUT}s ({error}):\n"
        f"{server.read_log()[-4000:]}"
    )
