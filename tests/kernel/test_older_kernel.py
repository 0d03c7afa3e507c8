"""A real ipykernel 6.29.5 kernel: a click cannot reach a running cell there, so the turn goes on
in the background, and that is decided from the running kernel, not from installed metadata.

The kernel runs in ``.venv-ipykernel6`` (this package and ipykernel 6.29.5; scripts/test builds it,
or set AGUI_NOTEBOOK_IPYKERNEL6_PYTHON). As in test_kernel_click.py, this test plays the front end
over the widget comm: it reads the card from iopub and sends the click as a shell ``comm_msg``.
If the venv is missing the test fails: it never skips.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from queue import Empty
from typing import Any

import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

pytestmark = pytest.mark.kernel

REPO_ROOT = Path(__file__).resolve().parents[2]
PYTHON6 = os.environ.get(
    "AGUI_NOTEBOOK_IPYKERNEL6_PYTHON", str(REPO_ROOT / ".venv-ipykernel6" / "bin" / "python")
)
TRANSFER = "Transfer $500 from 1234567890 to 0987654321"


class Kernel:
    """One running kernel, its client, and what its widget comm said."""

    def __init__(self, km: KernelManager) -> None:
        self.km = km
        self.kc = km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=90)
        self.comm_id: str | None = None
        self.cards: dict[str, dict[str, Any]] = {}
        self.models: dict[str, dict[str, Any]] = {}  # comm id -> state: the view, its pages
        self.acks: list[dict[str, Any]] = []

    def run(self, code: str, timeout: float = 60) -> tuple[str, str, float]:
        """Execute ``code``; return (stdout, error text, seconds) once the kernel is idle."""
        started = time.monotonic()
        msg_id = self.kc.execute(code)
        out: list[str] = []
        error = ""
        deadline = started + timeout
        while time.monotonic() < deadline:
            try:
                msg = self.kc.get_iopub_msg(timeout=1)
            except Empty:
                continue
            self._watch(msg)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                out.append(content["text"])
            elif kind == "error":
                error = f"{content['ename']}: {content['evalue']}"
            elif kind == "status" and content["execution_state"] == "idle":
                return "".join(out), error, time.monotonic() - started
        raise AssertionError(f"the cell did not finish in {timeout}s: {''.join(out)}{error}")

    def pump(self, until: Any, timeout: float = 30) -> None:
        """Read iopub until ``until()`` is true."""
        deadline = time.monotonic() + timeout
        while not until():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; cards {self.cards}, acks {self.acks}")
            with contextlib.suppress(Empty):
                self._watch(self.kc.get_iopub_msg(timeout=0.5))

    def _watch(self, msg: dict[str, Any]) -> None:
        kind, content = msg["msg_type"], msg["content"]
        if kind == "comm_open" and content.get("target_name") == "jupyter.widget":
            state = content["data"].get("state", {})
            # The view (an anywidget) and its pages of items (plain widget models).
            if state.get("_model_name") in ("AnyModel", "WidgetModel"):
                self.models[content["comm_id"]] = dict(state)
                if "pages" in state:
                    self.comm_id = content["comm_id"]
        elif kind == "comm_msg" and content.get("comm_id") in self.models:
            data = content["data"]
            if data.get("method") == "update":
                self.models[content["comm_id"]].update(data.get("state", {}))
                # The view's items are its pages' ("IPY_MODEL_<comm id>" in its pages).
                refs = self.models.get(self.comm_id or "", {}).get("pages") or []
                for ref in refs:
                    page = self.models.get(ref.removeprefix("IPY_MODEL_"), {})
                    for item in page.get("items", []):
                        if item["kind"] == "card":
                            self.cards[item["id"]] = item
            elif data.get("method") == "custom" and content["comm_id"] == self.comm_id:
                self.acks.append(data["content"])

    def click(
        self, card: dict[str, Any], request_id: str, action: str = "approve", username: str = ""
    ) -> None:
        assert self.comm_id is not None
        decisions = {it["id"]: {"action": action} for it in card["interrupts"]}
        content = {"type": "decide", "requestId": request_id, "card": card["id"]}
        content["decisions"] = decisions
        message = self.kc.session.msg(
            "comm_msg",
            {"comm_id": self.comm_id, "data": {"method": "custom", "content": content}},
        )
        message["header"]["username"] = username  # "": a front end that names nobody
        self.kc.shell_channel.send(message)


@pytest.fixture(scope="module")
def kernel6(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    if not Path(PYTHON6).exists():
        pytest.fail(
            f"{PYTHON6} is missing: scripts/test builds .venv-ipykernel6 (this package and "
            "ipykernel==6.29.5), or set AGUI_NOTEBOOK_IPYKERNEL6_PYTHON"
        )
    kernels = tmp_path_factory.mktemp("kernels")
    spec = kernels / "ipykernel6"
    spec.mkdir()
    argv = [PYTHON6, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "ipykernel 6", "language": "python"})
    )
    km = KernelManager(
        kernel_name="ipykernel6", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)])
    )
    env = {k: v for k, v in os.environ.items() if k != "AGUI_NOTEBOOK_POLICY"}
    km.start_kernel(env=env)
    kernel = Kernel(km)
    try:
        yield kernel
    finally:
        kernel.kc.stop_channels()
        km.shutdown_kernel(now=True)


# The test's own fake of what `pip install` does to a running kernel: ipykernel 7.4.0's metadata
# on disk, ahead of the real one on sys.path, while the process keeps running 6.29.5.
METADATA_SAYS_74 = """
import importlib, importlib.metadata, sys, tempfile, pathlib
site = pathlib.Path(tempfile.mkdtemp())
info = site / "ipykernel-7.4.0.dist-info"
info.mkdir()
(info / "METADATA").write_text("Metadata-Version: 2.1\\nName: ipykernel\\nVersion: 7.4.0\\n")
sys.path.insert(0, str(site))
importlib.invalidate_caches()
import ipykernel
from agui_notebook._notebook.host import kernel_support
print("ON-DISK", importlib.metadata.version("ipykernel"))
print("RUNNING", ipykernel.__version__)
print("SUPPORT", kernel_support())
"""


def test_the_running_kernel_decides_not_what_is_installed(kernel6: Kernel) -> None:
    out, error, _ = kernel6.run(METADATA_SAYS_74)
    assert not error, error
    assert "ON-DISK 7.4.0" in out and "RUNNING 6.29.5" in out, out
    assert (
        "SUPPORT KernelSupport(kind='jupyter', in_kernel=True, can_wait=False, "
        "detail='ipykernel 6.29.5', ipykernel='6.29.5')" in out
    ), out


SEND = """
import os, sys
os.environ.pop("AGUI_NOTEBOOK_POLICY", None)
from agui_notebook import Agent
agent = Agent.demo(text_delay=0)
chat = agent.chat(timeout=60)
turn = await chat.send({message!r})
print("PREFIX", sys.prefix)
print("TURN", turn.outcome, turn.completed, turn.decided_by)
"""

WAIT = """
result = await chat.wait()
print("FINAL", result.outcome, result.completed, result.decided_by)
print("TEXT", result.text)
print("RESUMES", sum(1 for r in agent.demo_app.requests if (r["body"] or {}).get("resume")))
"""


def test_the_turn_goes_on_in_the_background_and_a_click_finishes_it(kernel6: Kernel) -> None:
    out, error, seconds = kernel6.run(SEND.format(message=TRANSFER))
    assert not error, error
    assert f"PREFIX {Path(PYTHON6).parent.parent}" in out, out  # the ipykernel 6 venv
    assert "TURN interrupt False None" in out, out  # the cell returned; nothing decided yet
    assert seconds < 30  # it did not wait out the 60 s timeout
    kernel6.pump(lambda: any(c.get("note") for c in kernel6.cards.values()))
    [card] = [c for c in kernel6.cards.values() if c["status"] == "pending"]
    assert (
        "This kernel (ipykernel 6.29.5) delivers a click only after the running cell has "
        in (card["note"])
    )
    assert "your decision continues the run here, in this output" in card["note"]

    # The cell has ended: the kernel hands the click over now, and the turn resumes.
    kernel6.click(card, "k6")
    kernel6.pump(lambda: any(a.get("requestId") == "k6" for a in kernel6.acks))
    assert {"type": "ack", "requestId": "k6", "accepted": True} in kernel6.acks
    out, error, _ = kernel6.run(WAIT)
    assert not error, error
    assert "FINAL success True you" in out, out
    assert "Transferred 500.00 USD" in out
    assert "RESUMES 1" in out
    kernel6.pump(lambda: kernel6.cards[card["id"]]["status"] == "done")  # the same output


def test_waiting_before_the_click_says_so_at_once(kernel6: Kernel) -> None:
    """A later cell awaiting chat.wait() holds the click back on ipykernel 6: it fails fast and
    says why; the card stays live and a click afterwards still resumes the thread."""
    kernel6.cards.clear()
    out, error, _ = kernel6.run(SEND.format(message=TRANSFER.replace("500", "70")))
    assert not error and "TURN interrupt" in out, (out, error)
    kernel6.pump(lambda: any(c["status"] == "pending" for c in kernel6.cards.values()))
    [card] = [c for c in kernel6.cards.values() if c["status"] == "pending"]
    out, error, seconds = kernel6.run(WAIT)
    assert error.startswith("NobodyCanClick: "), (out, error)
    assert "ipykernel 6.29.5" in error and "run this cell again" in error
    assert seconds < 15  # not the 60 s timeout
    kernel6.click(card, "k6-after")
    kernel6.pump(lambda: any(a.get("requestId") == "k6-after" for a in kernel6.acks))
    out, error, _ = kernel6.run(WAIT)
    assert not error, error
    assert "FINAL success True you" in out and "Transferred 70.00 USD" in out, out


def test_the_clickers_header_username_names_them_on_ipykernel_6(kernel6: Kernel) -> None:
    """ipykernel 6.29.5 also exposes the comm message's header while the click is handled: the
    audit names the person in it (identity "server") beside the kernel's own user."""
    kernel6.cards.clear()
    out, error, _ = kernel6.run(SEND.format(message=TRANSFER.replace("500", "60")))
    assert not error and "TURN interrupt" in out, (out, error)
    kernel6.pump(lambda: any(c["status"] == "pending" for c in kernel6.cards.values()))
    [card] = [c for c in kernel6.cards.values() if c["status"] == "pending"]
    kernel6.run('import os\nos.environ["AGUI_NOTEBOOK_SERVER_IDENTITY"] = "stamped"')
    kernel6.click(card, "k6-ada", username="ada")
    kernel6.pump(lambda: any(a.get("requestId") == "k6-ada" for a in kernel6.acks))
    out, error, _ = kernel6.run(
        WAIT + "r = chat.audit[-1]\nprint('WHO', r['decided_by'], r['identity'], r['kernel_user'])"
        "\nimport getpass\nprint('KERNEL', getpass.getuser())"
    )
    assert not error, error
    assert "FINAL success True ada" in out, out
    kernel_user = out.split("KERNEL ", 1)[1].split()[0]
    assert f"WHO ada server {kernel_user}" in out, out
    kernel6.pump(lambda: kernel6.cards[card["id"]]["status"] == "done")
    assert kernel6.cards[card["id"]]["decidedBy"] == "ada"
