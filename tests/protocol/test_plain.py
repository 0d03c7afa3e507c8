"""_protocol.plain through EventParser.parse_plain: an event it takes plain must be, once built
into its model, exactly the one event the parser's own path gives for the same text, with no
warning; anything it leaves goes to that path. Perturbed events as in test_parse_fast.py (any
field removed, null, wrongly typed, unknown; a second ``type``; spaced JSON; odd patches), under
whichever ag-ui-protocol line is installed (the core-agui1 step runs this file under 1.0.0)."""

from __future__ import annotations

import json
from typing import Any

import hypothesis.strategies as st
import msgspec
import pytest
from hypothesis import HealthCheck, example, given, settings

from agui_notebook import ProtocolError
from agui_notebook._protocol import plain
from agui_notebook._protocol.events import _PLAIN, EventParser, event_from_text
from agui_notebook._protocol.wire import EVENT_MODELS as MODELS
from tests._hypothesis import examples
from tests.protocol.test_parse_fast import _as_set, event_data

MANY = settings(
    deadline=None, max_examples=examples(800), suppress_health_check=[HealthCheck.too_slow]
)


# A valid event of each plain type, with optional fields here and there.
_SAMPLES: dict[str, dict[str, Any]] = {
    "TEXT_MESSAGE_START": {"messageId": "m", "role": "user", "name": "ada"},
    "TEXT_MESSAGE_CONTENT": {"messageId": "m", "delta": "hi", "timestamp": 5},
    "TEXT_MESSAGE_END": {"messageId": "m", "metadata": {"k": 1}},
    "TOOL_CALL_START": {"toolCallId": "c", "toolCallName": "f", "parentMessageId": "m"},
    "TOOL_CALL_ARGS": {"toolCallId": "c", "delta": '{"a":', "subagentRunId": "s"},
    "TOOL_CALL_END": {"toolCallId": "c", "rawEvent": {"x": 1}},
    "TOOL_CALL_RESULT": {"messageId": "r", "toolCallId": "c", "content": "ok", "role": "tool"},
    "REASONING_START": {"messageId": "p"},
    "REASONING_MESSAGE_START": {"messageId": "m", "role": "reasoning"},
    "REASONING_MESSAGE_CONTENT": {"messageId": "m", "delta": "hm"},
    "REASONING_MESSAGE_END": {"messageId": "m"},
    "REASONING_END": {"messageId": "p"},
    "STATE_DELTA": {"delta": [{"op": "replace", "path": "/a", "value": None}]},
    "STEP_STARTED": {"stepName": "plan"},
    "STEP_FINISHED": {"stepName": "plan", "subagentRunId": "s"},
}
_ODD = st.sampled_from(
    [None, 1, 1.0, True, "", "x", "tool", "assistant", "reasoning", "bogus", [], {}, {"k": 1},
     [{"type": "text", "text": "hi"}], [{"op": "add", "path": "/b", "value": 1}]]
)  # fmt: skip
_KEYS = st.sampled_from(
    ["messageId", "delta", "toolCallId", "toolCallName", "parentMessageId", "content", "role",
     "name", "stepName", "subagentRunId", "metadata", "timestamp", "rawEvent", "unknownThing"]
)  # fmt: skip


@st.composite
def plain_data(draw: st.DrawFn) -> str:
    """An event of a plain type, valid or perturbed, compact or spaced, ``type`` first."""
    etype = draw(st.sampled_from(sorted(_SAMPLES)))
    event: dict[str, Any] = dict(_SAMPLES[etype])
    for key in draw(st.lists(st.sampled_from(sorted(event)) | _KEYS, max_size=2)):
        event.pop(key, None)
    for key, value in draw(st.lists(st.tuples(_KEYS, _ODD), max_size=2)):
        event[key] = value
    separators = draw(st.sampled_from([(",", ":"), (", ", ": ")]))
    return json.dumps({"type": etype, **event}, separators=separators, ensure_ascii=False)


def _own_path(data: str) -> tuple[Any, ...]:
    warnings: list[str] = []
    parser = EventParser(warnings.append)
    try:
        events = parser.parse(data)
    except ProtocolError as exc:
        return ("error", str(exc))
    return ("ok", events, [_as_set(e) for e in events], warnings, parser.index)


