"""The harness for out-of-process third-party servers (tests/servers/external.py).

It must fail loudly, never skip: a missing venv, a server that dies or never gets ready is an
error whose message says what to do, with the server's own output.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.servers import external
from tests.servers.external import ServerUnavailable

pytestmark = pytest.mark.interop

FRAMEWORKS = sorted(p.parent.name for p in external.SERVERS_DIR.glob("*/requirements.txt"))
PIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9.+!_-]+$")


def _fake_venv(root: Path, framework: str, *, stamp: bool) -> Path:
    bin_dir = root / framework / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").symlink_to(sys.executable)
    if stamp:
        (root / framework / ".agui-install-stamp").write_text("test")
    return root


def test_there_are_out_of_process_servers() -> None:
    assert "langgraph" in FRAMEWORKS
    for framework in FRAMEWORKS:
        assert (external.SERVERS_DIR / framework / "server.py").is_file()


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_requirements_pin_every_package_exactly(framework: str) -> None:
    lines = (external.SERVERS_DIR / framework / "requirements.txt").read_text().splitlines()
    pins = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    assert pins
    assert [p for p in pins if not PIN.match(p)] == []


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_the_built_venv_holds_exactly_the_pins(framework: str) -> None:
    """The venv scripts/test built has these packages and no other (so the pins are the truth)."""
    python = external.server_python(framework)
    frozen = subprocess.run(
        [str(python), "-m", "pip", "freeze", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    lines = (external.SERVERS_DIR / framework / "requirements.txt").read_text().splitlines()

    def norm(items: list[str]) -> set[str]:
        return {
            re.sub(r"[-_.]+", "-", i.strip().lower())
            for i in items
            if i.strip() and not i.startswith("#")
        }

    assert norm(frozen.splitlines()) == norm(lines)


def test_a_missing_venv_fails_with_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(ServerUnavailable) as error:
        external.start("langgraph", venvs=tmp_path)
    message = str(error.value)
    assert "missing" in message and "scripts/test" in message and "server-venvs" in message
    assert "ensure_server_venv langgraph" in message


def test_an_unfinished_venv_fails(tmp_path: Path) -> None:
    venvs = _fake_venv(tmp_path, "langgraph", stamp=False)
    with pytest.raises(ServerUnavailable, match="never completed"):
        external.start("langgraph", venvs=venvs)


def test_an_unknown_framework_fails() -> None:
    with pytest.raises(ServerUnavailable, match="no test server 'nosuchframework'"):
        external.start("nosuchframework")


def test_a_server_that_exits_fails_with_its_output() -> None:
    with pytest.raises(ServerUnavailable) as error:
        external.start("langgraph", "--style", "bogus")
    message = str(error.value)
    assert "exited with code 2 before it was ready" in message
    assert "invalid choice: 'bogus'" in message  # argparse's own words, from the server's stderr


def test_a_server_that_never_gets_ready_fails_and_is_stopped(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text("import time\ntime.sleep(60)\n")
    venvs = _fake_venv(tmp_path / "venvs", "langgraph", stamp=True)
    started = time.monotonic()
    with pytest.raises(
        ServerUnavailable, match=r"not ready on http://127\.0\.0\.1:\d+/ within 1 s"
    ):
        external.start("langgraph", venvs=venvs, script=script, ready_timeout=1.0)
    assert time.monotonic() - started < 30


def test_log_and_clear_show_what_the_server_saw(external_server: Any) -> None:
    server = external_server("langgraph")
    server.clear()
    assert server.requests == [] and server.executions == []
    body = {
        "threadId": "harness-thread",
        "runId": "harness-run",
        "state": {},
        "messages": [{"id": "m1", "role": "user", "content": "balance please"}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }
    response = httpx.post(
        server.url, json=body, headers={"Accept": "text/event-stream"}, timeout=60
    )
    assert response.status_code == 200 and "RUN_FINISHED" in response.text
    [request] = server.requests
    assert (request.method, request.path, request.status) == ("POST", "/", 200)
    assert request.json == body
    assert server.executions == [("check_balance", {"account": "checking"})]
    server.clear()
    assert server.requests == [] and server.executions == []


def test_a_stopped_server_says_so(tmp_path: Path) -> None:
    server = external.start("langgraph")
    server.process.terminate()
    server.process.wait(timeout=10)
    with pytest.raises(ServerUnavailable, match="exited with code"):
        server.log()
    server.stop()
