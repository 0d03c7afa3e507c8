"""Make the committed recordings of real servers (tests/fixtures/recordings/).

Run from the repository root with the interop extras installed::

    python -m tests.record.make_recordings

``msaf_transfer_approve.jsonl``: Microsoft Agent Framework's AG-UI server (tests/servers/
msaf_server.py, agent-framework-ag-ui) asked for a transfer, the interrupt approved, the
transfer done -- recorded through ``agui_notebook.record.record`` and our own client.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agui_notebook import Agent, approve
from agui_notebook.record import record

RECORDINGS = Path(__file__).resolve().parents[1] / "fixtures" / "recordings"
MSAF_TRANSFER_APPROVE = RECORDINGS / "msaf_transfer_approve.jsonl"
#: What the committed recording was made with, so a replay can send the same.
MSAF_TRANSFER_TEXT = "Transfer 100 USD from checking to savings"
MSAF_TRANSFER_RESULT = "Done: Transferred 100.00 USD from checking to savings"


async def record_msaf_transfer_approve(url: str, path: Path) -> list[Any]:
    """Record run + approve against the Microsoft server at ``url``; the two RunResults."""
    async with record(Agent(url), path) as agent:
        thread = agent.thread()
        first = await thread.run(MSAF_TRANSFER_TEXT)
        assert first.outcome == "interrupt", first
        second = await thread.resume(approve())
        assert second.outcome == "success", second
        return [first, second]


def main() -> None:
    from tests.servers.msaf_server import start_server

    with start_server() as handle:
        results = asyncio.run(record_msaf_transfer_approve(handle.url, MSAF_TRANSFER_APPROVE))
        assert handle.executions == [("transfer_money", handle.executions[0][1])]
    print(f"wrote {MSAF_TRANSFER_APPROVE}: {results[-1].text!r}")


if __name__ == "__main__":
    main()
