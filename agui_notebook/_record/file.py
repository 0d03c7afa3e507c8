"""The recording file: JSON lines written as they happen, and read back (version 2; 1 read too).

One JSON object a line, each flushed at once, so a crash leaves a readable prefix; every line is
scrubbed of the credentials the transport knows before it is written. Version 2 records at the
transport seam, whatever carried the run; ``n`` numbers the requests in the order they were
made::

    {"kind": "recording", "version": 2, "agui_notebook": "0.1.0", "created": "...", "url": "..."}
    {"kind": "request", "n": 1, "op": "run", "body": {...}}          (the RunAgentInput sent)
    {"kind": "event", "n": 1, "data": {"type": "RUN_STARTED", ...}}  (one per event; "raw": not JSON)
    {"kind": "end", "n": 1, "complete": true, "bytes": 2048}
    {"kind": "request", "n": 2, "op": "capabilities"}
    {"kind": "body", "n": 2, "text": "{...}"}                         (the document; none: no document)
    {"kind": "end", "n": 2, "complete": true}

``complete`` is false when the stream broke (then ``error`` names the error, with what rebuilds
it: ``message``, or ``status``/``body``/``url``, ``code``/``reason``/``url``) or when the client
stopped reading first; ``bytes`` is what the transport had received, and ``inside`` (when true)
says the stream ended inside an event. A run the transport refused to open has an ``error`` line instead of its
events (``{"kind": "error", "n": 3, "error": "HTTPStatusError", "status": 401, ...}``).

Version 1 recorded HTTP itself: each request's ``method``, ``url`` and redacted ``headers``;
each ``response``'s status and headers; its SSE messages as ``event`` lines (with their SSE
``event`` and ``id`` fields) or another ``body``; an ``end``, or an ``error`` naming httpx's
exception. :func:`load_recording` reads both; ``_record.legacy`` replays version 1's failures as
the HTTP transport raised them.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .._errors import (
    ConnectError,
    HTTPStatusError,
    ProtocolError,
    StreamTimeout,
    TransportError,
    WebSocketClosed,
)
from .._protocol.secrets import EMPTY, Scrubber, redact_url
from .._transports.base import ConnectionDropped, StreamCut
from .._version import __version__

__all__ = [
    "FORMAT_VERSION",
    "READS",
    "Exchange",
    "Writer",
    "error_fields",
    "header",
    "load_recording",
    "parse_json",
    "rebuild_error",
]

#: The version written.
FORMAT_VERSION = 2
#: The versions read.
READS = (1, 2)

#: What :func:`parse_json` gives for a text that is not JSON.
NOT_JSON: Any = object()


def parse_json(text: str | bytes) -> Any:
    """The JSON value of ``text``, or :data:`NOT_JSON`."""
    try:
        return json.loads(text)
    except ValueError:
        return NOT_JSON


class Writer:
    """Appends JSON lines, each flushed at once; scrubs known secret values from every line."""

    def __init__(self, path: str | os.PathLike[str], first: dict[str, Any]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self.scrubber: Scrubber = EMPTY
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("", encoding="utf-8")
        self.write(first)

    def add_secrets(self, values: Iterable[str]) -> None:
        with self._lock:
            self.scrubber = self.scrubber.union(values)

    def write(self, obj: dict[str, Any]) -> None:
        with self._lock:
            # Value by value, so the line stays valid JSON whatever the secret looks like.
            line = json.dumps(self.scrubber.value(obj), ensure_ascii=False)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(line + "\n")


def header(url: str | None) -> dict[str, Any]:
    """The first line: format, writer, time, and the agent's URL (redacted)."""
    first: dict[str, Any] = {
        "kind": "recording",
        "version": FORMAT_VERSION,
        "agui_notebook": __version__,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    if url is not None:
        first["url"] = redact_url(url)
    return first


@dataclass
class Exchange:
    """One recorded request and what came back."""

    n: int
    request: dict[str, Any]
    #: Version 1: the HTTP response's status and headers.
    response: dict[str, Any] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    #: Version 1: a body that was not an event stream; version 2: the capabilities document.
    body: str | None = None
    end: dict[str, Any] | None = None
    #: The name of the error that kept the request from opening (version 1: httpx's).
    error: str | None = None
    #: Version 2: that error's line, with what rebuilds it (:func:`rebuild_error`).
    failure: dict[str, Any] | None = None

    @property
    def op(self) -> str:
        """``run`` or ``capabilities`` (version 1 said it with the HTTP method)."""
        op = self.request.get("op")
        if isinstance(op, str):
            return op
        return "capabilities" if self.request.get("method") == "GET" else "run"


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
        obj = parse_json(line)
        if obj is NOT_JSON:
            if number == len(lines):
                break
            raise ValueError(f"{path}, line {number}: not a JSON line")
        if not isinstance(obj, dict) or not isinstance(obj.get("kind"), str):
            raise ValueError(f"{path}, line {number}: expected an object with a 'kind'")
        objects.append(obj)
    if not objects or objects[0]["kind"] != "recording":
        raise ValueError(f"{path} is not an agui_notebook recording (no header line)")
    first = objects[0]
    if first.get("version") not in READS:
        raise ValueError(
            f"{path}: recording format version {first.get('version')!r}; this agui_notebook "
            f"reads versions {', '.join(map(str, READS))}"
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
            exchange.failure = obj
        # "note" and unknown kinds are for people reading the file.
    return first, [exchanges[n] for n in sorted(exchanges)]


# -- a transport's errors, written and rebuilt --------------------------------------------------

#: The errors a transport raises that a message alone rebuilds.
_BY_MESSAGE: dict[str, type[Exception]] = {
    cls.__name__: cls
    for cls in (
        ConnectError,
        StreamTimeout,
        TransportError,
        ProtocolError,
        ConnectionDropped,
        StreamCut,
    )
}


def error_fields(error: BaseException) -> dict[str, Any]:
    """What rebuilds ``error`` on replay: its class's name and its fields (the text as the
    transport made it, already without the credentials it knows)."""
    if isinstance(error, HTTPStatusError):
        return {
            "error": "HTTPStatusError",
            "status": error.status_code,
            "body": error.body,
            "url": error.url,
        }
    if isinstance(error, WebSocketClosed):
        return {
            "error": "WebSocketClosed",
            "code": error.code,
            "reason": error.reason,
            "url": error.url,
        }
    # Exception's own text: not what a thread adds to it later (AGUIError.__str__).
    fields: dict[str, Any] = {"error": type(error).__name__, "message": Exception.__str__(error)}
    if isinstance(error, ProtocolError) and error.event_index is not None:
        fields["event_index"] = error.event_index  # already in the message
    return fields


def rebuild_error(line: Mapping[str, Any]) -> Exception:
    """The error a version 2 ``error`` or ``end`` line recorded; another transport's own error
    is a :class:`TransportError` that names it."""
    name = str(line.get("error") or "TransportError")
    url = str(line.get("url", ""))
    if name == "HTTPStatusError":
        return HTTPStatusError(int(line.get("status", 0)), str(line.get("body", "")), url)
    if name == "WebSocketClosed":
        return WebSocketClosed(int(line.get("code", 1006)), str(line.get("reason", "")), url)
    message = str(line.get("message", ""))
    cls = _BY_MESSAGE.get(name)
    if cls is None:
        return TransportError(f"(recorded) {name}" + (f": {message}" if message else ""))
    error = cls(message)
    if isinstance(error, ProtocolError) and isinstance(line.get("event_index"), int):
        error.event_index = line["event_index"]
    return error
