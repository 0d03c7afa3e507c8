"""Which transport an agent uses: the one named, or the one its URL's scheme calls for.

A new transport is a module in this room and one entry in :data:`BY_NAME` (and in
:data:`BY_SCHEME` when a URL scheme means it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import httpx

from .base import Transport
from .http import HTTPTransport
from .websocket import WebSocketTransport

__all__ = ["BY_NAME", "BY_SCHEME", "make_transport"]

#: A transport's factory: ``make(url, headers=, http_client=, timeout=)``.
Factory = Callable[..., Transport]

BY_NAME: dict[str, Factory] = {"http": HTTPTransport, "websocket": WebSocketTransport}
#: Other names users write for the same transports.
ALIASES = {
    "sse": "http",
    "http+sse": "http",
    "https": "http",
    "ws": "websocket",
    "wss": "websocket",
}
BY_SCHEME = {"http": "http", "https": "http", "ws": "websocket", "wss": "websocket"}


def make_transport(
    transport: Transport | str | None,
    url: str,
    *,
    headers: Mapping[str, str] | None,
    http_client: httpx.AsyncClient | None,
    timeout: httpx.Timeout | None,
) -> Transport:
    """The transport for ``Agent(url, transport=...)``: an object as given, a name, or (None)
    the one the URL's scheme calls for. Raises ValueError naming the choices."""
    if transport is not None and not isinstance(transport, str):
        if headers or http_client is not None:
            raise ValueError(
                "headers= and http_client= configure the transport the agent makes; with your "
                "own transport object, give them to it instead"
            )
        return transport
    if transport is None:
        scheme = httpx.URL(url).scheme.lower()
        name = BY_SCHEME.get(scheme)
        if name is None:
            raise ValueError(
                f"no transport for {scheme or 'scheme-less'} URLs (known: "
                f"{', '.join(sorted(BY_SCHEME))}); pass transport= to choose one"
            )
    else:
        name = ALIASES.get(transport.lower(), transport.lower())
        if name not in BY_NAME:
            known = sorted({*BY_NAME, *ALIASES})
            raise ValueError(f"unknown transport {transport!r} (known: {', '.join(known)})")
    make: Any = BY_NAME[name]
    built: Transport = make(url, headers=headers, http_client=http_client, timeout=timeout)
    return built