@MANY
@given(plain_data() | event_data(), st.booleans())
@example('{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}', False)
@example('{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","timestamp":1.0}', False)
@example('{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","timestamp":true}', False)
@example('{"type":"TOOL_CALL_END","toolCallId":"c","rawEvent":null}', False)
@example('{"type":"STATE_DELTA","delta":[{"op":"bogus","path":"/a"}]}', False)
@example('{"type":"STATE_DELTA","delta":[{"op":"add","path":"a","value":1}]}', False)
@example('{"type":"TEXT_MESSAGE_END","messageId":"m","type":"RUN_ERROR"}', False)
@example('{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","message_id":"n","delta":"x"}', False)
@example('{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","messageId":"n"}', False)
def test_a_plain_event_is_what_the_parser_gives(data: str, open_chunk: bool) -> None:
    parser = EventParser(lambda _: None)
    if open_chunk:  # an open chunk stream: the event may close it, so it is not plain
        parser.parse('{"type":"TEXT_MESSAGE_CHUNK","messageId":"k","delta":"a"}')
    before = parser.index
    found = parser.parse_plain(data)
    if found is None:
        assert parser.index == before  # left whole to parse()
        return
    assert not open_chunk
    etype, plain_event = found
    ok, events, dumped, warnings, index = _own_path(data)
    assert ok == "ok" and warnings == [] and index == 1
    [event] = events
    built = event_from_text(data)
    assert type(built) is type(event) and built == event and etype == built.type
    assert _as_set(built) == dumped[0]
    assert parser.index == before + 1
    for name in type(event).model_fields:  # read as the model reads: what handlers rely on
        if name != "type":
            # a plain patch's operations are objects, each read as its JSON object is
            assert msgspec.to_builtins(getattr(plain_event, name)) == getattr(event, name), name


def test_the_frequent_types_are_read_plain() -> None:
    """Guards the test above against never taking the plain path."""
    assert set(_SAMPLES) == set(plain.PLAIN_TYPES)
    for etype in _PLAIN:  # the types with a plain shape under the installed models
        for separators in ((",", ":"), (", ", ": ")):  # compact, and json.dumps' default
            data = json.dumps({"type": etype, **_SAMPLES[etype]}, separators=separators)
            found = EventParser(lambda _: None).parse_plain(data)
            assert found is not None and found[0] == etype, etype
            assert isinstance(event_from_text(data), MODELS[etype])
    assert {"TEXT_MESSAGE_CONTENT", "TOOL_CALL_ARGS", "TOOL_CALL_END"} <= set(_PLAIN)


def test_a_model_that_transforms_what_it_reads_is_never_read_plain() -> None:
    from pydantic import ConfigDict, field_validator

    from agui_notebook._protocol.wire import EVENT_MODELS as models

    base = models["TEXT_MESSAGE_CONTENT"]

    class Stripping(base):  # type: ignore[misc,valid-type]
        model_config = ConfigDict(str_strip_whitespace=True)

    class Validated(base):  # type: ignore[misc,valid-type]
        @field_validator("delta")
        @classmethod
        def _upper(cls, value: str) -> str:
            return value.upper()

    assert plain.plain("TEXT_MESSAGE_CONTENT", base) is not None
    assert plain.plain("TEXT_MESSAGE_CONTENT", Stripping) is None
    assert plain.plain("TEXT_MESSAGE_CONTENT", Validated) is None


@MANY
@given(
    st.sampled_from(["TEXT_MESSAGE_CONTENT", "TOOL_CALL_ARGS", "REASONING_MESSAGE_CONTENT"]),
    st.sampled_from(["m", "é/\\", 'q"']),
    st.text(
        alphabet=st.sampled_from(["a", '"', "\\", "u", "0", "d", "8", "}", ",", "\n", "é", " "])
    ),
)
@example("TEXT_MESSAGE_CONTENT", "m", 'hi"}')
@example("TEXT_MESSAGE_CONTENT", "m", 'hi","timestamp":1}')
@example("TEXT_MESSAGE_CONTENT", "m", 'a\nb"}')
@example("TEXT_MESSAGE_CONTENT", "m", '\\ud800"}')
def test_a_delta_read_by_its_prefix_is_what_the_parser_gives(
    etype: str, ident: str, rest: str
) -> None:
    wire = "toolCallId" if etype == "TOOL_CALL_ARGS" else "messageId"
    data = plain.delta_prefix(etype, wire, ident) + rest
    parser = EventParser(lambda _: None)
    deltas: list[str] = []
    if parser.parse_deltas([data], 0, plain.delta_prefix(etype, wire, ident), deltas) == 0:
        assert parser.index == 0 and deltas == []
        return
    assert parser.index == 1 and len(deltas) == 1
    ok, events, dumped, warnings, index = _own_path(data)
    assert ok == "ok" and warnings == [] and index == 1
    built = event_from_text(data)
    assert built == events[0] and _as_set(built) == dumped[0]


