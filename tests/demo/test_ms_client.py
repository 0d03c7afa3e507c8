"""Microsoft's own Python client (AGUIChatClient, agent-framework-ag-ui) against the loopback demo.

It reads interrupts from ``response.additional_properties["interrupts"]`` and sends a spec resume
through ``options={"resume": [...]}``; the thread is kept by ``options["metadata"]["thread_id"]``
(otherwise it invents a new thread per request). It sends snake_case keys and no
tools/context/forwardedProps, which the demo accepts as the 1.0 schema allows.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from demo_wire import TRANSFER

from agui_notebook.demo import DemoApp, create_app, start_in_thread

pytestmark = pytest.mark.interop


@pytest.fixture
def server() -> Iterator[tuple[str, DemoApp]]:
    app = create_app(text_delay=0)
    url, stop = start_in_thread(app=app)
    try:
        yield url, app
    finally:
        stop()


async def _decide(server: tuple[str, DemoApp], payload: dict[str, Any]) -> tuple[Any, Any]:
    # Imported here, not at the top: the ag-ui-protocol 1.x run deselects interop tests, and
    # agent-framework-ag-ui (which pins ag-ui-protocol < 0.2) is not installed there.
    from agent_framework_ag_ui import AGUIChatClient

    url, _app = server
    options: dict[str, Any] = {"metadata": {"thread_id": "ms-thread"}}
    async with AGUIChatClient(endpoint=url) as client:
        first = await client.get_response(TRANSFER, options=options)
        (interrupt,) = first.additional_properties["interrupts"]
        entry = {"interruptId": interrupt["id"], "status": "resolved", "payload": payload}
        second = await client.get_response([], options={**options, "resume": [entry]})
    return first, second


async def test_approve_round_trip(server: tuple[str, DemoApp]) -> None:
    first, second = await _decide(server, {"approved": True})
    _url, app = server

    assert "This needs your approval." in first.text
    (interrupt,) = first.additional_properties["interrupts"]
    assert interrupt["reason"] == "tool_call"
    calls = [c for m in first.messages for c in m.contents if c.type == "function_call"]
    assert [(c.name, c.call_id) for c in calls] == [("transfer_money", interrupt["toolCallId"])]

    assert second.text == (
        "Transferred 500.00 USD from 1234567890 to 0987654321. New balance: 2,000.00 USD."
    )
    assert [e["tool"] for e in app.executions] == ["transfer_money"]
    # What Microsoft's client put on the wire: snake_case ids, one spec resume entry.
    first_request, resume_request = (r["body"] for r in app.requests)
    assert first_request["thread_id"] == resume_request["thread_id"] == "ms-thread"
    assert "tools" not in first_request and "forwardedProps" not in first_request
    assert resume_request["resume"] == [
        {"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": True}}
    ]
    assert resume_request["messages"] == []


async def test_reject_round_trip(server: tuple[str, DemoApp]) -> None:
    _first, second = await _decide(server, {"approved": False, "reason": "not today"})
    assert second.text.endswith("Reason: not today")
    assert server[1].executions == []
