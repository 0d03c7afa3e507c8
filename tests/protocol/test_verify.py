"""_verify.OrderVerifier: the run lifecycle (AG-UI 1.1 events/lifecycle, basic/patterns)."""

from __future__ import annotations

from typing import Any

import pytest

from agui_notebook import ProtocolError
from agui_notebook._protocol.events import EventParser, type_of
from agui_notebook._protocol.verify import OrderVerifier
from tests.thread._streams import (
    ev,
    flatten,
    interrupt,
    interrupted,
    parse_events,
    run_error,
    run_finished,
    run_started,
    text_content,
    text_end,
    text_message,
    text_start,
    tool_args,
    tool_call,
    tool_end,
    tool_start,
)


def verify(*events: Any) -> OrderVerifier:
    verifier = OrderVerifier()
    parser = EventParser(lambda _: None)
    import json

    for raw in flatten(events):
        for event in parser.parse(json.dumps(raw)):
            verifier.check(type_of(event), event, parser.index)
    return verifier


def step(kind: str, name: str) -> dict[str, Any]:
    return ev(kind, stepName=name)


# -- valid shapes ---------------------------------------------------------------------------


def test_a_plain_run() -> None:
    assert verify(run_started(), text_message("m", "hi"), run_finished()).phase == "finished"


def test_interleaved_tool_calls_are_valid() -> None:
    # Microsoft's server: calls in one batch interleave (START A, START B, END A, END B).
    v = verify(
        run_started(),
        tool_start("A", "f"),
        tool_start("B", "g"),
        tool_args("A", "{}"),
        tool_args("B", "{}"),
        tool_end("A"),
        tool_end("B"),
        run_finished(),
    )
    assert v.phase == "finished"


def test_overlapping_steps_and_messages_are_valid() -> None:
    v = verify(
        run_started(),
        step("STEP_STARTED", "plan"),
        text_start("m"),
        step("STEP_STARTED", "act"),
        step("STEP_FINISHED", "plan"),
        text_end("m"),
        step("STEP_FINISHED", "act"),
        run_finished(),
    )
    assert v.phase == "finished"


def test_run_error_first_is_valid_and_failed() -> None:
    assert verify(run_error("no agent")).phase == "failed"


def test_late_run_error_after_run_finished_fails_the_run() -> None:
    assert verify(run_started(), run_finished(), run_error("flush failed")).phase == "failed"


def test_run_error_ends_whatever_was_open() -> None:
    v = verify(run_started(), text_start("m"), tool_start("c", "f"), run_error())
    assert v.phase == "failed"
    assert (
        verify(run_started(), text_start("m"), run_error(), run_started(), run_finished()).phase
        == "finished"
    )


def test_several_runs_in_sequence() -> None:
    v = verify(run_started(), run_finished(), run_started(run_id="r2"), run_finished(run_id="r2"))
    assert v.phase == "finished" and v.runs_started == 2


def test_new_run_after_run_error() -> None:
    assert verify(run_started(), run_error(), run_started(), run_finished()).phase == "finished"


def test_message_id_reusable_after_it_closed() -> None:
    v = verify(run_started(), text_message("m", "a"), text_message("m", "b"), run_finished())
    assert v.phase == "finished"


def test_new_run_starts_with_nothing_open() -> None:
    # A message left open by a failed run does not leak into the next run on the stream.
    v = verify(
        run_started(),
        text_start("m"),
        run_error(),
        run_started(),
        text_start("m"),
        text_end("m"),
        run_finished(),
    )
    assert v.phase == "finished"


# -- violations -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("events", "match"),
    [
        (
            [text_message("m", "x")],
            "must begin with RUN_STARTED or RUN_ERROR, not TEXT_MESSAGE_START",
        ),
        ([run_finished()], "must begin with RUN_STARTED or RUN_ERROR"),
        (
            [run_started(), text_content("m", "x")],
            "TEXT_MESSAGE_CONTENT for a message that is not open",
        ),
        ([run_started(), text_end("m")], "TEXT_MESSAGE_END for a message that is not open"),
        ([run_started(), tool_args("c", "{}")], "TOOL_CALL_ARGS for a tool call that is not open"),
        ([run_started(), tool_end("c")], "TOOL_CALL_END for a tool call that is not open"),
        ([run_started(), text_message("m", "x"), text_content("m", "y")], "not open"),
        ([run_started(), text_start("m"), text_start("m")], "already open"),
        ([run_started(), tool_start("c", "f"), tool_start("c", "f")], "already open"),
        ([run_started(), step("STEP_FINISHED", "s")], "step that is not open"),
        (
            [run_started(), step("STEP_STARTED", "s"), step("STEP_STARTED", "s")],
            "step already open",
        ),
        (
            [run_started(), text_start("m"), run_finished()],
            "RUN_FINISHED while still open: message 'm'",
        ),
        ([run_started(), tool_start("c", "f"), run_finished()], "still open: tool call 'c'"),
        ([run_started(), step("STEP_STARTED", "s"), run_finished()], "still open: step 's'"),
        (
            [
                run_started(),
                ev("REASONING_MESSAGE_START", messageId="r", role="reasoning"),
                run_finished(),
            ],
            "still open: reasoning message 'r'",
        ),
        (
            [run_started(), run_finished(), text_message("m", "x")],
            "TEXT_MESSAGE_START after RUN_FINISHED",
        ),
        ([run_started(), run_finished(), run_finished()], "RUN_FINISHED after RUN_FINISHED"),
        ([run_started(), run_error(), run_error()], "RUN_ERROR after RUN_ERROR"),
        ([run_started(), run_error(), text_message("m", "x")], "after RUN_ERROR"),
        ([run_error(), run_finished()], "RUN_FINISHED after RUN_ERROR"),
        ([run_started(), run_started()], "RUN_STARTED while a run is active"),
        (
            [
                run_started(),
                run_finished(outcome=interrupted(interrupt("i"))),
                ev("CUSTOM", name="x", value=1),
            ],
            "CUSTOM after RUN_FINISHED",
        ),
    ],
)
def test_order_violation_is_a_protocol_error(events: list[Any], match: str) -> None:
    with pytest.raises(ProtocolError, match=match):
        verify(*events)


def test_violation_names_the_event_index() -> None:
    with pytest.raises(ProtocolError, match=r"\(event #3\)") as info:
        verify(run_started(), run_finished(), text_start("m"))
    assert info.value.event_index == 3


def test_chunk_expansion_runs_before_verification() -> None:
    # TEXT_MESSAGE_CHUNK alone is valid: expansion supplies the start/end verification needs.
    v = verify(run_started(), ev("TEXT_MESSAGE_CHUNK", messageId="m", delta="x"), run_finished())
    assert v.phase == "finished"


def test_content_for_one_message_while_another_is_open() -> None:
    with pytest.raises(ProtocolError, match="'m2'"):
        verify(run_started(), text_start("m1"), text_content("m2", "x"))


def test_tool_call_events_verify_after_parse() -> None:
    assert [type_of(e) for e in parse_events(tool_call("c", "f", {}))] == [
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
    ]
