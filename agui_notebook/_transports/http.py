"""HTTP+SSE: POST a RunAgentInput, read the SSE body as event texts, map httpx's errors to ours.

AG-UI 1.1 basic/transports/http-sse: the client POSTs JSON with ``Accept: text/event-stream``
and reads an SSE body. The SSE framing is decoded here (``_protocol.sse``, pure); the run loop
gets event texts and never sees bytes. This module says precisely how the network failed. Credentials given in ``headers`` are sent and
never repeated in errors (error messages name the URL without its query string); every request's
credentials join :attr:`HTTPTransport.scrubber`, which cleans what the server sends back.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import httpx

from .._errors import (
    AGUIError,
    ConnectError,
    HTTPStatusError,
    ProtocolError,
    StreamTimeout,
    TransportError,
)
from .._protocol.secrets import EMPTY, Scrubber, secret_values
from .._protocol.sse import SSEDataDecoder
from .base import ConnectionDropped, StreamCut

__all__ = [
    "NO_DOCUMENT",
    "HTTPTransport",
    "SSEEvents",
    "capabilities_url",
    "make_timeout",
    "read_error",
    "response_error",
    "safe_url",
    "send_error",
    "streams_events",
]

_MAX_ERROR_BODY = 64 * 1024
#: The largest capabilities document read (tool schemas can make it long, not this long).
MAX_CAPABILITIES_BYTES = 4 * 1024 * 1024
#: Answers that mean "no capabilities document here" (the endpoint is optional).
NO_DOCUMENT = frozenset({404, 405})


def capabilities_url(url: str) -> str:
    """Where an agent's capabilities document is served: ``{agent path}/capabilities`` (as
    Google ADK's AG-UI middleware serves it), query kept."""
    parsed = httpx.URL(url)
    return str(parsed.copy_with(path=parsed.path.rstrip("/") + "/capabilities"))


def safe_url(url: httpx.URL | str) -> str:
    """The URL without userinfo, query or fragment (they can carry tokens)."""
    parsed = httpx.URL(str(url))
    return str(parsed.copy_with(query=None, fragment=None, username=None, password=None))


def make_timeout(timeout: float | httpx.Timeout | None) -> httpx.Timeout:
    """Seconds (or an httpx.Timeout). The read timeout is per chunk, so keepalives reset it."""
    if isinstance(timeout, httpx.Timeout):
        return timeout
    if timeout is None:
        return httpx.Timeout(None, connect=30.0)
    return httpx.Timeout(timeout, connect=min(timeout, 30.0))


