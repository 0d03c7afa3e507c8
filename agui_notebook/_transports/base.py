"""What a transport is to the run loop: it opens one run and hands over event texts.

The run loop (``_thread``) knows no framing. A transport sends the request body, and its
:class:`EventStream` yields the JSON texts of the events as they arrive, in batches (one per
network read; an empty batch says the server is alive, e.g. a keepalive comment), then the rest
at the end (:meth:`EventStream.finish`). How the texts were carried (SSE over HTTP, WebSocket
frames) is the transport's own business; so are its credentials, which it lends to a
:class:`~agui_notebook._protocol.secrets.Scrubber` so that nothing the server echoes shows them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from .._protocol.secrets import Scrubber

__all__ = ["ConnectionDropped", "EventStream", "StreamCut", "Transport"]


class ConnectionDropped(Exception):
    """The connection failed mid-stream; the run loop turns it into a TruncatedRunError."""


class StreamCut(Exception):
    """The stream ended inside something it cannot finish (a UTF-8 character, a frame)."""


class EventStream(Protocol):
    """One run's event texts, in batches as they arrive."""

    def __aiter__(self) -> AsyncIterator[list[str]]: ...

    def finish(self) -> list[str]:
        """At the end of the stream: the texts still held. Raises :class:`StreamCut`."""
        ...

    @property
    def bytes_received(self) -> int: ...

    @property
    def in_message(self) -> bool:
        """True when the stream has started an event it has not finished."""
        ...


class Transport(Protocol):
    """Opens one run per request (``http.HTTPTransport`` is one).

    ``scrubber`` knows every credential sent so far (``open`` adds the request's);
    ``known_scrubber()`` also what the next request would carry, without sending anything.
    A transport may also have ``async capabilities() -> str | None``: the agent's capabilities
    document as text (None: the server has none); ``Agent.capabilities`` asks it when there.
    """

    @property
    def scrubber(self) -> Scrubber: ...

    def open(
        self, body: bytes, *, forwarded_props: Any = None, max_event_bytes: int
    ) -> AbstractAsyncContextManager[EventStream]: ...

    def known_scrubber(self) -> Scrubber: ...

    async def aclose(self) -> None: ...
