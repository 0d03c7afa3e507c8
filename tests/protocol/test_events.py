"""_events.EventParser: the compatibility boundary, enforcement and chunk expansion."""

from __future__ import annotations

import json

import pytest

from agui_notebook import ProtocolError
from agui_notebook._protocol.events import EventParser, type_of
from tests.thread._streams import (
    ev,
    interrupt,
    interrupted,
    messages_snapshot,
    parse_events,
    pipeline,
    run_finished,
    run_started,
    sse,
    text_content,
    text_message,
    types,
)

# -- enforcement: unknown material ----------------------------------------------------------


def test_unknown_event_type_is_dropped_with_a_warning_naming_it() -> None:
    warnings: list[str] = []
    out = parse_events(run_started(), ev("FUTURE_THING", x=1), run_finished(), warnings=warnings)
    assert types(out) == ["RUN_STARTED", "RUN_FINISHED"]
    assert len(warnings) == 1 and "FUTURE_THING" in warnings[0]


def test_unknown_event_does_not_abort_the_run() -> None:
    p = pipeline([sse(run_started(), ev("NEW_EVENT"), text_message("m", "hi"), run_finished())])
    assert p.phase == "finished"
    assert p.reducer is not None and p.reducer.messages["m"].content == "hi"


def test_unknown_property_is_stripped_with_a_warning_naming_its_path() -> None:
    warnings: list[str] = []
    [event] = parse_events(text_content("m", "x") | {"sparkle": True}, warnings=warnings)
    assert warnings == ["stripped unknown property TEXT_MESSAGE_CONTENT.sparkle"]
    assert not event.__pydantic_extra__
    assert not hasattr(event, "sparkle")
    assert "sparkle" not in event.model_dump(by_alias=True)


def test_protocol_version_on_run_started_is_known_not_stripped() -> None:
    warnings: list[str] = []
    [event] = parse_events(run_started(protocolVersion="1.1"), warnings=warnings)
    assert warnings == []
    assert event.protocol_version == "1.1"


def test_unknown_property_inside_outcome_and_interrupt_is_stripped() -> None:
    warnings: list[str] = []
    outcome = interrupted(interrupt("i1", toolCallId="c1", glitter=1)) | {"extra": 2}
    [event] = parse_events(run_finished(outcome=outcome), warnings=warnings)
    assert sorted(warnings) == [
        "stripped unknown property RUN_FINISHED.outcome.extra",
        "stripped unknown property RUN_FINISHED.outcome.interrupts[0].glitter",
    ]
    dumped = event.model_dump(by_alias=True)
    assert "extra" not in dumped["outcome"]
    assert "glitter" not in dumped["outcome"]["interrupts"][0]


def test_unknown_property_nested_in_a_snapshot_message_is_stripped() -> None:
    # 1.1 basic/processing: "Stripping reaches all the way down"; application code must not see
    # a stripped property. A message carrying one would also be sent back to the server.
    warnings: list[str] = []
    message = {
        "id": "m1",
        "role": "assistant",
        "content": "x",
        "future": 1,
        "toolCalls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}", "fx": 2}}
        ],
    }
    [event] = parse_events(messages_snapshot(message), warnings=warnings)
    dumped = event.model_dump(by_alias=True)["messages"][0]
    assert "future" not in dumped
    assert "fx" not in dumped["toolCalls"][0]["function"]
    assert len(warnings) == 2


def test_unknown_outcome_type_is_stripped_and_means_success() -> None:
    warnings: list[str] = []
    [event] = parse_events(
        run_finished(outcome={"type": "postponed", "until": "x"}), warnings=warnings
    )
    assert event.outcome is None
    assert warnings == ["stripped RUN_FINISHED.outcome of unknown type 'postponed'"]
    p = pipeline([sse(run_started(), run_finished(outcome={"type": "postponed"}))])
    assert p.reducer is not None and p.reducer.outcome == "success"


def test_known_outcomes_parse() -> None:
    success, cancelled, interrupt_ = parse_events(
        run_finished(outcome={"type": "success", "pendingToolCallIds": ["c1", "c2"]}),
        run_finished(outcome={"type": "cancelled"}),
        run_finished(
            outcome=interrupted(interrupt("i1", toolCallId="c1", expiresAt="2030-01-01T00:00:00Z"))
        ),
    )
    assert success.outcome.pending_tool_call_ids == ["c1", "c2"]
    assert cancelled.outcome.type == "cancelled"
    assert interrupt_.outcome.interrupts[0].tool_call_id == "c1"
    assert interrupt_.outcome.interrupts[0].expires_at == "2030-01-01T00:00:00Z"


# -- enforcement: malformed known values are fatal -----------------------------------------


