"""_reducer.RunReducer: events -> messages, tool calls, state, outcome. Copy on write."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import UserMessage

from agui_notebook import ProtocolError
from agui_notebook._protocol.events import type_of
from agui_notebook._protocol.wire import AssistantMessage, ToolMessage
from agui_notebook._state.reducer import RunReducer, ThreadSnapshot
from tests.thread._streams import (
    ev,
    flatten,
    interrupt,
    interrupted,
    messages_snapshot,
    parse_events,
    pipeline,
    run_error,
    run_finished,
    run_started,
    sse,
    state_delta,
    state_snapshot,
    text_content,
    text_end,
    text_message,
    text_start,
    tool_args,
    tool_call,
    tool_end,
    tool_result,
    tool_start,
)


def reduce(*events: Any, base: ThreadSnapshot | None = None) -> tuple[RunReducer, list[str]]:
    warnings: list[str] = []
    reducer = RunReducer(base or ThreadSnapshot(), warnings.append)
    for event in parse_events(*flatten(events)):
        reducer.apply(type_of(event), event)
    return reducer, warnings


def test_text_deltas_join_into_the_message() -> None:
    r, _ = reduce(text_message("m", "Hel", "lo"))
    assert r.messages["m"] == AssistantMessage(id="m", content="Hello")
    assert list(r.touched) == ["m"]


def test_text_of_reads_an_open_message() -> None:
    r, _ = reduce(text_start("m"), text_content("m", "a"), text_content("m", "b"))
    assert r.text_of("m") == "ab"
    r.apply("TEXT_MESSAGE_CONTENT", parse_events(text_content("m", "c"))[0])
    assert r.text_of("m") == "abc"
    assert r.snapshot().messages["m"].content == "abc"


def test_role_picks_the_message_class() -> None:
    r, _ = reduce(text_start("u", role="user"), text_content("u", "q"), text_end("u"))
    assert isinstance(r.messages["u"], UserMessage) and r.messages["u"].content == "q"


def test_restreaming_a_known_message_appends() -> None:
    base = ThreadSnapshot(messages={"m": AssistantMessage(id="m", content="one ")})
    r, _ = reduce(text_message("m", "two"), base=base)
    assert r.messages["m"].content == "one two"


def test_the_base_snapshot_is_never_mutated() -> None:
    base = ThreadSnapshot(
        messages={"m": AssistantMessage(id="m", content="old")}, state={"n": 1, "list": [1]}
    )
    before_messages = dict(base.messages)
    reduce(
        text_message("m", " more"),
        tool_call("c", "f", {"x": 1}, parent="m"),
        state_delta(
            {"op": "add", "path": "/list/-", "value": 2},
            {"op": "replace", "path": "/n", "value": 2},
        ),
        messages_snapshot({"id": "new", "role": "user", "content": "hi"}),
        base=base,
    )
    assert base.messages == before_messages
    assert base.messages["m"].content == "old" and base.messages["m"].tool_calls is None
    assert base.state == {"n": 1, "list": [1]}
    assert base.tool_calls == {}


def test_tool_call_attaches_to_its_parent_with_parsed_arguments() -> None:
    r, warnings = reduce(
        text_message("a", "ok"), tool_call("c", "transfer", {"amount": 5}, parent="a")
    )
    assert warnings == []
    info = r.tool_calls["c"]
    assert (info.name, info.arguments, info.status, info.parent_message_id) == (
        "transfer",
        {"amount": 5},
        "called",
        "a",
    )
    assert [c.id for c in r.messages["a"].tool_calls] == ["c"]
    assert r.messages["a"].content == "ok"


def test_tool_call_without_parent_attaches_to_the_runs_last_assistant_message() -> None:
    r, _ = reduce(text_message("a", "x"), tool_call("c", "f", {}))
    assert [c.id for c in r.messages["a"].tool_calls] == ["c"]


def test_tool_call_without_any_assistant_message_gets_its_own() -> None:
    r, _ = reduce(tool_call("c", "f", {}))
    assert isinstance(r.messages["c"], AssistantMessage)
    assert [c.id for c in r.messages["c"].tool_calls] == ["c"]


def test_interleaved_tool_calls_both_complete() -> None:
    r, _ = reduce(
        text_message("a", ""),
        tool_start("A", "f", parent="a"),
        tool_start("B", "g", parent="a"),
        tool_args("B", '{"b": '),
        tool_args("A", '{"a": 1}'),
        tool_args("B", "2}"),
        tool_end("A"),
        tool_end("B"),
    )
    assert r.tool_calls["A"].arguments == {"a": 1}
    assert r.tool_calls["B"].arguments == {"b": 2}
    assert [c.id for c in r.messages["a"].tool_calls] == ["A", "B"]


def test_unparseable_arguments_warn_and_stay_text() -> None:
    r, warnings = reduce(tool_start("c", "f"), tool_args("c", '{"a": '), tool_end("c"))
    assert r.tool_calls["c"].arguments is None
    assert r.tool_calls["c"].arguments_text == '{"a": '
    assert r.tool_calls["c"].status == "called"
    assert warnings == ["tool call c (f): arguments are not valid JSON"]


def test_tool_result_becomes_a_tool_message() -> None:
    r, _ = reduce(tool_call("c", "f", {}), tool_result("t", "c", "42"))
    assert r.messages["t"] == ToolMessage(id="t", content="42", tool_call_id="c")
    assert (r.tool_calls["c"].result, r.tool_calls["c"].status) == ("42", "done")


# -- state ----------------------------------------------------------------------------------


def test_state_snapshot_replaces() -> None:
    r, _ = reduce(state_snapshot({"a": 1}), state_snapshot({"b": 2}))
    assert r.state == {"b": 2}


def test_state_delta_applies_a_json_patch() -> None:
    r, warnings = reduce(
        state_snapshot({"items": [1], "n": 0}),
        state_delta(
            {"op": "add", "path": "/items/-", "value": 2},
            {"op": "replace", "path": "/n", "value": 5},
        ),
    )
    assert r.state == {"items": [1, 2], "n": 5}
    assert warnings == []


def test_state_delta_is_all_or_nothing() -> None:
    # The first op would apply; the second fails: neither may show (1.1 events/state).
    r, warnings = reduce(
        state_snapshot({"n": 0}),
        state_delta(
            {"op": "replace", "path": "/n", "value": 1}, {"op": "remove", "path": "/missing"}
        ),
    )
    assert r.state == {"n": 0}
    assert len(warnings) == 1 and warnings[0].startswith("STATE_DELTA not applied")
    alone, _ = reduce(
        state_snapshot({"n": 0}), state_delta({"op": "replace", "path": "/n", "value": 1})
    )
    assert alone.state == {"n": 1}  # the first op on its own does apply


def test_failing_test_op_keeps_state() -> None:
    r, warnings = reduce(
        state_snapshot({"n": 0}),
        state_delta(
            {"op": "test", "path": "/n", "value": 9}, {"op": "replace", "path": "/n", "value": 1}
        ),
    )
    assert r.state == {"n": 0} and len(warnings) == 1


@pytest.mark.parametrize(
    "ops",
    [[{"path": "/n"}], [{"op": "add", "path": 5, "value": 1}], [1], [{"op": "move", "path": "/n"}]],
    ids=["no-op", "path-not-a-string", "not-an-object", "move-without-from"],
)
def test_a_structurally_malformed_patch_is_fatal(ops: list[Any]) -> None:
    # 1.1 events/state, Error Handling: "A structurally malformed patch is fatal; a well-formed
    # patch that fails to apply is warned about and skipped."
    with pytest.raises(ProtocolError, match="malformed STATE_DELTA"):
        reduce(state_snapshot({"n": 0}), state_delta(*ops))


def test_patch_op_members_it_does_not_define_are_ignored() -> None:
    # RFC 6902 section 4: a remove carrying a leftover value is a valid patch.
    r, warnings = reduce(
        state_snapshot({"n": 0, "m": 1}), state_delta({"op": "remove", "path": "/m", "value": 1})
    )
    assert r.state == {"n": 0} and warnings == []


def test_state_delta_on_no_state_with_root_add() -> None:
    r, _ = reduce(state_delta({"op": "add", "path": "", "value": {"x": 1}}))
    assert r.state == {"x": 1}


# -- MESSAGES_SNAPSHOT ----------------------------------------------------------------------


def test_messages_snapshot_reconciles_by_id() -> None:
    base = ThreadSnapshot(
        messages={
            "u1": UserMessage(id="u1", content="hi"),
            "a1": AssistantMessage(id="a1", content="draft"),
            "u2": UserMessage(id="u2", content="more"),
        }
    )
    r, _ = reduce(
        messages_snapshot(
            {"id": "a1", "role": "assistant", "content": "final"},
            {"id": "a2", "role": "assistant", "content": "new"},
        ),
        base=base,
    )
    assert list(r.messages) == ["u1", "a1", "u2", "a2"]  # replaced in place, new appended
    assert r.messages["a1"].content == "final"
    assert r.messages["u1"].content == "hi" and r.messages["u2"].content == "more"


def test_messages_snapshot_teaches_tool_calls_and_results() -> None:
    r, _ = reduce(
        messages_snapshot(
            {
                "id": "a",
                "role": "assistant",
                "toolCalls": [
                    {
                        "id": "c",
                        "type": "function",
                        "function": {"name": "f", "arguments": '{"x": 1}'},
                    }
                ],
            },
            {"id": "t", "role": "tool", "toolCallId": "c", "content": "done"},
        )
    )
    info = r.tool_calls["c"]
    assert (info.name, info.arguments, info.result, info.status) == ("f", {"x": 1}, "done", "done")


def test_snapshot_of_an_open_message_then_more_content_is_not_a_crash() -> None:
    # MESSAGES_SNAPSHOT may restate a message still streaming; later content keeps appending.
    p = pipeline(
        [
            sse(
                run_started(),
                text_start("m"),
                text_content("m", "x"),
                messages_snapshot({"id": "m", "role": "assistant", "content": "X"}),
                text_content("m", "y"),
                text_end("m"),
                run_finished(),
            )
        ]
    )
    assert p.phase == "finished"
    assert p.reducer is not None and p.reducer.messages["m"].content == "Xy"


# -- outcome --------------------------------------------------------------------------------


def test_outcomes() -> None:
    r, _ = reduce(run_started(), run_finished())
    assert (r.outcome, r.run_id) == ("success", "r1")
    r, _ = reduce(
        run_finished(outcome={"type": "success", "pendingToolCallIds": ["c1"]}, result={"v": 1})
    )
    assert (r.outcome, r.pending_tool_call_ids, r.result) == ("success", ["c1"], {"v": 1})
    r, _ = reduce(run_finished(outcome={"type": "cancelled"}))
    assert r.outcome == "cancelled" and r.interrupts == []
    r, _ = reduce(run_finished(outcome=interrupted(interrupt("i1"), interrupt("i2"))))
    assert r.outcome == "interrupt" and [i.id for i in r.interrupts] == ["i1", "i2"]


def test_run_error_recorded() -> None:
    r, _ = reduce(run_started(), run_error("nope", code="E1"))
    assert r.error == ("nope", "E1")


def test_activity_snapshot_and_delta() -> None:
    r, warnings = reduce(
        ev("ACTIVITY_SNAPSHOT", messageId="act", activityType="plan", content={"steps": []}),
        ev(
            "ACTIVITY_DELTA",
            messageId="act",
            activityType="plan",
            patch=[{"op": "add", "path": "/steps/-", "value": "a"}],
        ),
        ev(
            "ACTIVITY_DELTA",
            messageId="act",
            activityType="plan",
            patch=[{"op": "remove", "path": "/nope"}],
        ),
    )
    assert r.messages["act"].content == {"steps": ["a"]}
    assert len(warnings) == 1 and "ACTIVITY_DELTA not applied" in warnings[0]


def test_a_message_the_run_opens_reads_the_same_before_and_after_it_is_built() -> None:
    # A message a run opens is built when first read; what the handlers ask of it before
    # then (is it an assistant's? whose is it?) and a change to it (metadata, an activity
    # taking its id) give what a built one gives.
    r, warnings = reduce(
        text_start("m"),
        ev("TEXT_MESSAGE_CONTENT", messageId="m", delta="a", metadata={"k": 1}),
        text_end("m"),
        tool_start("c", "f"),  # no parent: the run's last assistant message, still a draft
        tool_args("c", "{}"),
        tool_end("c"),
        tool_result("r", "c", "ok"),
        ev("TEXT_MESSAGE_START", messageId="u", role="user"),
        text_end("u"),
        ev("ACTIVITY_SNAPSHOT", messageId="u", activityType="checklist", content={"a": 1}),
    )
    assert warnings == []
    assert r.text_of("r") == "ok"  # a tool message's content, before it is built
    messages = r.messages
    assert messages["m"].content == "a" and messages["m"].metadata == {"k": 1}
    assert [call.id for call in messages["m"].tool_calls] == ["c"]
    assert messages["r"] == ToolMessage(id="r", content="ok", tool_call_id="c")
    assert type(messages["u"]).__name__ == "ActivityMessage"
    assert r.messages is messages and list(messages) == ["m", "r", "u"]
