"""`jupyter server extension enable agui_notebook`, exactly as the docs give it, from a wheel install.

jupyter_server 2.21's `enable` only turns on an extension that a `jupyter_server_config.d` file of
the environment already lists (else it prints "Validation failed: The module 'agui_notebook' could
not be found", exits 0 and changes nothing), so the wheel ships that file, switched off.

The wheel goes into a brand-new venv (_venv.py) with jupyter_core and jupyter_server installed
for their `jupyter` commands; every command runs with PATH set to that venv's bin only, and with
HOME and the Jupyter config, data and runtime dirs in the test's temp dir, so nothing outside it
is read or changed (`enable` writes into the venv's own `etc/jupyter`). A real `jupyter server`
from that venv then shows what the switch did: a kernel message sent with `header.username`
"mallory" reaches the kernel stamped with the server's user, and the kernel was told
(`AGUI_NOTEBOOK_SERVER_IDENTITY`); after `disable`, the page's name passes unstamped.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import socket
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from websockets.sync.client import connect

from tests.packaging._venv import wheel_venv

pytestmark = pytest.mark.timeout(300)

SWITCH = "etc/jupyter/jupyter_server_config.d/agui_notebook.json"
LOADED = "agui_notebook: kernel messages carry the authenticated username"
# What the kernel sees of the message that ran this cell, and whether its server told it.
PROBE = (
    "import json, os\n"
    "print(json.dumps([get_ipython().kernel.get_parent('shell')['header'].get('username'),"
    " os.environ.get('AGUI_NOTEBOOK_SERVER_IDENTITY')]))"
)


class Venv:
    def __init__(self, root: Path, python: Path, version: str) -> None:
        self.root = root
        self.version = version
        self.prefix = python.parent.parent
        home = root / "home"
        self.env = {
            "PATH": str(python.parent),
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "JUPYTER_CONFIG_DIR": str(home / "jupyter-config"),
            "JUPYTER_DATA_DIR": str(home / "jupyter-data"),
            "JUPYTER_RUNTIME_DIR": str(home / "jupyter-runtime"),
        }

    def jupyter(self, command: str) -> subprocess.CompletedProcess[str]:
        """``command`` as a person types it in a shell of this venv."""
        return subprocess.run(
            command.split(),
            env=self.env,
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def switch(self) -> Any:
        """The venv's switch file, None when there is none."""
        path = self.prefix / SWITCH
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


@pytest.fixture
def venv(wheel: Path, tmp_path: Path) -> Venv:
    python = wheel_venv(wheel, tmp_path / "venv", also=("jupyter_core", "jupyter_server"))
    (tmp_path / "home").mkdir()
    return Venv(tmp_path, python, version=wheel.name.split("-")[1])


def _listed(venv: Venv) -> str:
    listed = venv.jupyter("jupyter server extension list")
    assert listed.returncode == 0, listed.stderr
    return listed.stdout + listed.stderr


def test_the_documented_command_turns_the_stamp_on_and_disable_turns_it_off(venv: Venv) -> None:
    # Installed, its switch is there, off.
    assert venv.switch() == {"ServerApp": {"jpserver_extensions": {"agui_notebook": False}}}

    enabled = venv.jupyter("jupyter server extension enable agui_notebook")
    out = enabled.stdout + enabled.stderr
    assert enabled.returncode == 0, out
    assert "Validation failed" not in out and "could not be found" not in out, out
    assert "Extension successfully enabled" in out, out
    assert venv.switch() == {"ServerApp": {"jpserver_extensions": {"agui_notebook": True}}}
    listed = _listed(venv)
    assert "agui_notebook \x1b[32menabled" in listed, listed
    assert f"agui_notebook {venv.version} \x1b[32mOK" in listed, listed  # imported, validated
    assert "\x1b[31m X" not in listed, listed

    with _server(venv) as server:
        username, told = server.probe("mallory")
    assert LOADED in server.log, server.log
    # The server's user (an anonymous one, for a token), not the page's claim.
    assert username not in ("mallory", "") and told == "stamped"

    disabled = venv.jupyter("jupyter server extension disable agui_notebook")
    out = disabled.stdout + disabled.stderr
    assert disabled.returncode == 0 and "Validation failed" not in out, out
    assert venv.switch() == {"ServerApp": {"jpserver_extensions": {"agui_notebook": False}}}
    assert "agui_notebook \x1b[31mdisabled" in _listed(venv)
    with _server(venv) as server:
        assert server.probe("mallory") == ("mallory", None)
    assert LOADED not in server.log


