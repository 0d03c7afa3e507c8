"""AG-UI 1.1 conformance: one fixture per consumer-side rule (tests/fixtures/conformance/).

Each fixture names its rule and spec page, gives the stream a server sends (wire events, or raw
SSE text) and what the client must make of it: the outcome or the error, the thread's messages
and state, the warnings (exactly these, as regular expressions, in order), the tool calls, the
interrupts, the display items, the request the client sent and the one it sends next. The rule
list is docs/conformance.md; a test below keeps the two in step.

A fixture's keys (all but ``id``, ``rule``, ``page`` and ``expect`` optional):

- ``agent``: Agent options (``{"strict": true}``).
- ``before``: earlier runs on the thread, each a list of events (they must end cleanly).
- ``stream`` (a list of events) or ``sse`` (raw SSE text): the server's answer to the fixture run.
- ``send``: the run's new message (a string or a message object); ``resume``: decisions by
  interrupt id (``"approve"``, ``"reject"``, ``"cancel"``) instead; ``options``: ``tools``...
- ``replay``: also record the exchange and replay it, expecting the same.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import UserMessage

from agui_notebook import AGUIError, approve, cancel, reject
from agui_notebook._protocol.events import type_of
from agui_notebook._state.items import ItemList
from agui_notebook.record import record, replay
from tests.thread._streams import ScriptedServer, ok_run, sse

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "conformance"
CONFORMANCE_DOC = ROOT / "docs/conformance.md"
PAGES = {
    "basic/processing",
    "basic/versioning",
    "basic/metadata",
    "basic/run-input",
    "basic/patterns/streaming",
    "basic/patterns/snapshots",
    "basic/patterns/interrupt-resume",
    "basic/transports",
    "basic/transports/http-sse",
    "events/lifecycle",
    "events/text-messages",
    "events/tool-calls",
    "events/state",
    "events/activity",
    "events/reasoning",
    "events/subagents",
    "events/passthrough",
    "docs/architecture.md",
}
KEYS = {
    "id",
    "rule",
    "page",
    "agent",
    "before",
    "stream",
    "sse",
    "send",
    "resume",
    "options",
    "replay",
    "expect",
}
EXPECT = {
    "outcome",
    "error",
    "error_match",
    "code",
    "messages",
    "delivered",
    "result_messages",
    "state",
    "warnings",
    "events",
    "pending_tool_call_ids",
    "interrupts",
    "tool_calls",
    "subagents",
    "usage",
    "run_metadata",
    "result",
    "items",
    "request",
    "requests",
    "next_request",
}
DECISIONS = {"approve": approve, "reject": reject, "cancel": cancel}


def _fixtures() -> list[Path]:
    return sorted(FIXTURES.glob("*.json"))


def _dump(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True)


def _body(fixture: dict[str, Any]) -> bytes:
    if "sse" in fixture:
        return str(fixture["sse"]).encode()
    return sse(fixture["stream"])


async def _run_fixture(
    fixture: dict[str, Any], agent_factory: Any
) -> tuple[Any, Any, BaseException | None, ScriptedServer | None]:
    """Run the fixture's runs on a fresh thread: (thread, run stream, error, server)."""
    agent = agent_factory()
    thread = agent.thread("thread-1")
    for _ in fixture.get("before", []):  # the scripted server answers them in order
        await thread.run(None)
    options = dict(fixture.get("options", {}))
    error: BaseException | None = None
    run = None
    try:
        if "resume" in fixture:
            decisions = {iid: DECISIONS[kind]() for iid, kind in fixture["resume"].items()}
            run = thread.stream(resume=decisions, **options)
        else:
            send = fixture.get("send")
            if isinstance(send, dict):  # a message object, as a caller would build one
                send = UserMessage.model_validate(send)
            run = thread.stream(send, **options)
        async with run:
            async for _ in run:
                pass
    except AGUIError as exc:
        error = exc
    return thread, run, error, agent


def _scripted(fixture: dict[str, Any]) -> ScriptedServer:
    replies = [sse(events) for events in fixture.get("before", [])]
    server = ScriptedServer(*replies, _body(fixture))
    return server


def _match_warnings(expected: list[str], got: list[str]) -> None:
    assert len(got) == len(expected), f"warnings: expected {expected}, got {got}"
    for pattern, warning in zip(expected, got, strict=True):
        assert re.search(pattern, warning), f"warning {warning!r} does not match {pattern!r}"


def _subset(expected: dict[str, Any], got: dict[str, Any], what: str) -> None:
    for key, value in expected.items():
        assert key in got, f"{what}: no {key!r} in {got}"
        assert got[key] == value, f"{what}.{key}: expected {value!r}, got {got[key]!r}"


async def _check(fixture: dict[str, Any], agent_factory: Any, server: Any) -> None:
    expect = fixture["expect"]
    sent_before = len(server.bodies) if server is not None else 0
    thread, run, error, agent = await _run_fixture(fixture, agent_factory)
    await _expect(fixture, expect, thread, run, error, server, sent_before)
    await agent.aclose()


