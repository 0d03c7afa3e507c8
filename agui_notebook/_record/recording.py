"""Recording: a transport that runs through another and writes what passes (``record``).

:class:`RecordingTransport` wraps any transport (``_transports.base``) and writes each run it
opens as it happens (``_record.file``): the request body, every event text the transport hands
over, how the stream ended, or the error that kept it from opening; a capabilities request too.
It reads nothing below the seam, so a WebSocket run records as an HTTP+SSE one does.

Secrets are never written (issue 8): headers are not written at all, credential-like keys in
``forwardedProps`` are redacted, and every line is scrubbed of the credentials the transport
knows (its headers', its URL's, its client's, each request's), a token a server echoes split
across streamed deltas included.
"""

from __future__ import annotations

import os
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from .._agent import Agent
from .._protocol.guards import EventGuard
from .._protocol.secrets import Scrubber, redact_body
from .._transports.base import EventStream, Transport
from .file import NOT_JSON, Writer, error_fields, header, parse_json

__all__ = ["RecordingTransport", "record"]


class RecordingTransport:
    """A transport that runs through ``transport`` and writes each run to ``path`` (replaced).

    >>> inner = WebSocketTransport(url, headers=..., http_client=None, timeout=None)  # doctest: +SKIP
    >>> agent = Agent(url, transport=RecordingTransport("chat.jsonl", inner, url=url))  # doctest: +SKIP

    :func:`record` makes one for an agent. ``url`` (the agent's) goes in the file's first line,
    redacted. Runs on every thread go to the one file, numbered in the order they are opened;
    ``aclose`` closes ``transport`` too.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        transport: Transport | None = None,
        *,
        url: str | None = None,
        client: object = None,
    ) -> None:
        if transport is None or client is not None:
            # It was an httpx transport until issue 42 (``RecordingTransport(path, client=...)``
            # inside an ``httpx.AsyncClient``): say what replaced it instead of a bare TypeError.
            raise TypeError(
                "RecordingTransport wraps an AG-UI transport: RecordingTransport(path, transport); "
                "it is no longer an httpx transport. To record an agent use record(agent, path); "
                "with your own httpx client, record(Agent(url, http_client=client), path)."
            )
        self.path = Path(path)
        #: The transport the runs really go through.
        self.transport = transport
        self._writer = Writer(path, header(url))
        self._count = 0
        self._count_lock = threading.Lock()

    @property
    def scrubber(self) -> Scrubber:
        return self.transport.scrubber

    def known_scrubber(self) -> Scrubber:
        return self.transport.known_scrubber()

    async def aclose(self) -> None:
        await self.transport.aclose()

    def _next(self) -> int:
        with self._count_lock:
            self._count += 1
            return self._count

    def _learn(self, scrubber: Scrubber) -> None:
        self._writer.add_secrets(scrubber.secrets)

    @asynccontextmanager
    async def open(
        self, body: bytes, *, forwarded_props: Any = None, max_event_bytes: int
    ) -> AsyncIterator[RecordedEvents]:
        """The wrapped transport's run, written: its request now, its events as they pass."""
        n = self._next()
        self._learn(self.transport.known_scrubber())
        sent = parse_json(body)
        self._writer.write(
            {
                "kind": "request",
                "n": n,
                "op": "run",
                "body": redact_body(sent)
                if sent is not NOT_JSON
                else body.decode("utf-8", "replace"),
            }
        )
        events: RecordedEvents | None = None
        try:
            async with self.transport.open(
                body, forwarded_props=forwarded_props, max_event_bytes=max_event_bytes
            ) as stream:
                self._learn(self.transport.scrubber)  # what this request carried, auth included
                events = RecordedEvents(stream, self._writer, n)
                yield events
        except Exception as error:
            if events is None:  # the run never opened
                self._learn(self.transport.scrubber)
                self._writer.write({"kind": "error", "n": n, **error_fields(error)})
            raise
        finally:
            if events is not None:
                events.end()

    async def capabilities(self) -> str | None:
        """The wrapped transport's capabilities document (None when it has none or cannot
        ask), written as a request of its own."""
        n = self._next()
        self._writer.write({"kind": "request", "n": n, "op": "capabilities"})
        ask = getattr(self.transport, "capabilities", None)
        try:
            document: str | None = await ask() if ask is not None else None
        except Exception as error:
            self._learn(self.transport.scrubber)
            self._writer.write({"kind": "error", "n": n, **error_fields(error)})
            raise
        self._learn(self.transport.scrubber)
        if document is not None:
            self._writer.write({"kind": "body", "n": n, "text": document})
        self._writer.write({"kind": "end", "n": n, "complete": True})
        return document


