"""Bytes to server-sent-event messages: pure, incremental, no I/O.

Line splitting and field parsing are httpx-sse's (``SSELineDecoder``, ``SSEDecoder``), so LF,
CR and CRLF endings, ``data:`` with or without its space, multi-line data and ``:`` comments
follow the HTML standard's event-stream interpretation. This module adds what a client of an
untrusted server also needs: strict UTF-8 (a broken byte sequence is a protocol error, not a
silent U+FFFD), a leading BOM dropped, a bound on one event's size, and byte accounting so a
truncated stream can say where it broke. :class:`SSEDataDecoder`, which the run loop uses, reads
the shape nearly every AG-UI server sends (``data: <json>`` and a blank line, LF endings) without
the per-line decoder and hands anything else to :class:`SSEStreamDecoder`, with the same result.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from httpx_sse._decoders import SSEDecoder, SSELineDecoder

from .._errors import ProtocolError

__all__ = ["DEFAULT_MAX_EVENT_BYTES", "SSEDataDecoder", "SSEMessage", "SSEStreamDecoder"]

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
        text = self.text(chunk)
        return self._decode_text(text) if text else []

    def text(self, chunk: bytes) -> str:
        """``chunk`` counted and decoded as strict UTF-8 (a character split across chunks waits
        for its end), without the stream's leading BOM. :meth:`feed` starts here."""
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
        return text

    @property
    def at_boundary(self) -> bool:
        """Nothing of a message is held: no partial line, no field since the last blank line."""
        lines = self._lines
        return not (lines.buffer or lines.trailing_cr or self.in_message)

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

    def decode_text(self, text: str) -> list[SSEMessage]:
        """Text from :meth:`text` (or from an equivalent decoder stopped at a message boundary)
        through the line and field decoders."""
        return self._decode_text(text) if text else []

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
            head = _head(self._lines.buffer)
            pending = max(0, partial - 6) if head.startswith("data") else 0
            if self._message_chars + pending > self._max or partial > self._max + 64:
                raise ProtocolError(_too_large(self._max))
        elif self._message_chars > self._max:
            raise ProtocolError(_too_large(self._max))
        return out


def _head(pieces: list[str]) -> str:
    """The first 6 characters of a partial line held in pieces (however it was split)."""
    head = pieces[0][:6]
    for piece in pieces[1:]:
        if len(head) >= 6:
            break
        head = (head + piece)[:6]
    return head


def _too_large(limit: int) -> str:
    return (
        f"one event exceeds {limit} characters; raise max_event_bytes if the server "
        "legitimately sends events this large"
    )


