"""_sse.SSEStreamDecoder: bytes in any split -> SSE messages (HTML event-stream interpretation)."""

from __future__ import annotations

import pytest

from agui_notebook import ProtocolError
from agui_notebook._protocol.sse import SSEMessage, SSEStreamDecoder
from tests.thread._streams import every, split_at


def decode(chunks: list[bytes], **options: int) -> list[str]:
    decoder = SSEStreamDecoder(**options)
    out = []
    for chunk in chunks:
        out.extend(m.data for m in decoder.feed(chunk))
    out.extend(m.data for m in decoder.close())
    return out


BODY = (
    b'data: {"a": 1}\n\n: keepalive\r\n\r\n'
    b'data:{"b": "\xc3\xa9\xe2\x82\xac"}\n\n'
    b'data: {"c":\ndata: 3}\n\n'
)
EXPECTED = ['{"a": 1}', '{"b": "é€"}', '{"c":\n3}']


def test_whole_body() -> None:
    assert decode([BODY]) == EXPECTED


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7])
def test_fixed_size_splits_give_the_same_messages(size: int) -> None:
    assert decode(every(BODY, size)) == EXPECTED


def test_every_single_cut_point_gives_the_same_messages() -> None:
    for cut in range(1, len(BODY)):
        assert decode(split_at(BODY, [cut])) == EXPECTED, cut


def test_split_inside_a_multibyte_character() -> None:
    body = 'data: "é€😀"\n\n'.encode()
    euro = body.index("€".encode())
    assert decode(split_at(body, [euro + 1, euro + 2])) == ['"é€😀"']


def test_split_between_cr_and_lf() -> None:
    body = b"data: 1\r\n\r\ndata: 2\r\n\r\n"
    for cut in range(1, len(body)):
        assert decode(split_at(body, [cut])) == ["1", "2"], cut


def test_crlf_keepalive_comments_between_lf_data_frames() -> None:
    # Microsoft's server: keepalive comments end in CRLF while data frames end in LF.
    body = b": ping\r\n\r\ndata: 1\n\n: ping\r\n\r\n: ping\r\ndata: 2\n\n"
    assert decode([body]) == ["1", "2"]
    assert decode(every(body, 1)) == ["1", "2"]


def test_bare_cr_line_endings() -> None:
    assert decode([b"data: 1\r\rdata: 2\r\r: x\r"]) == ["1", "2"]


def test_stream_ending_with_a_cr_terminated_blank_line_dispatches_the_event() -> None:
    # HTML: CR alone ends a line, so "data: 1\r\r" is a complete event even at the very end.
    assert decode([b"data: 1\r\r"]) == ["1"]


def test_data_without_space_and_with_two_spaces() -> None:
    # Only one leading space is removed (HTML field parsing).
    assert decode([b"data:1\n\ndata:  2\n\n"]) == ["1", " 2"]


def test_multi_line_data_joined_by_lf() -> None:
    assert decode([b"data: a\ndata:\ndata: b\n\n"]) == ["a\n\nb"]


def test_event_and_id_fields_kept() -> None:
    decoder = SSEStreamDecoder()
    assert decoder.feed(b"event: custom\nid: 7\ndata: x\n\n") == [
        SSEMessage(data="x", event="custom", id="7")
    ]


def test_message_with_empty_data_is_not_dispatched() -> None:
    assert decode([b"id: 5\n\nevent: x\n\ndata: 1\n\n"]) == ["1"]


def test_leading_bom_dropped_even_when_split() -> None:
    body = b"\xef\xbb\xbfdata: 1\n\n"
    assert decode([body]) == ["1"]
    assert decode(every(body, 1)) == ["1"]


def test_only_the_first_bom_is_dropped() -> None:
    # A second BOM is part of the field name: "\ufeffdata" is an unknown field, ignored.
    assert decode([b"\xef\xbb\xbf\xef\xbb\xbfdata: 1\n\ndata: 2\n\n"]) == ["2"]


def test_invalid_utf8_is_a_protocol_error_naming_the_byte() -> None:
    decoder = SSEStreamDecoder()
    decoder.feed(b"data: ok\n\n")
    with pytest.raises(ProtocolError, match=r"not valid UTF-8 near byte 16"):
        decoder.feed(b"data: \xff\n\n")


def test_stream_ending_inside_a_utf8_sequence_is_a_protocol_error() -> None:
    decoder = SSEStreamDecoder()
    decoder.feed(b"data: \xe2\x82")
    with pytest.raises(ProtocolError, match="inside a UTF-8 sequence"):
        decoder.close()


def test_message_without_closing_blank_line_is_not_dispatched() -> None:
    decoder = SSEStreamDecoder()
    assert decoder.feed(b"data: 1\n") == []
    assert decoder.close() == []
    assert decoder.in_message is True


def test_partial_last_line_is_not_dispatched() -> None:
    decoder = SSEStreamDecoder()
    assert decoder.feed(b"data: 1\n\ndata: 2") == [SSEMessage("1")]
    assert decoder.close() == []
    assert decoder.in_message is True


def test_in_message_false_between_events() -> None:
    decoder = SSEStreamDecoder()
    decoder.feed(b"data: 1\n\n: comment\n")
    assert decoder.in_message is False


def test_bytes_received_counts_every_byte() -> None:
    decoder = SSEStreamDecoder()
    for chunk in every(BODY, 4):
        decoder.feed(chunk)
    assert decoder.bytes_received == len(BODY)


def test_event_larger_than_the_limit_without_end_is_an_error() -> None:
    decoder = SSEStreamDecoder(max_event_bytes=100)
    decoder.feed(b"data: " + b"x" * 50)
    with pytest.raises(ProtocolError, match="exceeds 100"):
        decoder.feed(b"x" * 60)


def test_event_over_many_data_lines_larger_than_the_limit_is_an_error() -> None:
    decoder = SSEStreamDecoder(max_event_bytes=100)
    with pytest.raises(ProtocolError, match="max_event_bytes"):
        for _ in range(20):
            decoder.feed(b"data: 0123456789\n")


def test_event_larger_than_the_limit_is_an_error_even_when_it_arrives_whole() -> None:
    # The verdict must not depend on how the bytes were split.
    body = b"data: " + b"x" * 500 + b"\n\n"
    with pytest.raises(ProtocolError, match="exceeds 100"):
        decode(every(body, 10), max_event_bytes=100)
    with pytest.raises(ProtocolError, match="exceeds 100"):
        decode([body], max_event_bytes=100)


def test_events_under_the_limit_pass_and_the_count_resets() -> None:
    body = b"".join(b"data: " + b"x" * 80 + b"\n\n" for _ in range(10))
    assert len(decode(every(body, 7), max_event_bytes=100)) == 10


def test_endless_comment_line_is_bounded_too() -> None:
    decoder = SSEStreamDecoder(max_event_bytes=100)
    with pytest.raises(ProtocolError):
        for _ in range(20):
            decoder.feed(b":" + b"k" * 10)
