"""A restore that leaves its messages to their first read against the restore that validates every
message at once, differentially (issue 28).

Messages drawn valid and perturbed (tests/store/test_decode_messages.py's strategy, kept when they
validate, as a thread holds only valid ones) are encoded as a commit encodes them (a credential
scrubbed from some, or a role or an id that is also a credential), written in pages, and restored by ``decode_stored``; the reference is
version 2's restore of the same texts in one JSON array (``decode_thread``: every message
validated at once). Every consumer of a thread's messages must see the same: the snapshot's
dict (its keys, order, classes, fields, dumps) through ``Thread.messages``, a copy, ``len`` and a
lookup; the reducer of the next run built on it; the history the next run sends; the texts the
next commit writes; the snapshot's equality. The lazy path is taken whenever each page says it
was validated when written.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import hypothesis.strategies as st
from hypothesis import HealthCheck, given, settings

from agui_notebook._protocol.secrets import Scrubber
from agui_notebook._state.history import outgoing_history
from agui_notebook._state.reducer import RunReducer, ThreadSnapshot
from agui_notebook._store.codec import (
    StoredThreadData,
    decode_messages_one_by_one,
    decode_thread,
    encode_thread,
)
from agui_notebook._store.pages import MESSAGES, codec_tag
from agui_notebook._store.snapshot import StoredSnapshot, decode_stored
from agui_notebook._thread import Thread
from tests._hypothesis import examples
from tests.store.test_decode_messages import _message

SECRET = "sk-stored-secret-5c2e"


class _Endpoint:
    transport: Any = None
    send_history = True
    max_events_kept = 10
    max_event_bytes = 1 << 20
    idle_timeout = None


@st.composite
def _valid_messages(draw: st.DrawFn) -> dict[str, Any]:
    raw = draw(st.lists(_message(), max_size=8))
    for message in raw:  # now and then a credential in a text, as a server might echo one
        text = isinstance(message, dict) and isinstance(message.get("content"), str)
        if text and draw(st.integers(0, 5)) == 0:
            message["content"] += f" {SECRET}"
    return decode_messages_one_by_one(json.dumps(raw), [])


def _row(snapshot: ThreadSnapshot, scrubber: Scrubber) -> tuple[StoredThreadData, str]:
    row = encode_thread(
        agent_url="http://agent.invalid/",
        thread_id="t1",
        snapshot=snapshot,
        pending=[],
        last_run_id=None,
        last_status="success",
        answered={},
        now=datetime.now(timezone.utc),
        scrubber=scrubber,
    )
    pages = [p for plan in row.pages for p in plan.every_page()]
    data = StoredThreadData(
        agent_url=row.agent_url,
        id=row.id,
        created_at=row.updated_at,
        updated_at=row.updated_at,
        last_run_id=None,
        state=row.state,
        pending=row.pending,
        answered=row.answered,
        runs=[],
        revision=1,
        message_count=row.message_count,
        tool_call_count=row.tool_call_count,
        pages=pages,
    )
    texts = [t for p in pages if p.kind == MESSAGES for t in p.body.split("\n")]
    return data, "[" + ",".join(texts) + "]"


def _same_models(got: dict[str, Any], expected: dict[str, Any]) -> None:
    assert list(got) == list(expected)
    for key, model in expected.items():
        mine = got[key]
        assert type(mine) is type(model)
        assert mine.model_fields_set == model.model_fields_set
        assert repr(mine.model_dump()) == repr(model.model_dump())  # NaN != NaN: by repr
        assert repr(mine) == repr(model)


@settings(deadline=None, max_examples=examples(200), suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_lazy_restore_is_what_validating_at_once_gives_every_consumer(
    data: st.DataObject,
) -> None:
    messages = data.draw(_valid_messages())
    # A credential the store scrubs: one a server echoed, or one that is also a role or an id
    # (scrubbed, the message no longer validates: its page is validated at the restore).
    scrubber = Scrubber(data.draw(st.sampled_from([(), (SECRET,), ("user",), ("m2",)])))
    live = ThreadSnapshot(messages=messages, state={"n": 1})
    stored, joined = _row(live, scrubber)
    restored = decode_stored(stored, "t1")
    reference = decode_thread(
        messages=joined, state=stored.state, tool_calls="[]", pending="[]", answered="[]",
        last_run_id=None,
    )  # fmt: skip
    assert restored.warnings == reference.warnings
    snapshot, expected = restored.snapshot, reference.snapshot
    validated = all(p.validated_by == codec_tag() for p in stored.pages)
    assert isinstance(snapshot, StoredSnapshot) == validated
    if isinstance(snapshot, StoredSnapshot):
        assert not snapshot.decoded
        assert snapshot.state == expected.state and snapshot.tool_calls == expected.tool_calls
        assert not snapshot.decoded  # what is not a message does not decode them

    way = data.draw(st.sampled_from(["thread", "copy", "len", "lookup", "reducer", "equal"]))
    if way == "thread":
        thread = Thread(_Endpoint(), "t1")  # type: ignore[arg-type]
        thread._snapshot = snapshot
        _same_models(dict(zip([m.id for m in thread.messages], thread.messages, strict=True)), {
            m.id: m for m in expected.messages.values()
        })  # fmt: skip
    elif way == "copy":
        _same_models(dict(snapshot.messages), expected.messages)
    elif way == "len":
        assert len(snapshot.messages) == len(expected.messages)
    elif way == "lookup":
        for key in expected.messages:
            assert repr(snapshot.messages.get(key)) == repr(expected.messages[key])
    elif way == "reducer":
        notes: list[str] = []
        _same_models(RunReducer(snapshot, notes.append).snapshot().messages, expected.messages)
    else:
        assert snapshot == expected and expected == snapshot
    _same_models(snapshot.messages, expected.messages)
    assert [repr(m) for m in outgoing_history(list(snapshot.messages.values()))] == [
        repr(m) for m in outgoing_history(list(expected.messages.values()))
    ]
    again, _ = _row(snapshot, scrubber)
    reference_again, _ = _row(expected, scrubber)
    assert again.pages == reference_again.pages  # the next commit writes the same texts


def test_two_threads_reading_a_fresh_snapshot_decode_it_once() -> None:
    import threading

    live = ThreadSnapshot(
        messages=decode_messages_one_by_one(
            json.dumps([{"id": f"m{n}", "role": "user", "content": "hi"} for n in range(2_000)]),
            [],
        )
    )
    stored, _ = _row(live, Scrubber(()))
    snapshot = decode_stored(stored, "t1").snapshot
    assert isinstance(snapshot, StoredSnapshot)
    seen: list[dict[str, Any]] = []
    readers = [threading.Thread(target=lambda: seen.append(snapshot.messages)) for _ in range(4)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    assert len(seen) == 4 and all(s is seen[0] for s in seen) and len(seen[0]) == 2_000