class HTTPTransport:
    """Opens one AG-UI event stream per request on a shared ``httpx.AsyncClient``."""

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None,
        http_client: httpx.AsyncClient | None,
        timeout: httpx.Timeout | None,
    ) -> None:
        self.url = url
        self._headers = dict(headers or {})
        self._given_client = http_client
        self._client: httpx.AsyncClient | None = http_client
        self._loop: asyncio.AbstractEventLoop | None = None
        self.timeout = timeout
        #: Every credential value this agent has sent so far (grows; never shown).
        self.scrubber: Scrubber = EMPTY

    def known_scrubber(self) -> Scrubber:
        """:attr:`scrubber` plus what the next request would carry (headers, client, URL),
        without sending anything: for code that stores a thread before any request went out."""
        if self._given_client is not None:
            request = self._given_client.build_request("POST", self.url, headers=self._headers)
            known = secret_values(request)  # headers= too, when the auth below replaces them
            auth = self._given_client.auth
            header = getattr(auth, "_auth_header", None)  # httpx.BasicAuth keeps it ready
            if isinstance(header, str):
                request.headers["Authorization"] = header
                known |= secret_values(request)
        else:
            known = secret_values(httpx.Request("POST", self.url, headers=self._headers))
        return self.scrubber.union(known)

    def _client_for_loop(self) -> httpx.AsyncClient:
        if self._given_client is not None:
            return self._given_client
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop or self._client.is_closed:
            # A pool is bound to the loop that opened its connections.
            self._client = httpx.AsyncClient(timeout=self.timeout or make_timeout(60.0))
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        if self._given_client is None and self._client is not None:
            await self._client.aclose()
            self._client = None

    @asynccontextmanager
    async def open(
        self, body: bytes, *, forwarded_props: Any = None, max_event_bytes: int
    ) -> AsyncIterator[SSEEvents]:
        """Send ``body``; yield the SSE body's event texts. Leaving the context closes the stream.

        ``forwarded_props`` (the request's, as sent) lends its credential-like values to
        :attr:`scrubber`; the headers' and URL's are read from the request itself.
        """
        client = self._client_for_loop()
        headers = {
            **self._headers,
            "Accept": "text/event-stream",
            "Content-Type": "application/json",
            "Cache-Control": "no-store",
        }
        where = safe_url(self.url)
        request = client.build_request("POST", self.url, content=body, headers=headers)
        if self.timeout is not None:  # None: the caller's own client decides
            request.extensions["timeout"] = self.timeout.as_dict()
        sent = {"forwardedProps": forwarded_props}
        response = await self._send(client, request, where, sent)
        try:
            # After send: an auth flow (httpx.Auth) has added its headers to the request by now.
            await _check_response(response, where, self._learn(request, sent))
            yield SSEEvents(_body(response, where), max_event_bytes=max_event_bytes)
        finally:
            await response.aclose()

    async def capabilities(self) -> str | None:
        """``GET {url}/capabilities``, else a GET on the run URL itself (some servers answer the
        document there): the document's text, scrubbed; None when the server has none (404,
        405; at the run URL also anything that is not a JSON object). Other failures at
        ``{url}/capabilities`` raise as a run's request would."""
        text = await self._document(capabilities_url(self.url), fallback=False)
        if text is None:
            text = await self._document(self.url, fallback=True)
        return text

    async def _document(self, url: str, *, fallback: bool) -> str | None:
        client = self._client_for_loop()
        where = safe_url(url)
        headers = {**self._headers, "Accept": "application/json", "Cache-Control": "no-store"}
        request = client.build_request("GET", url, headers=headers)
        if self.timeout is not None:
            request.extensions["timeout"] = self.timeout.as_dict()
        response = await self._send(client, request, where, None)
        try:
            scrubber = self._learn(request, None)
            if response.status_code in NO_DOCUMENT or (
                fallback and not 200 <= response.status_code < 300
            ):
                return None
            if not 200 <= response.status_code < 300:
                body = scrubber.text(await _read_some(response))
                raise HTTPStatusError(response.status_code, body, where)
            chunks: list[bytes] = []
            size = 0
            try:
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > MAX_CAPABILITIES_BYTES:
                        if fallback:
                            return None
                        raise ProtocolError(
                            f"the capabilities document from {where} is over "
                            f"{MAX_CAPABILITIES_BYTES} bytes"
                        )
                    chunks.append(chunk)
            except httpx.HTTPError as exc:
                raise ConnectionDropped(_reason(exc, scrubber)) from None
            text = b"".join(chunks).decode("utf-8", errors="replace")
            if fallback and not _json_object(text):
                return None  # the run URL's own answer to a GET (a page, an error): no document
            return scrubber.text(text)
        finally:
            await response.aclose()

    async def _send(
        self, client: httpx.AsyncClient, request: httpx.Request, where: str, sent: Any
    ) -> httpx.Response:
        """Send ``request`` (streamed); httpx's failures become our typed errors, their text
        scrubbed of the credentials sent so far and of those ``sent`` carries."""
        try:
            return await client.send(request, stream=True)
        except httpx.TransportError as exc:
            raise send_error(exc, where, self._learn(request, sent)) from None

    def _learn(self, request: httpx.Request, body: Any) -> Scrubber:
        self.scrubber = self.scrubber.union(secret_values(request, body))
        return self.scrubber


