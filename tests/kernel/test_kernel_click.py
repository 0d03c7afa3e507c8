"""A real kernel: the cell awaits the card while a simulated front end clicks.

jupyter_client starts the project's own ipykernel; this test plays the front end's part of the
widget protocol: it watches iopub for the view's comm and state, and sends the click as a shell
``comm_msg`` (``method: custom``), exactly what the front end's ``model.send`` produces. It proves,
on the installed ipykernel, that the click reaches Python while the cell is still running and
that the resumed run finishes in the same cell.
"""

from __future__ import annotations

import sys
import time
from queue import Empty
from typing import Any

import pytest
from jupyter_client.manager import start_new_kernel

pytestmark = pytest.mark.kernel

CELL = """
import os
os.environ.pop("AGUI_NOTEBOOK_POLICY", None)
from agui_notebook import Agent
agent = Agent.demo(text_delay=0)
chat = agent.chat(timeout=60)
result = await chat.send("Transfer $500 from 1234567890 to 0987654321")
print("OUTCOME", result.outcome)
print("TEXT", result.text)
print("RESUMES", sum(1 for r in agent.demo_app.requests if (r["body"] or {}).get("resume")))
"""


def _items(models: dict[str, dict[str, Any]], view: str | None) -> list[dict[str, Any]]:
    """The view's items: its pages' (``pages`` refers to them as "IPY_MODEL_<comm id>")."""
    refs = models.get(view or "", {}).get("pages") or []
    return [
        item
        for ref in refs
        for item in models.get(ref.removeprefix("IPY_MODEL_"), {}).get("items", [])
    ]


def test_click_reaches_the_awaiting_cell_and_the_run_finishes_there() -> None:
    km, kc = start_new_kernel(startup_timeout=60, kernel_name="python3")
    try:
        check = kc.execute_interactive(
            "import sys; print(sys.prefix)",
            timeout=30,
            output_hook=lambda m: _collect(m, prefix_out),
        )
        assert check["content"]["status"] == "ok"
        assert prefix_out and prefix_out[0].strip() == sys.prefix, "kernel is not the venv's"

        msg_id = kc.execute(CELL)
        comm_id: str | None = None
        card: dict[str, Any] | None = None
        clicked_at: float | None = None
        stdout: list[str] = []
        acks: list[dict[str, Any]] = []
        models: dict[str, dict[str, Any]] = {}  # comm id -> state: the view and its pages
        deadline = time.monotonic() + 90
        done = False
        while not done and time.monotonic() < deadline:
            try:
                msg = kc.get_iopub_msg(timeout=1)
            except Empty:
                continue
            kind = msg["msg_type"]
            content = msg["content"]
            if kind == "comm_open" and content.get("target_name") == "jupyter.widget":
                state = content["data"].get("state", {})
                # The view (an anywidget) and its pages of items (plain widget models).
                if state.get("_model_name") in ("AnyModel", "WidgetModel"):
                    models[content["comm_id"]] = dict(state)
                    if "pages" in state:
                        comm_id = content["comm_id"]
            elif kind == "comm_msg" and content.get("comm_id") in models:
                data = content["data"]
                if data.get("method") == "update":
                    models[content["comm_id"]].update(data.get("state", {}))
                    for item in _items(models, comm_id):
                        if item["kind"] == "card" and item["status"] == "pending" and card is None:
                            card = item
                elif data.get("method") == "custom" and content["comm_id"] == comm_id:
                    acks.append(data["content"])
            elif kind == "stream" and msg["parent_header"].get("msg_id") == msg_id:
                stdout.append(content["text"])
            elif (
                kind == "status"
                and content["execution_state"] == "idle"
                and (msg["parent_header"].get("msg_id") == msg_id)
            ):
                done = True
            if card is not None and clicked_at is None:
                assert comm_id is not None
                decisions = {it["id"]: {"action": "approve"} for it in card["interrupts"]}
                click = kc.session.msg(
                    "comm_msg",
                    {
                        "comm_id": comm_id,
                        "data": {
                            "method": "custom",
                            "content": {
                                "type": "decide",
                                "requestId": "k1",
                                "card": card["id"],
                                "decisions": decisions,
                            },
                        },
                    },
                )
                kc.shell_channel.send(click)
                clicked_at = time.monotonic()
        assert done, "the cell did not finish"
        assert clicked_at is not None, "no card was shown"
        out = "".join(stdout)
        assert "OUTCOME success" in out, out
        assert "Transferred 500.00 USD" in out
        assert "RESUMES 1" in out
        assert acks and acks[0] == {"type": "ack", "requestId": "k1", "accepted": True}
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


prefix_out: list[str] = []


def _collect(msg: dict[str, Any], sink: list[str]) -> None:
    if msg["msg_type"] == "stream":
        sink.append(msg["content"]["text"])
