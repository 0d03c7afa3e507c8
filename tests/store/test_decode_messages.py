"""The restore's fast paths against the general ones, differentially (issue 28).

- ``decode_messages`` (the stored messages validated in one pass of pydantic's JSON validator,
  the general path when that fails) against ``decode_messages_one_by_one`` (``json.loads``, each
  message validated alone, what does not validate left out with a warning): the same messages by
  id, in the same order, of the same classes with the same fields set and the same dump, and the
  same warnings, or the same error. Messages are drawn valid (as this client writes them) and
  perturbed: unknown keys, unknown roles, content parts (known, unknown, legacy), wrong types,
  nulls, duplicate ids, numbers JSON keeps but Python does not (NaN, huge ints), non-lists.
- ``new_tool_call`` (a stored tool call rebuilt without the frozen dataclass's __init__) against
  ``ToolCallInfo(**values)``.
- ``summary_from_row`` against the ``ThreadSummary`` constructor.
- ``validate_messages`` (a commit's check, in one pass, of which message texts validate back:
  what lets a restore defer their validation) against validating each text alone.
"""

from __future__ import annotations

import contextlib
import gc
import json
from datetime import datetime, timezone
from typing import Any

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, example, given, settings

from agui_notebook._protocol.wire import MESSAGE
from agui_notebook._state.reducer import ToolCallInfo
from agui_notebook._store.codec import (
    ThreadSummary,
    decode_messages,
    decode_messages_one_by_one,
    decode_thread,
    new_tool_call,
    summary_from_row,
    validate_messages,
)
from tests._hypothesis import examples

MANY = settings(
    deadline=None, max_examples=examples(300), suppress_health_check=[HealthCheck.too_slow]
)

_TEXT = st.text(max_size=8)
_ODD = st.sampled_from([None, 1, -0.0, 1.5, "", "x", [], {}, {"a": None}, True, 10**30])
_PARTS = st.sampled_from(
    [
        {"type": "text", "text": "hi"},
        {"type": "text", "text": "hi", "mood": 1},
        {"type": "hologram", "data": "x"},
        {"type": "binary", "mimeType": "image/png", "data": "iVBORw0KGgo="},
        {"type": "image", "source": {"type": "url", "value": "https://example.invalid/a.png"}},
        {"type": "image", "source": {"type": "data", "value": "iVBO", "mimeType": "image/png"}},
        {"type": "text"},
        "not a part",
    ]
)


@st.composite
def _tool_call(draw: st.DrawFn) -> dict[str, Any]:
    call: dict[str, Any] = {
        "id": draw(_TEXT),
        "type": draw(st.sampled_from(["function", "function", "other"])),
        "function": {"name": draw(_TEXT), "arguments": draw(st.sampled_from(['{"a":1}', "{"]))},
    }
    if draw(st.booleans()):
        call[draw(st.sampled_from(["encryptedValue", "extra", "metadata"]))] = draw(_ODD)
    return call


@st.composite
def _message(draw: st.DrawFn) -> Any:
    role = draw(
        st.sampled_from(
            ["user", "assistant", "tool", "system", "developer", "reasoning", "activity", "robot"]
        )
    )
    message: dict[str, Any] = {"id": draw(st.sampled_from(["m1", "m2", "m3", "m4"])), "role": role}
    if role == "activity":
        message["activityType"] = draw(_TEXT)
        message["content"] = draw(st.dictionaries(_TEXT, _ODD, max_size=2))
    elif role in ("user", "tool"):
        message["content"] = draw(st.one_of(_TEXT, st.lists(_PARTS, max_size=3)))
        if role == "tool":
            message["toolCallId"] = draw(_TEXT)
    elif role == "assistant":
        if draw(st.booleans()):
            message["content"] = draw(_TEXT)
        if draw(st.booleans()):
            message["toolCalls"] = draw(st.lists(_tool_call(), max_size=2))
    else:
        message["content"] = draw(_TEXT)
    for _ in range(draw(st.integers(0, 2))):  # perturbed: unknown, optional or wrong fields
        key = draw(
            st.sampled_from(
                ["name", "encryptedValue", "metadata", "subagentRunId", "mood", "id", "content"]
            )
        )
        message[key] = draw(st.one_of(_ODD, _TEXT))
    if draw(st.integers(0, 20)) == 0:
        return draw(_ODD)  # not a message at all
    return message


def _same(text: str) -> None:
    fast_warnings: list[str] = []
    general_warnings: list[str] = []
    try:
        fast: Any = decode_messages(text, fast_warnings)
    except Exception as exc:
        fast = ("error", type(exc))
    try:
        general: Any = decode_messages_one_by_one(text, general_warnings)
    except Exception as exc:
        general = ("error", type(exc))
    assert fast_warnings == general_warnings
    if isinstance(general, tuple):
        assert fast == general
        return
    assert list(fast) == list(general)
    for key, model in general.items():
        got = fast[key]
        assert type(got) is type(model)
        assert got.model_fields_set == model.model_fields_set
        assert repr(got.model_extra) == repr(model.model_extra)
        assert repr(got.model_dump()) == repr(model.model_dump())  # NaN != NaN: by repr
        assert repr(got) == repr(model)


