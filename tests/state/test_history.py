"""_state.history.OutgoingHistory (the last call's result reused for the messages it began with)
against outgoing_history on every call, differentially, over a thread's growing histories:
messages kept, replaced by equal or changed ones, dropped, added, synthetic tool calls and
activity messages among them."""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
from ag_ui.core import (
    ActivityMessage,
    AssistantMessage,
    FunctionCall,
    ToolCall,
    UserMessage,
)
from hypothesis import given, settings

from agui_notebook._frameworks.registry import is_synthetic
from agui_notebook._state.history import OutgoingHistory, outgoing_history
from tests._hypothesis import examples

_SYNTHETIC = next(
    (n for n in ("confirm_changes", "langgraph_interrupt", "generate_a2ui") if is_synthetic(n)),
    None,
)


def _message(kind: int, n: int) -> Any:
    if kind == 0:
        return UserMessage(id=f"u{n}", content=f"hi {n}")
    if kind == 1:
        return ActivityMessage(id=f"a{n}", activity_type="x", content={"n": n})
    names = ["f"] if kind == 2 or _SYNTHETIC is None else ["f", _SYNTHETIC]
    calls = [
        ToolCall(id=f"c{n}{i}", function=FunctionCall(name=name, arguments="{}"))
        for i, name in enumerate(names)
    ]
    return AssistantMessage(id=f"m{n}", content=None if kind == 4 else "ok", tool_calls=calls)


@settings(deadline=None, max_examples=examples(200))
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(["keep", "keep", "equal", "change", "drop"]), max_size=12),
            st.lists(st.integers(0, 4), max_size=4),
        ),
        max_size=6,
    )
)
def test_remembering_the_last_call_gives_what_the_function_gives(
    runs: list[tuple[list[str], list[int]]],
) -> None:
    history = OutgoingHistory()
    held: list[Any] = []
    count = 0
    for steps, added in runs:
        messages: list[Any] = []
        for message, step in zip(held, steps + ["keep"] * len(held), strict=False):
            if step == "keep":
                messages.append(message)
            elif step == "equal":
                messages.append(message.model_copy())
            elif step == "change":
                messages.append(message.model_copy(update={"id": f"{message.id}x"}))
        for kind in added:
            messages.append(_message(kind, count))
            count += 1
        assert history(messages) == outgoing_history(messages)
        held = messages
