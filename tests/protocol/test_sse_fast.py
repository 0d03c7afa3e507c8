"""_sse.SSEDataDecoder (the run loop's fast path) against httpx-sse's decoder, differentially.

Streams are drawn from SSE's whole vocabulary (LF, CRLF and CR endings, a BOM, comments,
multi-line data, ``data:`` without its space, ids, event names, retry, unknown fields, empty data,
blank lines, non-ASCII text and invalid UTF-8), mostly in the common shape so the fast path runs
and hands over to the fallback mid-stream, and cut at arbitrary byte offsets. Three references:

- httpx-sse alone (``SSELineDecoder`` + ``SSEDecoder`` over the strictly decoded body): the same
  data, in order, for every stream that is valid UTF-8 and within the size bound;
- :class:`SSEStreamDecoder` (the general decoder, which the client used before the fast path):
  the same data out of EVERY feed, the same error at the same feed, the same byte count and the
  same ``in_message`` after every feed and after close;
- chunking: the same data however the bytes are cut.
"""

from __future__ import annotations

import codecs
from typing import Any

import hypothesis.strategies as st
import pytest
from httpx_sse._decoders import SSEDecoder, SSELineDecoder
from hypothesis import HealthCheck, example, given, settings

from agui_notebook import ProtocolError
from agui_notebook._protocol.sse import SSEDataDecoder, SSEMessage, SSEStreamDecoder
from tests._hypothesis import examples
from tests.thread._streams import every, split_at

MANY = settings(
    deadline=None, max_examples=examples(600), suppress_health_check=[HealthCheck.too_slow]
)

# Values with no line break; some hold characters other line splitters break on (NEL, LS, PS,
# VT, FF) but SSE does not, and a NUL (which only an ``id`` refuses).
_VALUES = st.sampled_from(
    [
        '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}',
        "x",
        "",
        " lead",
        "a:b",
        "é€😀",
        "\u2028\u2029",
        "\x85\x0b\x0c\x1c",
        "\x00",
        "data: inside",
        "null",
        "{}",
    ]
) | st.text(max_size=12)
_ENDINGS = st.sampled_from(["\n", "\n", "\n", "\r\n", "\r"])


@st.composite
def _line(draw: st.DrawFn) -> str:
    value = draw(_VALUES).replace("\n", "").replace("\r", "")
    kind = draw(
        st.sampled_from(
            ["data: "] * 6
            + ["data:", "data:  ", ": ", ":", "id: ", "event: ", "retry: ", "x: ", "data"]
        )
    )
    return ("data" if kind == "data" else kind + value) + draw(_ENDINGS)


@st.composite
def _message(draw: st.DrawFn) -> bytes:
    """Mostly ``data: <value>\\n\\n``; sometimes any lines, a stray blank line or bad bytes."""
    shape = draw(st.integers(0, 10))
    if shape < 7:  # the common shape, or nearly (no space after the colon)
        value = draw(_VALUES).replace("\n", "").replace("\r", "")
        return f"data:{' ' if shape else ''}{value}\n\n".encode()
    if shape < 10:
        lines = draw(st.lists(_line(), min_size=0, max_size=4))
        return ("".join(lines) + draw(_ENDINGS)).encode()
    return draw(st.sampled_from([b"\xff", b"\xe2\x82", b"\xc3", b"\xed\xa0\x80", b"\n", b"\r"]))


@st.composite
def sse_body(draw: st.DrawFn) -> bytes:
    bom = draw(st.sampled_from([b"", b"", b"", b"\xef\xbb\xbf", b"\xef\xbb\xbf\xef\xbb\xbf"]))
    body = bom + b"".join(draw(st.lists(_message(), max_size=25)))
    if draw(st.booleans()):
        body += draw(st.sampled_from([b"data: tail", b"data: x\n", b"\r", b": c", b"\xe2"]))
    return body


@st.composite
def chunked(draw: st.DrawFn) -> tuple[bytes, list[bytes]]:
    body = draw(sse_body())
    if not body:
        return body, []
    cuts = draw(st.lists(st.integers(0, len(body)), max_size=12))
    return body, split_at(body, cuts)


