"""Record and replay (issue 5): a chat's requests and events in a readable file, served back offline.

Recording wraps the HTTP layer, so what is saved is what went over the wire: each request the
client sent (method, URL, headers, the RunAgentInput) and the response it got (status, headers,
every SSE message), one JSON object a line, written as it happens so a crash leaves a readable
prefix. Secrets are never written (issue 8): a header's value is kept only when the header is on
a short list of ones that carry none, the URL loses its userinfo and the values of credential-like
query parameters, credential-like keys in ``forwardedProps`` are redacted, and the secret values
themselves are scrubbed from anything else written (a 401 body that echoes the token).

Replaying serves the recorded responses from an in-process transport (no server, no socket) and
checks every request against the recorded one: ids the client generates (threadId, runId, message
ids) are matched consistently, not literally, and the first difference is an error naming its JSON
path. The file format, one line per kind::

    {"kind": "recording", "version": 1, "agui_notebook": "0.1.0", "created": "...", "url": "..."}
    {"kind": "request", "n": 1, "method": "POST", "url": "...", "headers": {...}, "body": {...}}
    {"kind": "response", "n": 1, "status": 200, "headers": {...}}
    {"kind": "event", "n": 1, "data": {"type": "RUN_STARTED", ...}}   (one per SSE message)
    {"kind": "body", "n": 1, "text": "..."}                           (a response that is not SSE)
    {"kind": "end", "n": 1, "complete": true}             (false: dropped, or closed by the client)
    {"kind": "error", "n": 1, "error": "ConnectError"}                (no response at all)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import threading
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx

from ._agent import Agent
from ._decisions.decision import Decision, answer, approve, cancel, edit, reject
from ._decisions.interrupts import PendingInterrupt, parse_expiry
from ._errors import AGUIError, ProtocolError
from ._protocol.guards import EventGuard
from ._protocol.secrets import (
    EMPTY,
    REDACTED,
    Scrubber,
    is_credential_name,
    redact_headers,
    redact_url,
)
from ._protocol.secrets import (
    redact_body as _redact_body,
)
from ._protocol.secrets import (
    redact_json as _redact_json,
)
from ._protocol.secrets import (
    secret_values as _secret_values,
)
from ._protocol.sse import SSEMessage, SSEStreamDecoder
from ._transports.http import HTTPTransport
from ._version import __version__
from .policies import Policy

__all__ = [
    "FORMAT_VERSION",
    "REDACTED",
    "Exchange",
    "RecordingTransport",
    "ReplayMismatch",
    "ReplayTransport",
    "is_credential_name",
    "load_recording",
    "record",
    "redact_headers",
    "redact_url",
    "replay",
    "replay_policy",
]

FORMAT_VERSION = 1
_MAX_BODY_CHARS = 64 * 1024


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


# -- recording --------------------------------------------------------------------------------


class _Writer:
    """Appends JSON lines, each flushed at once; scrubs known secret values from every line."""

    def __init__(self, path: str | os.PathLike[str], header: dict[str, Any]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self.scrubber: Scrubber = EMPTY
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("", encoding="utf-8")
        self.write(header)

    def add_secrets(self, values: Iterable[str]) -> None:
        with self._lock:
            self.scrubber = self.scrubber.union(values)

    def write(self, obj: dict[str, Any]) -> None:
        with self._lock:
            # Value by value, so the line stays valid JSON whatever the secret looks like.
            line = json.dumps(self.scrubber.value(obj), ensure_ascii=False)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(line + "\n")


def _header(url: str | None) -> dict[str, Any]:
    header: dict[str, Any] = {
        "kind": "recording",
        "version": FORMAT_VERSION,
        "agui_notebook": __version__,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    if url is not None:
        header["url"] = redact_url(url)
    return header


class RecordingTransport(httpx.AsyncBaseTransport):
    """An httpx transport that sends through ``client`` and writes the exchange to ``path``.

    >>> transport = RecordingTransport("chat.jsonl")      # doctest: +SKIP
    >>> agent = Agent(url, http_client=httpx.AsyncClient(transport=transport))  # doctest: +SKIP

    ``client`` is the ``httpx.AsyncClient`` that really sends (its auth, proxies, event hooks and
    cookies apply; it is not closed here). Without one, a plain client is made per event loop.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        client: httpx.AsyncClient | None = None,
        url: str | None = None,
    ) -> None:
        self.path = Path(path)
        self._writer = _Writer(path, _header(url))
        self._client = client
        self._own: dict[asyncio.AbstractEventLoop, httpx.AsyncClient] = {}
        self._count = 0
        self._count_lock = threading.Lock()

    def _sender(self) -> httpx.AsyncClient:
        if self._client is not None:
            return self._client
        loop = asyncio.get_running_loop()
        client = self._own.get(loop)
        if client is None or client.is_closed:
            # A connection pool is bound to the loop that opened its connections.
            client = self._own[loop] = httpx.AsyncClient()
        return client

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        with self._count_lock:
            self._count += 1
            n = self._count
        sender = self._sender()
        if "cookie" not in request.headers:
            sender.cookies.set_cookie_header(request)  # what sender.build_request would add
        raw = await request.aread()
        body = _parse_json(raw)
        self._writer.add_secrets(_secret_values(request, body))
        self._writer.write(
            {
                "kind": "request",
                "n": n,
                "method": request.method,
                "url": redact_url(request.url),
                "headers": redact_headers(request.headers.multi_items()),
                "body": _redact_body(body)
                if body is not _NOT_JSON
                else raw.decode("utf-8", "replace"),
            }
        )
        try:
            response = await sender.send(request, stream=True)
        except Exception as exc:
            self._writer.write({"kind": "error", "n": n, "error": type(exc).__name__})
            raise
        self._writer.write(
            {
                "kind": "response",
                "n": n,
                "status": response.status_code,
                "headers": redact_headers(response.headers.multi_items()),
            }
        )
        # The outer client gets the decoded bytes: the recording sees what the client parses.
        headers = [
            (k, v)
            for k, v in response.headers.multi_items()
            if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")
        ]
        is_sse = _is_event_stream(response.headers.get("content-type", ""))
        return httpx.Response(
            response.status_code,
            headers=headers,
            stream=_RecordedBody(response, self._writer, n, sse=is_sse),
            extensions=response.extensions,
            request=request,
        )

    async def aclose(self) -> None:
        own, self._own = self._own, {}
        for client in own.values():
            with contextlib.suppress(RuntimeError):  # its loop is gone
                await client.aclose()


