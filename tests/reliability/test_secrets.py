"""Secrets (issues 8 and 18): credential headers, cookies and tokens never appear in reprs,
errors, run records, widget state, the audit log, logs, recordings, or a saved notebook (widget-state
metadata included), even when the server echoes them back in its own text.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from chat_driver import Driver
from fault_server import Echo, FaultServer, Status
from nbclient import NotebookClient

from agui_notebook import Agent, AGUIError, HTTPStatusError, RunError, policies
from agui_notebook._record.recording import record
from agui_notebook.demo import DemoApp

pytestmark = pytest.mark.timeout(60)

AUTH = "Bearer sk-SECRET-abc123"
COOKIE = "session=SECRET-cookie-xyz"
API_KEY = "SECRET-api-key-789"
SECRETS = ["sk-SECRET-abc123", "SECRET-cookie-xyz", "SECRET-api-key-789", "SECRET"]
HEADERS = {"Authorization": AUTH, "Cookie": COOKIE, "X-API-Key": API_KEY}
TRANSFER = "Transfer $500 from 1234567890 to 0987654321"


def leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def dump(value: Any) -> str:
    """Everything reachable that a person or a file could see: repr, str and JSON."""
    parts = [repr(value), str(value)]
    with contextlib.suppress(TypeError, ValueError):
        parts.append(json.dumps(value, default=repr))
    return "\n".join(parts)


def everything_about(agent: Agent, chat: Any, errors: list[BaseException]) -> dict[str, str]:
    thread = chat.thread
    seen = {
        "repr(agent)": repr(agent),
        "repr(chat)": repr(chat),
        "repr(thread)": repr(thread),
        "runs": dump([vars(r) for r in thread.runs]),
        "messages": dump([m.model_dump(mode="json") for m in thread.messages]),
        "audit": dump(chat.audit),
        "audit_text": chat.audit_text(),
    }
    for i, view in enumerate(chat.views):
        # The view's widget state and its pages' (the items are held in the pages).
        seen[f"view {i} state"] = dump([view.get_state(), *(p.get_state() for p in view.pages)])
    for i, error in enumerate(errors):
        seen[f"error {i}"] = dump([str(error), repr(error), vars(error), error.hint, error.args])
    return seen


async def test_no_secret_in_objects_state_or_logs_on_success(
    demo: tuple[str, DemoApp], caplog: pytest.LogCaptureFixture
) -> None:
    url, app = demo
    caplog.set_level(logging.DEBUG)
    agent = Agent(url, headers=HEADERS, timeout=5)
    chat = agent.chat(policy=policies.approve_all(), timeout=5)
    result = await asyncio.wait_for(chat.send(TRANSFER), 10)
    assert result.outcome == "success"
    # The headers were really sent (the server saw them, and records only that they came).
    assert app.requests and all("authorization" not in r["headers"] for r in app.requests)
    seen = everything_about(agent, chat, [])
    seen["result"] = dump(result)
    seen["logs"] = caplog.text
    assert "Transferred" in seen["view 0 state"]  # the state searched is the real one
    assert {k: leaks(v) for k, v in seen.items() if leaks(v)} == {}


async def test_headers_reach_the_server(fault_server: FaultServer) -> None:
    """The negative control: the secrets searched for are really in play."""
    thread = Agent(fault_server.url, headers=HEADERS, timeout=5).thread()
    await thread.run(TRANSFER)
    headers = fault_server.log[-1].headers
    assert headers["authorization"] == AUTH
    assert headers["cookie"] == COOKIE
    assert headers["x-api-key"] == API_KEY


@pytest.mark.parametrize("status", [401, 500])
async def test_no_secret_in_http_errors_cards_or_logs(
    fault_server: FaultServer, caplog: pytest.LogCaptureFixture, status: int
) -> None:
    caplog.set_level(logging.DEBUG)
    agent = Agent(fault_server.url, headers=HEADERS, timeout=5)
    chat = agent.chat(timeout=5)
    driver = Driver(chat)
    errors: list[BaseException] = []
    turn = asyncio.create_task(chat.send(TRANSFER))
    try:
        card = await driver.waiting_card()
        body = json.dumps({"error": "invalid credentials", "code": "UNAUTHENTICATED"})
        fault_server.script(Status(status, body))
        driver.decide(card, "approve")
        await driver.waiting_card("failed")
        # And a plain run failing the same way.
        fault_server.script(Status(status, body))
        try:
            await agent.thread().run("hello")
        except AGUIError as exc:
            errors.append(exc)
    finally:
        turn.cancel()
        await asyncio.gather(turn, return_exceptions=True)
    assert errors and isinstance(errors[0], HTTPStatusError)
    assert chat.thread.runs[-1].error is not None
    errors.append(chat.thread.runs[-1].error)
    seen = everything_about(agent, chat, errors)
    seen["logs"] = caplog.text
    assert f"HTTP {status}" in seen["view 0 state"]
    assert {k: leaks(v) for k, v in seen.items() if leaks(v)} == {}


async def test_no_secret_in_an_error_whose_body_echoes_the_credentials(
    fault_server: FaultServer,
) -> None:
    """Servers do echo what they got ("invalid token 'Bearer sk-...'"). The client knows the
    header values it sent, so the error it shows (and the card, and a saved notebook) must not
    repeat them."""
    agent = Agent(fault_server.url, headers=HEADERS, timeout=5)
    thread = agent.thread()
    fault_server.script(
        Status(
            401, json.dumps({"error": f"invalid token {AUTH!r}", "cookie": COOKIE, "key": API_KEY})
        )
    )
    with pytest.raises(HTTPStatusError) as info:
        await thread.run("hello")
    seen = everything_about(agent, agent.chat(), [info.value])
    assert {k: leaks(v) for k, v in seen.items() if leaks(v)} == {}


async def test_no_token_from_the_url_in_reprs_or_errors(fault_server: FaultServer) -> None:
    url = fault_server.url.replace("http://", "http://user:SECRET-pw@") + f"?api_key={API_KEY}"
    agent = Agent(url, timeout=5)
    fault_server.script(Status(500, '{"error": "down"}'))
    with pytest.raises(HTTPStatusError) as info:
        await agent.thread().run("hello")
    seen = {"repr(agent)": repr(agent), "error": dump([str(info.value), info.value.url])}
    assert {k: leaks(v) for k, v in seen.items() if leaks(v)} == {}
    assert fault_server.log[-1].path == f"/?api_key={API_KEY}"  # it was really used


# -- a saved notebook -----------------------------------------------------------------------------

NOTEBOOK_CELLS = [
    """\