def run(decoder: Any, chunks: list[bytes]) -> list[Any]:
    """Per feed (then close): the data out, or the error; with the byte count and in_message."""
    trace: list[Any] = []
    for chunk in chunks:
        try:
            out: Any = [m if isinstance(m, str) else m.data for m in decoder.feed(chunk)]
        except ProtocolError as exc:
            trace.append(("error", str(exc), decoder.bytes_received))
            return trace
        trace.append(("feed", out, decoder.bytes_received, decoder.in_message))
    try:
        tail = [m if isinstance(m, str) else m.data for m in decoder.close()]
    except ProtocolError as exc:
        trace.append(("error at close", str(exc), decoder.in_message))
        return trace
    trace.append(("close", tail, decoder.in_message))
    return trace


def failed(trace: list[Any]) -> bool:
    return str(trace[-1][0]).startswith("error")


def httpx_sse_data(body: bytes) -> list[str] | None:
    """httpx-sse's reading of the whole body (strict UTF-8, one leading BOM dropped); messages
    with empty data are not dispatched (HTML). None when the body is not valid UTF-8."""
    try:
        text = codecs.decode(body, "utf-8")
    except UnicodeDecodeError:
        return None
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = SSELineDecoder()
    fields = SSEDecoder()
    out = []
    for line in [*lines.decode(text), *lines.flush()] if text else []:
        sse = fields.decode(line)
        if sse is not None and sse.data:
            out.append(sse.data)
    return out


def data_of(trace: list[Any]) -> list[str]:
    return [data for step in trace if step[0] in ("feed", "close") for data in step[1]]


@MANY
@given(chunked(), st.sampled_from([64 * 1024 * 1024, 40, 8]))
@example((b"data: 1\r\rdata: 2\r\r", [b"data: 1\r\r", b"data: 2\r\r"]), 1024)
@example((b"data: a\n\n\ndata: b\n\n", [b"data: a\n\n\ndata: b\n\n"]), 1024)
@example((b"data: 1\n\n: c\n", [b"data: 1\n\n: c\n"]), 1024)
@example((b"data:x\n\ndata: y\n\n", [b"data:x\n\ndata: y\n\n"]), 1024)
@example((b"data: \n\ndata: y\n\n", [b"data: \n\ndata: y\n\n"]), 1024)
@example((b"data: 1\r\rdata: 2\n\n", [b"data: 1\r\rdata: 2\n\n"]), 1024)
@example((b"data: 0123456789", [b"data: 01234", b"56789"]), 8)
def test_fast_path_equals_the_general_decoder_feed_by_feed(
    case: tuple[bytes, list[bytes]], limit: int
) -> None:
    _, chunks = case
    fast = run(SSEDataDecoder(max_event_bytes=limit), chunks)
    general = run(SSEStreamDecoder(max_event_bytes=limit), chunks)
    assert fast == general


@MANY
@given(chunked())
def test_fast_path_reads_what_httpx_sse_reads(case: tuple[bytes, list[bytes]]) -> None:
    body, chunks = case
    expected = httpx_sse_data(body)
    trace = run(SSEDataDecoder(), chunks)
    if expected is None:
        assert failed(trace), "invalid UTF-8 must be a ProtocolError"
        return
    assert not failed(trace)
    # httpx-sse's flush dispatches nothing without a blank line either, except a held CR.
    assert data_of(trace) == expected


@MANY
@given(sse_body(), st.data())
def test_the_fast_path_does_not_depend_on_the_split(body: bytes, data: st.DataObject) -> None:
    whole = run(SSEDataDecoder(), [body] if body else [])
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=20))
    split = run(SSEDataDecoder(), split_at(body, cuts))
    single = run(SSEDataDecoder(), every(body, 1))
    if failed(whole):
        assert failed(split) and failed(single)
        return
    assert data_of(split) == data_of(whole) == data_of(single)