class _RecordedBody(httpx.AsyncByteStream):
    """Passes the response's bytes through unchanged, writing what they carry on the way."""

    def __init__(self, response: httpx.Response, writer: _Writer, n: int, *, sse: bool) -> None:
        self._response = response
        self._writer = writer
        self._n = n
        self._decoder: SSEStreamDecoder | None = SSEStreamDecoder() if sse else None
        # A secret split across streamed deltas is joined (and scrubbed) before it is written.
        scrubber = writer.scrubber
        self._guard = (
            EventGuard(scrubber, _wire_events, _wire_type, wire=True) if scrubber else None
        )
        self._text: list[str] = []
        self._chars = 0
        self._ended = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._response.aiter_bytes():
                self._observe(chunk)
                yield chunk
        except Exception as exc:
            self._end(complete=False, error=type(exc).__name__)
            raise
        self._end(complete=True)

    async def aclose(self) -> None:
        self._end(complete=False)  # a no-op after the body ended; else the client stopped early
        await self._response.aclose()

    def _observe(self, chunk: bytes) -> None:
        if self._decoder is None:
            if self._chars < _MAX_BODY_CHARS:
                text = chunk.decode("utf-8", errors="replace")
                self._text.append(text)
                self._chars += len(text)
            return
        try:
            messages = self._decoder.feed(chunk)
        except ProtocolError as exc:
            # The client will fail on the same bytes; the recording says why and stops decoding.
            self._writer.write({"kind": "note", "n": self._n, "text": str(exc)})
            self._decoder = None
            self._chars = _MAX_BODY_CHARS
            return
        for message in messages:
            data = _parse_json(message.data.encode("utf-8"))
            if data is _NOT_JSON:
                self._write_event(message, raw=message.data)
            elif self._guard is None:
                self._write_event(message, data=data)
            else:
                for event in self._guard.apply([data]):
                    self._write_event(message, data=event)

    def _write_event(self, message: SSEMessage, **content: Any) -> None:
        line: dict[str, Any] = {"kind": "event", "n": self._n, **content}
        if message.event != "message":
            line["event"] = message.event
        if message.id:
            line["id"] = message.id
        self._writer.write(line)

    def _end(self, *, complete: bool, error: str | None = None) -> None:
        if self._ended:
            return
        self._ended = True
        if self._decoder is None and self._text:
            text = "".join(self._text)
            line: dict[str, Any] = {"kind": "body", "n": self._n, "text": text[:_MAX_BODY_CHARS]}
            if len(text) > _MAX_BODY_CHARS:
                line["truncated"] = True
            self._writer.write(line)
        end: dict[str, Any] = {"kind": "end", "n": self._n, "complete": complete}
        if error is not None:
            end["error"] = error
        self._writer.write(end)


