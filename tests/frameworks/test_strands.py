"""_frameworks/strands.py: Strands' interrupts (ag-ui-strands), read, shown and answered.

tests/fixtures/strands/*.json are the events the real server sent (tests/servers/strands/server.py,
one file per ``--style``). Each replay answers the client's requests with them through httpx's
MockTransport (no server, no server venv: these run under both ag-ui-protocol lines) and checks
what the card shows and what the client would send back. The live counterpart is
tests/interop/test_client_strands.py.
"""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agui_notebook import Agent, InvalidDecision, Thread, answer, approve, cancel, edit, reject
from agui_notebook._frameworks import registry
from agui_notebook._frameworks.strands import adapter_approval, plain_reason, plain_tool
from agui_notebook._state.items import card_interrupt

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "strands"
TRANSFER_ARGS = {
    "from_account": "checking",
    "to_account": "savings",
    "amount": 100.0,
    "currency": "USD",
}


def events(style: str, run: str = "first_run") -> list[dict[str, Any]]:
    captured: list[dict[str, Any]] = json.loads((FIXTURES / f"{style}.json").read_text())[run]
    return captured


def raised(style: str) -> dict[str, Any]:
    """The interrupt the first run of ``style`` ended with (wire form)."""
    [interrupt] = events(style)[-1]["outcome"]["interrupts"]
    return dict(interrupt)


def sse(evs: list[dict[str, Any]]) -> bytes:
    return b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in evs)


class Replay:
    """Answers each request with the next list of events; keeps the request bodies."""

    def __init__(self, *runs: list[dict[str, Any]]) -> None:
        self.responses = [sse(r) for r in runs]
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(json.loads(request.content))
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=self.responses.pop(0)
        )


async def _thread(replay: Replay) -> AsyncIterator[Thread]:
    client = httpx.AsyncClient(transport=httpx.MockTransport(replay))
    async with Agent("http://strands.test/", http_client=client) as agent:
        yield agent.thread()
    await client.aclose()


@pytest.fixture
async def paused() -> AsyncIterator[Any]:
    """``paused(style, *later_runs)`` -> (thread, replay) after the first run's interrupt."""
    gens: list[AsyncIterator[Thread]] = []

    async def make(style: str, *later: list[dict[str, Any]]) -> tuple[Thread, Replay]:
        replay = Replay(events(style), *later)
        gen = _thread(replay)
        gens.append(gen)
        thread = await gen.__anext__()
        result = await thread.run("transfer 100")
        assert result.outcome == "interrupt"
        return thread, replay

    yield make
    for gen in gens:
        await gen.aclose()  # type: ignore[attr-defined]


# ------------------------------------------------------------------------ the shapes, read


def test_the_captured_shapes_are_what_the_dialect_reads() -> None:
    approval, hook, in_tool = raised("approval"), raised("hook"), raised("tool")
    assert approval["reason"] == "tool_call" and approval["toolCallId"].startswith("tooluse_")
    assert approval["responseSchema"]["properties"] == {"approved": {"type": "boolean"}}
    assert adapter_approval(approval["metadata"]) == ("transfer_money", TRANSFER_ARGS)
    for plain in (hook, in_tool):
        assert plain["reason"] == "approve-transfer"
        assert "toolCallId" not in plain and "responseSchema" not in plain
        assert "message" not in plain
        reason = plain["metadata"]["reason"]
        assert plain_tool(plain["metadata"]) == (
            reason["tool_use_id"],
            "transfer_money",
            TRANSFER_ARGS,
        )
        assert adapter_approval(plain["metadata"]) is None
    assert plain_reason(raised("bad_reason")["metadata"]) == (True, "please approve the transfer")
    assert plain_tool(raised("bad_reason")["metadata"]) is None
    assert plain_tool(raised("no_fields")["metadata"]) is None


@pytest.mark.parametrize(
    "metadata",
    [
        None,
        {},
        {"reason": None},
        {"reason": 42},
        {"reason": ["transfer_money"]},
        {"reason": {"tool_name": None, "tool_input": {}}},
        {"reason": {"tool_name": ""}},
        {"reason": {"tool_name": "unknown"}},
        {"reason": {"tool_input": TRANSFER_ARGS}},
        {"reason": {"tool_name": 7, "tool_use_id": 8}},
        {"reason": {"tool_name": "t"}, "other": 1},  # not the adapter's plain shape
        {"strandsName": 3, "tool_name": "t"},
    ],
)
def test_malformed_reasons_name_no_tool_and_never_raise(metadata: Any) -> None:
    assert plain_tool(metadata) is None
    described = registry.describe("approve-transfer", metadata)
    assert described is None or described.tool_name in (None, "t")


def test_a_tool_named_with_bad_companions_keeps_the_name() -> None:
    assert plain_tool(
        {"reason": {"tool_name": "t", "tool_use_id": 8, "tool_input": '{"a": 1}'}}
    ) == (
        None,
        "t",
        {"a": 1},
    )
    # A lost native reason: the adapter says "unknown"; its interrupt's name still names the tool.
    lost = {"tool_name": "unknown", "tool_input": {}, "strandsName": "ag_ui:tool_call:t"}
    assert adapter_approval(lost) == ("t", None)
    assert adapter_approval({**lost, "strandsName": "ag_ui:tool_call:"}) == (None, None)
    described = registry.describe("tool_call", {**lost, "strandsName": "ag_ui:tool_call:"})
    assert described is not None and described.tool_name == "unknown"  # the adapter's own word


