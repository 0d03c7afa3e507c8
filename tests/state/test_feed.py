"""_state.feed.RunFeed: its batch way (plain events, runs of deltas applied together) against its
event-by-event way (every event parsed into its model), differentially.

Streams are drawn from a small world (two messages, a tool call, reasoning, state, chunks,
subagent tags, metadata, run boundaries) so that runs of deltas, their breaks and verification
errors all happen often; some events are perturbed (unknown or null fields, wrong types, a
second ``type``), and the texts are cut into batches anywhere. Both ways must end the same: the
same error at the same event index, or the same messages, tool calls, state, kept events, count,
last type and warnings.
"""

from __future__ import annotations

import json
from typing import Any

import hypothesis.strategies as st
from hypothesis import HealthCheck, example, given, settings

from agui_notebook import AGUIError
from agui_notebook._protocol.events import EventParser, type_of
from agui_notebook._protocol.verify import OrderVerifier
from agui_notebook._state.feed import KeptEvents, RunFeed
from agui_notebook._state.reducer import RunReducer, ThreadSnapshot
from tests._hypothesis import examples

MANY = settings(
    deadline=None, max_examples=examples(600), suppress_health_check=[HealthCheck.too_slow]
)


class _Record:
    def __init__(self) -> None:
        self.event_count = 0
        self.warnings: list[str] = []


def _outcome(
    batches: list[list[str]], *, plain: bool, cap: int | None, observe: bool = False
) -> tuple[Any, ...]:
    """How a stream ends; ``observe`` reads the reducer's messages after every event (the
    reducer brings them up to date when read: reading must change nothing)."""
    record = _Record()
    parser = EventParser(record.warnings.append)
    verifier = OrderVerifier((), record.warnings.append)
    reducer = RunReducer(ThreadSnapshot(), record.warnings.append)
    feed = RunFeed(parser, verifier, reducer, KeptEvents(cap), record)
    try:
        for batch in batches:
            if plain:
                feed.texts(batch, parser.parse)
            else:
                for data in batch:
                    for event in parser.parse(data):
                        feed.event(type_of(event), event)
                        if observe:
                            [m.model_dump() for m in reducer.messages.values()]
        ending: tuple[Any, ...] = ("ok",)
    except AGUIError as exc:
        ending = ("error", type(exc).__name__, str(exc), getattr(exc, "event_index", None))
    snapshot = reducer.snapshot()
    return (
        ending,
        [m.model_dump(by_alias=True) for m in snapshot.messages.values()],
        snapshot.state,
        snapshot.tool_calls,
        [e.model_dump(by_alias=True, exclude_unset=True) for e in feed.kept.models()],
        [type_of(e) for e in feed.kept.models()],
        record.event_count,
        feed.last_type,
        record.warnings,
        verifier.phase,
    )


# -- a small world of events ------------------------------------------------------------------

MESSAGES = st.sampled_from(["m1", "m2"])
TAGS = st.sampled_from([None, None, None, "s1"])
DELTAS = st.sampled_from(["a", "b c", "é", '"q"', "\\", "\n", "😀", "\ud800"])


@st.composite
def _extras(draw: st.DrawFn, rare: bool = False) -> dict[str, Any]:
    """Optional members; ``rare``: the odd timestamp or raw event (some not plain) less often."""
    extra: dict[str, Any] = {}
    tag = draw(TAGS)
    if tag is not None:
        extra["subagentRunId"] = tag
    if draw(st.integers(0, 5)) == 0:
        extra["metadata"] = draw(st.sampled_from([{"k": 1}, {}, {"k": None}]))
    if draw(st.integers(0, 29 if rare else 7)) == 0:
        extra["timestamp"] = draw(st.sampled_from([1, 2**60, -1, 1.0, True, "1"]))
    if draw(st.integers(0, 29 if rare else 9)) == 0:
        extra["rawEvent"] = draw(st.sampled_from([{"x": 1}, None, 0]))
    return extra


# Kinds of event whose type has a plain form: a batch of only these is read in one decode.
PLAIN_KINDS = (
    ["content"] * 8
    + ["args"] * 4
    + ["reasoning"] * 2
    + ["start", "end", "tool_start", "tool_end", "delta", "delta", "result"]
    + ["reasoning_start", "reasoning_end"]
)


