"""A chat view's display: the widget plus its static text and HTML, from real demo runs.

No kernel here: the display bundle is what ``_repr_mimebundle_`` returns; tests/notebooks/
test_static_outputs.py checks what a real kernel publishes and what a saved notebook holds.
"""

from __future__ import annotations

import asyncio
import configparser
import re
from pathlib import Path
from typing import Any

import pytest

from agui_notebook import Agent, RunError, policies, reject
from agui_notebook._chat.chat import Chat
from agui_notebook._view.widget import ChatView
from agui_notebook.demo._texts import hostile_arguments
from tests.front_end import FakeHost
from tests.view._inert import assert_inert

WIDGET = "application/vnd.jupyter.widget-view+json"
TRANSFER = "Transfer $500 from 1234567890 to 0987654321"


def bundle(view: ChatView) -> dict[str, Any]:
    result = view._repr_mimebundle_()
    assert result is not None
    return result[0]


async def run(message: str, policy: Any = None) -> Chat:
    chat = Agent.demo(text_delay=0).chat(policy=policy or policies.approve_all())
    await asyncio.wait_for(chat.send(message), 30)
    return chat


async def test_the_display_carries_the_widget_and_both_static_forms() -> None:
    chat = await run(TRANSFER)
    data = bundle(chat.view)  # type: ignore[arg-type]
    assert set(data) == {WIDGET, "text/plain", "text/html"}
    assert data[WIDGET]["model_id"] == chat.view.model_id  # type: ignore[union-attr]
    lines = data["text/plain"].splitlines()
    assert lines[0] == "Status: finished"
    assert "Tool: transfer_money (done)" in lines
    assert "    amount: 500.0" in lines
    assert "  Decision: approved by policy: approve-all" in lines
    assert (
        "Assistant: Transferred 500.00 USD from 1234567890 to 0987654321. "
        "New balance: 2,000.00 USD." in lines
    )
    assert "approved by policy: approve-all" in data["text/html"]
    assert repr(chat.view) == "ChatView()"


def masked(text: str) -> str:
    """``text`` as nbval compares it: the sanitizers notebooks/nbval_sanitize.cfg applies."""
    rules = configparser.ConfigParser(interpolation=None)
    rules.read(Path(__file__).parents[2] / "notebooks" / "nbval_sanitize.cfg", encoding="utf-8")
    for section in rules.sections():
        text = re.sub(rules[section]["regex"], rules[section]["replace"], text)
    return text


async def test_the_static_forms_are_the_same_on_every_run() -> None:
    # Every run has new thread, run, message, tool call and interrupt ids, and leaves a new
    # chain head in the store (shown after the decision, masked as nbval masks it).
    first, second = await run(TRANSFER), await run(TRANSFER)
    one, two = bundle(first.view), bundle(second.view)  # type: ignore[arg-type]
    assert first.thread.id != second.thread.id
    assert "audit head " in one["text/plain"] and "audit head " in one["text/html"]
    assert one["text/plain"] != two["text/plain"]  # the heads differ...
    assert masked(one["text/plain"]) == masked(two["text/plain"])  # ...and nothing else does
    assert masked(one["text/html"]) == masked(two["text/html"])
    for volatile in (first.thread.id, first.audit[0]["interrupt"], first.audit[0]["decidedAt"]):
        assert volatile not in one["text/plain"] and volatile not in one["text/html"]


async def test_the_hostile_scenario_is_inert_text() -> None:
    chat = await run("hostile", policies.reject_all("not this one"))
    data = bundle(chat.view)  # type: ignore[arg-type]
    found = assert_inert(data["text/html"])
    text = "".join(found.text)
    probes = hostile_arguments()
    for key in ("payee_name", "note", "website"):
        assert probes[key] in text  # shown as the text it is
        assert probes[key] in data["text/plain"]
    assert "&lt;img src=x onerror=alert(1)&gt;" in data["text/html"]
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in data["text/html"]
    assert "<script" not in data["text/html"] and "<img" not in data["text/html"]
    assert "more characters not shown" in data["text/plain"]  # the 5000-character reference
    assert "Decision: rejected by policy: reject-all" in data["text/plain"]