# ------------------------------------------------------------------- the card, both styles


@pytest.mark.parametrize("style", ["hook", "tool"])
async def test_a_plain_interrupt_shows_its_tool_and_arguments(paused: Any, style: str) -> None:
    thread, _ = await paused(style)
    [pending] = thread.pending
    wire = raised(style)
    assert pending.id == wire["id"]
    assert (pending.tool_name, pending.arguments) == ("transfer_money", TRANSFER_ARGS)
    assert pending.tool_call_id == wire["metadata"]["reason"]["tool_use_id"]
    assert pending.message == "approve-transfer: approve transfer_money?"
    card = card_interrupt(pending, None)
    assert (card["mode"], card["toolName"], card["args"]) == (
        "tool",
        "transfer_money",
        TRANSFER_ARGS,
    )
    assert card["canEdit"] and card["canGiveReason"] and card["editNote"] is None


async def test_the_adapters_approval_shows_its_tool_and_says_edit_is_unavailable(
    paused: Any,
) -> None:
    thread, _ = await paused("approval")
    [pending] = thread.pending
    assert (pending.tool_name, pending.arguments) == ("transfer_money", TRANSFER_ARGS)
    assert pending.message == "Approve call to transfer_money?"
    card = card_interrupt(pending, None)
    assert card["mode"] == "tool" and not card["canEdit"] and not card["canGiveReason"]
    assert "Edit is unavailable" in card["editNote"] and "approved" in card["editNote"]


async def test_the_approvals_arguments_come_from_its_metadata_without_the_stream(
    paused: Any,
) -> None:
    # A restored thread, or a server that streamed no TOOL_CALL_*: the metadata alone names them.
    only_the_end = [e for e in events("approval") if not e["type"].startswith("TOOL_CALL")]
    only_the_end = [e for e in only_the_end if e["type"] != "MESSAGES_SNAPSHOT"]
    replay = Replay(only_the_end)
    gen = _thread(replay)
    thread = await gen.__anext__()
    await thread.run("transfer 100")
    [pending] = thread.pending
    assert (pending.tool_name, pending.arguments) == ("transfer_money", TRANSFER_ARGS)
    await gen.aclose()  # type: ignore[attr-defined]


@pytest.mark.parametrize("style", ["bad_reason", "no_fields"])
async def test_a_reason_naming_no_tool_still_makes_a_card(paused: Any, style: str) -> None:
    thread, replay_ = await paused(style, events(style, "approve_run"))
    [pending] = thread.pending
    assert pending.tool_name is None and pending.arguments is None
    assert "the tool is unknown" in (pending.message or "")
    card = card_interrupt(pending, None)
    assert card["mode"] == "free" and card["toolName"] is None
    assert card["review"] == raised(style)["metadata"]["reason"]  # shown as it came
    with pytest.raises(InvalidDecision):
        await thread.resume(edit(amount=5))  # no arguments known: nothing to fill in
    assert len(replay_.bodies) == 1
    done = await thread.resume(answer({"approved": True}))
    assert replay_.bodies[-1]["resume"][0]["payload"] == {"approved": True}
    assert done.outcome == "success" and done.text == "Transferred 100.00 USD."


# ------------------------------------------------------------------------ what is sent back


def resume_of(replay_: Replay) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = replay_.bodies[-1]["resume"]
    return entries


@pytest.mark.parametrize("style", ["hook", "tool"])
async def test_plain_interrupt_answers_are_the_specs_payload(paused: Any, style: str) -> None:
    approve_run = events(style, "approve_run")
    cases: list[tuple[Any, dict[str, Any] | None]] = [
        (approve(), {"approved": True}),
        (reject("too much"), {"approved": False, "reason": "too much"}),
        (
            edit(amount=250.0),
            {"approved": True, "editedArgs": {**TRANSFER_ARGS, "amount": 250.0}},
        ),
        (cancel(), None),
    ]
    for decision, payload in cases:
        thread, replay_ = await paused(style, copy.deepcopy(approve_run))
        [pending] = thread.pending
        done = await thread.resume(decision)
        assert len(replay_.bodies) == 2  # one resume, sent once
        [entry] = resume_of(replay_)
        assert entry["interruptId"] == pending.id
        if payload is None:
            assert entry["status"] == "cancelled" and "payload" not in entry
        else:
            assert entry == {"interruptId": pending.id, "status": "resolved", "payload": payload}
        assert done.outcome == "success" and not thread.pending


async def test_the_approval_refuses_an_edit_before_sending(paused: Any) -> None:
    thread, replay_ = await paused("approval", events("approval", "approve_run"))
    with pytest.raises(InvalidDecision, match="no place for edited arguments"):
        await thread.resume(edit(amount=250.0))
    assert len(replay_.bodies) == 1 and len(thread.pending) == 1  # nothing sent, still pending
    done = await thread.resume(approve())
    assert resume_of(replay_)[0]["payload"] == {"approved": True}
    assert done.text == "Transferred 100.00 USD."


async def test_a_cancel_reaches_the_hook_and_the_run_finishes(paused: Any) -> None:
    thread, replay_ = await paused("hook_cancel", events("hook_cancel", "cancel_run"))
    done = await thread.resume(cancel())
    assert resume_of(replay_)[0]["status"] == "cancelled"
    assert done.outcome == "success" and done.text == "Cancelled."
