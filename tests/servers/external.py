"""Third-party AG-UI servers that run out of process, each in its own venv.

Some frameworks cannot share the main ``.venv`` (their adapters pin another ``ag-ui-protocol``
line, or pull in large trees). Each lives in ``tests/servers/<framework>/``:

- ``requirements.txt``: every package of its venv, pinned exactly (a ``pip freeze``);
- ``server.py``: ``python server.py --port N [options]`` serves the AG-UI endpoint on
  ``http://127.0.0.1:N/`` with a scripted, LLM-free model, plus the ``/_test`` routes of
  ``tests/servers/_common.py`` (``serve_external``): ``GET /_test/ready``, ``GET /_test/log``
  (requests and tool executions as the server saw them), ``POST /_test/clear``.

``scripts/test`` builds ``.venv-servers/<framework>`` from the requirements file (set-up step
``server-venvs``; reused while a stamp of the file's hash and the interpreter matches). This module
starts a server from that venv for the tests, on a free port of 127.0.0.1, waits until it answers
and raises :class:`ServerUnavailable` (a test *error*, never a skip) when the venv is missing, the
process dies or it does not get ready in time, with the server's own output in the message.

    server = start("langgraph", "--style", "default")
    server.url            # "http://127.0.0.1:<port>/"
    server.requests       # [LoggedRequest(method, path, status, json)], in arrival order
    server.executions     # [("transfer_money", {...}), ...]
    server.clear()        # forget both
    server.stop()
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

__all__ = [
    "SERVERS_DIR",
    "VENVS_DIR",
    "ExternalServer",
    "LoggedRequest",
    "ServerUnavailable",
    "server_python",
    "start",
]

REPO_ROOT = Path(__file__).resolve().parents[2]
SERVERS_DIR = REPO_ROOT / "tests" / "servers"
#: Overridable so a checkout can reuse venvs built elsewhere (same layout: <dir>/<framework>/).
VENVS_DIR = Path(os.environ.get("AGUI_SERVER_VENVS", REPO_ROOT / ".venv-servers"))

#: Importing a framework (LangChain, ADK...) takes seconds, more on a loaded 2-core machine.
READY_TIMEOUT = 120.0
STARTS = 3  # a port taken between our probe and the server's bind: try another, this many times


class ServerUnavailable(RuntimeError):
    """A third-party server could not be started: a failure of the test run, not a skip."""


@dataclass(frozen=True)
class LoggedRequest:
    """One HTTP request the server received (``json``: the parsed body, or None)."""

    method: str
    path: str
    status: int | None
    json: Any


def server_python(framework: str, *, venvs: Path | None = None) -> Path:
    """The interpreter of ``framework``'s venv; :class:`ServerUnavailable` if it is not built."""
    venv = (venvs or VENVS_DIR) / framework
    python = venv / "bin" / "python"
    requirements = SERVERS_DIR / framework / "requirements.txt"
    if not requirements.is_file():
        raise ServerUnavailable(f"no test server {framework!r}: {requirements} does not exist")
    if not python.is_file():
        raise ServerUnavailable(
            f"the venv for the {framework} test server is missing ({venv}). It is built by "
            f"scripts/test (set-up step server-venvs) from {requirements.relative_to(REPO_ROOT)}; "
            "to build only it: bash -c 'source scripts/_bootstrap.sh && "
            f"ensure_server_venv {framework}'"
        )
    stamp = venv / ".agui-install-stamp"
    if not stamp.is_file():
        raise ServerUnavailable(
            f"the venv {venv} exists but was never completed (no {stamp.name}): "
            "scripts/test rebuilds it"
        )
    return python