class SSEEvents:
    """An SSE body's event texts: each chunk of bytes decoded into the data of its messages."""

    def __init__(self, chunks: AsyncIterator[bytes], *, max_event_bytes: int) -> None:
        self._chunks = chunks
        self._decoder = SSEDataDecoder(max_event_bytes=max_event_bytes)

    def __aiter__(self) -> SSEEvents:
        return self

    async def __anext__(self) -> list[str]:
        return self._decoder.feed(await self._chunks.__anext__())

    def finish(self) -> list[str]:
        try:
            return self._decoder.close()
        except ProtocolError as exc:  # cut inside a UTF-8 character
            raise StreamCut(str(exc)) from None

    @property
    def bytes_received(self) -> int:
        return self._decoder.bytes_received

    @property
    def in_message(self) -> bool:
        return self._decoder.in_message


def streams_events(status: int, content_type: str) -> bool:
    """Whether a run's response is what AG-UI asks for: 2xx, ``text/event-stream``."""
    is_sse = content_type.partition(";")[0].strip().lower() == "text/event-stream"
    return 200 <= status < 300 and is_sse


def response_error(status: int, content_type: str, body: str, where: str) -> AGUIError:
    """What a run's response that is not an event stream means (``body`` already scrubbed)."""
    if not 200 <= status < 300:
        return HTTPStatusError(status, body, where)
    excerpt = body[:300] + ("..." if len(body) > 300 else "")
    return ProtocolError(
        f"expected an event stream (text/event-stream) from {where}, got "
        f"{content_type or 'no content type'!r}: {excerpt!r}"
    )


def send_error(exc: httpx.TransportError, where: str, scrubber: Scrubber) -> TransportError:
    """httpx's failure to get a response, as ours; its text scrubbed with ``scrubber``."""
    if isinstance(exc, httpx.ConnectTimeout):
        return ConnectError(f"timed out connecting to {where}")
    if isinstance(exc, httpx.TimeoutException):
        return StreamTimeout(f"no response from {where} within the timeout")
    if isinstance(exc, httpx.ConnectError):
        return ConnectError(f"cannot connect to {where}: {_reason(exc, scrubber)}")
    return TransportError(f"request to {where} failed: {_reason(exc, scrubber)}")


def read_error(exc: httpx.HTTPError, where: str) -> Exception:
    """httpx's failure while a response body streams, as the run loop reads it (``exc`` itself
    when it means nothing more)."""
    if isinstance(exc, httpx.ReadTimeout):
        return StreamTimeout(f"{where} sent nothing, not even a keepalive, within the read timeout")
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError | httpx.NetworkError):
        return ConnectionDropped(_reason(exc))
    if isinstance(exc, httpx.DecodingError):
        return ProtocolError(f"the response body from {where} cannot be decoded: {exc}")
    return exc


async def _check_response(response: httpx.Response, where: str, scrubber: Scrubber) -> None:
    content_type = response.headers.get("content-type", "")
    if streams_events(response.status_code, content_type):
        return
    # An error body may echo the credentials it was sent ("invalid token 'Bearer sk-...'"):
    # scrub them before the body reaches an error message, a card or a saved notebook.
    body = scrubber.text(await _read_some(response))
    raise response_error(response.status_code, content_type, body, where)


async def _read_some(response: httpx.Response) -> str:
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size >= _MAX_ERROR_BODY:
                break
    except httpx.HTTPError:
        pass
    return b"".join(chunks)[:_MAX_ERROR_BODY].decode("utf-8", errors="replace")


async def _body(response: httpx.Response, where: str) -> AsyncIterator[bytes]:
    try:
        async for chunk in response.aiter_bytes():
            yield chunk
    except httpx.HTTPError as exc:
        error = read_error(exc, where)
        if error is exc:
            raise
        raise error from None


def _reason(exc: BaseException, scrubber: Scrubber = EMPTY) -> str:
    text = scrubber.text(str(exc) or type(exc).__name__)
    return text if len(text) < 300 else text[:300] + "..."


def _json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False
