"""_events.enforce_run_input (a thread's outgoing messages enforced once, then reused from an
InputCache) against enforce_input (every message dumped, pruned, validated and stripped again),
differentially.

A thread sends a growing history: each run's messages are the last run's objects, some of them
replaced by equal new objects (as a MESSAGES_SNAPSHOT brings back) or changed ones, some sent
twice, plus new ones. Messages are drawn valid and perturbed: unknown properties (top level and
nested), unknown roles, unknown or legacy content parts, nulls, wrong types; the run input's own
fields too. Every run must give the same body
(the same JSON text, and encode_run_input the bytes json.dumps gives), the same warnings in the
same order, or the same error.
"""

from __future__ import annotations

import json
from typing import Any

import hypothesis.strategies as st
from hypothesis import HealthCheck, example, given, settings
from pydantic import BaseModel, ConfigDict

from agui_notebook import ProtocolError
from agui_notebook._protocol.run_input import (
    InputCache,
    encode_run_input,
    enforce_input,
    enforce_run_input,
)
from tests._hypothesis import examples

MANY = settings(
    deadline=None, max_examples=examples(300), suppress_health_check=[HealthCheck.too_slow]
)


class Loose(BaseModel):
    """A message as a thread might hold one: whatever it dumps is what is enforced."""

    model_config = ConfigDict(extra="allow")


_PARTS = st.sampled_from(
    [
        {"type": "text", "text": "hi"},
        {"type": "text", "text": "hi", "mood": 1},
        {"type": "hologram", "data": "x"},
        {"type": "binary", "mimeType": "image/png", "data": "iVBORw0KGgo="},
        {"type": "binary", "mimeType": "image/png"},
        {"type": "image", "source": {"type": "carrier-pigeon", "value": "x"}},
        {"type": "image", "source": {"type": "url", "value": "https://example.invalid/a.png"}},
        {"type": "text"},
        "not a part",
    ]
)
_ODD = st.sampled_from([None, 1, "", "x", [], {}, {"a": None}, True])


@st.composite
def messages(draw: st.DrawFn, index: int) -> dict[str, Any]:
    role = draw(
        st.sampled_from(["user", "assistant", "tool", "system", "reasoning", "mystery", None])
    )
    message: dict[str, Any] = {"id": f"m{index}"}
    if role is not None:
        message["role"] = role
    if role in ("user", "tool") and draw(st.booleans()):
        message["content"] = draw(st.lists(_PARTS, max_size=3))
    else:
        message["content"] = f"text {index}"
    if role == "tool":
        message["toolCallId"] = "c1"
    if role == "assistant" and draw(st.booleans()):
        message["toolCalls"] = [
            {
                "id": "c1",
                "type": "function",
                "function": {
                    "name": "f",
                    "arguments": "{}",
                    **draw(st.sampled_from([{}, {"x": 1}])),
                },
            }
        ]
    for _ in range(draw(st.integers(0, 2))):
        key = draw(
            st.sampled_from(["mood", "content", "id", "name", "toolCallId", "encryptedValue"])
        )
        message[key] = draw(_ODD)
    return message


@st.composite
def conversations(draw: st.DrawFn) -> list[tuple[dict[str, Any], list[BaseModel]]]:
    runs: list[tuple[dict[str, Any], list[BaseModel]]] = []
    held: list[BaseModel] = []
    count = 0
    for _ in range(draw(st.integers(1, 5))):
        kept: list[BaseModel] = []
        for message in held:
            step = draw(st.sampled_from(["keep", "keep", "replace", "change", "twice", "drop"]))
            if step == "keep":
                kept.append(message)
            elif step == "replace":
                kept.append(Loose(**message.model_dump()))  # equal, but a new object
            elif step == "change":
                kept.append(Loose(**{**message.model_dump(), "content": draw(_ODD)}))
            elif step == "twice":
                kept += [message, message]
        for _ in range(draw(st.integers(0, 3))):
            kept.append(Loose(**draw(messages(count))))
            count += 1
        body: dict[str, Any] = {
            "threadId": "t",
            "runId": f"r{len(runs)}",
            "protocolVersion": "1.1",
            "tools": draw(
                st.sampled_from(
                    [
                        [],
                        [{"name": "f", "description": "d", "parameters": {}}],
                        [{"name": "f", "mood": 1, "description": "d", "parameters": {}}],
                    ]
                )
            ),
            "context": [],
            "forwardedProps": {},
        }
        if draw(st.booleans()):
            body["state"] = {"a": 1}
        if draw(st.integers(0, 9)) == 0:
            body[draw(st.sampled_from(["mystery", "parentRunId", "runId"]))] = draw(_ODD)
        runs.append((body, kept))
        held = kept
    return runs


