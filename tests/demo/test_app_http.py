"""The demo over real HTTP: uvicorn on 127.0.0.1, read with plain httpx + httpx-sse."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from demo_wire import TRANSFER, body, cancelled, post, resolved

from agui_notebook.demo import DemoApp, create_app, start_in_thread

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def app() -> DemoApp:
    return create_app(text_delay=0)


@pytest.fixture
def url(app: DemoApp) -> Iterator[str]:
    url, stop = start_in_thread(app=app)
    try:
        yield url
    finally:
        stop()


# --- bad requests --------------------------------------------------------------------------------


def test_invalid_json_is_422(url: str) -> None:
    run = post(url, b"{not json")
    assert run.status == 422
    answer = json.loads(run.raw)
    assert answer["error"] == "the request body is not valid JSON"
    assert answer["detail"][0]["type"] == "json_invalid"


def test_a_body_that_is_not_a_run_agent_input_is_422_with_the_fields(url: str) -> None:
    run = post(url, {"threadId": "t", "messages": "nope"})
    assert run.status == 422
    assert run.headers["content-type"] == "application/json"
    answer = json.loads(run.raw)
    assert answer["error"] == "the request body is not a valid RunAgentInput"
    locations = [d["loc"] for d in answer["detail"]]
    assert ["runId"] in locations and ["messages"] in locations


def test_a_json_array_is_422(url: str) -> None:
    assert post(url, [1, 2]).status == 422


def test_an_invalid_resume_status_is_422(url: str) -> None:
    run = post(url, body("t", resume=[{"interruptId": "x", "status": "maybe"}]))
    assert run.status == 422


def test_wrong_path_and_method(url: str) -> None:
    assert post(url + "other", body("t", "hi")).status == 404
    response = httpx.get(url)
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"


def test_a_huge_body_is_413() -> None:
    url, stop = start_in_thread(max_body_bytes=1000, text_delay=0)
    try:
        assert post(url, body("t", "x" * 2000)).status == 413
    finally:
        stop()


# --- the wire ------------------------------------------------------------------------------------


def test_a_run_is_an_event_stream(url: str) -> None:
    run = post(url, body("t", "hello"))
    assert run.status == 200
    assert run.headers["content-type"].startswith("text/event-stream")
    assert run.headers["cache-control"] == "no-cache"
    assert run.types[0] == "RUN_STARTED" and run.types[-1] == "RUN_FINISHED"
    assert all(isinstance(e["timestamp"], int) for e in run.events)
    assert b"null" not in run.raw  # unset optional fields are left out, not null


def test_snake_case_and_minimal_bodies_are_accepted(url: str) -> None:
    minimal = {
        "thread_id": "t",
        "run_id": "r",
        "messages": [{"id": "m", "role": "user", "content": "balance"}],
    }
    run = post(url, minimal)
    assert run.status == 200
    assert run.outcome == {"type": "success"}


@pytest.mark.parametrize(
    ("decision", "text", "executed"),
    [
        (
            {"approved": True},
            "Transferred 500.00 USD from 1234567890 to 0987654321. New balance: 2,000.00 USD.",
            500.0,
        ),
        (
            {"approved": False, "reason": "too much"},
            "OK, I did not transfer 500.00 USD from 1234567890 to 0987654321. Reason: too much",
            None,
        ),
        (
            {
                "approved": True,
                "editedArgs": {
                    "from_account": "1234567890",
                    "to_account": "0987654321",
                    "amount": 20,
                },
            },
            "With your changes: Transferred 20.00 USD from 1234567890 to 0987654321. "
            "New balance: 2,480.00 USD.",
            20,
        ),
        (
            None,
            "Cancelled: nothing was done (I did not transfer 500.00 USD from 1234567890 to "
            "0987654321).",
            None,
        ),
    ],
)
def test_round_trips(url: str, app: DemoApp, decision: Any, text: str, executed: Any) -> None:
    first = post(url, body("t", TRANSFER), headers={"Authorization": "Bearer secret"})
    (interrupt,) = first.interrupts
    entry = cancelled(interrupt["id"]) if decision is None else resolved(interrupt["id"], decision)
    second = post(url, body("t", resume=[entry], run_id="run-2"))
    assert second.text == text
    assert second.outcome == {"type": "success"}
    amounts = [e["arguments"]["amount"] for e in app.executions]
    assert amounts == ([] if executed is None else [executed])
    # What the server received: exactly these two requests, credentials not recorded.
    assert [r["body"] for r in app.requests] == [
        body("t", TRANSFER),
        body("t", resume=[entry], run_id="run-2"),
    ]
    assert "authorization" not in app.requests[0]["headers"]
    assert app.requests[0]["headers"]["content-type"] == "application/json"


def test_errors_are_run_errors_in_a_200_stream(url: str, app: DemoApp) -> None:
    (interrupt,) = post(url, body("t", TRANSFER)).interrupts
    wrong_thread = post(url, body("other", resume=[cancelled(interrupt["id"])], run_id="r2"))
    assert wrong_thread.status == 200
    assert wrong_thread.types == ["RUN_STARTED", "RUN_ERROR"]
    assert wrong_thread.events[1]["code"] == "THREAD_NOT_FOUND"
    bad = post(url, body("t", resume=[resolved(interrupt["id"], {"approved": 1})], run_id="r3"))
    assert bad.events[1]["code"] == "RESUME_INVALID_PAYLOAD"
    good = post(url, body("t", resume=[resolved(interrupt["id"], {"approved": True})], run_id="r4"))
    assert good.outcome == {"type": "success"}
    assert len(app.executions) == 1


def test_keepalive_comments_fill_silences() -> None:
    url, stop = start_in_thread(text_delay=0.3, chunk_words=40, keepalive_interval=0.1)
    try:
        run = post(url, body("t", "hello"))
    finally:
        stop()
    assert run.raw.count(b": keepalive\n\n") >= 4
    assert run.types[-1] == "RUN_FINISHED"  # comments do not disturb the events


def test_the_stream_is_flushed_event_by_event() -> None:
    slow_url, stop = start_in_thread(text_delay=0.05)
    try:
        with httpx.Client(timeout=10) as client:
            started = time.monotonic()
            with client.stream("POST", slow_url, json=body("t", "long story")) as response:
                first = next(response.iter_raw())
                elapsed = time.monotonic() - started
        assert first.startswith(b'data: {"type":"RUN_STARTED"')
        assert elapsed < 1  # the whole story takes > 20 s at this pace
        # The server survived the client leaving mid-run.
        assert post(slow_url, body("t2", "balance")).outcome == {"type": "success"}
    finally:
        stop()


# --- the command line ----------------------------------------------------------------------------


def _python(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=ROOT,
        **kwargs,
    )


def test_cli_without_arguments_lists_the_commands() -> None:
    result = _python("-m", "agui_notebook")
    assert result.returncode == 0
    assert result.stdout.startswith("agui-notebook ")
    assert "demo-server" in result.stdout


@pytest.mark.parametrize(
    "args",
    [["-m", "agui_notebook", "demo-server", "--help"], ["-m", "agui_notebook.demo", "--help"]],
)
def test_cli_help(args: list[str]) -> None:
    result = _python(*args)
    assert result.returncode == 0
    assert "--port" in result.stdout and "127.0.0.1" in result.stdout


def test_importing_the_demo_does_not_import_a_web_server() -> None:
    code = (
        "import sys, agui_notebook.demo; "
        "print(sorted(m for m in ('uvicorn', 'starlette', 'fastapi') if m in sys.modules))"
    )
    assert _python("-c", code).stdout.strip() == "[]"


def test_python_m_demo_serves_on_loopback() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen(
        [sys.executable, "-m", "agui_notebook.demo", "--port", str(port), "--text-delay", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                run = post(f"http://127.0.0.1:{port}/", body("t", "balance"))
                break
            except httpx.ConnectError:
                assert server.poll() is None, "the demo server exited"
                assert time.monotonic() < deadline, "the demo server did not start"
                time.sleep(0.1)
        assert run.outcome == {"type": "success"}
        assert "The balance of account 1234567890 is 2,500.00 USD." in run.text
    finally:
        server.terminate()
        server.wait(timeout=10)