def _wire_events(data: str) -> list[Any]:
    return [json.loads(data)]


def _wire_type(event: Any) -> Any:
    return event.get("type") if isinstance(event, dict) else None


def record(agent: Agent, path: str | os.PathLike[str]) -> Agent:
    """A new Agent like ``agent`` (same URL, headers, client, options) that records to ``path``.

    >>> recorded = record(Agent("http://127.0.0.1:8000/"), "chat.jsonl")   # doctest: +SKIP
    >>> await recorded.thread().run("Transfer $500 from 1234567890 to 0987654321")  # doctest: +SKIP

    The file is replaced. Requests on every thread of the new agent go to the one file, numbered in
    the order they are sent (replay expects them in that order).
    """
    http = agent.transport
    if not isinstance(http, HTTPTransport):
        raise TypeError(
            f"recording works on HTTP agents; this one's transport is {type(http).__name__}"
        )
    given = http._given_client
    transport = RecordingTransport(path, client=given, url=agent.url)
    if given is not None:
        # The request is built by this client and sent by yours: your headers (and user agent)
        # here, your auth, cookies, proxies, redirects and event hooks there.
        client = httpx.AsyncClient(
            transport=transport,
            headers=given.headers,
            timeout=given.timeout,
            base_url=given.base_url,
            params=given.params,
        )
    else:
        client = httpx.AsyncClient(transport=transport, timeout=http.timeout or httpx.Timeout(60.0))
    options: dict[str, Any] = {}
    if http.timeout is not None:  # None: the client's own timeout decides, as before
        options["timeout"] = http.timeout
    recorded = _RecordingAgent(
        agent.url,
        headers=http._headers,
        http_client=client,
        idle_timeout=agent.idle_timeout,
        send_history=agent.send_history,
        max_events_kept=agent.max_events_kept,
        max_event_bytes=agent.max_event_bytes,
        strict=agent.strict,
        **options,
    )
    recorded.demo_app = agent.demo_app
    recorded.recording = transport
    return recorded


class _RecordingAgent(Agent):
    """An Agent whose ``aclose`` also closes the connections the recording opened (not yours)."""

    recording: RecordingTransport

    async def aclose(self) -> None:
        await super().aclose()
        await self.recording.aclose()


_NOT_JSON: Any = object()