async def _expect(
    fixture: dict[str, Any],
    expect: dict[str, Any],
    thread: Any,
    run: Any,
    error: BaseException | None,
    server: Any,
    sent_before: int,
) -> None:
    record = thread.runs[-1] if thread.runs else None
    if "error" in expect:
        assert error is not None, f"expected {expect['error']}, the run ended {run and run.result}"
        names = {cls.__name__ for cls in type(error).__mro__}
        assert expect["error"] in names, f"expected {expect['error']}, got {error!r}"
        if "error_match" in expect:
            assert re.search(expect["error_match"], str(error)), str(error)
        if "code" in expect:
            assert getattr(error, "code", None) == expect["code"]
    else:
        assert error is None, f"unexpected {error!r}"
        assert run is not None
        assert run.result.outcome == expect.get("outcome", "success")
    warnings = record.warnings if record is not None and run is not None else []
    _match_warnings(expect.get("warnings", []), warnings)
    if "messages" in expect:
        assert [_dump(m) for m in thread.messages] == expect["messages"]
    if "delivered" in expect:
        assert record is not None
        assert [_dump(m) for m in record.delivered] == expect["delivered"]
    if "result_messages" in expect:
        assert [_dump(m) for m in run.result.messages] == expect["result_messages"]
    if "state" in expect:
        assert thread.state == expect["state"]
    if "events" in expect:
        assert run is not None
        assert [type_of(e) for e in run.events] == expect["events"]
    if "pending_tool_call_ids" in expect:
        assert run.result.pending_tool_call_ids == expect["pending_tool_call_ids"]
    if "interrupts" in expect:
        got = [vars(p) for p in thread.pending]
        assert len(got) == len(expect["interrupts"]), got
        for want, have in zip(expect["interrupts"], got, strict=True):
            _subset(want, have, "interrupt")
    if "tool_calls" in expect:
        for tcid, want in expect["tool_calls"].items():
            call = thread.tool_calls[tcid]
            _subset(want, {**vars(call), "arguments": call.arguments}, f"tool call {tcid}")
    if "subagents" in expect:
        subagents = thread._snapshot.subagents
        for sid, want in expect["subagents"].items():
            _subset(want, vars(subagents[sid]), f"subagent {sid}")
    if "usage" in expect:
        assert [_dump(u) for u in run.result.usage] == expect["usage"]
    if "run_metadata" in expect:
        assert run.result.run_metadata == expect["run_metadata"]
    if "result" in expect:
        assert run.result.result == expect["result"]
    if "items" in expect:
        items = ItemList()
        for event in run.events:
            items.apply(type_of(event), event)
        assert items.snapshot() == expect["items"]
    if server is not None:
        sent = server.bodies[sent_before + len(fixture.get("before", [])) :]
        if "requests" in expect:
            assert len(sent) == expect["requests"]
        if "request" in expect:
            _subset(expect["request"], sent[0], "request")
        if "next_request" in expect:
            server.add(ok_run(run_id="run-next", mid="m-next"))
            await thread.run(None)
            _subset(expect["next_request"], server.bodies[-1], "next request")


def _load(path: Path) -> dict[str, Any]:
    fixture: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return fixture


@pytest.mark.parametrize("path", _fixtures(), ids=lambda p: p.stem)
async def test_conformance_fixture(path: Path, tmp_path: Path) -> None:
    fixture = _load(path)
    server = _scripted(fixture)
    options = fixture.get("agent", {})
    await _check(fixture, lambda: server.agent(**options), server)
    if fixture.get("replay"):
        # The same verdict when the exchange comes back from a recording (1.1 processing: the
        # ordering holds "on every path that produces events ... including replay").
        again = _scripted(fixture)
        recording = tmp_path / "run.jsonl"
        await _check(fixture, lambda: record(again.agent(**options), recording), again)
        await _check(fixture, lambda: replay(recording, strict=False, **options), None)


def test_fixtures_are_well_formed() -> None:
    seen = set()
    for path in _fixtures():
        fixture = _load(path)
        assert set(fixture) <= KEYS, f"{path.name}: unknown keys {set(fixture) - KEYS}"
        assert set(fixture["expect"]) <= EXPECT, f"{path.name}: {set(fixture['expect']) - EXPECT}"
        assert fixture["id"] == path.stem, path.name
        assert fixture["page"].split("#")[0] in PAGES, f"{path.name}: page {fixture['page']}"
        assert ("stream" in fixture) != ("sse" in fixture), path.name
        assert fixture["rule"].strip(), path.name
        seen.add(fixture["id"])
    assert len(seen) >= 100


def test_the_conformance_table_lists_every_fixture_and_rule() -> None:
    """docs/conformance.md has one row per fixture, and every rule there has a fixture."""
    table = CONFORMANCE_DOC.read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([A-Z]+-\d+[a-z]?(?:\.[a-z]+)?)` \|", table, flags=re.M)
    fixtures = {p.stem for p in _fixtures()}
    assert len(rows) == len(set(rows)), "a rule is listed twice"
    assert set(rows) == fixtures, (
        f"in the table only: {sorted(set(rows) - fixtures)}; "
        f"fixtures only: {sorted(fixtures - set(rows))}"
    )
