"""WebSocket: one run per connection, the RunAgentInput as one text frame, event texts back.

AG-UI specifies no WebSocket binding yet, so this module follows what servers send
(docs/transports.md): the client opens ``ws://`` / ``wss://`` (an ``http(s)://`` agent URL maps
to the same host and path), sends the RunAgentInput JSON as ONE text frame, and reads text frames
until the server closes. A frame is either SSE-encoded (``data: {json}\\n\\n``, one or more
events: AWS Bedrock AgentCore's ``/ws`` route) or one bare JSON event (the open AG-UI proposal).
Both are accepted on the same socket. A resume is a new connection.

Errors are the HTTP transport's where they mean the same (refused: :class:`ConnectError`;
a non-101 handshake answer: :class:`HTTPStatusError`; silence: :class:`StreamTimeout`); a drop
mid-run is :class:`ConnectionDropped` (the run loop makes it a TruncatedRunError and keeps the
interrupts pending); a close with an error code is :class:`WebSocketClosed`; a binary frame,
an oversized frame or half an event at the end are protocol errors. Headers are sent on the
handshake only; their credentials join :attr:`WebSocketTransport.scrubber` and are never kept
anywhere they could be shown.

The client library is ``websockets`` (asyncio-native; its errors carry the close frames).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import (
    ConnectionClosed,
    ConnectionClosedOK,
    InvalidHandshake,
    InvalidStatus,
    InvalidURI,
)

from .._errors import (
    ConnectError,
    HTTPStatusError,
    ProtocolError,
    StreamTimeout,
    WebSocketClosed,
)
from .._protocol.secrets import EMPTY, Scrubber, secret_values
from .._protocol.sse import SSEDataDecoder
from .base import ConnectionDropped, StreamCut
from .http import HTTPTransport, make_timeout, safe_url

__all__ = ["NORMAL_CLOSE", "WebSocketEvents", "WebSocketTransport", "http_url", "ws_url"]

#: Close codes that end a run normally (RFC 6455: normal closure, going away).
NORMAL_CLOSE = frozenset({1000, 1001})
#: Codes the client closes with when the server breaks the protocol (RFC 6455 section 7.4.1:
#: protocol error, invalid payload data such as non-UTF-8 text, message too big).
_OUR_PROTOCOL_CLOSES = frozenset({1002, 1007, 1009})
_SCHEMES_TO_WS = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}
_SCHEMES_TO_HTTP = {"ws": "http", "wss": "https", "http": "http", "https": "https"}


def ws_url(url: str) -> str:
    """The WebSocket URL for an agent URL: ``http`` -> ``ws``, ``https`` -> ``wss``."""
    parsed = httpx.URL(url)
    scheme = _SCHEMES_TO_WS.get(parsed.scheme.lower())
    if scheme is None:
        raise ValueError(f"a WebSocket agent needs a ws://, wss://, http:// or https:// URL: {url}")
    return str(parsed.copy_with(scheme=scheme))


def http_url(url: str) -> str:
    """The HTTP URL on the same host and path (``ws`` -> ``http``, ``wss`` -> ``https``)."""
    parsed = httpx.URL(url)
    scheme = _SCHEMES_TO_HTTP.get(parsed.scheme.lower(), parsed.scheme)
    return str(parsed.copy_with(scheme=scheme))


class WebSocketTransport:
    """Opens one WebSocket per run at ``url`` (``ws(s)://``, or ``http(s)://`` mapped to it)."""

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None,
        http_client: httpx.AsyncClient | None,
        timeout: httpx.Timeout | None,
    ) -> None:
        if http_client is not None:
            raise ValueError(
                "http_client= configures HTTP requests; the WebSocket transport opens its own "
                "sockets: pass headers= (sent on the handshake) instead"
            )
        self.url = ws_url(url)
        self._headers = dict(headers or {})
        self.timeout = timeout
        #: Every credential value sent so far (grows; never shown).
        self.scrubber: Scrubber = EMPTY

    @property
    def headers(self) -> Mapping[str, str]:
        """The handshake's headers, for code in this room that asks the same server over HTTP
        (capabilities); never shown."""
        return self._headers

    def _request(self) -> httpx.Request:
        # The handshake as an HTTP request, for the scrubber (the URL's userinfo and query too).
        return httpx.Request("GET", http_url(self.url), headers=self._headers)

    def known_scrubber(self) -> Scrubber:
        return self.scrubber.union(secret_values(self._request()))

    async def aclose(self) -> None:
        pass  # nothing is kept open between runs

    async def capabilities(self) -> str | None:
        """The capabilities document over HTTP(S) on the same host and path (``GET
        {path}/capabilities``), with the same headers; None when there is none."""
        timeout = self.timeout or make_timeout(60.0)
        async with httpx.AsyncClient(timeout=timeout) as client:
            http = HTTPTransport(
                http_url(self.url), headers=self._headers, http_client=client, timeout=timeout
            )
            try:
                return await http.capabilities()
            finally:
                self.scrubber = self.scrubber.union(http.scrubber.secrets)

    @asynccontextmanager
    async def open(
        self, body: bytes, *, forwarded_props: Any = None, max_event_bytes: int
    ) -> AsyncIterator[WebSocketEvents]:
        """Connect, send ``body`` as one text frame, yield the frames' event texts."""
        where = safe_url(self.url)
        scrubber = self.scrubber = self.scrubber.union(
            secret_values(self._request(), {"forwardedProps": forwarded_props})
        )
        timeout = self.timeout
        connect_timeout = timeout.connect if timeout is not None else None
        try:
            socket = await connect(
                self.url,
                additional_headers=self._headers,
                open_timeout=connect_timeout,
                max_size=max(2 * max_event_bytes, 1 << 20),
                # The server answers pings (RFC 6455); AG-UI has none of its own.
                ping_interval=20,
                ping_timeout=20,
                close_timeout=5,
                # Events are small JSON texts: per-message deflate costs more CPU per event than
                # the frames save (measured in bench/ws_vs_sse.py), as SSE bodies go uncompressed.
                compression=None,
            )
        except InvalidStatus as exc:
            response = exc.response
            text = response.body.decode("utf-8", errors="replace") if response.body else ""
            raise HTTPStatusError(response.status_code, scrubber.text(text), where) from None
        except InvalidURI as exc:
            raise ConnectError(f"not a WebSocket URL: {where} ({exc})") from None
        except InvalidHandshake as exc:
            raise ProtocolError(
                f"{where} did not accept a WebSocket: {_reason(exc, scrubber)}"
            ) from None
        except TimeoutError:
            raise ConnectError(f"timed out connecting to {where}") from None
        except OSError as exc:
            raise ConnectError(f"cannot connect to {where}: {_reason(exc, scrubber)}") from None
        try:
            try:
                await socket.send(body.decode("utf-8"))
            except ConnectionClosed as exc:
                raise _closed(exc, where, scrubber, frames=0) from None
            read_timeout = timeout.read if timeout is not None else None
            events = WebSocketEvents(
                socket, where, scrubber, max_event_bytes=max_event_bytes, read_timeout=read_timeout
            )
            try:
                yield events
            finally:
                events.stop_watchdog()
        finally:
            await socket.close()