@MANY
@given(st.lists(_message(), max_size=6))
@example([{"id": "m1", "role": "user", "content": "hi"}])
@example(
    [{"id": "m1", "role": "user", "content": "a"}, {"id": "m1", "role": "user", "content": "b"}]
)
def test_decode_messages_matches_one_by_one(messages: list[Any]) -> None:
    _same(json.dumps(messages))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not json",
        "{}",
        '{"a": 1}',
        '"text"',
        "null",
        "[]",
        '[{"id": "m1", "role": "user", "content": "x", "metadata": {"f": NaN, "g": Infinity}}]',
        '[{"id": "m1", "role": "user", "content": "x", "metadata": {"n": 123456789012345678901234567890}}]',
        '[{"id": "\\ud800", "role": "user", "content": "lone surrogate"}]',
        '[{"id": "m1", "role": "user", "content": "x", "content": "duplicate key"}]',
        '[{"id": "m1", "role": "user", "content": "x"}, 7]',
    ],
)
def test_decode_messages_matches_on_odd_texts(text: str) -> None:
    _same(text)


def _validates_alone(text: str) -> bool:
    try:
        MESSAGE.validate_json(text)
    except ValueError:  # pydantic's ValidationError is one
        return False
    return True


@MANY
@given(
    st.lists(_message(), max_size=6),
    st.lists(st.sampled_from(["", "{", "[]", "1", "null", "1,2", '{"id": 1}']), max_size=2),
    st.randoms(use_true_random=False),
)
def test_validate_messages_matches_validating_each_text_alone(
    messages: list[Any], junk: list[str], order: Any
) -> None:
    texts = [json.dumps(m) for m in messages] + junk
    order.shuffle(texts)
    assert validate_messages(texts) == [_validates_alone(t) for t in texts]


_CALL_VALUES = st.fixed_dictionaries(
    {},
    optional={
        "id": _TEXT,
        "name": _TEXT,
        "arguments_text": _TEXT,
        "parent_message_id": st.one_of(st.none(), _TEXT),
        "result": _ODD,
        "result_message_id": st.one_of(st.none(), _TEXT),
        "status": st.sampled_from(["streaming", "called", "done"]),
        "metadata": st.one_of(st.none(), st.dictionaries(_TEXT, _ODD, max_size=2)),
        "subagent_run_id": st.one_of(st.none(), _TEXT),
        "encrypted_value": st.one_of(st.none(), _TEXT),
        "encrypted_value_type": st.one_of(st.none(), _TEXT),
    },
)


@MANY
@given(_CALL_VALUES)
def test_new_tool_call_matches_the_constructor(values: dict[str, Any]) -> None:
    try:
        expected: Any = ToolCallInfo(**values)
    except TypeError as exc:
        with pytest.raises(TypeError):
            new_tool_call(values)
        assert "required" in str(exc) or "missing" in str(exc)
        return
    got = new_tool_call(dict(values))
    assert got == expected
    assert repr(got) == repr(expected)
    assert vars(got) == vars(expected) and list(vars(got)) == list(vars(expected))
    with pytest.raises(AttributeError):  # still frozen
        got.name = "changed"  # type: ignore[misc]


def test_summary_from_row_matches_the_constructor() -> None:
    now = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=timezone.utc)
    row = {
        "id": "t1",
        "agent_url": "http://a.invalid/agent",
        "created_at": now.isoformat(),
        "updated_at": now.isoformat(timespec="microseconds"),
        "pending": 1,
        "messages": 4,
        "last_status": None,
        "title": "hi",
    }
    got = summary_from_row(**row)
    expected = ThreadSummary(**{**row, "created_at": now, "updated_at": now})
    assert got == expected
    assert repr(got) == repr(expected) and hash(got) == hash(expected)
    assert vars(got) == vars(expected) and list(vars(got)) == list(vars(expected))
    with pytest.raises(AttributeError):
        got.title = "changed"  # type: ignore[misc]


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("messages", ['[{"id": "m1", "role": "user", "content": "hi"}]', "[1"])
def test_decode_thread_leaves_the_collector_as_it_found_it(enabled: bool, messages: str) -> None:
    # The collector is paused while a thread is rebuilt; on the way out, even by an error, it is
    # on again only if it was on (a caller's gc.disable() stands).
    seen: list[bool] = []
    was = gc.isenabled()
    gc.enable() if enabled else gc.disable()
    try:
        with contextlib.suppress(ValueError):
            restored = decode_thread(
                messages=messages,
                state="null",
                tool_calls="[]",
                pending="[]",
                answered="[]",
                last_run_id=None,
            )
            seen.append(bool(restored.snapshot.messages))
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()
    assert seen == ([True] if messages.endswith("]") else [])
