"""Replay: a transport that serves a recording in-process, checking every request (``replay``).

:class:`ReplayTransport` is a transport (``_transports.base``) with no server and no socket.
Each run it opens must be the next one recorded, else :class:`ReplayMismatch` names the first
difference (``_record.matching``); it then hands over the recorded events (ids mapped to the
live ones, expiries moved to now) and fails where the recorded run failed, with the error the
live run had. The events are framed as SSE and decoded as the HTTP transport decodes them,
whatever carried them live: one decoder, the same limits and byte counts.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from .._agent import Agent
from .._decisions.interrupts import parse_expiry
from .._errors import AGUIError
from .._protocol.secrets import EMPTY, Scrubber
from .._transports.base import StreamCut
from .._transports.http import SSEEvents, capabilities_url, safe_url
from . import legacy
from .file import NOT_JSON, Exchange, load_recording, parse_json, rebuild_error
from .matching import IdMap, describe, describe_live, differences, map_ids

__all__ = ["ReplayMismatch", "ReplayTransport", "replay"]


class ReplayMismatch(AGUIError):
    """A replayed request differs from the recorded one (or goes beyond the recording).

    ``request`` is its 1-based number; ``path`` the JSON path of the first difference (None when
    the request itself is extra).
    """

    hint = "The notebook no longer sends what was recorded: record it again, or fix the change."

    def __init__(self, message: str, *, request: int, path: str | None = None) -> None:
        self.request = request
        self.path = path
        super().__init__(message)


class ReplayTransport:
    """Serves a recording in-process, checking each request against the recorded one.

    >>> transport = ReplayTransport("chat.jsonl")          # doctest: +SKIP
    >>> agent = transport.agent()                           # doctest: +SKIP
    >>> ...                                                 # doctest: +SKIP
    >>> transport.assert_complete()                         # every recorded request was made

    ``strict=False`` serves the recorded responses in order without comparing the requests.
    """

    def __init__(self, path: str | os.PathLike[str], *, strict: bool = True) -> None:
        self.path = Path(path)
        self.header, self.exchanges = load_recording(path)
        self.strict = strict
        self.served = 0
        self.ids = IdMap()
        created = self.header.get("created")
        self.created = parse_expiry(created) if isinstance(created, str) else None
        self._lock = threading.Lock()  # held without awaiting: safe on any loop
        #: Nothing is sent, and the recording holds no credential: nothing to scrub.
        self.scrubber: Scrubber = EMPTY

    @property
    def url(self) -> str:
        """The recorded agent URL (redacted), or a placeholder."""
        first = self.exchanges[0].request.get("url") if self.exchanges else None
        return str(self.header.get("url") or first or "http://agui-replay.invalid/")

    @property
    def remaining(self) -> int:
        """How many recorded requests have not been made yet."""
        return len(self.exchanges) - self.served

    def agent(self, **options: Any) -> Agent:
        """An Agent on this recording (``options`` as for :class:`Agent`).

        It keeps no store unless given ``store=``: a replay is not a conversation with the
        server, and its threads, stored under the recorded URL, would come back from a real
        agent's ``agent.thread(id)`` as if they had happened.
        """
        for name in ("headers", "http_client", "transport"):
            if name in options:
                raise TypeError(f"a replay sends nothing: {name}= has no use on it")
        options.setdefault("store", None)
        return Agent(self.url, transport=self, **options)

    def assert_complete(self) -> None:
        """Raise :class:`ReplayMismatch` unless every recorded request was made."""
        if self.remaining:
            n = self.served + 1
            raise ReplayMismatch(
                f"{self.remaining} recorded request(s) were never made, from request {n} "
                f"({describe(self.exchanges[self.served].request)})",
                request=n,
            )

    # -- the transport ----------------------------------------------------------------------

    def known_scrubber(self) -> Scrubber:
        return self.scrubber

    async def aclose(self) -> None:
        pass  # nothing is kept open

    @asynccontextmanager
    async def open(
        self, body: bytes, *, forwarded_props: Any = None, max_event_bytes: int
    ) -> AsyncIterator[ReplayedEvents]:
        """The next recorded run, if ``body`` is what it sent: its events, or its error."""
        exchange, forward = self._next("run", body)
        where = safe_url(self.url)
        if self._version == 1:
            opening, broken = legacy.failures(exchange, where)
        else:
            opening = rebuild_error(exchange.failure) if exchange.failure is not None else None
            end = exchange.end or {}
            broken = rebuild_error(end) if end.get("error") else None
        if opening is not None:
            raise opening
        yield ReplayedEvents(
            exchange, forward, self.created, broken=broken, max_event_bytes=max_event_bytes
        )

    async def capabilities(self) -> str | None:
        """The recorded capabilities document (None: the server had none), or its error."""
        exchange, _ = self._next("capabilities", b"")
        if self._version == 1:
            return legacy.capabilities(exchange, safe_url(capabilities_url(self.url)))
        if exchange.failure is not None:
            raise rebuild_error(exchange.failure)
        return exchange.body

    @property
    def _version(self) -> int:
        return 1 if self.header.get("version") == 1 else 2

    def _next(self, op: str, body: bytes) -> tuple[Exchange, dict[str, str]]:
        """The next exchange, if this request is the one recorded there (else ReplayMismatch),
        and the recorded ids that map to other live ones."""
        with self._lock:
            n = self.served + 1
            if n > len(self.exchanges):
                raise ReplayMismatch(
                    f"request {n}: the recording has only {len(self.exchanges)} request(s) "
                    f"({self.path.name}); this one is extra: {describe_live(op, body)}",
                    request=n,
                )
            exchange = self.exchanges[n - 1]
            ids = self.ids.copy()
            diffs: list[tuple[str, str]] = []
            if exchange.op != op:
                diffs.append(("request", f"recorded {_said(exchange.op)}, got {_said(op)}"))
            elif op == "run":
                sent = parse_json(body)
                got = sent if sent is not NOT_JSON else body.decode("utf-8", "replace")
                diffs.extend(differences(exchange.request.get("body"), got, ids))
            if diffs and self.strict:
                where, what = diffs[0]
                more = f" (and {len(diffs) - 1} more difference(s))" if len(diffs) > 1 else ""
                raise ReplayMismatch(f"request {n}: {where}: {what}{more}", request=n, path=where)
            self.ids = ids
            self.served = n
        # Only ids that differ need mapping back (server-made ids map to themselves).
        return exchange, {k: v for k, v in ids.forward.items() if k != v}


def _said(op: str) -> str:
    return "a capabilities request" if op == "capabilities" else "a run"


class ReplayedEvents:
    """A recorded run's events as event texts, then the way its stream ended."""

    def __init__(
        self,
        exchange: Exchange,
        forward: Mapping[str, str],
        created: datetime | None,
        *,
        broken: Exception | None,
        max_event_bytes: int,
    ) -> None:
        self._exchange = exchange
        self._forward = forward
        self._created = created
        # A stream cut inside a frame is found at its end (finish), any other break on reading.
        self._cut = broken if isinstance(broken, StreamCut) else None
        self._broken = None if self._cut is not None else broken
        self._sse = SSEEvents(self._chunks(), max_event_bytes=max_event_bytes)
        # Where the live stream ended (version 2): its byte count, and whether inside an event.
        end = exchange.end or {}
        recorded = end.get("bytes")
        self._end_bytes: int | None = recorded if isinstance(recorded, int) else None
        self._end_inside = end.get("inside") is True
        self._served = False

    async def _chunks(self) -> AsyncIterator[bytes]:
        for event in self._exchange.events:
            await asyncio.sleep(0)  # let the reader run, as a network would
            yield _sse_bytes(event, self._forward, self._created)
        self._served = True
        if self._broken is not None:
            raise self._broken

    def __aiter__(self) -> SSEEvents:
        return self._sse

    def finish(self) -> list[str]:
        if self._cut is not None:
            raise self._cut
        return self._sse.finish()

    @property
    def bytes_received(self) -> int:
        if self._served and self._end_bytes is not None:
            return self._end_bytes
        return self._sse.bytes_received

    @property
    def in_message(self) -> bool:
        if self._served and self._end_bytes is not None:
            return self._end_inside
        return self._sse.in_message


