"""The loopback demo agent the browser tests talk to, with a record of every request it received.

The demo runs *inside the pytest process* (`start_in_thread`), wrapped in a tiny ASGI middleware
that stamps each request's arrival time, so a test can count the resumes a thread received (the
agent "transferred once") and time them; the notebooks talk to it with `Agent(url)`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from agui_notebook.demo import create_app, start_in_thread


@dataclass
class Arrival:
    time: float  # time.time() when the request's headers reached the app
    body: Any


@dataclass
class TimedDemo:
    """A loopback demo server; `arrivals` lists every request with its arrival time."""

    url: str
    app: Any
    arrivals: list[Arrival] = field(default_factory=list)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        arrived = time.time()
        messages: list[Any] = []
        while True:  # read the body here, then replay it to the app
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request" or not message.get("more_body"):
                break
        raw = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request")
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        self.arrivals.append(Arrival(arrived, body))

        async def replay() -> Any:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)

    def requests(self, thread: str) -> list[Arrival]:
        return [
            a
            for a in self.arrivals
            if isinstance(a.body, dict) and a.body.get("threadId") == thread
        ]

    def resumes(self, thread: str) -> list[Arrival]:
        return [a for a in self.requests(thread) if a.body.get("resume")]

    def wait_for_resumes(self, thread: str, count: int, timeout: float = 30.0) -> list[Arrival]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.resumes(thread)
            if len(got) >= count:
                return got
            time.sleep(0.005)
        raise AssertionError(
            f"the server received {len(self.resumes(thread))} resume(s) on {thread}, "
            f"expected {count}; requests: {[a.body for a in self.requests(thread)]}"
        )


def start_demo(**options: Any) -> Iterator[TimedDemo]:
    app = create_app(text_delay=0.0, **options)
    demo = TimedDemo(url="", app=app)
    url, stop = start_in_thread(app=demo)  # type: ignore[arg-type]  # any ASGI app serves
    demo.url = url
    yield demo
    stop()
