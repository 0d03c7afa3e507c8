"""Properties of the client core (hypothesis).

1. Any byte stream yields events or a typed error (an AGUIError), never another exception.
2. A valid event stream gives the same events and result however its bytes are split.
3. A valid stream cut short anywhere is a truncated run, never a success.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import hypothesis.strategies as st
from ag_ui.core import UserMessage
from hypothesis import HealthCheck, given, settings

from agui_notebook import AGUIError, TruncatedRunError
from agui_notebook._protocol.events import type_of
from tests._hypothesis import examples
from tests.thread._streams import (
    ScriptedServer,
    ev,
    frame,
    interrupt,
    interrupted,
    pipeline,
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

FAST = settings(
    deadline=None, max_examples=examples(600), suppress_health_check=[HealthCheck.too_slow]
)
SLOW = settings(
    deadline=None, max_examples=examples(300), suppress_health_check=[HealthCheck.too_slow]
)


def run_thread(chunks: list[bytes], **agent_options: Any) -> tuple[Any, ...]:
    """Run one request against ``chunks``; a comparable summary of how it ended."""

    async def go() -> tuple[Any, ...]:
        server = ScriptedServer(list(chunks))
        # store=None: each example is a new conversation, not thread t1 continued from the store
        thread = server.agent(store=None, **agent_options).thread("t1")
        try:
            result = await thread.run(UserMessage(id="u1", content="hi"))
        except AGUIError as exc:
            assert thread.messages == [] and thread.pending == [] and thread.state is None
            return ("error", type(exc).__name__, str(exc), thread.runs[-1].status)
        return (
            "ok",
            result.outcome,
            [type_of(e) for e in result.events],
            [e.model_dump(by_alias=True) for e in result.events],
            [m.model_dump(by_alias=True) for m in thread.messages],
            result.state,
            [p.id for p in thread.pending],
            result.warnings,
        )

    return asyncio.run(go())


# -- strategies -----------------------------------------------------------------------------

IDS = st.sampled_from(["a", "b", "c"])
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=6)
JSON_LEAF = st.none() | st.booleans() | st.integers(-5, 5) | TEXT
JSON = st.recursive(
    JSON_LEAF,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)


@st.composite
def segment(draw: st.DrawFn, index: int) -> list[dict[str, Any]]:
    kind = draw(
        st.sampled_from(
            ["text", "tool", "state", "step", "reasoning", "chunk", "custom", "unknown"]
        )
    )
    mid = f"m{index}"
    if kind == "text":
        return [
            text_start(mid),
            *(text_content(mid, d) for d in draw(st.lists(TEXT, max_size=3))),
            text_end(mid),
        ]
    if kind == "tool":
        args = json.dumps(draw(st.dictionaries(TEXT, JSON_LEAF, max_size=3)), ensure_ascii=False)
        cuts = sorted(draw(st.lists(st.integers(1, max(1, len(args) - 1)), max_size=2)))
        pieces = [
            args[i:j] for i, j in zip([0, *cuts], [*cuts, len(args)], strict=True) if args[i:j]
        ]
        return [
            tool_start(f"c{index}", "f"),
            *(tool_args(f"c{index}", p) for p in pieces),
            tool_end(f"c{index}"),
        ]
    if kind == "state":
        snap = draw(st.dictionaries(TEXT, JSON, max_size=3))
        return [state_snapshot(snap), state_delta({"op": "add", "path": "/k", "value": draw(JSON)})]
    if kind == "step":
        return [ev("STEP_STARTED", stepName=mid), ev("STEP_FINISHED", stepName=mid)]
    if kind == "reasoning":
        return [
            ev("REASONING_START", messageId=f"p{index}"),
            ev("REASONING_MESSAGE_START", messageId=mid, role="reasoning"),
            ev("REASONING_MESSAGE_CONTENT", messageId=mid, delta=draw(TEXT)),
            ev("REASONING_MESSAGE_END", messageId=mid),
            ev("REASONING_END", messageId=f"p{index}"),
        ]
    if kind == "chunk":
        deltas = draw(st.lists(TEXT, min_size=1, max_size=3))
        return [ev("TEXT_MESSAGE_CHUNK", messageId=mid, delta=deltas[0])] + [
            ev("TEXT_MESSAGE_CHUNK", delta=d) for d in deltas[1:]
        ]
    if kind == "custom":
        return [ev("CUSTOM", name="x", value=draw(JSON))]
    return [ev("FROM_THE_FUTURE", value=draw(JSON))]


@st.composite
def valid_stream(draw: st.DrawFn, newlines: tuple[str, ...] = ("\n", "\r\n", "\r")) -> bytes:
    newline = draw(st.sampled_from(newlines))
    events: list[dict[str, Any]] = [
        run_started(protocolVersion="1.1") if draw(st.booleans()) else run_started()
    ]
    for i in range(draw(st.integers(0, 4))):
        events.extend(draw(segment(i)))
    outcome = draw(st.sampled_from([None, "success", "interrupt", "cancelled"]))
    if outcome == "interrupt":
        events.append(run_finished(outcome=interrupted(interrupt("i1", toolCallId="c0"))))
    elif outcome is not None:
        events.append(run_finished(outcome={"type": outcome}))
    else:
        events.append(run_finished())
    text = ""
    for event in events:
        if draw(st.integers(0, 4)) == 0:
            text += (
                ": keepalive"
                + draw(st.sampled_from(["\n", "\r\n"]))
                + draw(st.sampled_from(["\n", "\r\n"]))
            )
        data = json.dumps(event, ensure_ascii=False, indent=draw(st.sampled_from([None, None, 1])))
        text += frame(data, newline, space=draw(st.booleans()))
    bom = "\ufeff" if draw(st.integers(0, 5)) == 0 else ""
    return (bom + text).encode()


def cuts_for(data: bytes) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, len(data)), max_size=12)


FRAGMENTS = st.sampled_from(
    [
        b"data: ",
        b"data:",
        b"\n",
        b"\r",
        b"\r\n",
        b": c",
        b"event: x",
        b"id: 1",
        b"\xef\xbb\xbf",
        b"\xff",
        b"\xe2\x82",
        b"{",
        b"}",
        b'"type"',
        b":",
        b'"RUN_STARTED"',
        b"[",
        b"]",
        b" ",
    ]
)


@st.composite
def event_soup(draw: st.DrawFn) -> bytes:
    """Frames of events that are often almost right: known types, plausible ids and fields."""
    types_ = [
        "RUN_STARTED",
        "RUN_FINISHED",
        "RUN_ERROR",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TEXT_MESSAGE_CHUNK",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_CHUNK",
        "TOOL_CALL_RESULT",
        "STATE_SNAPSHOT",
        "STATE_DELTA",
        "MESSAGES_SNAPSHOT",
        "STEP_STARTED",
        "STEP_FINISHED",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_MESSAGE_CHUNK",
        "REASONING_END",
        "THINKING_START",
        "THINKING_TEXT_MESSAGE_START",
        "THINKING_TEXT_MESSAGE_CONTENT",
        "THINKING_TEXT_MESSAGE_END",
        "THINKING_END",
        "ACTIVITY_SNAPSHOT",
        "ACTIVITY_DELTA",
        "CUSTOM",
        "NOPE",
    ]
    message = st.fixed_dictionaries(
        {"id": IDS, "role": st.sampled_from(["assistant", "user", "tool", "reasoning"])},
        optional={"content": TEXT, "toolCallId": IDS},
    )
    op = st.fixed_dictionaries(
        {
            "op": st.sampled_from(["add", "remove", "replace", "move", "copy", "test"]),
            "path": st.sampled_from(["", "/a", "/a/0", "/-", "/x/y"]),
        },
        optional={"value": JSON, "from": st.sampled_from(["/a", "", "/b"])},
    )
    fields = st.fixed_dictionaries(
        {},
        optional={
            "threadId": IDS,
            "runId": IDS,
            "messageId": IDS,
            "toolCallId": IDS,
            "toolCallName": IDS,
            "parentMessageId": IDS,
            "delta": TEXT | st.lists(op, max_size=3),
            "role": st.sampled_from(["assistant", "user", "reasoning"]),
            "stepName": IDS,
            "message": TEXT,
            "content": TEXT | JSON,
            "snapshot": JSON,
            "messages": st.lists(message, max_size=2),
            "outcome": st.sampled_from(
                [
                    {"type": "success"},
                    {"type": "cancelled"},
                    {"type": "x"},
                    {
                        "type": "interrupt",
                        "interrupts": [{"id": "i", "reason": "r", "toolCallId": "a"}],
                    },
                ]
            ),
            "activityType": IDS,
            "patch": st.lists(op, max_size=2),
            "name": IDS,
            "value": JSON,
            "extra": JSON,
        },
    )
    frames = []
    for _ in range(draw(st.integers(0, 12))):
        if draw(st.integers(0, 6)) == 0:
            frames.append(b"".join(draw(st.lists(FRAGMENTS, max_size=6))))
        else:
            event = {"type": draw(st.sampled_from(types_)), **draw(fields)}
            frames.append(frame(event, draw(st.sampled_from(["\n", "\r\n"]))).encode())
    return b"".join(frames)


ANY_BYTES = st.binary(max_size=200) | st.lists(FRAGMENTS, max_size=40).map(b"".join) | event_soup()


# -- 1. any bytes: events or a typed error --------------------------------------------------


@FAST
@given(data=ANY_BYTES, cuts=st.lists(st.integers(0, 400), max_size=5))
def test_any_bytes_through_the_pure_core_yield_events_or_an_agui_error(
    data: bytes, cuts: list[int]
) -> None:
    try:
        p = pipeline(split_at(data, cuts))
    except AGUIError:
        return
    assert len(p.events) == len(p.types)
    assert p.phase in ("init", "active", "finished", "failed")


@SLOW
@given(data=ANY_BYTES, cuts=st.lists(st.integers(0, 400), max_size=5))
def test_any_bytes_through_a_thread_yield_a_result_or_an_agui_error(
    data: bytes, cuts: list[int]
) -> None:
    summary = run_thread(split_at(data, cuts))
    assert summary[0] in ("ok", "error")
    if summary[0] == "ok":
        # A success needs a RUN_FINISHED, and nothing after it but a new run.
        assert "RUN_FINISHED" in summary[2]


# -- 2. the split does not matter -----------------------------------------------------------


@SLOW
@given(st.data())
def test_a_valid_stream_gives_the_same_result_however_it_is_split(data: st.DataObject) -> None:
    body = data.draw(valid_stream())
    whole = run_thread([body])
    assert whole[0] == "ok", whole
    cuts = data.draw(cuts_for(body))
    assert run_thread(split_at(body, cuts)) == whole
    assert run_thread(split_at(body, range(1, len(body)))) == whole  # one byte at a time


def verdict(chunks: list[bytes], max_event_bytes: int) -> str:
    try:
        pipeline(chunks, max_event_bytes=max_event_bytes)
    except AGUIError as exc:
        return type(exc).__name__
    return "ok"


@FAST
@given(st.data())
def test_the_size_limit_verdict_does_not_depend_on_the_split(data: st.DataObject) -> None:
    body = data.draw(valid_stream(newlines=("\n",)))
    cuts = data.draw(cuts_for(body))
    assert verdict([body], 120) == verdict(split_at(body, cuts), 120)


@FAST
@given(st.data())
def test_the_pure_core_gives_the_same_events_however_the_bytes_are_split(
    data: st.DataObject,
) -> None:
    body = data.draw(valid_stream())
    whole = pipeline([body])
    split = pipeline(split_at(body, data.draw(cuts_for(body))))
    assert split.types == whole.types
    assert [e.model_dump() for e in split.events] == [e.model_dump() for e in whole.events]
    assert split.warnings == whole.warnings


# -- 3. a cut-short stream is never a success -----------------------------------------------


@SLOW
@given(st.data())
def test_a_valid_stream_cut_short_is_a_truncated_run(data: st.DataObject) -> None:
    body = data.draw(valid_stream(newlines=("\n",)))
    # Cuts inside a UTF-8 sequence (BOM, non-ASCII text) are drawn often, not left to chance.
    inside = [i for i, byte in enumerate(body) if 0x80 <= byte < 0xC0]
    ends = st.integers(0, len(body) - 1)
    end = data.draw(st.sampled_from(inside) | ends if inside else ends)
    prefix = body[:end]
    summary = run_thread(split_at(prefix, data.draw(cuts_for(prefix))))
    assert summary[0] == "error", summary
    assert summary[1] == TruncatedRunError.__name__, summary
    assert summary[3] == "truncated"