def _shift_expiry(value: Any, delta: timedelta) -> Any:
    """``expiresAt`` moved by ``delta``: a replayed interrupt expires as long after it arrives as
    the recorded one did (else every recording with an expiry would replay as expired)."""
    if isinstance(value, dict):
        out = {k: _shift_expiry(v, delta) for k, v in value.items()}
        expiry = parse_expiry(value.get("expiresAt")) if "expiresAt" in value else None
        if expiry is not None:
            moved = (expiry + delta).astimezone(timezone.utc)
            out["expiresAt"] = moved.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        return out
    if isinstance(value, list):
        return [_shift_expiry(v, delta) for v in value]
    return value


def _recorded_at(event: Mapping[str, Any], created: datetime | None) -> datetime | None:
    stamp = event.get("timestamp") if isinstance(event, Mapping) else None
    if isinstance(stamp, int | float) and not isinstance(stamp, bool):
        return datetime.fromtimestamp(stamp / 1000, timezone.utc)
    return created


def _sse_bytes(
    event: Mapping[str, Any], forward: Mapping[str, str], created: datetime | None = None
) -> bytes:
    if "data" in event:
        value = map_ids(event["data"], forward)
        if "expiresAt" in json.dumps(value):
            recorded_at = _recorded_at(value, created)
            if recorded_at is not None:
                value = _shift_expiry(value, datetime.now(timezone.utc) - recorded_at)
        data = json.dumps(value, ensure_ascii=False)
    else:
        data = str(event.get("raw", ""))
    lines: list[str] = []
    if event.get("event"):
        lines.append(f"event: {event['event']}")
    if event.get("id"):
        lines.append(f"id: {event['id']}")
    lines.extend(f"data: {part}" for part in data.split("\n"))
    return ("\n".join(lines) + "\n\n").encode("utf-8")


def replay(path: str | os.PathLike[str], *, strict: bool = True, **options: Any) -> Agent:
    """An Agent that serves the recording at ``path`` in-process: no server, no network.

    >>> agent = replay("tests/fixtures/recordings/msaf_transfer_approve.jsonl")  # doctest: +SKIP
    >>> thread = agent.thread()                                                    # doctest: +SKIP
    >>> await thread.run("Transfer 100 from checking to savings")                  # doctest: +SKIP

    Each request must match the recorded one (ids the client makes up are matched consistently,
    not literally), else :class:`ReplayMismatch` names the first difference. Use
    :class:`ReplayTransport` directly to check afterwards that every recorded request was made.
    """
    return ReplayTransport(path, strict=strict).agent(**options)