@st.composite
def _event(draw: st.DrawFn, plain_only: bool = False) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(
            PLAIN_KINDS if plain_only else [*PLAIN_KINDS, "chunk", "run", "custom", "encrypted"]
        )
    )
    mid = draw(MESSAGES)
    extra = draw(_extras(plain_only))
    if kind == "content":
        return {"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": draw(DELTAS), **extra}
    if kind == "args":
        delta = draw(st.sampled_from(['{"a":', " 1", "}", "[", "é"]))
        return {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": delta, **extra}
    if kind == "reasoning":
        return {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "hm", **extra}
    if kind == "start":
        return {"type": "TEXT_MESSAGE_START", "messageId": mid, "role": "assistant", **extra}
    if kind == "end":
        return {"type": "TEXT_MESSAGE_END", "messageId": mid, **extra}
    if kind == "tool_start":
        return {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f", **extra}
    if kind == "tool_end":
        return {"type": "TOOL_CALL_END", "toolCallId": "c1", **extra}
    if kind == "reasoning_start":
        return {"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"}
    if kind == "reasoning_end":
        return {"type": "REASONING_MESSAGE_END", "messageId": "r1"}
    if kind == "delta":
        op = draw(
            st.sampled_from(
                [
                    {"op": "add", "path": "/list/-", "value": 1},
                    {"op": "replace", "path": "/n", "value": 2},
                    {"op": "remove", "path": "/n"},
                    {"op": "add", "path": "/n", "value": {"deep": [1]}},
                    {"op": "replace", "path": "/missing/x", "value": 1},
                    {"op": "move", "from": "/n", "path": "/m"},
                    {"op": "bogus", "path": "/n"},
                    {"op": "add", "path": "n", "value": 1},
                ]
            )
        )
        ops = [op] * draw(st.integers(0, 2))
        return {"type": "STATE_DELTA", "delta": ops, **extra}
    if kind == "chunk":
        return {"type": "TEXT_MESSAGE_CHUNK", "messageId": "k1", "delta": "x"}
    if kind == "custom":
        return {"type": "CUSTOM", "name": "n", "value": 1}
    if kind == "encrypted":
        subtype, entity = draw(st.sampled_from([("tool-call", "c1"), ("message", mid)]))
        return {
            "type": "REASONING_ENCRYPTED_VALUE",
            "subtype": subtype,
            "entityId": entity,
            "encryptedValue": draw(st.sampled_from(["e1", "e2"])),
        }
    if kind == "result":
        return {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": "ok"}
    return draw(
        st.sampled_from(
            [
                {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r2"},
                {"type": "STATE_SNAPSHOT", "snapshot": {"list": [0], "n": 0}},
            ]
        )
    )


@st.composite
def _text(draw: st.DrawFn, plain_only: bool = False) -> str:
    event = draw(_event(plain_only))
    roll = draw(st.integers(0, 59 if plain_only else 19))  # plain: more batches with no flaw
    if roll == 0:
        event["unknownThing"] = 1
    elif roll == 1:
        key = draw(st.sampled_from(sorted(event)))
        event[key] = draw(st.sampled_from([None, 1, [], {}]))
    text = json.dumps(event, ensure_ascii=draw(st.booleans()), separators=(",", ":"))
    if roll == 2:
        text = text[:-1] + ',"type":"RUN_ERROR"}'  # a second "type": the last one counts
    elif roll == 3:
        text = text.replace(",", ", ")  # spaced JSON
    elif roll == 4:
        text = text.replace("\\n", "\n")  # a raw line feed inside a string: not JSON
    return text


@st.composite
def _stream(draw: st.DrawFn) -> list[list[str]]:
    texts = [
        '{"type":"RUN_STARTED","threadId":"t","runId":"r"}',
        '{"type":"STATE_SNAPSHOT","snapshot":{"list":[],"n":0}}',
        '{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}',
        '{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f"}',
    ][: draw(st.integers(0, 4))]
    # Half the streams hold only events of plain types after the preamble (a batch of its
    # own): their batches are read in one decode.
    preamble, plain_only = len(texts), draw(st.booleans())
    texts += draw(st.lists(_text(plain_only), max_size=30))
    cuts = draw(st.sets(st.integers(0, len(texts)), max_size=4))
    cuts = sorted(cuts | {preamble} if plain_only else cuts)
    return [texts[i:j] for i, j in zip([0, *cuts], [*cuts, len(texts)], strict=True)]


@MANY
@given(_stream(), st.sampled_from([None, None, 0, 1, 3, 7]))
@example(
    [
        [
            '{"type":"RUN_STARTED","threadId":"t","runId":"r"}',
            '{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}',
            '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}',
            '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"b"}',
        ]
    ],
    None,
)
@example(
    [
        [
            '{"type":"RUN_STARTED","threadId":"t","runId":"r"}',
            '{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}',
            '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}',
            '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b","subagentRunId":"s1"}',
        ],
        ['{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"c"}'],
    ],
    2,
)
@example(
    [
        [
            '{"type":"RUN_STARTED","threadId":"t","runId":"r"}',
            '{"type":"STATE_SNAPSHOT","snapshot":{"list":[],"n":0}}',
            '{"type":"STATE_DELTA","delta":[{"op":"add","path":"/list/-","value":1}]}',
            '{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/missing/x","value":1}]}',
            '{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":2}]}',
        ]
    ],
    None,
)
@example(  # a batch read in one decode: metadata ends a run of deltas (it merges)
    [
        [
            '{"type":"RUN_STARTED","threadId":"t","runId":"r"}',
            '{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}',
        ],
        [
            '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}',
            '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b","metadata":{"k":1}}',
            '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"c"}',
        ],
    ],
    None,
)
@example(  # a batch read in one decode but for a pointer the parser judges, mid-batch
    [
        [
            '{"type":"RUN_STARTED","threadId":"t","runId":"r"}',
            '{"type":"STATE_SNAPSHOT","snapshot":{"list":[],"n":0}}',
        ],
        [
            '{"type":"STATE_DELTA","delta":[{"op":"add","path":"/list/-","value":1}]}',
            '{"type":"STATE_DELTA","delta":[{"op":"add","path":"n","value":1}]}',
            '{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":2}]}',
            '{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f"}',
            '{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}',
        ],
    ],
    None,
)
def test_the_batch_way_ends_as_event_by_event(batches: list[list[str]], cap: int | None) -> None:
    assert _outcome(batches, plain=True, cap=cap) == _outcome(batches, plain=False, cap=cap)


@MANY
@given(_stream())
@example(
    [
        [
            '{"type":"RUN_STARTED","threadId":"t","runId":"r"}',
            '{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}',
            '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}',
            '{"type":"TEXT_MESSAGE_END","messageId":"m1"}',
            '{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f"}',
            '{"type":"TOOL_CALL_END","toolCallId":"c1"}',
            '{"type":"REASONING_ENCRYPTED_VALUE","subtype":"tool-call","entityId":"c1",'
            '"encryptedValue":"e1"}',
            '{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}',
            '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}',
        ]
    ]
)
def test_reading_the_messages_midway_changes_nothing(batches: list[list[str]]) -> None:
    """The reducer settles an ended message's text and its closed tool calls when its messages
    are read: read after every event or only at the end, they end the same."""
    assert _outcome(batches, plain=False, cap=None, observe=True) == _outcome(
        batches, plain=False, cap=None
    )


def test_runs_of_deltas_are_taken_together() -> None:
    """Guards the test above against comparing the event-by-event way with itself: a run of
    deltas reaches the verifier once and the reducer in one extend."""
    texts = [
        '{"type":"RUN_STARTED","threadId":"t","runId":"r"}',
        '{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}',
        *[f'{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"{i}"}}' for i in range(5)],
        '{"type":"TEXT_MESSAGE_END","messageId":"m1"}',
    ]
    record = _Record()
    parser = EventParser(record.warnings.append)
    verifier = OrderVerifier()
    reducer = RunReducer(ThreadSnapshot(), record.warnings.append)
    checks: list[str] = []
    check = verifier.check

    def counted(etype: str, event: Any, index: int) -> bool:
        checks.append(etype)
        return check(etype, event, index)

    verifier.check = counted  # type: ignore[method-assign]
    feed = RunFeed(parser, verifier, reducer, KeptEvents(), record)
    feed.texts(texts, parser.parse)
    assert checks == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
    ]
    assert reducer.snapshot().messages["m1"].content == "01234"
    assert record.event_count == 8
    assert feed.kept.items[2:] == texts[2:]  # kept as their texts until read
    assert type_of(feed.kept.models()[2]) == "TEXT_MESSAGE_CONTENT"