# -- a real jupyter server from the venv ----------------------------------------------------------


class Server:
    def __init__(self, url: str, token: str, log_path: Path) -> None:
        self.url = url
        self.token = token
        self.log_path = log_path
        self.log = ""

    def api(self, method: str, path: str, body: Any = None) -> Any:
        request = urllib.request.Request(
            self.url + path,
            data=None if body is None else json.dumps(body).encode(),
            method=method,
            headers={"Authorization": f"token {self.token}"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
        return json.loads(raw) if raw else None

    def probe(self, username: str) -> tuple[str | None, str | None]:
        """Run PROBE in a new kernel by a WebSocket message whose header names ``username``:
        what the kernel saw."""
        kernel = self.api("POST", "api/kernels", {"name": "python3"})
        ws_url = self.url.replace("http://", "ws://") + f"api/kernels/{kernel['id']}/channels"
        session = uuid.uuid4().hex
        msg_id = uuid.uuid4().hex
        request = {
            "header": {
                "msg_id": msg_id,
                "msg_type": "execute_request",
                "username": username,
                "session": session,
                "date": "2026-01-01T00:00:00Z",
                "version": "5.3",
            },
            "parent_header": {},
            "metadata": {},
            "content": {"code": PROBE, "silent": False, "store_history": False},
            "buffers": [],
            "channel": "shell",
        }
        deadline = time.monotonic() + 60
        with connect(
            f"{ws_url}?session_id={session}",
            additional_headers={"Authorization": f"token {self.token}"},
            open_timeout=30,
        ) as ws:  # no subprotocol: the JSON text framing
            ws.send(json.dumps(request))
            while time.monotonic() < deadline:
                reply = json.loads(ws.recv(timeout=deadline - time.monotonic()))
                if reply.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                if reply["msg_type"] == "error":
                    raise AssertionError(reply["content"])
                if reply["msg_type"] == "stream":
                    username, told = json.loads(reply["content"]["text"])
                    return username, told
        raise AssertionError("the kernel never answered the probe")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def _server(venv: Venv) -> Iterator[Server]:
    """``jupyter server`` of the venv on a free loopback port; stopped by its API, its kernels
    (children) killed by pid if they outlive it. ``server.log`` is its whole log, after."""
    port, token = _free_port(), secrets.token_hex(16)
    root = venv.root / "root"
    root.mkdir(exist_ok=True)
    log_path = venv.root / f"server-{port}.log"
    command = (
        f"jupyter server --no-browser --allow-root --ServerApp.ip=127.0.0.1 --port={port} "
        f"--ServerApp.port_retries=0 --IdentityProvider.token={token} --ServerApp.root_dir={root}"
    )
    with log_path.open("w") as log:
        process = subprocess.Popen(
            command.split(), env=venv.env, cwd=venv.root, stdout=log, stderr=subprocess.STDOUT
        )
    server = Server(f"http://127.0.0.1:{port}/", token, log_path)
    children: dict[int, psutil.Process] = {}
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, log_path.read_text()
            try:
                server.api("GET", "api/status")
                break
            except (urllib.error.URLError, ConnectionError):
                assert time.monotonic() < deadline, log_path.read_text()
                time.sleep(0.2)
        yield server
    finally:
        with contextlib.suppress(psutil.Error):
            for child in psutil.Process(process.pid).children(recursive=True):
                children[child.pid] = child
        with contextlib.suppress(OSError, urllib.error.URLError):
            server.api("POST", "api/shutdown")
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        for child in children.values():
            with contextlib.suppress(psutil.Error):
                child.kill()
        server.log = log_path.read_text()
