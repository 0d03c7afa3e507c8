"""The demo agent in its own process for a benchmark, as a real agent runs (bench/turns.py): in
the client's interpreter its own work (it validates the whole history it receives on every run)
and the garbage that leaves would be counted as the client's.

    python bench/_demo_server.py PORT_FILE     # serves until killed; the port goes in PORT_FILE
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from typing import Any


def serve_demo(port_file: str) -> None:
    """The demo agent on a free loopback port (written to ``port_file``) until killed."""
    import uvicorn

    from agui_notebook.demo._app import DemoApp
    from agui_notebook.demo._options import DemoOptions

    app = DemoApp(DemoOptions(text_delay=0))

    async def forgetful(scope: Any, receive: Any, send: Any) -> None:
        try:
            await app(scope, receive, send)
        finally:
            app.requests.clear()  # every body kept is a test aid, not a chat's cost

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    with open(port_file + ".tmp", "w") as f:
        f.write(str(sock.getsockname()[1]))
    os.replace(port_file + ".tmp", port_file)
    config = uvicorn.Config(forgetful, log_level="warning", lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])


class DemoProcess:
    """The demo agent in its own process, and its CPU time (utime + stime from /proc)."""

    def __init__(self, tmp: str) -> None:
        port_file = os.path.join(tmp, "port")
        self.process = subprocess.Popen([sys.executable, __file__, port_file])
        deadline = time.monotonic() + 30
        while not os.path.exists(port_file):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the demo server did not start")
            time.sleep(0.05)
        with open(port_file) as f:
            self.url = f"http://127.0.0.1:{f.read()}/"
        self._tick = os.sysconf("SC_CLK_TCK")

    def cpu(self) -> float:
        with open(f"/proc/{self.process.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / self._tick

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


if __name__ == "__main__":
    serve_demo(sys.argv[1])