def _parse_json(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return _NOT_JSON


def _is_event_stream(content_type: str) -> bool:
    return content_type.partition(";")[0].strip().lower() == "text/event-stream"


# -- reading a recording ----------------------------------------------------------------------


@dataclass
class Exchange:
    """One recorded request and what came back."""

    n: int
    request: dict[str, Any]
    response: dict[str, Any] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    body: str | None = None
    end: dict[str, Any] | None = None
    error: str | None = None


def load_recording(path: str | os.PathLike[str]) -> tuple[dict[str, Any], list[Exchange]]:
    """The recording's header line and its exchanges, in request order.

    A last line cut short (the recording process died mid-write) is ignored; any other line that
    is not a JSON object is an error naming the line.
    """
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    objects: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            if number == len(lines):
                break
            raise ValueError(f"{path}, line {number}: not a JSON line") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("kind"), str):
            raise ValueError(f"{path}, line {number}: expected an object with a 'kind'")
        objects.append(obj)
    if not objects or objects[0]["kind"] != "recording":
        raise ValueError(f"{path} is not an agui_notebook recording (no header line)")
    header = objects[0]
    if header.get("version") != FORMAT_VERSION:
        raise ValueError(
            f"{path}: recording format version {header.get('version')!r}; this agui_notebook "
            f"reads version {FORMAT_VERSION}"
        )
    exchanges: dict[int, Exchange] = {}
    for obj in objects[1:]:
        kind, n = obj["kind"], obj.get("n")
        if not isinstance(n, int):
            raise ValueError(f"{path}: a {kind!r} line has no request number 'n'")
        if kind == "request":
            exchanges[n] = Exchange(n, obj)
            continue
        exchange = exchanges.get(n)
        if exchange is None:
            raise ValueError(f"{path}: a {kind!r} line for request {n}, which was not recorded")
        if kind == "response":
            exchange.response = obj
        elif kind == "event":
            exchange.events.append(obj)
        elif kind == "body":
            exchange.body = str(obj.get("text", ""))
        elif kind == "end":
            exchange.end = obj
        elif kind == "error":
            exchange.error = str(obj.get("error") or "TransportError")
        # "note" and unknown kinds are for people reading the file.
    return header, [exchanges[n] for n in sorted(exchanges)]


# -- replaying --------------------------------------------------------------------------------


def _is_id_key(key: str) -> bool:
    return key == "id" or key.endswith("Id")


class _IdMap:
    """Recorded id <-> live id, one to one, learned on first sight."""

    def __init__(self) -> None:
        self.forward: dict[str, str] = {}
        self.backward: dict[str, str] = {}

    def copy(self) -> _IdMap:
        other = _IdMap()
        other.forward, other.backward = dict(self.forward), dict(self.backward)
        return other

    def match(self, recorded: str, got: str) -> bool:
        known = self.forward.get(recorded)
        if known is not None:
            return known == got
        if got in self.backward:
            return False  # two recorded ids cannot become the same live one
        self.forward[recorded] = got
        self.backward[got] = recorded
        return True