async def test_how_the_turn_ended_is_on_the_view() -> None:
    chat = await run(TRANSFER)
    assert (chat.view.status, chat.view.outcome) == ("idle", "success")  # type: ignore[union-attr]
    failing = Agent.demo(text_delay=0).chat()
    with pytest.raises(RunError):
        await asyncio.wait_for(failing.send("Show me an error"), 30)
    view = failing.view
    assert view is not None and (view.status, view.outcome) == ("error", "error")
    lines = bundle(view)["text/plain"].splitlines()
    assert lines[0] == "Status: error"
    assert "Error: The agent reported an error" in lines


async def test_a_resume_in_code_ends_idle_with_its_outcome() -> None:
    chat = Agent.demo(text_delay=0).chat(policy=policies.scripted([]))
    await asyncio.wait_for(chat.thread.run(TRANSFER), 30)
    result = await asyncio.wait_for(chat.resume(reject("not now")), 30)
    view = chat.view
    assert result.outcome == "success"
    assert view is not None and (view.status, view.outcome) == ("idle", "success")
    assert "  Decision: rejected by you" in bundle(view)["text/plain"].splitlines()


async def test_the_display_is_updated_once_when_the_turn_ends(fake_host: FakeHost) -> None:
    updates = fake_host.updates  # what a kernel would send
    chat = Agent.demo(text_delay=0).chat(policy=policies.approve_all())
    view = chat._new_view(show=False)  # what send() fills in this (kernel-less) cell
    view.display_id = "agui-chat-1"
    await asyncio.wait_for(chat.send(TRANSFER), 30)
    assert updates == [("agui-chat-1", bundle(view)["text/plain"])]
    assert updates[0][1].startswith("Status: finished\n")
    updates.clear()
    failing = Agent.demo(text_delay=0).chat()
    view = failing._new_view(show=False)
    view.display_id = "agui-chat-2"
    with pytest.raises(RunError):
        await asyncio.wait_for(failing.send("Show me an error"), 30)
    assert len(updates) == 1 and updates[0][1].startswith("Status: error\n")


async def test_turns_in_one_cell_update_the_display_once_when_the_cell_ends(
    fake_host: FakeHost,
) -> None:
    """Re-sent after every turn, the text forms would make JupyterLab build the widget's view
    again each time (bench/first_paint.py): a cell's turns update its display once, at its end."""
    fake_host.cell_ends = []
    chat = Agent.demo(text_delay=0).chat(policy=policies.approve_all())
    view = chat._new_view(show=False)
    view.display_id = "agui-chat-1"
    for message in (TRANSFER, "What can you do?", TRANSFER):
        await asyncio.wait_for(chat.send(message), 30)
    assert fake_host.updates == [] and len(fake_host.cell_ends) == 1
    fake_host.cell_ends.pop()()
    assert fake_host.updates == [("agui-chat-1", bundle(view)["text/plain"])]
    assert fake_host.updates[0][1].startswith("Status: finished\n")
    assert fake_host.updates[0][1].count("Decision: approved") == 2
    await asyncio.wait_for(chat.send("What can you do?"), 30)  # the next cell's turn
    assert len(fake_host.cell_ends) == 1


async def test_activities_and_surfaces_read_as_the_view_draws_them() -> None:
    agent = Agent.demo(text_delay=0)
    checks = agent.chat()
    await asyncio.wait_for(checks.send("Run the month-end checks"), 30)
    lines = bundle(checks.view)["text/plain"].splitlines()  # type: ignore[arg-type]
    plan = lines.index("Activity: PLAN: Month-end checks")
    assert lines[plan + 1 : plan + 3] == ["  4 of 4 done", "  [x] Fetch this month's statements"]
    assert "  Query: transactions over 1,000 USD this month" in lines
    assert "    Account 1234567890 (balance 2,500.00 USD)" in lines

    form = agent.chat()
    await asyncio.wait_for(form.send("Open a transfer form"), 30)
    await asyncio.wait_for(form.act("submit_transfer", {"/transfer/to": "12"}), 30)
    data = bundle(form.view)  # type: ignore[arg-type]
    lines = data["text/plain"].splitlines()
    surface = lines.index("Generated UI: a2ui-surface")
    assert lines[surface + 1 : surface + 4] == [
        "  Surface:",
        "    New transfer",
        "    From account: 1234567890",
    ]
    assert "    [Send money]" in lines
    assert "  Action: submit_transfer (done, by you) => success" in lines
    sid = form.view.items[2]["surfaces"][0]["surfaceId"]  # type: ignore[union-attr]
    assert sid not in data["text/plain"] and sid not in data["text/html"]  # a uuid: never shown
    assert_inert(data["text/html"])
