"""WebSocket vs HTTP+SSE: the same events through both transports, over loopback, in one run.

    python bench/ws_vs_sse.py                   # 50k events of the "project" mix, 5 rounds
    python bench/ws_vs_sse.py --events 100000 --rounds 3

A server process (this file with ``--serve``, uvicorn on 127.0.0.1, so it does not share the
client's interpreter) generates the mix once and serves it three ways:

(s)   ``POST /``: HTTP+SSE, the encoded stream in 16 KiB chunks
(w)   WebSocket ``/``: one bare JSON event per text frame (the open AG-UI proposal's framing)
(wa)  WebSocket ``/sse``: one SSE-encoded event per text frame (AWS Bedrock AgentCore's framing)

The client runs ``Agent(url).thread().run("go")`` on each (decoded, parsed, verified, reduced),
interleaved, ``--rounds`` times; the medians are reported in events per second with the ratios
w/s and wa/s. (r) is the floor of the WebSocket side: a bare ``websockets`` loop that receives
the frames of (w) and does nothing with them.

A WebSocket frame costs more than its share of a 16 KiB chunk (a frame to parse, one ``recv`` and
one trip through the run loop per event, and the server's send per event), so per event the
WebSocket is slower on small events; (r) shows how much of that is the library and the server
alone. Target: w/s >= 0.4 and wa/s >= 0.4 (the WebSocket within 2.5x of SSE per event). Exits 1
below it (or when a run fails).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _agui_stream import MIXES, encode, rechunk

TARGET = 0.4


# ----------------------------------------------------------------------------------- server


def serve(port: int, events: int, mix: str) -> None:
    import json

    import uvicorn

    frames = [json.dumps(e, separators=(",", ":")) for e in MIXES[mix][0](events)]
    sse_frames = [f"data: {f}\n\n" for f in frames]
    chunks = list(rechunk(encode(MIXES[mix][0](events))))

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            return
        if scope["type"] == "http":
            while (await receive()).get("more_body"):
                pass
            headers = [(b"content-type", b"text/event-stream")]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            for chunk in chunks:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
            return
        if scope["type"] == "websocket":
            await receive()  # connect
            await send({"type": "websocket.accept"})
            await receive()  # the RunAgentInput
            for text in sse_frames if scope["path"] == "/sse" else frames:
                await send({"type": "websocket.send", "text": text})
            await send({"type": "websocket.close", "code": 1000})

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off", ws="auto")


# ----------------------------------------------------------------------------------- client


async def one_run(url: str, events: int) -> float:
    from agui_notebook import Agent

    agent = Agent(url, store=None, timeout=120.0)
    thread = agent.thread("bench-thread")
    started = time.perf_counter()
    result = await thread.run("go")
    elapsed = time.perf_counter() - started
    await agent.aclose()
    if result.outcome != "success" or len(result.events) < min(events, 10_000):
        raise RuntimeError(f"{url}: {result.outcome}, {len(result.events)} events")
    return elapsed


async def raw_run(url: str, events: int) -> float:
    from websockets.asyncio.client import connect

    started = time.perf_counter()
    count = 0
    async with connect(url, max_size=None, compression=None) as ws:
        await ws.send("{}")
        async for _ in ws:
            count += 1
    if count != events:
        raise RuntimeError(f"{url}: {count} frames")
    return time.perf_counter() - started


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_ready(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("the bench server exited")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the bench server did not start")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--mix", choices=sorted(MIXES), default="project")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.events, args.mix)
        return 0
    os.environ.setdefault("AGUI_NOTEBOOK_STORE", "off")
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(port), "--events", str(args.events),
         "--mix", args.mix],
    )  # fmt: skip
    try:
        wait_ready(port, process)
        urls = {
            "s": f"http://127.0.0.1:{port}/",
            "w": f"ws://127.0.0.1:{port}/",
            "wa": f"ws://127.0.0.1:{port}/sse",
        }
        times: dict[str, list[float]] = {k: [] for k in urls}
        asyncio.run(one_run(urls["s"], args.events))  # warm up both sides
        for _ in range(args.rounds):
            for key, url in urls.items():
                times[key].append(asyncio.run(one_run(url, args.events)))
            times.setdefault("r", []).append(asyncio.run(raw_run(urls["w"], args.events)))
    finally:
        process.terminate()
        process.wait(timeout=10)
    rate = {k: args.events / statistics.median(v) for k, v in times.items()}
    print(f"{args.events} events ({args.mix}), {args.rounds} interleaved rounds, medians")
    print(f"python {platform.python_version()}, {os.cpu_count()} cores, loopback")
    labels = {
        "s": "HTTP+SSE",
        "w": "WebSocket, bare JSON",
        "wa": "WebSocket, SSE-encoded",
        "r": "floor: websockets recv",
    }
    for key in labels:
        print(f"  ({key:>2}) {labels[key]:<24} {rate[key]:>10,.0f} events/s")
    ratios = {k: rate[k] / rate["s"] for k in ("w", "wa")}
    print(f"  w/s = {ratios['w']:.2f}, wa/s = {ratios['wa']:.2f} (target >= {TARGET})")
    below = [k for k, r in ratios.items() if r < TARGET]
    if below:
        print(f"below target: {', '.join(below)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
