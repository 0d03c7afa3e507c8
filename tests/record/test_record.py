"""Record and replay (issue 5) and secrets kept out of recordings (issue 8).

Recordings are made through the real client against the in-process demo, the loopback demo server
and Microsoft's AG-UI server; replays run with no server at all and must reproduce the results and
refuse, naming the first difference, a notebook that sends something else.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx
import pytest

from agui_notebook import (
    Agent,
    HTTPStatusError,
    TruncatedRunError,
    answer,
    approve,
    cancel,
    edit,
    policies,
    reject,
)
from agui_notebook._record.policy import decision_from_entry
from agui_notebook.demo import start_in_thread
from agui_notebook.record import (
    ReplayMismatch,
    ReplayTransport,
    load_recording,
    record,
    redact_headers,
    redact_url,
    replay,
    replay_policy,
)
from tests.record.make_recordings import (
    MSAF_TRANSFER_APPROVE,
    MSAF_TRANSFER_RESULT,
    MSAF_TRANSFER_TEXT,
    record_msaf_transfer_approve,
)

TRANSFER = "Transfer $500 from 1234567890 to 0987654321"
TRANSFERRED = "Transferred 500.00 USD from 1234567890 to 0987654321"


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def record_transfer(path: Path, decision: Any = None) -> list[Any]:
    """Run + resume on the in-process demo, recorded to ``path``; the two results."""
    agent = record(Agent.demo(text_delay=0), path)
    thread = agent.thread()
    first = await thread.run(TRANSFER)
    second = await thread.resume(decision or approve())
    return [first, second]


@pytest.fixture
async def transfer_recording(tmp_path: Path) -> Path:
    path = tmp_path / "transfer.jsonl"
    await record_transfer(path)
    return path


# -- the file ---------------------------------------------------------------------------------


async def test_recording_is_json_lines_in_order(tmp_path: Path) -> None:
    path = tmp_path / "transfer.jsonl"
    first, second = await record_transfer(path)
    assert (first.outcome, second.outcome) == ("interrupt", "success")

    objects = lines(path)
    header = objects[0]
    assert header["kind"] == "recording" and header["version"] == 2
    assert header["agui_notebook"] and header["created"]
    assert header["url"] == "http://agui-demo.invalid/"

    kinds: list[tuple[str, int]] = []
    for obj in objects[1:]:
        if not kinds or kinds[-1] != (obj["kind"], obj["n"]):
            kinds.append((obj["kind"], obj["n"]))
    assert kinds == [
        ("request", 1), ("event", 1), ("end", 1),
        ("request", 2), ("event", 2), ("end", 2),
    ]  # fmt: skip

    requests = [o for o in objects if o["kind"] == "request"]
    assert requests[0]["op"] == "run"
    assert requests[0]["body"]["threadId"] == first.thread_id
    assert requests[0]["body"]["messages"][-1]["content"] == TRANSFER
    assert requests[1]["body"]["resume"][0]["payload"] == {"approved": True}
    assert "headers" not in requests[0]  # what carried the run is the transport's business
    events = [o["data"]["type"] for o in objects if o["kind"] == "event" and o["n"] == 2]
    assert events[0] == "RUN_STARTED" and events[-1] == "RUN_FINISHED"
    assert all(o["complete"] for o in objects if o["kind"] == "end")

    _, exchanges = load_recording(path)
    assert [e.n for e in exchanges] == [1, 2]


async def test_a_recording_cut_mid_line_still_loads(transfer_recording: Path) -> None:
    text = transfer_recording.read_text(encoding="utf-8")
    transfer_recording.write_text(text[: len(text) - 40], encoding="utf-8")  # died mid-write
    _, exchanges = load_recording(transfer_recording)
    assert len(exchanges) == 2 and exchanges[1].end is None

    transfer_recording.write_text('{"kind": "nope"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="not an agui_notebook recording"):
        load_recording(transfer_recording)


# -- replay -----------------------------------------------------------------------------------


async def test_replay_reproduces_the_run_offline(tmp_path: Path) -> None:
    path = tmp_path / "transfer.jsonl"
    recorded = await record_transfer(path)

    transport = ReplayTransport(path)
    thread = transport.agent().thread()
    first = await thread.run(TRANSFER)
    assert first.outcome == "interrupt"
    assert first.interrupts[0].tool_name == "transfer_money"
    second = await thread.resume(approve())
    transport.assert_complete()

    assert second.outcome == recorded[1].outcome == "success"
    assert second.text == recorded[1].text and TRANSFERRED in second.text
    assert second.state == recorded[1].state
    # The client sees its own ids, not the recorded ones.
    assert first.thread_id == second.thread_id == thread.id != recorded[0].thread_id
    assert [r.run_id for r in thread.runs] == [first.run_id, second.run_id]
    assert thread.messages[0].content == TRANSFER


async def test_a_different_decision_names_the_first_difference(
    transfer_recording: Path,
) -> None:
    thread = replay(transfer_recording).thread()
    await thread.run(TRANSFER)
    with pytest.raises(ReplayMismatch) as caught:
        await thread.resume(reject("no"))
    error = caught.value
    assert str(error).startswith(
        "request 2: $.resume[0].payload.approved: recorded true, got false"
    )
    assert error.request == 2 and error.path == "$.resume[0].payload.approved"
    assert len(thread.pending) == 1  # the thread is unchanged: the right decision still works
    result = await thread.resume(approve())
    assert TRANSFERRED in result.text


async def test_a_different_message_is_a_mismatch(transfer_recording: Path) -> None:
    thread = replay(transfer_recording).thread()
    with pytest.raises(ReplayMismatch, match=r"request 1: \$\.messages\[0\]\.content: recorded"):
        await thread.run("Transfer $5 from 1234567890 to 0987654321")


async def test_ids_must_be_used_consistently(transfer_recording: Path) -> None:
    transport = ReplayTransport(transfer_recording)
    agent = transport.agent()
    await agent.thread().run(TRANSFER)
    other = agent.thread()  # the second request comes from another thread than recorded
    with pytest.raises(ReplayMismatch, match=r"request 2: \$\.threadId: recorded id"):
        await other.run(TRANSFER)


async def test_requests_beyond_the_recording_are_refused(transfer_recording: Path) -> None:
    objects = lines(transfer_recording)
    short = transfer_recording.with_name("short.jsonl")
    short.write_text(
        "".join(json.dumps(o) + "\n" for o in objects if o.get("n", 1) == 1), encoding="utf-8"
    )
    transport = ReplayTransport(short)
    thread = transport.agent().thread()
    await thread.run(TRANSFER)
    with pytest.raises(ReplayMismatch, match="request 2: the recording has only 1 request"):
        await thread.resume(approve())


async def test_unmade_requests_are_reported(transfer_recording: Path) -> None:
    transport = ReplayTransport(transfer_recording)
    await transport.agent().thread().run(TRANSFER)
    assert transport.remaining == 1
    with pytest.raises(ReplayMismatch, match=r"1 recorded request.* never made, from request 2"):
        transport.assert_complete()


async def test_not_strict_serves_in_order(transfer_recording: Path) -> None:
    thread = replay(transfer_recording, strict=False).thread()
    await thread.run("something else entirely")
    result = await thread.resume(reject("no"))
    assert TRANSFERRED in result.text  # what was recorded, whatever was sent


def age(path: Path, hours: int) -> None:
    """Make the recording ``hours`` older: its header, event timestamps and expiries."""
    shift = timedelta(hours=hours)

    def older(value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {k: older(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [older(v) for v in value]
        if key == "timestamp" and isinstance(value, int):
            return value - hours * 3_600_000
        if key in ("expiresAt", "created") and isinstance(value, str):
            moment = datetime.fromisoformat(value.replace("Z", "+00:00")) - shift
            return moment.isoformat().replace("+00:00", "Z")
        return value

    path.write_text("".join(json.dumps(older(o)) + "\n" for o in lines(path)), encoding="utf-8")


async def test_an_expiry_is_replayed_relative_to_now(tmp_path: Path) -> None:
    path = tmp_path / "quick.jsonl"
    agent = record(Agent.demo(text_delay=0, expires_in=60), path)
    message = "Quick transfer $20 from 1234567890 to 0987654321"
    live = agent.thread()
    first = await live.run(message)
    assert first.interrupts[0].expires_at is not None
    await live.resume(approve())
    age(path, hours=2)  # recorded two hours ago: the recorded expiry has long passed

    thread = replay(path).thread()
    replayed = await thread.run(message)
    expires_at = replayed.interrupts[0].expires_at
    assert expires_at is not None and not replayed.interrupts[0].is_expired()
    assert 50 < (expires_at - datetime.now(timezone.utc)).total_seconds() <= 60
    await thread.resume(approve())  # not refused as expired


# -- decisions as recorded ----------------------------------------------------------------------


def test_resume_entries_become_the_decisions_that_made_them() -> None:
    def entry(payload: Any) -> dict[str, Any]:
        return {"interruptId": "i", "status": "resolved", "payload": payload}

    assert decision_from_entry({"interruptId": "i", "status": "cancelled"}) == cancel()
    assert decision_from_entry(entry({"approved": True})) == approve()
    assert decision_from_entry(entry({"accepted": True})) == approve()
    assert decision_from_entry(entry({"approved": False})) == reject()
    assert decision_from_entry(entry({"approved": False, "reason": "no"})) == reject("no")
    assert decision_from_entry(entry({"approved": True, "editedArgs": {"a": 1}})) == edit(a=1)
    assert decision_from_entry(entry({"accepted": True, "amount": 5})) == edit(amount=5)
    assert decision_from_entry(entry({"date": "2025-01-01"})) == answer({"date": "2025-01-01"})


async def test_replay_policy_drives_a_chat_to_the_same_result(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    live = record(Agent.demo(text_delay=0), path).chat(policy=policies.scripted([edit(amount=250)]))
    recorded = await live.send(TRANSFER)
    assert "Transferred 250.00 USD" in recorded.text

    policy = policies.parse(f"replay:{path}")
    assert policy.name == "replay:chat.jsonl"
    transport = ReplayTransport(path)
    chat = transport.agent().chat(policy=policy)
    result = await chat.send(TRANSFER)
    transport.assert_complete()
    assert (result.outcome, result.text) == (recorded.outcome, recorded.text)
    assert [d["decision"] for d in result.decisions] == ["edit"]
    assert result.decisions[0]["decidedBy"] == "policy: replay:chat.jsonl"

    # The same decisions also drive the live demo (new interrupt ids, same order).
    again = await Agent.demo(text_delay=0).chat(policy=replay_policy(path)).send(TRANSFER)
    assert again.text == recorded.text


async def test_replay_policy_running_out_is_an_error(transfer_recording: Path) -> None:
    chat = Agent.demo(text_delay=0).chat(policy=replay_policy(transfer_recording))
    await chat.send(TRANSFER)  # the one recorded decision
    with pytest.raises(LookupError, match="no decision left"):
        await chat.send(TRANSFER)


# -- failures are recorded and replayed -----------------------------------------------------------


class _Scripted(httpx.AsyncBaseTransport):
    """A server that answers 401 (echoing the token), then drops a stream after one event."""

    def __init__(self) -> None:
        self.calls = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        if self.calls == 1:
            token = request.headers["authorization"]
            return httpx.Response(401, json={"error": f"invalid credentials: {token}"})
        body = json.loads(await request.aread())
        started = {"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]}

        async def dropping() -> AsyncIterator[bytes]:
            yield f"data: {json.dumps(started)}\n\n".encode()
            raise httpx.RemoteProtocolError("peer closed connection")

        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, stream=_Stream(dropping())
        )


class _Stream(httpx.AsyncByteStream):
    def __init__(self, chunks: AsyncIterator[bytes]) -> None:
        self._chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._chunks:
            yield chunk


async def test_http_errors_and_drops_are_recorded_and_replayed(tmp_path: Path) -> None:
    path = tmp_path / "failures.jsonl"
    client = httpx.AsyncClient(transport=_Scripted())
    agent = record(
        Agent("http://agent.test/", headers={"Authorization": "Bearer sk-ECHOED-777"},
              http_client=client),
        path,
    )  # fmt: skip
    thread = agent.thread()
    with pytest.raises(HTTPStatusError) as status:
        await thread.run("hi")
    assert status.value.status_code == 401
    with pytest.raises(TruncatedRunError) as dropped:
        await thread.run("hi")
    assert dropped.value.dropped

    text = path.read_text(encoding="utf-8")
    assert "sk-ECHOED-777" not in text  # scrubbed from the echoing 401 body too
    objects = lines(path)
    refused = next(o for o in objects if o["kind"] == "error")
    assert (refused["n"], refused["error"], refused["status"]) == (1, "HTTPStatusError", 401)
    assert refused["body"].startswith('{"error"') and "<redacted>" in refused["body"]
    ends = [o for o in objects if o["kind"] == "end"]
    assert ends[-1] == {
        "kind": "end",
        "n": 2,
        "complete": False,
        "bytes": 132,
        "error": "ConnectionDropped",
        "message": "peer closed connection",
    }

    replayed = replay(path).thread()
    with pytest.raises(HTTPStatusError) as status_again:
        await replayed.run("hi")
    assert status_again.value.status_code == 401
    with pytest.raises(TruncatedRunError) as dropped_again:
        await replayed.run("hi")
    assert dropped_again.value.dropped and dropped_again.value.last_event == "RUN_STARTED"
    assert str(dropped_again.value) == str(dropped.value)


# -- secrets ------------------------------------------------------------------------------------

SECRETS = [
    "sk-SECRET-123",
    "SECRET-KEY-456",
    "SECRET-TOKEN-789",
    "SECRET-PASS-321",
    "SECRET-COOKIE-555",
    "SECRET-FP-000",
]


@pytest.fixture
def demo_server() -> Iterator[str]:
    url, stop = start_in_thread(text_delay=0)
    try:
        yield url
    finally:
        stop()


async def test_no_secret_reaches_the_recording(tmp_path: Path, demo_server: str) -> None:
    path = tmp_path / "secret.jsonl"
    host = demo_server.removeprefix("http://")
    url = f"http://reader:SECRET-PASS-321@{host}?token=SECRET-TOKEN-789&v=2"
    agent = Agent(
        url,
        headers={
            "Authorization": "Bearer sk-SECRET-123",
            "X-Api-Key": "SECRET-KEY-456",
            "Cookie": "session=SECRET-COOKIE-555",
        },
    )
    async with record(agent, path) as recorded:
        thread = recorded.thread()
        props = {"apiKey": "SECRET-FP-000", "mode": "test"}
        first = await thread.run(TRANSFER, forwarded_props=props)
        assert first.outcome == "interrupt"
        result = await thread.resume(approve(), forwarded_props=props)
        assert TRANSFERRED in result.text

    data = path.read_bytes()
    for secret in SECRETS:
        assert secret.encode() not in data, secret
    header, request = lines(path)[:2]
    assert "headers" not in request  # never written, not even redacted
    assert header["url"] == f"http://{host}?token=%3Credacted%3E&v=2"
    assert request["body"]["forwardedProps"] == {"apiKey": "<redacted>", "mode": "test"}

    # Replays with other credentials (redacted values match anything) ...
    thread = replay(path).thread()
    other = {"apiKey": "SECRET-FP-000", "mode": "test"}
    await thread.run(TRANSFER, forwarded_props=other)
    # ... and a mismatch never shows a secret either.
    with pytest.raises(ReplayMismatch) as caught:
        await thread.resume(approve(), forwarded_props={**other, "sessionToken": "SECRET-FP-000"})
    assert "sessionToken: not recorded, got <redacted>" in str(caught.value)
    assert not any(secret in str(caught.value) for secret in SECRETS)


def test_redaction_functions() -> None:
    assert redact_headers(
        {
            "Authorization": "Bearer x",
            "Proxy-Authorization": "Basic y",
            "X-Auth-Token": "z",
            "X-Tenant": "acme",
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
        }
    ) == {
        "authorization": "<redacted>",
        "proxy-authorization": "<redacted>",
        "x-auth-token": "<redacted>",
        "x-tenant": "<redacted>",  # not known to be safe
        "content-type": "application/json",
        "accept": "text/event-stream",
    }
    assert redact_url("https://u:p@example.org/a/?api_key=1&access_token=2&sig=3&page=4#f") == (
        "https://example.org/a/?api_key=%3Credacted%3E&access_token=%3Credacted%3E"
        "&sig=%3Credacted%3E&page=4"
    )
    assert redact_url("http://127.0.0.1:8000/") == "http://127.0.0.1:8000/"


# -- Microsoft's server -------------------------------------------------------------------------


async def test_the_committed_msaf_recording_replays_offline() -> None:
    transport = ReplayTransport(MSAF_TRANSFER_APPROVE)
    thread = transport.agent().thread()
    try:
        first = await thread.run(MSAF_TRANSFER_TEXT)
        assert first.outcome == "interrupt"
        assert first.interrupts[0].tool_name == "transfer_money"
        result = await thread.resume(approve())
    except ReplayMismatch as exc:
        pytest.fail(
            f"the client no longer sends what it sent to Microsoft's server: {exc}. If that "
            "change is intended, re-record: python -m tests.record.make_recordings"
        )
    transport.assert_complete()
    assert result.outcome == "success"
    assert result.text == MSAF_TRANSFER_RESULT


@pytest.mark.interop
async def test_record_msaf_then_replay_without_the_server(tmp_path: Path) -> None:
    from tests.servers.msaf_server import start_server

    path = tmp_path / "msaf.jsonl"
    with start_server() as handle:
        live = await record_msaf_transfer_approve(handle.url, path)
        assert [name for name, _ in handle.executions] == ["transfer_money"]
    # The server is gone: the replay is served from the file alone.
    transport = ReplayTransport(path)
    thread = transport.agent().thread()
    first = await thread.run(MSAF_TRANSFER_TEXT)
    assert [i.id for i in first.interrupts] == [i.id for i in live[0].interrupts]
    result = await thread.resume(approve())
    transport.assert_complete()
    assert (result.outcome, result.text) == (live[1].outcome, live[1].text)
    assert result.text == MSAF_TRANSFER_RESULT
    # A different decision is caught against Microsoft's schema too.
    thread = replay(path).thread()
    await thread.run(MSAF_TRANSFER_TEXT)
    with pytest.raises(ReplayMismatch, match=r"\$\.resume\[0\]\.payload\.approved: recorded true"):
        await thread.resume(reject())


async def test_a_chat_with_a_surface_action_replays_offline(tmp_path: Path) -> None:
    # An A2UI action carries the client's clock (userAction.timestamp): a replay matches it like
    # an id, while a different action (another amount) is still a mismatch.
    from agui_notebook import act

    path = tmp_path / "form.jsonl"
    values = {"/transfer/to": "0987654321", "/transfer/amount": "7"}

    def policy(amount: str) -> Any:
        return policies.scripted([act("submit_transfer", {**values, "/transfer/amount": amount})])

    recorded = (
        await record(Agent.demo(text_delay=0), path)
        .chat(policy=policy("7"), display=False)
        .send("Open a transfer form")
    )
    assert "Transferred 7.00 USD" in recorded.text
    replayed = (
        await replay(path).chat(policy=policy("7"), display=False).send("Open a transfer form")
    )
    assert replayed.text == recorded.text
    with pytest.raises(ReplayMismatch, match="amount"):
        await replay(path).chat(policy=policy("8"), display=False).send("Open a transfer form")