class WebSocketEvents:
    """A socket's text frames as event texts: SSE-encoded frames decoded, bare JSON passed on."""

    def __init__(
        self,
        socket: ClientConnection,
        where: str,
        scrubber: Scrubber,
        *,
        max_event_bytes: int,
        read_timeout: float | None,
    ) -> None:
        self._socket = socket
        self._where = where
        self._scrubber = scrubber
        self._max = max_event_bytes
        self._read_timeout = read_timeout
        self._decoder = SSEDataDecoder(max_event_bytes=max_event_bytes)
        self._bare_bytes = 0
        self.frames = 0
        # The read timeout is one timer per stream, not one per frame (asyncio.timeout and
        # wait_for cost more per event than the rest of the transport): each frame stamps the
        # time, and the timer, when it fires, either re-arms for the last frame's deadline or
        # cuts the socket, which the waiting recv() reports as a StreamTimeout.
        self._loop = asyncio.get_running_loop()
        self._last_frame_at = self._loop.time()
        self._timed_out = False
        self._waiting = False
        self._watchdog: asyncio.TimerHandle | None = None
        if read_timeout is not None:
            self._watchdog = self._loop.call_at(self._last_frame_at + read_timeout, self._check)

    def _check(self) -> None:
        assert self._read_timeout is not None
        now = self._loop.time()
        if not self._waiting:  # the consumer is busy, not the server silent: wait from now on
            self._last_frame_at = now
        deadline = self._last_frame_at + self._read_timeout
        if now < deadline:
            self._watchdog = self._loop.call_at(deadline, self._check)
            return
        self._watchdog = None
        self._timed_out = True
        transport = self._socket.transport
        if transport is not None:
            transport.abort()

    def stop_watchdog(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None

    def __aiter__(self) -> WebSocketEvents:
        return self

    async def __anext__(self) -> list[str]:
        self._waiting = True
        self._last_frame_at = self._loop.time()  # the silence is counted from here
        try:
            frame = await self._socket.recv()
        except ConnectionClosedOK:
            raise StopAsyncIteration from None
        except ConnectionClosed as exc:
            if self._timed_out:
                raise StreamTimeout(
                    f"{self._where} sent no frame within the read timeout"
                ) from None
            raise _closed(exc, self._where, self._scrubber, frames=self.frames) from None
        finally:
            self._waiting = False
        self.frames += 1
        if isinstance(frame, bytes):
            raise ProtocolError(
                f"{self._where} sent a binary frame ({len(frame)} bytes): AG-UI events travel "
                "as text frames (JSON, or SSE-encoded JSON)"
            )
        if not self._decoder.in_message and frame[:64].lstrip()[:1] in ("{", "["):
            # One bare JSON event per frame (the open AG-UI proposal).
            size = len(frame) if frame.isascii() else len(frame.encode("utf-8"))
            if size > self._max:
                raise ProtocolError(
                    f"an event of {size} bytes is over the limit of {self._max} "
                    "(max_event_bytes on the Agent)"
                )
            self._bare_bytes += size
            return [frame]
        return self._decoder.feed(frame.encode("utf-8"))  # SSE-encoded (AgentCore)

    def finish(self) -> list[str]:
        try:
            return self._decoder.close()
        except ProtocolError as exc:
            raise StreamCut(str(exc)) from None

    @property
    def bytes_received(self) -> int:
        return self._decoder.bytes_received + self._bare_bytes

    @property
    def in_message(self) -> bool:
        return self._decoder.in_message


def _closed(exc: ConnectionClosed, where: str, scrubber: Scrubber, *, frames: int) -> Exception:
    """What a closed socket means for the run: a normal end is the caller's; an error code is
    :class:`WebSocketClosed`; no close frame at all is a drop (or, before any frame, a refusal
    that could not say so)."""
    received = exc.rcvd
    sent = exc.sent
    if (
        sent is not None
        and sent.code in _OUR_PROTOCOL_CLOSES
        and (received is None or exc.rcvd_then_sent is False)
    ):
        # We closed first because the server broke the WebSocket protocol (a frame not valid
        # UTF-8, a malformed frame, one over the size limit): a protocol error, not a drop.
        return ProtocolError(
            f"{where} sent a frame the WebSocket protocol does not allow: "
            f"{scrubber.text(sent.reason) or 'invalid frame'} (close {sent.code})"
        )
    if received is not None:
        reason = scrubber.text(received.reason)
        return WebSocketClosed(received.code, reason, where)
    if frames == 0:
        # Seen from AWS Bedrock AgentCore: it refuses an invalid RunAgentInput with a close
        # whose reason is longer than a close frame allows, so the socket just drops (1006).
        return WebSocketClosed(
            1006,
            "the connection closed without a close frame before any event; the server may "
            "have refused the request (a close reason too long for a close frame arrives so)",
            where,
        )
    return ConnectionDropped(f"the WebSocket closed without a close frame (1006) from {where}")


def _reason(exc: BaseException, scrubber: Scrubber = EMPTY) -> str:
    text = scrubber.text(str(exc) or type(exc).__name__)
    return text if len(text) < 300 else text[:300] + "..."