def _general(body: dict[str, Any], msgs: list[BaseModel]) -> tuple[str, list[str]]:
    said: list[str] = []
    dumped = [m.model_dump(mode="json", by_alias=True) for m in msgs]
    try:
        out = enforce_input({**body, "messages": dumped}, said.append)
    except ProtocolError as exc:
        return f"error: {exc}", said
    return json.dumps(out), said


def _cached(
    body: dict[str, Any], msgs: list[BaseModel], cache: InputCache
) -> tuple[str, list[str]]:
    said: list[str] = []
    try:
        out = enforce_run_input(body, msgs, cache, said.append)
    except ProtocolError as exc:
        return f"error: {exc}", said
    # Encoded with the messages' JSON text kept: the bytes json.dumps gives.
    assert encode_run_input(out, cache) == json.dumps(out, separators=(",", ":")).encode()
    assert encode_run_input(out, cache) == json.dumps(out, separators=(",", ":")).encode()
    return json.dumps(out), said


@MANY
@given(conversations())
@example(
    [
        ({"threadId": "t", "runId": "r0", "tools": [], "context": [], "forwardedProps": {}},
         [Loose(id="u", role="user", content="hi", mood=1)]),
    ]
)  # fmt: skip
def test_cached_enforcement_is_the_general_one(
    runs: list[tuple[dict[str, Any], list[BaseModel]]],
) -> None:
    cache = InputCache()
    for body, msgs in runs:
        assert _cached(body, msgs, cache) == _general(body, msgs)


def test_a_message_enforced_once_is_reused_and_its_warnings_said_again_at_its_place() -> None:
    cache = InputCache()
    body = {"threadId": "t", "runId": "r", "tools": [], "context": [], "forwardedProps": {}}
    first = Loose(id="u1", role="user", content="hi", mood=1)
    said: list[str] = []
    out = enforce_run_input(body, [first], cache, said.append)
    assert said == ["stripped unknown property RunAgentInput.messages[0].mood"]
    entry = cache._entries["u1"]
    second = Loose(id="u0", role="system", content="be brief")
    said.clear()
    again = enforce_run_input(body, [second, first], cache, said.append)
    assert said == ["stripped unknown property RunAgentInput.messages[1].mood"]
    assert again["messages"][1] is out["messages"][0]  # not dumped nor validated again
    assert cache._entries["u1"] is entry
    assert len(cache) == 2
    equal = Loose(id="u1", role="user", content="hi", mood=1)  # as a MESSAGES_SNAPSHOT brings
    assert enforce_run_input(body, [equal], cache, said.append)["messages"][0] is out["messages"][0]


def test_a_replaced_message_is_enforced_afresh() -> None:
    cache = InputCache()
    body = {"threadId": "t", "runId": "r", "tools": [], "context": [], "forwardedProps": {}}
    enforce_run_input(body, [Loose(id="u1", role="user", content="hi")], cache, lambda _: None)
    changed = Loose(id="u1", role="user", content=5)
    try:
        enforce_run_input(body, [changed], cache, lambda _: None)
    except ProtocolError as exc:
        assert "nothing was sent" in str(exc)
    else:
        raise AssertionError("the changed message was not validated")
