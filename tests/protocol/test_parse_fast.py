"""_events.EventParser: its fast path (JSON text validated straight into the model of a frequent
event type) against its full path (``json.loads``, pruning, ``model_validate``, enforcement), on
the same data, differentially.

Events of the fast types (and a few others) are drawn valid, then perturbed: fields removed,
set to null, to a wrong type, to a nested object holding a ``type``; unknown fields; unknown or
malformed patch operations and content parts; keys in any order, spaced or compact JSON, a
second ``type`` key. Both paths must give the same events (equal models, the same fields set),
the same warnings, or the same error at the same event index.
"""

from __future__ import annotations

import json
from typing import Any

import hypothesis.strategies as st
from hypothesis import HealthCheck, example, given, settings
from pydantic import BaseModel

from agui_notebook import ProtocolError
from agui_notebook._protocol.events import _FAST, EventParser
from tests._hypothesis import examples

MANY = settings(
    deadline=None, max_examples=examples(800), suppress_health_check=[HealthCheck.too_slow]
)

_VALID: dict[str, dict[str, Any]] = {
    "TEXT_MESSAGE_START": {"messageId": "m", "role": "assistant"},
    "TEXT_MESSAGE_CONTENT": {"messageId": "m", "delta": "hi"},
    "TEXT_MESSAGE_END": {"messageId": "m"},
    "TOOL_CALL_START": {"toolCallId": "c", "toolCallName": "f", "parentMessageId": "m"},
    "TOOL_CALL_ARGS": {"toolCallId": "c", "delta": '{"a":'},
    "TOOL_CALL_END": {"toolCallId": "c"},
    "TOOL_CALL_RESULT": {"messageId": "r", "toolCallId": "c", "content": "ok", "role": "tool"},
    "STATE_DELTA": {"delta": [{"op": "replace", "path": "/a", "value": 1}]},
    "REASONING_MESSAGE_CONTENT": {"messageId": "m", "delta": "hm"},
    "RUN_STARTED": {"threadId": "t", "runId": "r"},
    "CUSTOM": {"name": "n", "value": 1},
}
assert set(_FAST) <= set(_VALID), "a new fast type needs a valid example here"

_FIELDS = [
    "messageId", "delta", "toolCallId", "toolCallName", "parentMessageId", "content", "role",
    "name", "subagentRunId", "metadata", "timestamp", "rawEvent", "unknownThing", "type",
]  # fmt: skip
_ODD_VALUES = st.sampled_from(
    [
        None,
        1,
        1.5,
        True,
        "",
        "x",
        "😀",
        [],
        {},
        {"type": "TEXT_MESSAGE_CONTENT"},
        {"x": None},
        "assistant",
        "tool",
        "TEXT_MESSAGE_CONTENT",
        [{"op": "add", "path": "/b", "value": None}],
        [{"op": "bogus", "path": "/a"}],
        [{"op": "add", "path": "a", "value": 1}],
        [{"op": "remove"}],
        [{"op": "move", "from": "/a", "path": "/b"}],
        [{"op": "add", "path": "/a", "value": 1, "extra": 2}],
        [{"type": "text", "text": "hi"}],
        [{"type": "text", "text": "hi", "odd": 1}],
        [{"type": "weird", "x": 1}],
        [{"type": "binary", "mimeType": "image/png", "data": "AA=="}],
    ]
)


# Content parts for TOOL_CALL_RESULT: known, unknown and legacy kinds, with odd properties.
_SOURCE = st.fixed_dictionaries(
    {"type": st.sampled_from(["data", "url", "odd"])},
    optional={"value": st.just("AA=="), "mimeType": st.sampled_from(["image/png", None]),
              "extra": st.just(1)},
)  # fmt: skip
_PART = st.fixed_dictionaries(
    {"type": st.just("text"), "text": st.just("hi")}, optional={"odd": st.just(1)}
) | st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image", "binary", "weird"])},
    optional={"text": st.sampled_from(["hi", None, 3]), "source": _SOURCE, "odd": st.just(1),
              "mimeType": st.just("image/png"), "data": st.just("AA==")},
)  # fmt: skip