@MANY
@given(
    st.lists(_VALUES.map(lambda v: v.replace("\n", "").replace("\r", "")), max_size=30),
    st.booleans(),
    st.data(),
)
def test_the_common_shape_never_reaches_the_general_decoder(
    values: list[str], bom: bool, data: st.DataObject
) -> None:
    """The point of the fast path: ``data: <value>\\n\\n`` is split without the line decoder,
    however the bytes are cut (inside a character, between the two LFs)."""
    body = (b"\xef\xbb\xbf" if bom else b"") + b"".join(f"data: {v}\n\n".encode() for v in values)
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=20))
    decoder = SSEDataDecoder()
    handed_over: list[str] = []

    def general(text: str) -> list[SSEMessage]:
        handed_over.append(text)
        return []

    decoder._fallback.decode_text = general  # type: ignore[method-assign]
    out = [d for chunk in split_at(body, cuts) for d in decoder.feed(chunk)]
    assert handed_over == []
    assert out == [v for v in values if v]
    assert not decoder.in_message


def test_the_common_shape_takes_the_fast_path_and_returns_to_it_after_a_comment() -> None:
    decoder = SSEDataDecoder()
    assert decoder.feed(b"data: 1\n\ndata: 2\n\ndata: 3") == ["1", "2"]
    assert decoder._fast
    assert decoder.feed(b"\n\n: keepalive\r\n\r\n") == ["3"]
    assert decoder._fast  # the fallback read the comment and stopped at a boundary
    assert decoder.feed(b"data: 4\n") == []
    assert decoder._fast and decoder.in_message  # a data line read, its message not ended
    assert decoder.feed(b"\n") == ["4"]


def test_a_partial_line_keeps_the_fallback_until_a_boundary() -> None:
    decoder = SSEDataDecoder()
    assert decoder.feed(b"data: a\r\ndata: b") == []
    assert not decoder._fast
    assert decoder.feed(b"\r\n\r\ndata: c\n\n") == ["a\nb", "c"]
    assert decoder._fast


def test_a_large_event_in_many_chunks_is_held_in_pieces() -> None:
    """Held text is joined once, when a line ends: joining it on every chunk made a 10 MB
    event arriving in 16 KiB chunks cost seconds (quadratic)."""
    decoder = SSEDataDecoder()
    assert decoder.feed(b"data: ") == []
    for _ in range(1000):
        assert decoder.feed(b"x" * 1000) == []
    assert decoder._fast and len(decoder._held) == 1001
    assert decoder.feed(b"\n") == [] and len(decoder._held) == 1
    assert decoder.feed(b"\n") == ["x" * 1_000_000]


@pytest.mark.parametrize("chunks", [[b"data: a\n", b"data: b"], [b"data: a\ndata: b"]])
def test_a_second_line_goes_to_the_general_decoder_at_once(chunks: list[bytes]) -> None:
    """Not the common shape: the general decoder reads it line by line, not joined again."""
    decoder = SSEDataDecoder()
    for chunk in chunks:
        assert decoder.feed(chunk) == []
    assert not decoder._fast and decoder._held == []
    assert decoder.feed(b"\n\n") == ["a\nb"]


def test_in_message_mid_stream_matches_the_general_decoder() -> None:
    for body in (b"data: 1\n", b"data: 1\n\n: c\n", b"id: 3\n", b"data: x", b"event: e\n\nda"):
        fast, general = SSEDataDecoder(), SSEStreamDecoder()
        fast.feed(body)
        general.feed(body)
        assert fast.in_message == general.in_message, body


@pytest.mark.parametrize("limit", [10, 100])
def test_a_fast_shaped_message_over_the_bound_is_refused(limit: int) -> None:
    body = b"data: " + b"x" * (limit + 1) + b"\n\n"
    with pytest.raises(ProtocolError, match=f"exceeds {limit}"):
        SSEDataDecoder(max_event_bytes=limit).feed(b"data: ok\n\n" + body)
    decoder = SSEDataDecoder(max_event_bytes=limit)
    with pytest.raises(ProtocolError, match=f"exceeds {limit}"):
        for chunk in every(body, 3):
            decoder.feed(chunk)


def test_invalid_utf8_in_a_comment_is_refused_on_the_fast_path_too() -> None:
    decoder = SSEDataDecoder()
    assert decoder.feed(b"data: 1\n\n") == ["1"]
    with pytest.raises(ProtocolError, match=r"not valid UTF-8 near byte 10"):
        decoder.feed(b":\xff\n\n")