class RecordedEvents:
    """The wrapped stream's batches, handed on unchanged, each event written on the way."""

    def __init__(self, stream: EventStream, writer: Writer, n: int) -> None:
        self._stream = stream
        self._iterator: AsyncIterator[list[str]] | None = None
        self._writer = writer
        self._n = n
        # A secret split across streamed deltas is joined (and scrubbed) before it is written.
        scrubber = writer.scrubber
        self._guard = (
            EventGuard(scrubber, _wire_events, _wire_type, wire=True) if scrubber else None
        )
        self._exhausted = False
        self._ended = False

    def __aiter__(self) -> RecordedEvents:
        return self

    async def __anext__(self) -> list[str]:
        if self._iterator is None:
            self._iterator = self._stream.__aiter__()
        try:
            batch = await self._iterator.__anext__()
        except StopAsyncIteration:
            self._exhausted = True
            raise
        except Exception as error:
            self.end(error)
            raise
        self._write(batch)
        return batch

    def finish(self) -> list[str]:
        try:
            tail = self._stream.finish()
        except Exception as error:
            self.end(error)
            raise
        self._write(tail)
        return tail

    @property
    def bytes_received(self) -> int:
        return self._stream.bytes_received

    @property
    def in_message(self) -> bool:
        return self._stream.in_message

    def _write(self, texts: list[str]) -> None:
        for text in texts:
            data = parse_json(text)
            if data is NOT_JSON:
                self._writer.write({"kind": "event", "n": self._n, "raw": text})
            elif self._guard is None:
                self._writer.write({"kind": "event", "n": self._n, "data": data})
            else:
                for event in self._guard.apply([data]):
                    self._writer.write({"kind": "event", "n": self._n, "data": event})

    def end(self, error: BaseException | None = None) -> None:
        """Write how the stream ended (once): read to its end, broken by ``error``, or left
        early by the client (the run closed, or was aborted)."""
        if self._ended:
            return
        self._ended = True
        line: dict[str, Any] = {
            "kind": "end",
            "n": self._n,
            "complete": self._exhausted and error is None,
            # What a replay reports where the stream ended, whatever carried it live.
            "bytes": self._stream.bytes_received,
        }
        if self._stream.in_message:
            line["inside"] = True
        if error is not None:
            line.update(error_fields(error))
        self._writer.write(line)


def _wire_events(data: str) -> list[Any]:
    return [parse_json(data)]


def _wire_type(event: Any) -> Any:
    return event.get("type") if isinstance(event, dict) else None


def record(agent: Agent, path: str | os.PathLike[str]) -> Agent:
    """A new Agent like ``agent`` (the same URL, transport and options) that records to ``path``.

    >>> recorded = record(Agent("http://127.0.0.1:8000/"), "chat.jsonl")   # doctest: +SKIP
    >>> await recorded.thread().run("Transfer $500 from 1234567890 to 0987654321")  # doctest: +SKIP

    The file is replaced. Requests on every thread of the new agent go to the one file, numbered in
    the order they are sent (replay expects them in that order). Any transport records: HTTP+SSE,
    WebSocket, your own. The new agent shares ``agent``'s transport (its connections, its
    credentials); closing it closes that transport, which opens again when ``agent`` runs.
    """
    transport = RecordingTransport(path, agent.transport, url=agent.url)
    recorded = Agent(
        agent.url,
        transport=transport,
        idle_timeout=agent.idle_timeout,
        send_history=agent.send_history,
        max_events_kept=agent.max_events_kept,
        max_event_bytes=agent.max_event_bytes,
        strict=agent.strict,
    )
    recorded.demo_app = agent.demo_app
    return recorded
