"""Every demo stream passes ag-ui-validate (PyPI) with no findings at all: no error, no warning.

Each conversation below is a first message and then the resumes (or a new message) sent after it,
including the refused ones. Every response stream is validated as it arrives: from the loopback
HTTP server (the validator's own HTTP client, transport rules included) and in-process (through
InProcessTransport, which must flush event by event too). The command-line validator then checks
one recording holding all of them.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui_validate import ValidatorOptions
from ag_ui_validate.transport import (
    TransportOptions,
    TransportResult,
    validate_body,
    validate_endpoint,
)
from demo_wire import TRANSFER, body, cancelled, resolved

from agui_notebook.demo import DemoApp, create_app, demo_transport, start_in_thread
from agui_notebook.demo._threads import ERROR_CODES

JSON = dict[str, Any]
Interrupts = list[JSON]


@dataclass(frozen=True)
class Act:
    """An A2UI action on the first surface the conversation showed (forwardedProps.a2uiAction)."""

    name: str
    context: JSON = field(default_factory=dict)
    surface: str | None = None  # another surface id than the one shown (a refusal)
    raw: Any = None  # sent as the userAction as it is (a malformed one)

    def body(self, thread: str, surface_id: str | None, run_id: str) -> JSON:
        action = self.raw
        if action is None:
            action = {
                "name": self.name,
                "surfaceId": self.surface or surface_id,
                "sourceComponentId": "submit",
                "timestamp": "2030-03-01T12:00:00Z",
                "context": self.context,
            }
        data = body(thread, run_id=run_id)
        data["forwardedProps"] = {"a2uiAction": {"userAction": action}}
        return data


# After the first run: resume entries built from its interrupts, a new user message, or an action.
Next = Callable[[Interrupts], list[JSON]] | str | Act
GOOD_TRANSFER = {"from": ["1234567890"], "to": "0987654321", "amount": "250", "currency": ["EUR"]}
EXPIRES_IN = 0.2


def approve_all(ints: Interrupts) -> list[JSON]:
    return [resolved(i["id"], {"approved": True}) for i in ints]


def cancel_all(ints: Interrupts) -> list[JSON]:
    return [cancelled(i["id"]) for i in ints]


def first(payload: Any) -> Callable[[Interrupts], list[JSON]]:
    return lambda ints: [resolved(ints[0]["id"], payload)]


CONVERSATIONS: dict[str, tuple[str | None, list[Next]]] = {
    "help": ("hello", []),
    "transfer-approve": (TRANSFER, [approve_all]),
    "transfer-reject": (TRANSFER, [first({"approved": False, "reason": "too much"})]),
    "transfer-edit": (
        TRANSFER,
        [
            first(
                {
                    "approved": True,
                    "editedArgs": {
                        "from_account": "1111222233",
                        "to_account": "0987654321",
                        "amount": 9,
                        "currency": "GBP",
                    },
                }
            )
        ],
    ),
    "transfer-cancel": (TRANSFER, [cancel_all]),
    "transfer-fails": ("transfer 99999 from 1234567890 to 0987654321", [approve_all]),
    "cancel-subscription": ("unsubscribe me from the gym", [approve_all]),
    "balance": ("what is my balance?", []),
    "pay-bills": ("pay bills", [approve_all]),
    "two-approvals": (
        "two transfers",
        [
            lambda ints: [
                resolved(ints[0]["id"], {"approved": False}),
                resolved(ints[1]["id"], {"approved": True}),
            ]
        ],
    ),
    "schedule-answer": (
        "schedule a payment",
        [
            first(
                {"date": "2030-03-01", "amount": 12.5, "memo": "<b>rent</b>", "frequency": "weekly"}
            )
        ],
    ),
    "schedule-cancel": ("schedule a payment", [cancel_all]),
    "expiring-cancel": ("quick transfer", [cancel_all]),
    "confirmation": ("close account 1111222233", [first({"approved": True})]),
    "reasoning": ("think about my savings", []),
    "long-story": ("tell me a long story", []),
    "deliberate-error": ("show me an error", []),
    "hostile": ("hostile", [approve_all]),
    "statement-parts": ("show my statement", []),
    "delegate-approve": ("delegate a transfer of $75 from 1234567890 to 0987654321", [approve_all]),
    "delegate-reject": ("ask the specialist to transfer $5", [first({"approved": False})]),
    "private-reasoning": ("think privately about my savings", ["think privately again"]),
    "refused-pending": (TRANSFER, ["hello", cancel_all]),
    "refused-thread-not-found": (None, [lambda ints: [cancelled("int-nowhere")]]),
    "refused-unknown-interrupt": (TRANSFER, [lambda ints: [cancelled("int-bogus")], cancel_all]),
    "refused-incomplete": ("two transfers", [lambda ints: approve_all(ints)[:1], cancel_all]),
    "refused-duplicate": (TRANSFER, [lambda ints: cancel_all(ints) * 2, cancel_all]),
    "refused-invalid-payload": (TRANSFER, [first({"accepted": True}), approve_all]),
    "refused-already-applied": (TRANSFER, [approve_all, approve_all]),
    "refused-expired": ("quick transfer", ["wait", approve_all, cancel_all]),
    "month-end-progress": ("run the month-end checks", []),
    "transfer-form-submit": ("open a transfer form", [Act("submit_transfer", GOOD_TRANSFER)]),
    "transfer-form-correct": (
        "open a transfer form",
        [
            Act("submit_transfer", {**GOOD_TRANSFER, "to": "123"}),
            Act("submit_transfer", GOOD_TRANSFER),
        ],
    ),
    "transfer-form-cancel": ("open a transfer form", [Act("cancel_transfer")]),
    "refused-a2ui-invalid": (
        "open a transfer form",
        [Act("", raw="submit"), Act("cancel_transfer")],
    ),
    "refused-a2ui-unknown-surface": (
        "open a transfer form",
        [Act("submit_transfer", GOOD_TRANSFER, surface="no-such-surface")],
    ),
    "refused-a2ui-unknown-action": (
        "open a transfer form",
        [Act("explode"), Act("cancel_transfer")],
    ),
    "refused-a2ui-closed": (
        "open a transfer form",
        [Act("submit_transfer", GOOD_TRANSFER), Act("submit_transfer", GOOD_TRANSFER)],
    ),
}

# ag-ui-validate 0.4.0 (the newest on PyPI) checks TOOL_CALL_RESULT against its pre-1.0 event
# table, where ``content`` is a string; AG-UI 1.0 and 1.1 also allow a list of content parts
# (events/tool-calls, "Result content"). That one finding, on the one scenario that sends parts,
# is the validator lagging the spec; any other finding fails.
LAGGING_VALIDATOR = ("AGUI504", "TOOL_CALL_RESULT: field 'content' must be a string, got array")
SENDS_PARTS = {"statement-parts"}

Validate = Callable[[JSON], Awaitable[tuple[TransportResult, list[JSON]]]]


async def converse(name: str, validate: Validate) -> list[tuple[TransportResult, list[JSON]]]:
    """Send conversation ``name`` run by run; each response validated as it streams."""
    text, nexts = CONVERSATIONS[name]
    thread = f"thread-{name}-{uuid.uuid4().hex[:6]}"
    results: list[tuple[TransportResult, list[JSON]]] = []
    interrupts: Interrupts = []
    surface_id: str | None = None
    if text is not None:
        results.append(await validate(body(thread, text, run_id="run-0")))
        interrupts = _interrupts(results[-1][1])
        surface_id = _surface(results[-1][1])
    for n, step in enumerate(nexts, start=1):
        if step == "wait":
            await asyncio.sleep(EXPIRES_IN + 0.1)
            continue
        if isinstance(step, Act):
            data = step.body(thread, surface_id, run_id=f"run-{n}")
        elif isinstance(step, str):
            data = body(thread, step, run_id=f"run-{n}")
        else:
            data = body(thread, resume=step(interrupts), run_id=f"run-{n}")
        results.append(await validate(data))
    return results


def _surface(events: list[JSON]) -> str | None:
    for event in events:
        if event["type"] == "ACTIVITY_SNAPSHOT":
            for op in event["content"].get("a2ui_operations", []):
                if "createSurface" in op:
                    return str(op["createSurface"]["surfaceId"])
    return None


def _interrupts(events: list[JSON]) -> Interrupts:
    outcome = events[-1].get("outcome") or {}
    return list(outcome.get("interrupts", []))


def _options(data: JSON, events: list[JSON]) -> TransportOptions:
    def keep(raw: str, diagnostics: Any) -> None:
        events.append(json.loads(raw))

    # No declared features: "shared-state" would demand a STATE_SNAPSHOT in refused runs too,
    # which are RUN_STARTED + RUN_ERROR by design. Every state rule still applies.
    return TransportOptions(input=data, on_event=keep, validator=ValidatorOptions())


def assert_clean(results: list[tuple[TransportResult, list[JSON]]], name: str = "") -> None:
    assert results
    for result, events in results:
        report = result.report
        findings = [(d.rule, d.message) for d in report.diagnostics]
        parts = sum(
            1 for e in events if e["type"] == "TOOL_CALL_RESULT" and isinstance(e["content"], list)
        )
        assert parts == (1 if name in SENDS_PARTS else 0)
        assert findings == [LAGGING_VALIDATOR] * parts
        assert report.internal_errors == []
        assert result.transport_error is None
        assert events[0]["type"] == "RUN_STARTED" and events[0]["protocolVersion"] == "1.0"
        assert events[-1]["type"] in ("RUN_FINISHED", "RUN_ERROR")


REFUSALS = {
    "refused-pending": "INTERRUPT_PENDING",
    "refused-thread-not-found": "THREAD_NOT_FOUND",
    "refused-unknown-interrupt": "RESUME_UNKNOWN_INTERRUPT",
    "refused-incomplete": "RESUME_INCOMPLETE",
    "refused-duplicate": "RESUME_DUPLICATE_ENTRY",
    "refused-invalid-payload": "RESUME_INVALID_PAYLOAD",
    "refused-already-applied": "RESUME_ALREADY_APPLIED",
    "refused-expired": "RESUME_EXPIRED",
    "deliberate-error": "DEMO_ERROR",
    "refused-a2ui-invalid": "A2UI_INVALID_ACTION",
    "refused-a2ui-unknown-surface": "A2UI_UNKNOWN_SURFACE",
    "refused-a2ui-unknown-action": "A2UI_UNKNOWN_ACTION",
    "refused-a2ui-closed": "A2UI_SURFACE_CLOSED",
}


def test_every_error_code_has_a_conversation() -> None:
    assert set(REFUSALS) <= set(CONVERSATIONS)
    assert sorted(REFUSALS.values()) == sorted(ERROR_CODES)


@pytest.fixture(scope="module")
def loopback() -> Iterator[tuple[str, DemoApp]]:
    app = create_app(text_delay=0, expires_in=EXPIRES_IN)
    url, stop = start_in_thread(app=app)
    try:
        yield url, app
    finally:
        stop()


@pytest.mark.parametrize("name", list(CONVERSATIONS))
async def test_loopback_streams_are_clean(name: str, loopback: tuple[str, DemoApp]) -> None:
    url, _app = loopback

    async def validate(data: JSON) -> tuple[TransportResult, list[JSON]]:
        events: list[JSON] = []
        result = await validate_endpoint(url, _options(data, events))
        assert result.status == 200
        return result, events

    results = await converse(name, validate)
    assert_clean(results, name)
    errors = [e["code"] for _result, events in results for e in events if e["type"] == "RUN_ERROR"]
    assert errors == ([REFUSALS[name]] if name in REFUSALS else [])


@pytest.mark.parametrize("name", list(CONVERSATIONS))
async def test_in_process_streams_are_clean(name: str) -> None:
    transport, _app = demo_transport(text_delay=0, expires_in=EXPIRES_IN)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://agui-demo.invalid/"
    ) as client:

        async def validate(data: JSON) -> tuple[TransportResult, list[JSON]]:
            events: list[JSON] = []
            async with client.stream("POST", "/", json=data) as response:
                result = await validate_body(
                    response.aiter_raw(), response.headers["content-type"], _options(data, events)
                )
            return result, events

        assert_clean(await converse(name, validate), name)


def test_the_command_line_validator_accepts_a_recording_of_everything(tmp_path: Path) -> None:
    recording = tmp_path / "demo.sse"
    transport, _app = demo_transport(text_delay=0, expires_in=EXPIRES_IN)

    async def record_all() -> bytes:
        raw = bytearray()
        async with httpx.AsyncClient(transport=transport, base_url="http://x.invalid/") as client:

            async def capture(data: JSON) -> tuple[TransportResult, list[JSON]]:
                events: list[JSON] = []
                response = await client.post("/", json=data)
                raw.extend(response.content)
                result = await validate_body(
                    _once(response.content), "text/event-stream", _options(data, events)
                )
                return result, events

            for name in CONVERSATIONS:
                await converse(name, capture)
        return bytes(raw)

    recording.write_bytes(asyncio.run(record_all()))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ag_ui_validate.cli",
            str(recording),
            "--json",
            "--fail-on",
            "warning",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(result.stdout)
    findings = [(d["rule"], d["message"]) for d in report["diagnostics"]]
    assert findings == [LAGGING_VALIDATOR] * len(SENDS_PARTS), result.stdout[-2000:]
    assert report["summary"] == {"errors": len(SENDS_PARTS), "warnings": 0, "info": 0}
    assert report["eventCount"] > 1000


async def _once(data: bytes) -> Any:
    yield data
