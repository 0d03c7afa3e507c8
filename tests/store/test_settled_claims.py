"""A settled claim never lapses: past its lease, a stale kernel's resume is still refused before
anything is sent.

The lease (``AGUI_NOTEBOOK_CLAIM_LEASE``) frees an interrupt whose claimant died before its resume
committed. Once a resume committed, its claim is settled and must hold for good: a kernel that
restored the thread before the decision still shows the interrupt pending, and its resume would
otherwise reach the server again, where a server that does not check resume ids (CrewAI's) runs the
tool twice. So the server here is the fault server in its behaving mode, which answers a repeated
resume with a success and counts every request.

Two kernels are OS processes of their own (claim_kernel.py), on both backends, with a one-second
lease: both restore the thread while it is pending; the first resumes and commits; once the claim's
lease is over (read from the store), the second resumes and is refused, and the server has seen one
resume.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agui_notebook._agent import Agent
from tests.reliability.fault_server import FaultServer
from tests.store._db import rows

pytestmark = pytest.mark.timeout(120)

KERNEL = Path(__file__).with_name("claim_kernel.py")
REPO = Path(__file__).resolve().parents[2]
TRANSFER = "Transfer $500 from 1234567890 to 0987654321"
LEASE_S = 1.0


@pytest.fixture
def server() -> Iterator[FaultServer]:
    server = FaultServer.start()
    try:
        yield server
    finally:
        server.stop()


async def _interrupted_thread(url: str, store: Path | str) -> str:
    agent = Agent(url, store=store)
    try:
        thread = agent.thread()
        assert (await thread.run(TRANSFER)).outcome == "interrupt"
        return thread.id
    finally:
        await agent.aclose()


class Kernel:
    """claim_kernel.py ``resume``: restores the thread now, resumes it when told."""

    def __init__(self, store: Path | str, url: str, thread_id: str, go: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO), "AGUI_NOTEBOOK_CLAIM_LEASE": str(LEASE_S)}
        self.go = go
        self.proc = subprocess.Popen(
            [sys.executable, str(KERNEL), "resume", str(store), url, thread_id, str(go)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO,
        )  # fmt: skip
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline().strip() == "ready", self.proc.stderr

    def resume(self) -> dict[str, Any]:
        """Let it resume; what it printed (``{"outcome"}`` or ``{"error", ...}``)."""
        self.go.touch()
        out, err = self.proc.communicate(timeout=60)
        assert self.proc.returncode == 0, err
        result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
        return result

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


def test_a_settled_claim_outlives_its_lease_and_a_stale_kernel_sends_nothing(
    store_path: Path | str, server: FaultServer, tmp_path: Path
) -> None:
    thread_id = asyncio.run(_interrupted_thread(server.url, store_path))
    first = Kernel(store_path, server.url, thread_id, tmp_path / "go-first")
    stale = Kernel(store_path, server.url, thread_id, tmp_path / "go-stale")
    try:
        done = first.resume()
        assert done.get("outcome") == "success", done
        ((settled, lease_until),) = rows(store_path, "SELECT settled, lease_until FROM claims")
        assert settled == 1
        while time.time() <= lease_until + 0.2:  # the lease is over, by the claimants' clock
            time.sleep(0.05)

        refused = stale.resume()
    finally:
        first.kill()
        stale.kill()

    assert refused.get("error") == "AlreadyDecided", (refused, f"{len(server.resumes)} resumes")
    assert refused["settled"] is True and "already decided by " in refused["message"]
    assert "nothing was sent" in refused["message"]
    assert len(server.resumes) == 1  # the stale kernel's never left it
    assert [s.body["threadId"] for s in server.log] == [thread_id, thread_id]
    assert rows(store_path, "SELECT settled FROM claims") == [(1,)]