def _render(value: Any, key: str | None = None) -> str:
    if key is not None and is_credential_name(key) and value is not _MISSING:
        return REDACTED
    if value is _MISSING:
        return "nothing"
    text = json.dumps(_redact_json(value), ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


_MISSING: Any = object()
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _child(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if _IDENTIFIER.match(key) else f"{path}[{json.dumps(key)}]"


def _differences(
    recorded: Any, got: Any, ids: _IdMap, path: str = "$", key: str | None = None
) -> Iterable[tuple[str, str]]:
    """(JSON path, description) of each difference, in document order; learns ids as it goes."""
    if isinstance(recorded, str) and recorded == REDACTED:
        return  # redacted when recorded: any value matches
    if key is not None and _is_id_key(key) and isinstance(recorded, str) and isinstance(got, str):
        if not ids.match(recorded, got):
            expected = ids.forward.get(recorded)
            why = f"recorded id {recorded!r}"
            why += f" (here {expected!r})" if expected else " (already seen as another id)"
            yield path, f"{why}, got {got!r}"
        return
    if key == "timestamp" and isinstance(recorded, str) and isinstance(got, str):
        return  # the client's clock (an A2UI action's time): never the same twice
    if isinstance(recorded, dict) and isinstance(got, dict):
        for k, v in recorded.items():
            yield from _differences(v, got.get(k, _MISSING), ids, _child(path, k), k)
        for k, v in got.items():
            if k not in recorded:
                yield _child(path, k), f"not recorded, got {_render(v, k)}"
        return
    if isinstance(recorded, list) and isinstance(got, list):
        for index, (r, g) in enumerate(zip(recorded, got, strict=False)):
            yield from _differences(r, g, ids, _child(path, index), key)
        if len(recorded) != len(got):
            yield path, f"recorded {len(recorded)} items, got {len(got)}"
        return
    if not _same_scalar(recorded, got):
        yield path, f"recorded {_render(recorded, key)}, got {_render(got, key)}"


def _same_scalar(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and bool(a == b)


def _map_ids(value: Any, forward: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return forward.get(value, value)
    if isinstance(value, dict):
        return {k: _map_ids(v, forward) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_ids(v, forward) for v in value]
    return value


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
    event: dict[str, Any], forward: Mapping[str, str], created: datetime | None = None
) -> bytes:
    if "data" in event:
        value = _map_ids(event["data"], forward)
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


class ReplayTransport(httpx.AsyncBaseTransport):
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
        self.ids = _IdMap()
        created = self.header.get("created")
        self.created = parse_expiry(created) if isinstance(created, str) else None
        self._lock = threading.Lock()  # held without awaiting: safe on any loop

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
        options.setdefault("store", None)
        client = httpx.AsyncClient(transport=self, timeout=httpx.Timeout(60.0))
        return Agent(self.url, http_client=client, **options)

    def assert_complete(self) -> None:
        """Raise :class:`ReplayMismatch` unless every recorded request was made."""
        if self.remaining:
            n = self.served + 1
            raise ReplayMismatch(
                f"{self.remaining} recorded request(s) were never made, from request {n} "
                f"({_describe(self.exchanges[self.served].request)})",
                request=n,
            )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raw = await request.aread()
        with self._lock:
            n = self.served + 1
            if n > len(self.exchanges):
                raise ReplayMismatch(
                    f"request {n}: the recording has only {len(self.exchanges)} request(s) "
                    f"({self.path.name}); this one is extra: {_describe_live(raw)}",
                    request=n,
                )
            exchange = self.exchanges[n - 1]
            ids = self.ids.copy()
            body = _parse_json(raw)
            got = body if body is not _NOT_JSON else raw.decode("utf-8", "replace")
            recorded = exchange.request.get("body")
            method = exchange.request.get("method", "POST")
            diffs: list[tuple[str, str]] = []
            if method != request.method:
                diffs.append(("method", f"recorded {method}, got {request.method}"))
            diffs.extend(_differences(recorded, got, ids))
            if diffs and self.strict:
                where, what = diffs[0]
                more = f" (and {len(diffs) - 1} more difference(s))" if len(diffs) > 1 else ""
                raise ReplayMismatch(f"request {n}: {where}: {what}{more}", request=n, path=where)
            self.ids = ids
            self.served = n
        if exchange.error is not None:
            raise _transport_error(exchange.error, request)
        response = exchange.response or {"status": 200, "headers": {}}
        headers = {
            k: v
            for k, v in dict(response.get("headers") or {}).items()
            if v != REDACTED
            and k not in ("content-length", "content-encoding", "transfer-encoding")
        }
        if exchange.body is None and "content-type" not in headers:
            headers["content-type"] = "text/event-stream"
        return httpx.Response(
            int(response.get("status", 200)),
            headers=headers,
            stream=_ReplayBody(exchange, dict(ids.forward), request, self.created),
            request=request,
        )


class _ReplayBody(httpx.AsyncByteStream):
    def __init__(
        self,
        exchange: Exchange,
        forward: dict[str, str],
        request: httpx.Request,
        created: datetime | None,
    ) -> None:
        self._exchange = exchange
        # Only ids that differ need mapping back (server-made ids map to themselves).
        self._forward = {k: v for k, v in forward.items() if k != v}
        self._request = request
        self._created = created

    async def __aiter__(self) -> AsyncIterator[bytes]:
        exchange = self._exchange
        if exchange.body is not None:
            yield exchange.body.encode("utf-8")
        for event in exchange.events:
            yield _sse_bytes(event, self._forward, self._created)
            await asyncio.sleep(0)  # let the reader run, as a network would
        end = exchange.end or {}
        if end.get("error"):
            raise _transport_error(
                str(end["error"]), self._request, "(recorded) the connection dropped"
            )


def _transport_error(name: str, request: httpx.Request, message: str | None = None) -> Exception:
    cls = getattr(httpx, name, None)
    if not (isinstance(cls, type) and issubclass(cls, httpx.TransportError)):
        cls = httpx.ReadError if message else httpx.ConnectError
    return cls(message or f"(recorded) {name}", request=request)


def _describe(request: Mapping[str, Any]) -> str:
    body = request.get("body")
    return (
        _summary(body)
        if isinstance(body, dict)
        else f"{request.get('method')} {request.get('url')}"
    )


def _describe_live(raw: bytes) -> str:
    body = _parse_json(raw)
    return _summary(body) if isinstance(body, dict) else f"{len(raw)} bytes"


def _summary(body: Mapping[str, Any]) -> str:
    resume = body.get("resume")
    if resume:
        return f"a resume answering {len(resume)} interrupt(s)"
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    content = last.get("content") if isinstance(last, dict) else None
    if isinstance(content, str):
        return f"a run with message {content[:60]!r}"
    return "a run"


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


# -- decisions as recorded --------------------------------------------------------------------


def _decision_from_entry(entry: Mapping[str, Any]) -> Decision:
    """A recorded resume entry as the decision that produces it (the inverse of _decisions)."""
    if entry.get("status") == "cancelled":
        return cancel()
    payload = entry.get("payload")
    if isinstance(payload, dict):
        flags = [k for k in ("approved", "accepted") if isinstance(payload.get(k), bool)]
        if flags:
            approved = payload[flags[0]]
            rest = {k: v for k, v in payload.items() if k not in ("approved", "accepted", "reason")}
            if not approved:
                reason = payload.get("reason")
                return reject(reason if isinstance(reason, str) else None)
            if isinstance(rest.get("editedArgs"), dict) and len(rest) == 1:
                return edit(rest["editedArgs"])
            if rest and "editedArgs" not in rest:
                return edit(rest)  # arguments as flat properties (Microsoft Agent Framework)
            if not rest:
                return approve()
    return answer(payload)


@dataclass
class _ReplayPolicy:
    decisions: list[Decision]
    name: str
    used: int = 0

    def decide(self, interrupt: PendingInterrupt) -> Decision | None:
        if self.used >= len(self.decisions):
            raise LookupError(
                f"the recording has no decision left for interrupt {interrupt.id} "
                f"({interrupt.tool_name or interrupt.reason}); it had {len(self.decisions)}"
            )
        decision = self.decisions[self.used]
        self.used += 1
        return decision


def replay_policy(path: str | os.PathLike[str]) -> Policy:
    """A policy answering interrupts, in order, as the recording's resume requests did.

    >>> chat = agent.chat(policy=replay_policy("chat.jsonl"))    # doctest: +SKIP

    Also ``AGUI_NOTEBOOK_POLICY=replay:chat.jsonl``. Running out of recorded decisions is an
    error, not a guess.
    """
    _, exchanges = load_recording(path)
    decisions: list[Decision] = []
    for exchange in exchanges:
        body = exchange.request.get("body")
        resume = body.get("resume") if isinstance(body, dict) else None
        for entry in resume or []:
            if isinstance(entry, dict):
                decisions.append(_decision_from_entry(entry))
    return _ReplayPolicy(decisions, f"replay:{Path(path).name}")