@pytest.mark.parametrize(
    ("event", "match"),
    [
        (ev("TEXT_MESSAGE_CONTENT", messageId=7, delta="x"), "malformed TEXT_MESSAGE_CONTENT"),
        (ev("TEXT_MESSAGE_START"), "messageId|message_id"),
        (ev("RUN_STARTED", threadId="t"), "malformed RUN_STARTED"),
        (ev("RUN_ERROR", message=None), "malformed RUN_ERROR"),
        (run_finished(outcome={"type": "interrupt", "interrupts": []}), "malformed RUN_FINISHED"),
        (run_finished(outcome=interrupted({"reason": "tool_call"})), "malformed RUN_FINISHED"),
        (ev("STATE_DELTA", delta={"op": "add"}), "malformed STATE_DELTA"),
    ],
)
def test_a_known_field_with_a_bad_value_is_fatal(event: dict, match: str) -> None:
    with pytest.raises(ProtocolError, match=match):
        parse_events(event)


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object, got list"),
        ('"RUN_STARTED"', "must be a JSON object"),
        ('{"threadId": "t"}', "no string 'type'"),
        ('{"type": 5}', "no string 'type'"),
        # A frequent event's fields with its type only nested: the model's default type must
        # not stand in for the missing one.
        ('{"messageId":"m","delta":"hi","metadata":{"type":"TEXT_MESSAGE_CONTENT"}}', "no string"),
    ],
)
def test_not_an_event_is_fatal(data: str, match: str) -> None:
    with pytest.raises(ProtocolError, match=match) as info:
        EventParser(lambda _: None).parse(data)
    assert info.value.event_index == 1


def test_deeply_nested_json_is_a_protocol_error_not_recursion_error() -> None:
    deep = '{"type": "STATE_SNAPSHOT", "snapshot": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(ProtocolError, match="nested too deeply"):
        EventParser(lambda _: None).parse(deep)


def test_event_index_counts_messages() -> None:
    parser = EventParser(lambda _: None)
    parser.parse(json.dumps(run_started()))
    with pytest.raises(ProtocolError, match=r"\(event #2\)"):
        parser.parse("{")


# -- the compatibility boundary -------------------------------------------------------------


def test_thinking_events_become_reasoning_events() -> None:
    out = parse_events(
        run_started(),
        ev("THINKING_START"),
        ev("THINKING_TEXT_MESSAGE_START"),
        ev("THINKING_TEXT_MESSAGE_CONTENT", delta="hmm"),
        ev("THINKING_TEXT_MESSAGE_END"),
        ev("THINKING_END"),
        run_finished(),
    )
    assert types(out) == [
        "RUN_STARTED",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_END",
        "RUN_FINISHED",
    ]
    start, end = out[1], out[5]
    assert start.message_id == end.message_id
    msg_ids = {e.message_id for e in out[2:5]}
    assert len(msg_ids) == 1
    assert out[3].delta == "hmm"


def test_thinking_stream_verifies_and_reduces_to_a_reasoning_message() -> None:
    p = pipeline(
        [
            sse(
                run_started(),
                ev("THINKING_START"),
                ev("THINKING_TEXT_MESSAGE_START"),
                ev("THINKING_TEXT_MESSAGE_CONTENT", delta="a"),
                ev("THINKING_TEXT_MESSAGE_CONTENT", delta="b"),
                ev("THINKING_TEXT_MESSAGE_END"),
                ev("THINKING_TEXT_MESSAGE_START"),
                ev("THINKING_TEXT_MESSAGE_CONTENT", delta="c"),
                ev("THINKING_TEXT_MESSAGE_END"),
                ev("THINKING_END"),
                run_finished(),
            )
        ]
    )
    assert p.phase == "finished"
    assert p.reducer is not None
    contents = [m.content for m in p.reducer.messages.values() if m.role == "reasoning"]
    assert contents == ["ab", "c"]


def test_pre_1_0_stream_reads_like_a_current_one() -> None:
    old = pipeline([sse(run_started(), text_message("m", "hi"), run_finished())])
    new = pipeline(
        [
            sse(
                run_started(protocolVersion="1.1"),
                text_message("m", "hi"),
                run_finished(outcome={"type": "success"}),
            )
        ]
    )
    assert old.types == new.types
    assert old.warnings == new.warnings == []
    assert old.reducer is not None and new.reducer is not None
    assert old.reducer.outcome == new.reducer.outcome == "success"
    assert old.reducer.protocol_version is None and new.reducer.protocol_version == "1.1"
    assert old.reducer.messages == new.reducer.messages


# -- chunk expansion ------------------------------------------------------------------------