import os, sys
from agui_notebook import Agent, policies
print(sys.prefix)
headers = {"Authorization": os.environ["AGUI_T_AUTH"], "Cookie": os.environ["AGUI_T_COOKIE"],
           "X-API-Key": os.environ["AGUI_T_KEY"]}
agent = Agent(os.environ["AGUI_T_DEMO"], headers=headers, timeout=10)
chat = agent.chat(policy=policies.approve_all(), timeout=10)
result = await chat.send("Transfer $500 from 1234567890 to 0987654321")
result""",
    """\
print(repr(agent), repr(chat.thread))
chat.thread.runs""",
    """\
chat.audit""",
    """\
failing = Agent(os.environ["AGUI_T_FAULT"], headers=headers, timeout=10)
await failing.thread().run("hello")""",
]


async def test_no_secret_in_a_saved_notebook(
    demo: tuple[str, DemoApp],
    fault_server: FaultServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    demo_url, _ = demo
    # Secrets come from the environment (the kernel inherits it), never from the cell source.
    monkeypatch.setenv("AGUI_T_AUTH", AUTH)
    monkeypatch.setenv("AGUI_T_COOKIE", COOKIE)
    monkeypatch.setenv("AGUI_T_KEY", API_KEY)
    monkeypatch.setenv("AGUI_T_DEMO", demo_url)
    monkeypatch.setenv("AGUI_T_FAULT", fault_server.url)
    monkeypatch.delenv("AGUI_NOTEBOOK_POLICY", raising=False)
    fault_server.script(Status(401, '{"error": "invalid credentials"}'))

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in NOTEBOOK_CELLS]
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=60,
        startup_timeout=60,
        allow_errors=True,
        store_widget_state=True,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    await client.async_execute()
    path = tmp_path / "secrets.ipynb"
    nbformat.write(nb, path)
    text = path.read_text()

    # The notebook ran in this venv's kernel, did the transfer, and failed on the 401.
    assert nb.cells[0].outputs[0]["text"].strip() == sys.prefix
    assert "Transferred 500.00 USD" in text
    assert "HTTPStatusError" in text and "HTTP 401" in text
    widgets = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    chat_views = [
        w
        for w in widgets.values()
        if w["model_name"] == "AnyModel" or "items" in w.get("state", {})
    ]
    assert chat_views, "the chat's widget state was not saved"
    assert "transfer_money" in json.dumps(chat_views)
    assert fault_server.log[-1].headers["authorization"] == AUTH  # sent, really
    assert leaks(text) == []


# -- a recording ----------------------------------------------------------------------------------


async def test_no_secret_in_a_recording(
    demo: tuple[str, DemoApp], fault_server: FaultServer, tmp_path: Path
) -> None:
    demo_url, _ = demo
    path = tmp_path / "chat.jsonl"
    agent = record(Agent(demo_url, headers=HEADERS, timeout=5), path)
    chat = agent.chat(policy=policies.approve_all(), timeout=5)
    result = await asyncio.wait_for(chat.send(TRANSFER), 10)
    assert result.outcome == "success"
    text = path.read_text()
    assert "Transferred " in text and '"headers"' not in text  # not even redacted
    assert leaks(text) == []

    # A failing server that echoes the credentials, on a URL carrying a token.
    url = fault_server.url + f"?api_key={API_KEY}"
    failing_path = tmp_path / "failing.jsonl"
    failing = record(Agent(url, headers=HEADERS, timeout=5), failing_path)
    body = json.dumps({"error": f"invalid token {AUTH!r}", "cookie": COOKIE, "key": API_KEY})
    fault_server.script(Status(401, body))
    with pytest.raises(HTTPStatusError):
        await failing.thread().run("hello")
    text = failing_path.read_text()
    assert '"status": 401' in text.replace('"status":401', '"status": 401')
    assert fault_server.log[-1].headers["authorization"] == AUTH  # really sent
    assert leaks(text) == []


# -- a server that echoes the credentials in its own text (issue 18) ------------------------------

ECHO_PLACES = ["assistant", "split", "tool_result", "interrupt", "state"]


def result_dump(result: Any) -> str:
    return dump(
        {
            "repr": repr(result),
            "text": result.text,
            "events": [e.model_dump(mode="json") for e in result.events],
            "messages": [m.model_dump(mode="json") for m in result.messages],
            "state": result.state,
            "interrupts": [repr(i) for i in result.interrupts] + [i.raw for i in result.interrupts],
            "warnings": result.warnings,
        }
    )


@pytest.mark.parametrize("where", ECHO_PLACES)
async def test_no_secret_when_the_server_echoes_it_in_a_run(
    fault_server: FaultServer, tmp_path: Path, where: str
) -> None:
    path = tmp_path / "echo.jsonl"
    agent = record(Agent(fault_server.url, headers=HEADERS, timeout=5), path)
    # Through a thread: the run that carries the echo, as the code sees it.
    fault_server.script(Echo(where))
    first = await agent.thread().run(TRANSFER)
    echoed = Echo(where).text(fault_server.log[-1])
    assert AUTH in echoed and API_KEY in echoed  # the server really sent them back
    assert first.outcome == "interrupt"
    # Through a chat: the same run, its card, the resume and the view.
    fault_server.script(Echo(where))
    chat = agent.chat(policy=policies.approve_all(), timeout=5)
    result = await asyncio.wait_for(chat.send(TRANSFER), 10)
    assert result.outcome == "success"

    seen = everything_about(agent, chat, [])
    seen["first run"] = result_dump(first)
    seen["chat result"] = result_dump(result)
    seen["recording"] = path.read_text()
    assert "<redacted>" in seen["first run"]  # the echo arrived, scrubbed
    if where != "state":  # the resume's own snapshot replaced that state in the view
        assert "<redacted>" in seen["view 0 state"]
    assert {k: leaks(v) for k, v in seen.items() if leaks(v)} == {}


async def test_no_secret_in_a_run_error_over_http_200_after_a_click(
    fault_server: FaultServer, tmp_path: Path
) -> None:
    """Microsoft's server refuses a resume with HTTP 200, RUN_STARTED, RUN_ERROR: the message is
    the server's text, shown on the card and carried by the RunError and the run record."""
    path = tmp_path / "run_error.jsonl"
    agent = record(Agent(fault_server.url, headers=HEADERS, timeout=5), path)
    chat = agent.chat(timeout=5)
    driver = Driver(chat)
    turn = asyncio.create_task(chat.send(TRANSFER))
    errors: list[BaseException] = []
    try:
        card = await driver.waiting_card()
        fault_server.script(Echo("run_error"))
        driver.decide(card, "approve")
        failed = await driver.waiting_card("failed")
        assert failed["error"]["title"] == "The agent reported an error"
        assert "<redacted>" in failed["error"]["message"]
        # A first run refused the same way, through a thread.
        fault_server.script(Echo("run_error"))
        with pytest.raises(RunError) as info:
            await agent.thread().run("hello")
        errors.append(info.value)
    finally:
        turn.cancel()
        await asyncio.gather(turn, return_exceptions=True)
    assert AUTH in Echo("run_error").text(fault_server.log[-1])  # really echoed
    assert isinstance(errors[0], RunError) and errors[0].code == "APPROVAL_RESUME_INVALID"
    assert "<redacted>" in errors[0].message
    errors.append(chat.thread.runs[-1].error)  # type: ignore[arg-type]
    seen = everything_about(agent, chat, errors)
    seen["recording"] = path.read_text()
    assert {k: leaks(v) for k, v in seen.items() if leaks(v)} == {}