class SSEDataDecoder:
    """The data of each SSE message, for the run loop: the common shape split in one go.

    AG-UI servers almost always send ``data: <json>\\n\\n``: one ``data`` line with its space, LF
    endings, no comments, ids, event names or retry. For a run of such messages the text is
    split once per chunk (``str.split``) instead of line by line. Anything else (CR or CRLF, a
    comment, a multi-line data, another field, ``data:`` without its space, a blank line too
    many) goes, from the last message boundary, through :class:`SSEStreamDecoder`'s line and
    field decoders (httpx-sse's), and the fast path resumes at the next boundary they reach.
    Strict UTF-8, the leading BOM, the size bound, byte accounting and :attr:`in_message` are
    :class:`SSEStreamDecoder`'s, with the same errors at the same bytes
    (``tests/protocol/test_sse_fast.py`` checks both against httpx-sse on arbitrary streams).

    >>> d = SSEDataDecoder()
    >>> d.feed(b'data: {"a"') + d.feed(b': 1}\\n\\ndata: 2\\r\\n\\r\\n')
    ['{"a": 1}', '2']
    """

    __slots__ = ("_fallback", "_fast", "_held", "_held_chars", "_max")

    def __init__(self, *, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        self._fallback = SSEStreamDecoder(max_event_bytes=max_event_bytes)
        self._max = max_event_bytes
        #: True while the fallback holds nothing: the stream is at a message boundary, up to
        #: the text held (after the last boundary, not yet a complete message).
        self._fast = True
        #: The held text in pieces, so a large event arriving in many chunks is not copied
        #: once per chunk. While fast it is at most one line: no CR, an LF only at its end.
        self._held: list[str] = []
        self._held_chars = 0

    @property
    def bytes_received(self) -> int:
        return self._fallback.bytes_received

    @property
    def in_message(self) -> bool:
        """True while a message has started (a field line, or after :meth:`close` a partial
        line) but not been dispatched: :attr:`SSEStreamDecoder.in_message` for the same bytes."""
        if not (self._fast and self._held):
            return self._fallback.in_message
        held = "".join(self._held)
        probe = SSEStreamDecoder(max_event_bytes=len(held) + 1)
        probe.decode_text(held)  # from a boundary, as the fallback would
        return probe.in_message

    def feed(self, chunk: bytes) -> list[str]:
        text = self._fallback.text(chunk)
        if not self._fast:
            return self._fall_back(text)
        if not text:
            return []
        held = self._held
        if "\n" not in text:  # no message can end here: hold the text
            held.append(text)
            self._held_chars += len(text)
            if len(held) > 1 and held[-2][-1] == "\n":  # a second line: not the common shape
                return self._fall_back_held()
            return self._checked_held([])
        buffer = "".join(held) + text if held else text
        held.clear()
        self._held_chars = 0
        end = buffer.rfind("\n\n")
        if end < 0:
            data: list[str] = []
            rest = buffer
        else:
            split = _fast_split(buffer, end)
            if split is None:
                return self._fall_back(buffer)
            data = split
            if end > self._max:
                for value in data:
                    if len(value) > self._max:
                        raise ProtocolError(_too_large(self._max))
            rest = buffer[end + 2 :]
        if not rest:
            return data
        held.append(rest)
        self._held_chars = len(rest)
        newline = rest.find("\n")
        if 0 <= newline < len(rest) - 1:  # a line and more: not the common shape
            return data + self._fall_back_held()
        return self._checked_held(data)

    def close(self) -> list[str]:
        """End of stream: flush. A message without its closing blank line is NOT dispatched."""
        out = self._fall_back_held() if self._held else []
        return out + [m.data for m in self._fallback.close()]

    def _fall_back(self, text: str) -> list[str]:
        """``text`` (from a boundary while fast) through the line and field decoders."""
        fallback = self._fallback
        out = [m.data for m in fallback.decode_text(text)]
        self._fast = fallback.at_boundary
        return out

    def _checked_held(self, data: list[str]) -> list[str]:
        """``data``, after the held text goes to the fallback if it must: a CR (with CR endings
        the fallback may dispatch a message now) or as long as the size bound (the fallback's
        checks give the verdict)."""
        if self._held_chars > self._max or "\r" in self._held[-1]:
            return data + self._fall_back_held()
        return data

    def _fall_back_held(self) -> list[str]:
        text = "".join(self._held)
        self._held.clear()
        self._held_chars = 0
        return self._fall_back(text)


def _fast_split(buffer: str, end: int) -> list[str] | None:
    """The data of the messages in ``buffer[:end]`` (``buffer[end:end+2]`` is their last
    ``\\n\\n``) if every one is ``data: <value>`` on one LF line; None for anything else.

    The block is ``"data: " + "\\n\\ndata: ".join(values)`` exactly when it starts with
    ``"data: "`` and holds no newline besides those separators (so no value holds one).
    """
    if not buffer.startswith("data: ") or buffer.find("\r", 0, end) >= 0:
        return None
    values = buffer[6:end].split("\n\ndata: ")
    for value in values:  # ``in`` is a memchr; str.count walks every character
        if "\n" in value:
            return None
    if "" in values:  # "data: " alone: an empty data buffer is not dispatched (HTML)
        return [v for v in values if v]
    return values