@MANY
@given(st.lists(plain_data() | event_data(), min_size=1, max_size=6))
@example(
    [
        '{"type":"STATE_DELTA","delta":[{"op":"add","path":"a","value":1}]}',
        '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}',
    ]
)
@example(['{"messageId":"m","type":"TEXT_MESSAGE_END"}', '{"type":"RUN_STARTED"}'])
def test_a_batch_read_plain_is_each_text_read_alone(texts: list[str]) -> None:
    """parse_plains: one decode for the batch, each event what the parser gives for its text
    (None where a check leaves it to the parser), or None when a text is not plain."""
    parser = EventParser(lambda _: None)
    events = parser.parse_plains(texts)
    assert parser.index == 0  # counted as the feed takes them (count_plain)
    alone = [EventParser(lambda _: None).parse_plain(data) for data in texts]
    if events is None:
        assert None in alone
        return
    assert len(events) == len(texts)
    for data, event, found in zip(texts, events, alone, strict=True):
        if event is None:
            assert found is None  # refused by the type's check, as alone
            continue
        ok, models, _, warnings, _ = _own_path(data)
        assert ok == "ok" and warnings == [] and len(models) == 1, data
        assert event.etype == models[0].type
        for name in type(models[0]).model_fields:
            if name != "type":
                assert msgspec.to_builtins(getattr(event, name)) == getattr(models[0], name)


def test_a_batch_is_not_read_plain_while_a_chunk_stream_is_open() -> None:
    text = '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}'
    parser = EventParser(lambda _: None)
    assert parser.parse_plains([text, text]) is not None
    parser.parse('{"type":"TEXT_MESSAGE_CHUNK","messageId":"k","delta":"a"}')
    assert parser.in_chunk and parser.parse_plains([text, text]) is None


_JSON_LEAF = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=5)
    | st.sampled_from(["\ud800", "😀", "\x00", "é"])
)
_JSON = st.recursive(
    _JSON_LEAF,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=10,
)


@st.composite
def _json_text(draw: st.DrawFn) -> str:
    text = json.dumps(draw(_JSON), ensure_ascii=draw(st.booleans()))
    for _ in range(draw(st.integers(0, 2))):  # break it here and there
        at = draw(st.integers(0, len(text)))
        text = (
            text[:at]
            + draw(st.sampled_from(["", " ", ",", "}", '"', "\\", "\t", "0", "NaN"]))
            + text[at + 1 :]
        )
    return text


def test_a_run_of_deltas_is_read_up_to_the_first_text_its_prefix_does_not_fit() -> None:
    prefix = plain.delta_prefix("TEXT_MESSAGE_CONTENT", "messageId", "m")
    texts = [
        '{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}',
        prefix + 'a"}',
        prefix + '\\u00e9\\n"}',
        prefix + '"}',
        prefix + 'b","timestamp":1}',  # more than the delta: parse_plain's
        prefix + 'c"}',
    ]
    parser = EventParser(lambda _: None)
    deltas: list[str] = []
    assert parser.parse_deltas(texts, 1, prefix, deltas) == 4
    assert deltas == ["a", "\u00e9\n", ""] and parser.index == 3
    for bad in (prefix + '\\x"}', prefix + 'a"b"}', prefix + '\\ud83d"}', prefix + 'a"'):
        assert parser.parse_deltas([bad], 0, prefix, deltas) == 0, bad
    assert parser.parse_deltas(texts, 6, prefix, deltas) == 6 and parser.index == 3
    assert len(deltas) == 3  # nothing appended by the texts it left


@MANY
@given(_json_text())
@example('{"a": NaN, "b": -Infinity, "c": 1e400, "d": -0}')
@example('{"a": 1, "a": 2}')
@example('"\\ud800"')
@example("[" * 300 + "]" * 300)
@example("\ufeff{}")
@example('{"a": "tab\there"}')
def test_json_value_is_json_loads(text: str) -> None:
    def outcome(read: Any) -> tuple[str, Any]:
        try:
            return ("ok", repr(read(text)))  # repr: NaN equals itself, -0.0 differs from 0.0
        except (ValueError, RecursionError):
            return ("error", None)

    assert outcome(plain.json_value) == outcome(json.loads)
    assert outcome(plain.check_json)[0] == outcome(json.loads)[0]  # judged as json.loads would


def test_with_no_plain_type_no_batch_is_plain() -> None:
    # Models with no plain form at all (every one transformed, say): no union to decode into.
    read = plain.batch_decoder({})
    with pytest.raises(plain.DECODE_ERRORS):
        read('[{"type":"TEXT_MESSAGE_END","messageId":"m"}]')