@st.composite
def event_data(draw: st.DrawFn) -> str:
    etype = draw(st.sampled_from([*_VALID, "text_message_content"]))
    event: dict[str, Any] = {"type": etype, **_VALID.get(etype, {"messageId": "m"})}
    # Mostly the event's own fields, so each one meets every odd value often.
    fields = st.sampled_from(list(event)) | st.sampled_from(_FIELDS)
    for key in draw(st.lists(fields, max_size=2)):
        event.pop(key, None)
    for key, value in draw(st.lists(st.tuples(fields, _ODD_VALUES), max_size=3)):
        event[key] = value
    if etype == "TOOL_CALL_RESULT" and draw(st.booleans()):
        event["content"] = draw(st.lists(_PART, min_size=1, max_size=3))
    keys = list(event)
    if draw(st.booleans()):
        keys = draw(st.permutations(keys))
    spaced = draw(st.booleans())
    separators = (", ", ": ") if spaced else (",", ":")
    text = json.dumps({k: event[k] for k in keys}, separators=separators, ensure_ascii=False)
    if draw(st.integers(0, 9)) == 0:  # a duplicate key: the last one counts
        first = draw(st.sampled_from(["TEXT_MESSAGE_CONTENT", "STATE_DELTA", "lower", ""]))
        text = f'{{"type":"{first}",' + text[1:] if text != "{}" else text
    return text


def outcome(parser: EventParser, data: str, *, full: bool) -> tuple[Any, ...]:
    warnings: list[str] = []
    parser._warn = warnings.append
    try:
        if full:
            parser._index += 1  # what parse() does before it takes either path
            events = parser._slow(data)
        else:
            events = parser.parse(data)
    except ProtocolError as exc:
        return ("error", str(exc), exc.event_index, warnings)
    return ("ok", events, [_as_set(e) for e in events], warnings)


def _as_set(event: BaseModel) -> Any:
    return event.model_dump(mode="json", by_alias=True, exclude_unset=True)


def _parsers(strict: bool, open_chunk: bool) -> tuple[EventParser, EventParser]:
    pair = (EventParser(lambda _: None, strict=strict), EventParser(lambda _: None, strict=strict))
    for parser in pair:
        if open_chunk:  # an open chunk stream: the event may close it first
            parser.parse('{"type":"TEXT_MESSAGE_CHUNK","messageId":"k","delta":"a"}')
    return pair


@MANY
@given(st.lists(event_data(), min_size=1, max_size=4), st.booleans(), st.booleans())
@example(['{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}'], False, False)
@example(['{"type": "STATE_DELTA", "delta": [{"op": "bogus", "path": "/a"}]}'], False, False)
@example(['{"delta":"x","type":"TOOL_CALL_ARGS","toolCallId":"c"}'], False, True)
@example(['{"type":"lower","type":"TEXT_MESSAGE_END","messageId":"m"}'], True, False)
@example(['{"messageId":"m","delta":"hi","toolCallId":{"type":"TEXT_MESSAGE_CONTENT"}}'], False, False)  # fmt: skip
@example(['{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":null}'], True, False)  # fmt: skip
@example(['{"type":"TOOL_CALL_RESULT","messageId":"r","toolCallId":"c","content":[{"type":"text","text":"hi","odd":1}]}'], False, False)  # fmt: skip
@example(['{"type":"TOOL_CALL_RESULT","messageId":"r","toolCallId":"c","content":[{"type":"text","text":"hi","source":{"type":"odd"}}]}'], False, False)  # fmt: skip
@example(
    [
        '{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":"s"}',
        '{"type":"TEXT_MESSAGE_CHUNK","messageId":"k","delta":"a"}',
        '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"b"}',
    ],
    False,
    False,
)
def test_the_fast_path_gives_what_the_full_path_gives(
    stream: list[str], strict: bool, open_chunk: bool
) -> None:
    """Event by event on two parsers: what one event opens decides how later ones are read."""
    fast, full = _parsers(strict, open_chunk)
    for data in stream:
        expected = outcome(full, data, full=True)
        assert outcome(fast, data, full=False) == expected
        if expected[0] == "error":
            break


def test_the_fast_path_is_taken_for_the_frequent_shape() -> None:
    """Guards the test above against comparing the full path with itself."""
    parser = EventParser(lambda _: None)
    parser._slow = None  # type: ignore[assignment,method-assign]
    for etype in _FAST:
        [event] = parser.parse(json.dumps({"type": etype, **_VALID[etype]}, separators=(",", ":")))
        assert type(event) is _FAST[etype]
