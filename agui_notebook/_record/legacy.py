"""Version 1 recordings: HTTP exchanges, failing on replay as the HTTP transport failed live.

Version 1 recorded at httpx's level: each response's status and headers, its SSE messages or
another body, and httpx's own exception names. Replayed at the transport seam, an exchange fails
as ``_transports.http`` made it fail (its own functions decide: a status error, a body that is
not an event stream, a network error before or during the body); its events are served as
version 2's are. Nothing here writes: a recording is always written as version 2.
"""

from __future__ import annotations

from typing import Any

import httpx

from .._errors import HTTPStatusError
from .._protocol.secrets import EMPTY, REDACTED
from .._transports.http import (
    NO_DOCUMENT,
    read_error,
    response_error,
    send_error,
    streams_events,
)
from .file import Exchange

__all__ = ["capabilities", "failures"]


def failures(exchange: Exchange, where: str) -> tuple[Exception | None, Exception | None]:
    """The error a recorded run raises when opened (None: it streams), and the one its stream
    breaks with after the recorded events (None: it ends there)."""
    if exchange.error is not None:
        return _unanswered(exchange.error, where), None
    status, content_type = _status(exchange)
    if not streams_events(status, content_type):
        return response_error(status, content_type, exchange.body or "", where), None
    name = (exchange.end or {}).get("error")
    if not name:
        return None, None
    dropped = _httpx_error(str(name), httpx.ReadError, "(recorded) the connection dropped")
    return None, read_error(dropped, where)


def capabilities(exchange: Exchange, where: str) -> str | None:
    """A recorded capabilities request's document (None: the server had none), or its error."""
    if exchange.error is not None:
        raise _unanswered(exchange.error, where)
    status, _ = _status(exchange)
    if status in NO_DOCUMENT:
        return None
    if not 200 <= status < 300:
        raise HTTPStatusError(status, exchange.body or "", where)
    return exchange.body or ""


def _unanswered(name: str, where: str) -> Exception:
    """No response at all: httpx's error, as the HTTP transport told it."""
    return send_error(_httpx_error(name, httpx.ConnectError, f"(recorded) {name}"), where, EMPTY)


def _status(exchange: Exchange) -> tuple[int, str]:
    response: dict[str, Any] = exchange.response or {}
    headers = {
        str(k).lower(): str(v)
        for k, v in dict(response.get("headers") or {}).items()
        if v != REDACTED
    }
    content_type = headers.get("content-type", "")
    if not content_type and exchange.body is None:
        content_type = "text/event-stream"  # a recording cut before its response line
    return int(response.get("status", 200)), content_type


def _httpx_error(
    name: str, default: type[httpx.TransportError], message: str
) -> httpx.TransportError:
    found = getattr(httpx, name, None)
    cls = found if isinstance(found, type) and issubclass(found, httpx.TransportError) else default
    return cls(message)