@dataclass
class ExternalServer:
    """A running out-of-process test server. ``url`` ends with ``/`` (the AG-UI endpoint)."""

    framework: str
    args: tuple[str, ...]
    url: str
    process: subprocess.Popen[bytes]
    log_path: Path
    _client: httpx.Client = field(repr=False)

    # -- what the server saw --------------------------------------------------------------

    def log(self) -> dict[str, Any]:
        """``GET /_test/log``: ``{"requests": [...], "executions": [[name, args], ...]}``."""
        self._check_alive()
        response = self._client.get(self.url + "_test/log")
        response.raise_for_status()
        body: dict[str, Any] = response.json()
        return body

    @property
    def requests(self) -> list[LoggedRequest]:
        return [
            LoggedRequest(r["method"], r["path"], r.get("status"), r.get("body"))
            for r in self.log()["requests"]
        ]

    @property
    def executions(self) -> list[tuple[str, dict[str, Any]]]:
        return [(name, args) for name, args in self.log()["executions"]]

    def clear(self) -> None:
        """Forget the requests and executions recorded so far."""
        self._check_alive()
        self._client.post(self.url + "_test/clear").raise_for_status()

    def output(self, limit: int = 4000) -> str:
        """The tail of the server's stdout and stderr."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return text[-limit:]

    # -- lifecycle ------------------------------------------------------------------------

    def _check_alive(self) -> None:
        code = self.process.poll()
        if code is not None:
            raise ServerUnavailable(
                f"the {self.framework} test server exited with code {code}:\n{self.output()}"
            )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self._client.close()
        with contextlib.suppress(OSError):
            self.log_path.unlink()

    def __enter__(self) -> ExternalServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start(
    framework: str,
    *args: str,
    ready_timeout: float = READY_TIMEOUT,
    venvs: Path | None = None,
    script: Path | None = None,
) -> ExternalServer:
    """Start ``tests/servers/<framework>/server.py --port <free port> *args`` from its venv.

    Returns once ``GET /_test/ready`` answers 200; raises :class:`ServerUnavailable` with the
    server's output if the venv is missing, the process exits, or it is not ready in time.
    """
    python = server_python(framework, venvs=venvs)
    script = script or SERVERS_DIR / framework / "server.py"
    if not script.is_file():
        raise ServerUnavailable(f"no server script {script}")
    last_error: ServerUnavailable | None = None
    for _ in range(STARTS):
        try:
            return _start_once(framework, python, script, args, ready_timeout)
        except _PortTaken as exc:
            last_error = ServerUnavailable(str(exc))
    assert last_error is not None
    raise last_error


class _PortTaken(Exception):
    pass


def _start_once(
    framework: str, python: Path, script: Path, args: tuple[str, ...], ready_timeout: float
) -> ExternalServer:
    port = _free_port()
    fd, log_name = tempfile.mkstemp(prefix=f"agui-{framework}-server-", suffix=".log")
    log_path = Path(log_name)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PYTHONUNBUFFERED"] = "1"
    with os.fdopen(fd, "wb") as log_file:
        process = subprocess.Popen(
            [str(python), str(script), "--port", str(port), *args],
            cwd=str(REPO_ROOT),
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env=env,
        )
    url = f"http://127.0.0.1:{port}/"
    server = ExternalServer(
        framework, tuple(args), url, process, log_path, httpx.Client(timeout=30.0, trust_env=False)
    )
    deadline = time.monotonic() + ready_timeout
    while True:
        code = process.poll()
        if code is not None:
            output = server.output()
            server.stop()
            if "address already in use" in output.lower():
                raise _PortTaken(f"port {port} was taken: {output[-500:]}")
            raise ServerUnavailable(
                f"the {framework} test server ({script.name} {' '.join(args)}) exited with code "
                f"{code} before it was ready:\n{output}"
            )
        try:
            if server._client.get(url + "_test/ready", timeout=2.0).status_code == 200:
                return server
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            output = server.output()
            server.stop()
            raise ServerUnavailable(
                f"the {framework} test server was not ready on {url} within {ready_timeout:g} s:"
                f"\n{output}"
            )
        time.sleep(0.1)


if __name__ == "__main__":  # pragma: no cover - a by-hand check: start one and print its URL
    handle = start(sys.argv[1], *sys.argv[2:])
    print(handle.url, flush=True)
    try:
        handle.process.wait()
    finally:
        handle.stop()