async def test_no_secret_in_an_error_body_that_echoes_the_headers_received(
    fault_server: FaultServer,
) -> None:
    agent = Agent(fault_server.url, headers=HEADERS, timeout=5)
    fault_server.script(Echo("status", status=403))
    with pytest.raises(HTTPStatusError) as info:
        await agent.thread().run("hello")
    assert AUTH in Echo("status").text(fault_server.log[-1])
    assert info.value.status_code == 403 and "<redacted>" in info.value.body
    seen = everything_about(agent, agent.chat(), [info.value])
    assert {k: leaks(v) for k, v in seen.items() if leaks(v)} == {}


SHORT_ECHO = "rejected k9 and key 77. Not secrets: k9x, xk9, 770, 1,77.5, k9_a, 177"


@pytest.mark.parametrize("where", ["assistant", "split"])
async def test_short_secrets_are_scrubbed_as_tokens_and_ordinary_text_is_kept(
    fault_server: FaultServer, where: str
) -> None:
    """Two- and three-character credentials: scrubbed where they stand alone, even when the
    stream splits them one character a delta, and nowhere else."""
    headers = {"Authorization": "Bearer k9", "X-API-Key": "77"}
    agent = Agent(fault_server.url, headers=headers, timeout=5)
    fault_server.script(Echo(where, template=SHORT_ECHO, size=1))
    result = await agent.thread().run(TRANSFER)
    assert fault_server.log[-1].headers["x-api-key"] == "77"
    assert result.text == (
        "rejected <redacted> and key <redacted>. Not secrets: k9x, xk9, 770, 1,77.5, k9_a, 177"
    )