def test_text_chunks_expand_into_start_content_end() -> None:
    out = parse_events(
        ev("TEXT_MESSAGE_CHUNK", messageId="m1", delta="Hel"),
        ev("TEXT_MESSAGE_CHUNK", delta="lo"),
        ev("TEXT_MESSAGE_CHUNK", messageId="m1", delta="!"),
        run_finished(),
    )
    assert types(out) == [
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    assert out[0].role == "assistant" and out[0].message_id == "m1"
    assert [e.delta for e in out[1:4]] == ["Hel", "lo", "!"]
    assert all(e.message_id == "m1" for e in out[:5])


def test_text_chunk_role_and_name_carried_to_start() -> None:
    [start, content] = parse_events(
        ev("TEXT_MESSAGE_CHUNK", messageId="m1", role="user", name="ann", delta="x")
    )
    assert (start.role, start.name, content.delta) == ("user", "ann", "x")


def test_a_chunk_with_a_new_id_closes_the_previous_one() -> None:
    out = parse_events(
        ev("TEXT_MESSAGE_CHUNK", messageId="m1", delta="a"),
        ev("TEXT_MESSAGE_CHUNK", messageId="m2", delta="b"),
    )
    assert [(type_of(e), e.message_id) for e in out] == [
        ("TEXT_MESSAGE_START", "m1"),
        ("TEXT_MESSAGE_CONTENT", "m1"),
        ("TEXT_MESSAGE_END", "m1"),
        ("TEXT_MESSAGE_START", "m2"),
        ("TEXT_MESSAGE_CONTENT", "m2"),
    ]


def test_a_chunk_without_delta_only_opens() -> None:
    assert types(parse_events(ev("TEXT_MESSAGE_CHUNK", messageId="m1"))) == ["TEXT_MESSAGE_START"]


def test_a_non_chunk_event_closes_the_open_chunk() -> None:
    out = parse_events(
        ev("TEXT_MESSAGE_CHUNK", messageId="m1", delta="a"),
        ev("STATE_SNAPSHOT", snapshot={}),
    )
    assert types(out)[-2:] == ["TEXT_MESSAGE_END", "STATE_SNAPSHOT"]


def test_first_text_chunk_without_message_id_is_fatal() -> None:
    with pytest.raises(ProtocolError, match="needs messageId"):
        parse_events(ev("TEXT_MESSAGE_CHUNK", delta="x"))


def test_tool_call_chunks_expand() -> None:
    out = parse_events(
        ev(
            "TOOL_CALL_CHUNK", toolCallId="c1", toolCallName="f", parentMessageId="m1", delta='{"a"'
        ),
        ev("TOOL_CALL_CHUNK", delta=": 1}"),
        run_finished(),
    )
    assert types(out) == [
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "RUN_FINISHED",
    ]
    assert (out[0].tool_call_name, out[0].parent_message_id) == ("f", "m1")
    assert "".join(e.delta for e in out[1:3]) == '{"a": 1}'


def test_first_tool_call_chunk_needs_id_and_name() -> None:
    with pytest.raises(ProtocolError, match="needs toolCallId"):
        parse_events(ev("TOOL_CALL_CHUNK", toolCallName="f", delta="{}"))
    with pytest.raises(ProtocolError, match="needs toolCallName"):
        parse_events(ev("TOOL_CALL_CHUNK", toolCallId="c1", delta="{}"))


def test_reasoning_message_chunks_expand() -> None:
    out = parse_events(
        ev("REASONING_MESSAGE_CHUNK", messageId="r1", delta="think"),
        ev("REASONING_MESSAGE_CHUNK", delta="ing"),
        ev("TEXT_MESSAGE_CHUNK", messageId="m1", delta="x"),
    )
    assert types(out) == [
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
    ]
    assert out[0].role == "reasoning"


def test_chunked_stream_reduces_like_the_triads() -> None:
    chunked = pipeline(
        [
            sse(
                run_started(),
                ev("TEXT_MESSAGE_CHUNK", messageId="m1", delta="Hi "),
                ev("TEXT_MESSAGE_CHUNK", delta="there"),
                ev(
                    "TOOL_CALL_CHUNK",
                    toolCallId="c1",
                    toolCallName="f",
                    parentMessageId="m1",
                    delta="{}",
                ),
                run_finished(),
            )
        ]
    )
    assert chunked.phase == "finished"
    assert chunked.reducer is not None
    message = chunked.reducer.messages["m1"]
    assert message.content == "Hi there"
    assert [c.id for c in message.tool_calls] == ["c1"]


def test_unknown_property_on_a_chunk_is_stripped_before_expansion() -> None:
    warnings: list[str] = []
    out = parse_events(
        ev("TEXT_MESSAGE_CHUNK", messageId="m1", delta="x", future=1), warnings=warnings
    )
    assert warnings == ["stripped unknown property TEXT_MESSAGE_CHUNK.future"]
    assert all("future" not in e.model_dump(by_alias=True) for e in out)
