"""A thread over the SSE fast path (``data: <json>\\n\\n``) against the same run framed so the
general decoder reads it (CRLF or CR endings, ``data:`` without its space, JSON over several
data lines, keepalive comments): the same result, warnings and errors; a credential the server
echoes is scrubbed on both; a malformed tail after a fast-path prefix is a typed error that
leaves the thread as it was (``run_thread`` checks that on every error).
"""

from __future__ import annotations

import json
from typing import Any

import hypothesis.strategies as st
from hypothesis import given

from tests.thread._streams import (
    frame,
    run_finished,
    run_started,
    split_at,
    state_delta,
    state_snapshot,
    text_content,
    text_end,
    text_start,
    tool_args,
    tool_end,
    tool_start,
)
from tests.thread.test_properties import FAST, SLOW, cuts_for, run_thread, segment

SECRET = "sk-fastpath-0123456789"
HEADERS = {"Authorization": f"Bearer {SECRET}"}


def echoes_the_secret() -> list[dict[str, Any]]:
    """The credential in text split across deltas, in tool arguments and in state."""
    half = len(SECRET) // 2
    return [
        text_start("echo"),
        text_content("echo", f"you sent {SECRET[:half]}"),
        text_content("echo", f"{SECRET[half:]}, right?"),
        text_end("echo"),
        tool_start("tc", "log"),
        tool_args("tc", json.dumps({"token": SECRET})),
        tool_end("tc"),
        state_snapshot({"seen": SECRET}),
        state_delta({"op": "add", "path": "/again", "value": f"Bearer {SECRET}"}),
    ]


@st.composite
def events(draw: st.DrawFn, secret: bool = False) -> list[dict[str, Any]]:
    body = [run_started()]
    for i in range(draw(st.integers(0, 4))):
        body.extend(draw(segment(i)))
    if secret:
        body[1:1] = echoes_the_secret()
    return [*body, run_finished()]


def common_shape(evs: list[dict[str, Any]]) -> bytes:
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in evs)


@st.composite
def general_shape(draw: st.DrawFn, evs: list[dict[str, Any]]) -> bytes:
    """The same events in the shapes the fast path hands to the general decoder."""
    text = ""
    for event in evs:
        if draw(st.integers(0, 3)) == 0:
            text += ": keepalive" + draw(st.sampled_from(["\n\n", "\r\n\r\n", "\r\r"]))
        data = json.dumps(event, indent=draw(st.sampled_from([None, 1])))
        text += frame(data, draw(st.sampled_from(["\n", "\r\n", "\r"])), space=draw(st.booleans()))
    return text.encode()


@SLOW
@given(st.data())
def test_the_fast_path_and_the_general_decoder_give_the_same_run(data: st.DataObject) -> None:
    evs = data.draw(events())
    fast_body = common_shape(evs)
    general_body = data.draw(general_shape(evs))
    fast = run_thread(split_at(fast_body, data.draw(cuts_for(fast_body))))
    assert fast[0] == "ok", fast
    assert run_thread(split_at(general_body, data.draw(cuts_for(general_body)))) == fast


@SLOW
@given(st.data())
def test_an_echoed_credential_is_scrubbed_on_the_fast_path_too(data: st.DataObject) -> None:
    evs = data.draw(events(secret=True))
    fast_body = common_shape(evs)
    general_body = data.draw(general_shape(evs))
    fast = run_thread(split_at(fast_body, data.draw(cuts_for(fast_body))), headers=HEADERS)
    assert fast[0] == "ok", fast
    seen = repr(fast)
    assert SECRET not in seen and json.dumps(SECRET)[1:-1] not in seen
    assert seen.count("<redacted>") >= 5  # text, arguments, snapshot, delta, event copies
    general = run_thread(split_at(general_body, data.draw(cuts_for(general_body))), headers=HEADERS)
    assert general == fast


_BAD_TAILS = st.sampled_from(
    [
        b"data: {not json}\n\n",
        b"data: [1]\n\n",
        b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"nobody","delta":"x"}\n\n',
        b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":null}\n\n',
        b"data: \xff\n\n",
        b'data: {"type":"TEXT_MESSAGE_CONTENT"',
        b"data: " + b"x" * 5000 + b"\n\n",
        b'data: {"type":"RUN_STARTED","threadId":"t1","runId":"r9"}\n\n',
        b"\xe2\x82",
    ]
)


@FAST
@given(st.data())
def test_a_malformed_tail_after_the_fast_path_is_a_typed_error(data: st.DataObject) -> None:
    """run_thread checks every error is an AGUIError and leaves no message, state or pending
    decision behind; the verdict is the one the general decoder reaches."""
    evs = data.draw(events())[:-1]  # no RUN_FINISHED: the tail decides
    tail = data.draw(_BAD_TAILS)
    fast_body = common_shape(evs) + tail
    general_body = data.draw(general_shape(evs)) + tail
    options = {"max_event_bytes": 4096}  # only the tail exceeds it, however it is framed
    fast = run_thread(split_at(fast_body, data.draw(cuts_for(fast_body))), **options)
    general = run_thread(split_at(general_body, data.draw(cuts_for(general_body))), **options)
    assert fast[0] == "error", fast
    assert fast[1] == general[1] and fast[3] == general[3]  # the message may count bytes
