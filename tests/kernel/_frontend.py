"""A real kernel (jupyter_client) driven the way a notebook front end drives it.

Runs cells, watches iopub for the chat views' widget comms and their cards, clicks a card with
the shell ``comm_msg`` (``method: custom``) that js/chat.js's ``model.send`` produces, and kills
the kernel process with SIGKILL when a test needs a crash.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from queue import Empty
from typing import Any

from jupyter_client.manager import start_new_kernel


class Kernel:
    def __init__(self) -> None:
        self.km, self.kc = start_new_kernel(startup_timeout=90, kernel_name="python3")
        # comm id -> the model's state, as the comm messages built it: the chat views (their
        # `pages` refer to page models by "IPY_MODEL_<comm id>") and their pages (`items`).
        self.models: dict[str, dict[str, Any]] = {}
        self.displayed: set[str] = set()  # comm ids shown in an output
        self.stdout: dict[str, list[str]] = {}  # msg id -> text printed by that cell
        self.errors: dict[str, str] = {}
        self.idle: set[str] = set()
        self.acks: list[dict[str, Any]] = []
        out = self.run("import sys; print(sys.prefix)")
        assert out.strip() == sys.prefix, f"the kernel is not this venv's: {out!r}"

    @property
    def pid(self) -> int:
        process = getattr(self.km.provisioner, "process", None)
        assert process is not None, "no kernel process"
        return int(process.pid)

    # -- cells ------------------------------------------------------------------------------

    def start(self, code: str) -> str:
        msg_id: str = self.kc.execute(code)
        self.stdout[msg_id] = []
        return msg_id

    def output(self, msg_id: str) -> str:
        return "".join(self.stdout.get(msg_id, []))

    def run(self, code: str, timeout: float = 120) -> str:
        """Run a cell to its end; return what it printed (fails on an error in the cell)."""
        msg_id = self.start(code)
        self.pump(lambda: msg_id in self.idle, timeout, f"the cell did not finish: {code[:80]!r}")
        if msg_id in self.errors:
            raise AssertionError(f"the cell failed: {self.errors[msg_id]}\n{self.output(msg_id)}")
        return self.output(msg_id)

    # -- iopub ------------------------------------------------------------------------------

    def pump(self, until: Callable[[], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not until():
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} (within {timeout:g} s); printed: {self.stdout}")
            try:
                msg = self.kc.get_iopub_msg(timeout=0.5)
            except Empty:
                continue
            self._handle(msg)

    def _handle(self, msg: dict[str, Any]) -> None:
        kind = msg["msg_type"]
        content = msg["content"]
        parent = msg["parent_header"].get("msg_id")
        if kind == "comm_open" and content.get("target_name") == "jupyter.widget":
            state = content["data"].get("state", {})
            # The view (an anywidget) and its pages of items (plain widget models).
            if state.get("_model_name") in ("AnyModel", "WidgetModel"):
                self.models[content["comm_id"]] = dict(state)
        elif kind == "comm_msg" and content.get("comm_id") in self.models:
            data = content["data"]
            if data.get("method") == "update":
                self.models[content["comm_id"]].update(data.get("state", {}))
            elif data.get("method") == "custom":
                self.acks.append(data["content"])
        elif kind in ("display_data", "execute_result"):
            view = content["data"].get("application/vnd.jupyter.widget-view+json")
            if view:
                self.displayed.add(view["model_id"])
        elif kind == "stream" and parent in self.stdout:
            self.stdout[parent].append(content["text"])
        elif kind == "error" and parent in self.stdout:
            self.errors[parent] = f"{content['ename']}: {content['evalue']}"
        elif kind == "status" and content["execution_state"] == "idle" and parent:
            self.idle.add(parent)

    @property
    def views(self) -> dict[str, list[dict[str, Any]]]:
        """comm id -> the chat view's items: its pages' items, one page after another."""
        out: dict[str, list[dict[str, Any]]] = {}
        for comm_id, state in self.models.items():
            if "pages" in state:
                out[comm_id] = [
                    item
                    for ref in state["pages"] or []
                    for item in self.models.get(ref.removeprefix("IPY_MODEL_"), {}).get("items", [])
                ]
        return out

    def cards(self, status: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        """(comm id, card) for every card shown, optionally only those with ``status``."""
        return [
            (comm, item)
            for comm, items in self.views.items()
            for item in items
            if item.get("kind") == "card" and (status is None or item.get("status") == status)
        ]

    def wait_for_card(
        self, status: str = "pending", timeout: float = 60
    ) -> tuple[str, dict[str, Any]]:
        self.pump(lambda: bool(self.cards(status)), timeout, f"no {status} card")
        return self.cards(status)[-1]

    def click(
        self,
        comm_id: str,
        card: dict[str, Any],
        action: str = "approve",
        *,
        username: str = "",
        request_id: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        """Click as the front end does. ``username`` goes in the message header, as a Jupyter
        front end writes it (JupyterLab 4.6 sends "" unless its session was given a user name);
        ``extra`` adds keys to the message content (a widget's own claims, never trusted)."""
        decisions = {it["id"]: {"action": action} for it in card["interrupts"]}
        message = self.kc.session.msg(
            "comm_msg",
            {
                "comm_id": comm_id,
                "data": {
                    "method": "custom",
                    "content": {
                        "type": "decide",
                        "requestId": request_id or f"click-{card['id']}",
                        "card": card["id"],
                        "decisions": decisions,
                        **(extra or {}),
                    },
                },
            },
        )
        message["header"]["username"] = username
        self.kc.shell_channel.send(message)

    # -- ending -----------------------------------------------------------------------------

    def kill(self) -> None:
        """SIGKILL the kernel process: no cleanup, no atexit, no flush (a crash)."""
        pid = self.pid
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while self.km.is_alive():
            if time.monotonic() > deadline:
                raise AssertionError(f"kernel {pid} survived SIGKILL")
            time.sleep(0.05)
        self.close()

    def close(self) -> None:
        self.kc.stop_channels()
        if self.km.is_alive():
            self.km.shutdown_kernel(now=True)
        else:
            self.km.cleanup_resources()
