"""A process that writes many threads to one store at once (run by test_concurrency.py).

    python store_writer.py STORE NAME THREADS ROUNDS GO_FILE

Waits until GO_FILE exists (so two writers start together), then runs THREADS threads at once on
one event loop against the in-process demo agent, each ROUNDS times a transfer to its interrupt
and its approval (two committed runs and one decision in the audit log per round). Prints one
JSON line: {"name", "threads": [ids], "warnings": [...]}.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
import warnings
from pathlib import Path

from agui_notebook import Agent, approve


async def main(store: str, name: str, count: int, rounds: int, go: Path) -> None:
    agent = Agent.demo(text_delay=0, store=store)
    print("ready", flush=True)
    deadline = time.monotonic() + 60
    while not go.exists():
        if time.monotonic() > deadline:
            raise SystemExit("no go signal")
        await asyncio.sleep(0.01)

    async def one(n: int) -> str:
        thread = agent.thread(f"{name}-{n}")
        for _ in range(rounds):
            first = await thread.run(f"Transfer ${n + 1} from 1234567890 to 0987654321")
            assert first.outcome == "interrupt", first
            done = await thread.resume(approve())
            assert done.outcome == "success", done
        return thread.id

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ids = await asyncio.gather(*(one(n) for n in range(count)))
    print(json.dumps({"name": name, "threads": ids, "warnings": [str(w.message) for w in caught]}))


if __name__ == "__main__":
    store, name, count, rounds, go = sys.argv[1:6]
    asyncio.run(main(store, name, int(count), int(rounds), Path(go)))
