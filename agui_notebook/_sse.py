"""Bytes to server-sent-event messages: pure, incremental, no I/O.

Line splitting and field parsing are httpx-sse's (``SSELineDecoder``, ``SSEDecoder``), so LF,
CR and CRLF endings, ``data:`` with or without its space, multi-line data and ``:`` comments
follow the HTML standard's event-stream interpretation. This module adds what a client of an
untrusted server also needs: strict UTF-8 (a broken byte sequence is a protocol error, not a
silent U+FFFD), a leading BOM dropped, a bound on one event's size, and byte accounting so a
truncated stream can say where it broke.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from httpx_sse._decoders import SSEDecoder, SSELineDecoder

from ._errors import ProtocolError

__all__ = ["DEFAULT_MAX_EVENT_BYTES", "SSEMessage", "SSEStreamDecoder"]

#: Default bound on one event's data. Large tool results and state snapshots are legitimate,
#: so this is generous; it exists so a server that never sends a blank line cannot grow the
#: buffer without limit.
DEFAULT_MAX_EVENT_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class SSEMessage:
    """One dispatched SSE message: its ``data`` (lines joined by LF) and optional fields."""

    data: str
    event: str = "message"
    id: str = ""


class SSEStreamDecoder:
    """Feed bytes in any split; get complete SSE messages out.

    >>> d = SSEStreamDecoder()
    >>> d.feed(b'data: {"a"') + d.feed(b': 1}\\r\\n\\r\\n')
    [SSEMessage(data='{"a": 1}', event='message', id='')]
    """

    def __init__(self, *, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="strict")
        self._lines = SSELineDecoder()
        self._fields = SSEDecoder()
        self._max = max_event_bytes
        self._message_chars = 0  # characters of the message being received
        self._started = False
        self.bytes_received = 0
        #: True while a message has started (a data line or partial line) but not been dispatched.
        self.in_message = False

    def feed(self, chunk: bytes) -> list[SSEMessage]:
        self.bytes_received += len(chunk)
        try:
            text = self._utf8.decode(chunk)
        except UnicodeDecodeError as exc:
            raise ProtocolError(
                f"the event stream is not valid UTF-8 near byte {self.bytes_received - len(chunk) + exc.start}"
            ) from None
        if not self._started and text:
            self._started = True
            if text.startswith("\ufeff"):  # HTML: one leading BOM is ignored
                text = text[1:]
        return self._decode_text(text) if text else []

    def close(self) -> list[SSEMessage]:
        """End of stream: flush. A message without its closing blank line is NOT dispatched."""
        try:
            tail = self._utf8.decode(b"", final=True)
        except UnicodeDecodeError:
            self.in_message = True
            raise ProtocolError("the event stream ends inside a UTF-8 sequence") from None
        out = self._decode_text(tail) if tail else []
        for line in self._lines.flush():
            if line == "":
                # A trailing CR was held back as a possible CRLF: it ends a line after all.
                sse = self._fields.decode("")
                if sse is not None and sse.data:
                    out.append(SSEMessage(data=sse.data, event=sse.event, id=sse.id))
                self.in_message = False
                continue
            # A final line without a newline cannot complete a message (no blank line follows).
            self._fields.decode(line)
            self.in_message = True
        return out

    def _decode_text(self, text: str) -> list[SSEMessage]:
        out: list[SSEMessage] = []
        for line in self._lines.decode(text):
            sse = self._fields.decode(line)
            if sse is None:
                if line.startswith("data:"):
                    self.in_message = True
                    # The data buffer's size so far: values joined by LF (HTML event stream).
                    value = len(line) - (6 if line.startswith("data: ") else 5)
                    self._message_chars += value + (1 if self._message_chars else 0)
                elif line and not line.startswith(":"):
                    self.in_message = True
                elif not line:
                    self.in_message = False
                    self._message_chars = 0
                continue
            self.in_message = False
            self._message_chars = 0
            # HTML: a message whose data buffer is empty is not dispatched (httpx-sse still
            # dispatches one when a last-event-id is set, so filter here).
            if sse.data:
                if len(sse.data) > self._max:
                    raise ProtocolError(_too_large(self._max))
                out.append(SSEMessage(data=sse.data, event=sse.event, id=sse.id))
        # Bound memory before the event ends, with a verdict that cannot depend on where the
        # bytes were split: only a lower bound of the final data size counts.
        partial = sum(len(part) for part in self._lines.buffer)
        if partial:
            head = self._lines.buffer[0][:6]
            pending = max(0, partial - 6) if head.startswith("data") else 0
            if self._message_chars + pending > self._max or partial > self._max + 64:
                raise ProtocolError(_too_large(self._max))
        elif self._message_chars > self._max:
            raise ProtocolError(_too_large(self._max))
        return out


def _too_large(limit: int) -> str:
    return (
        f"one event exceeds {limit} characters; raise max_event_bytes if the server "
        "legitimately sends events this large"
    )
