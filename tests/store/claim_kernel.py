"""A kernel on its own "machine" for test_claims.py (an OS process of its own).

python claim_kernel.py start STORE URL         run a transfer to its interrupt, print the
                                               thread id, then wait to be killed
python claim_kernel.py resume STORE URL ID GO  restore thread ID, wait until the file GO
                                               exists, resume it with approve() and print
                                               one JSON line: {"outcome"} or {"error", ...}
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

from agui_notebook import Agent, AGUIError, AlreadyDecided, approve

TRANSFER = "Transfer $500 from 1234567890 to 0987654321"


async def start(store: str, url: str) -> None:
    agent = Agent(url, store=store)
    thread = agent.thread()
    result = await thread.run(TRANSFER)
    assert result.outcome == "interrupt", result
    print(thread.id, flush=True)
    await asyncio.sleep(3600)  # until SIGKILL


async def resume(store: str, url: str, thread_id: str, go: Path) -> None:
    agent = Agent(url, store=store)
    thread = agent.thread(thread_id)
    assert [p.tool_name for p in thread.pending] == ["transfer_money"], thread.pending
    print("ready", flush=True)
    deadline = time.monotonic() + 60
    while not go.exists():
        if time.monotonic() > deadline:
            raise SystemExit("no go signal")
        time.sleep(0.001)  # spin: both resumes leave at the same moment
    try:
        result = await thread.resume(approve())
        out = {"outcome": result.outcome, "text": result.text}
    except AlreadyDecided as exc:
        out = {
            "error": "AlreadyDecided",
            "message": str(exc),
            "claimant": exc.claimant,
            "settled": exc.settled,
        }
    except AGUIError as exc:
        out = {"error": type(exc).__name__, "message": str(exc)}
    await agent.aclose()
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    command, *rest = sys.argv[1:]
    if command == "start":
        asyncio.run(start(rest[0], rest[1]))
    else:
        asyncio.run(resume(rest[0], rest[1], rest[2], Path(rest[3])))
