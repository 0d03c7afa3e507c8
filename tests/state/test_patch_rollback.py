"""A JSON Patch that fails leaves the document exactly as it was, through every way a patch is
applied: :class:`PatchedDocument` over a run's sequence of patches, :func:`apply_patch`, and the
reducer's STATE_DELTA (event by event, and the feed's batches, whose consecutive deltas are first
tried as one patch) and ACTIVITY_DELTA.

Each failing patch is drawn as valid operations (each applies to the document as the ones before
left it) followed by one that fails on what they left: a remove of a missing member, a ``test``
that does not hold, an add under a missing parent, a replace of a missing member, a list index out
of range or with a leading zero, a path through a scalar, a move or copy from a missing path; then
perhaps more operations. Valid operations change the run's own copies in place (a PatchedDocument
owns the containers an earlier patch copied, until someone reads the document), so only the undo
log can put them back: the sequences here patch the same containers again and again between reads.

After every failure the document equals a deep copy taken before, key order and types included
(``True`` is not ``1``); every value a consumer read earlier is unchanged at the end; the first
document and the patches' values are never mutated.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import hypothesis.strategies as st
import jsonpatch
import jsonpointer
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings

from agui_notebook._protocol import plain
from agui_notebook._protocol.events import EventParser, type_of
from agui_notebook._protocol.verify import OrderVerifier
from agui_notebook._state.feed import KeptEvents, RunFeed
from agui_notebook._state.patch import PatchedDocument, apply_patch
from agui_notebook._state.reducer import RunReducer, ThreadSnapshot
from tests._hypothesis import examples

SOME = settings(
    deadline=None, max_examples=examples(200), suppress_health_check=[HealthCheck.too_slow]
)
#: What a patch that cannot apply raises (jsonpatch's errors, or a value it chokes on).
PATCH_ERRORS = (
    jsonpatch.JsonPatchException,
    jsonpointer.JsonPointerException,
    TypeError,
    KeyError,
    IndexError,
    AttributeError,
)

KEY_LIST = ["a", "b", "c", "0", "1", "", "~", "a/b"]
KEYS = st.sampled_from(KEY_LIST)
LEAF = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(["x", ""])
VALUE = st.recursive(
    LEAF,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=8,
)
#: A state is an object (the reducer starts from ``{}``); its members anything.
DOCUMENT = st.dictionaries(KEYS, VALUE, max_size=4)
#: A value no generated document holds: a ``test`` against it fails.
NEVER = {"never": "equal"}


def _escape(key: Any) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def _containers(document: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every object and array in ``document``, parents first, with its JSON pointer."""
    if isinstance(document, dict):
        yield path, document
        for key, value in document.items():
            yield from _containers(value, f"{path}/{_escape(key)}")
    elif isinstance(document, list):
        yield path, document
        for index, value in enumerate(document):
            yield from _containers(value, f"{path}/{index}")


def exact(value: Any) -> Any:
    """``value`` in a form whose equality sees key order and types (``True`` is not ``1``)."""
    if isinstance(value, dict):
        return ("object", [(key, exact(member)) for key, member in value.items()])
    if isinstance(value, list):
        return ("array", [exact(item) for item in value])
    return (type(value).__name__, value)


def reference(document: Any, patch: list[Any]) -> Any:
    return jsonpatch.apply_patch(document, patch, in_place=False)


def fails(document: Any, patch: list[Any]) -> bool:
    try:
        reference(document, patch)
    except PATCH_ERRORS:
        return True
    return False


@st.composite
def valid_operation(draw: st.DrawFn, document: Any) -> dict[str, Any]:
    """An add, replace or remove that applies to ``document``."""
    path, node = draw(st.sampled_from(list(_containers(document))))
    if isinstance(node, dict):
        missing = [k for k in KEY_LIST if k not in node]
        kinds = (["add"] if missing else []) + (["replace", "remove", "add over"] if node else [])
        kind = draw(st.sampled_from(kinds))
        if kind == "add":
            key = draw(st.sampled_from(missing))
            return {"op": "add", "path": f"{path}/{_escape(key)}", "value": draw(VALUE)}
        key = draw(st.sampled_from(list(node)))
        if kind == "remove":
            return {"op": "remove", "path": f"{path}/{_escape(key)}"}
        op = "add" if kind == "add over" else "replace"
        return {"op": op, "path": f"{path}/{_escape(key)}", "value": draw(VALUE)}
    kinds = ["add", "append"] + (["replace", "remove"] if node else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "append":
        return {"op": "add", "path": f"{path}/-", "value": draw(VALUE)}
    index = draw(st.integers(0, len(node) - (kind != "add")))
    operation = {"op": kind, "path": f"{path}/{index}"}
    if kind != "remove":
        operation["value"] = draw(VALUE)
    return operation


@st.composite
def failing_operation(draw: st.DrawFn, document: Any) -> dict[str, Any]:
    """An operation that does not apply to ``document``."""
    path, node = draw(st.sampled_from(list(_containers(document))))
    kinds = ["test"]
    if isinstance(node, dict):
        if any(k not in node for k in KEY_LIST):
            kinds += ["remove missing", "replace missing", "add under missing", "move", "copy"]
        if any(not isinstance(v, dict | list) for v in node.values()):
            kinds.append("through a scalar")
    else:
        kinds += ["index out of range", "leading zero"] if len(node) > 1 else ["index out of range"]
    kind = draw(st.sampled_from(kinds))
    if kind == "test":
        return {"op": "test", "path": path, "value": NEVER}
    if isinstance(node, list):
        if kind == "leading zero":
            return {"op": "replace", "path": f"{path}/01", "value": draw(VALUE)}
        op, index = draw(
            st.sampled_from([("replace", len(node)), ("remove", len(node)), ("add", len(node) + 1)])
        )
        operation = {"op": op, "path": f"{path}/{index}"}
        if op != "remove":
            operation["value"] = draw(VALUE)
        return operation
    if kind == "through a scalar":
        key = draw(st.sampled_from([k for k, v in node.items() if not isinstance(v, dict | list)]))
        return {"op": "add", "path": f"{path}/{_escape(key)}/a", "value": draw(VALUE)}
    missing = f"{path}/{_escape(draw(st.sampled_from([k for k in KEY_LIST if k not in node])))}"
    if kind == "remove missing":
        return {"op": "remove", "path": missing}
    if kind == "replace missing":
        return {"op": "replace", "path": missing, "value": draw(VALUE)}
    if kind == "add under missing":
        return {"op": "add", "path": f"{missing}/a", "value": draw(VALUE)}
    return {"op": kind, "from": missing, "path": f"{path}/moved"}


@st.composite
def valid_patch(draw: st.DrawFn, document: Any, *, least: int = 1) -> tuple[list[Any], Any]:
    """Valid operations, each drawn on the document the ones before leave; and that document."""
    patch: list[Any] = []
    for _ in range(draw(st.integers(least, 4))):
        operation = draw(valid_operation(document))
        patch.append(operation)
        document = reference(document, [operation])
    return patch, document


@st.composite
def failing_patch(draw: st.DrawFn, document: Any) -> list[Any]:
    """Valid operations, one that fails on what they leave, perhaps more after it."""
    prefix, then = draw(valid_patch(document))
    patch = [*prefix, draw(failing_operation(then))]
    for _ in range(draw(st.integers(0, 2))):
        patch.append(draw(valid_operation(then)))
    assert fails(document, patch), patch
    return patch


def touch_everything(document: Any) -> list[Any]:
    """A patch that changes nothing but walks to every container (parents first): a run's
    PatchedDocument then owns them all, and the next patch changes them in place."""
    patch: list[Any] = []
    for path, node in _containers(document):
        if node:
            key = next(iter(node)) if isinstance(node, dict) else 0
            member = f"{path}/{_escape(key)}"
            patch.append({"op": "replace", "path": member, "value": copy.deepcopy(node[key])})
    return patch


def as_decoded(patch: list[Any]) -> list[Any]:
    """``patch`` as a plain STATE_DELTA carries it (``_protocol.plain`` operation objects), when
    it decodes so; else as it is."""
    try:
        return msgspec.json.decode(msgspec.json.encode(patch), type=plain.PLAIN_PATCH)
    except msgspec.ValidationError:
        return patch


# -- PatchedDocument: a run's sequence of patches ---------------------------------------------


@SOME
@given(st.data())
def test_a_failing_patch_in_a_run_leaves_the_document_as_it_was(data: st.DataObject) -> None:
    first = data.draw(DOCUMENT)
    original = copy.deepcopy(first)
    document = PatchedDocument(first)
    expected = copy.deepcopy(first)
    seen: list[tuple[Any, Any]] = []  # (what a consumer read, its exact form then)
    patches: list[tuple[list[Any], Any]] = []
    failures = 0
    for _ in range(data.draw(st.integers(2, 8))):
        step = data.draw(st.sampled_from(["touch", "valid", "fail", "fail", "fail", "read"]))
        if step == "read":
            value = document.value
            seen.append((value, exact(value)))
            continue
        if step == "fail":
            patch = data.draw(failing_patch(expected))
        elif step == "touch":
            patch = touch_everything(expected)
        else:
            patch = data.draw(valid_patch(expected))[0]
        given_patch = as_decoded(patch) if data.draw(st.booleans()) else patch
        patches.append((given_patch, exact(msgspec.to_builtins(given_patch))))
        before = exact(document.peek())
        if step == "fail":
            with pytest.raises(PATCH_ERRORS):
                document.apply(given_patch)
            assert exact(document.peek()) == before, patch
            failures += 1
        else:
            document.apply(given_patch)
            expected = reference(expected, patch)
            assert exact(document.peek()) == exact(expected)
    for value, then in seen:
        assert exact(value) == then
    for given_patch, then in patches:
        assert exact(msgspec.to_builtins(given_patch)) == then
    assert exact(first) == exact(original)


# -- apply_patch: one patch on a document nobody owns ------------------------------------------


@SOME
@given(st.data())
def test_apply_patch_leaves_the_document_and_the_patch_as_they_were(data: st.DataObject) -> None:
    document = data.draw(DOCUMENT)
    patch = data.draw(failing_patch(document))
    if data.draw(st.booleans()):
        patch = as_decoded(patch)
    before, patch_before = exact(document), exact(msgspec.to_builtins(patch))
    with pytest.raises(PATCH_ERRORS):
        apply_patch(document, patch)
    assert exact(document) == before
    assert exact(msgspec.to_builtins(patch)) == patch_before


# -- the reducer: STATE_DELTA and ACTIVITY_DELTA -----------------------------------------------


class _Record:
    def __init__(self) -> None:
        self.event_count = 0
        self.warnings: list[str] = []


@st.composite
def deltas(draw: st.DrawFn, state: Any) -> tuple[list[list[Any]], Any, int]:
    """Consecutive deltas on ``state``, valid and failing mixed; the state they leave (the
    failing ones skipped) and how many fail."""
    patches: list[list[Any]] = []
    failing = 0
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            patches.append(draw(failing_patch(state)))
            failing += 1
        else:
            patch, state = draw(valid_patch(state))
            patches.append(patch)
    return patches, state, failing


def _text(event: dict[str, Any]) -> str:
    return json.dumps(event, separators=(",", ":"))


@SOME
@given(st.data())
def test_a_failing_state_delta_keeps_the_state_in_the_feed_and_the_reducer(
    data: st.DataObject,
) -> None:
    """The same stream through the feed's batches (plain events; a run of deltas tried as one
    patch, then one by one) and through the reducer event by event: after each batch, the state
    jsonpatch gives with the failing deltas skipped, one warning for each."""
    first = data.draw(DOCUMENT)
    stream = [
        [
            _text({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
            _text({"type": "STATE_SNAPSHOT", "snapshot": first}),
        ]
    ]
    states = [copy.deepcopy(first)]
    failing = 0
    for _ in range(data.draw(st.integers(1, 4))):
        patches, state, fail = data.draw(deltas(states[-1]))
        stream.append([_text({"type": "STATE_DELTA", "delta": patch}) for patch in patches])
        states.append(state)
        failing += fail

    for batched in (True, False):
        record = _Record()
        parser = EventParser(record.warnings.append)
        reducer = RunReducer(ThreadSnapshot(), record.warnings.append)
        feed = RunFeed(
            parser, OrderVerifier((), record.warnings.append), reducer, KeptEvents(None), record
        )
        seen: list[tuple[Any, Any]] = []
        for batch, state in zip(stream, states, strict=True):
            if batched:
                feed.texts(batch, parser.parse)
            else:
                for text in batch:
                    for event in parser.parse(text):
                        reducer.apply(type_of(event), event)
            value = reducer.state  # read: the next batch must copy what it changes
            assert exact(value) == exact(state), (batched, batch)
            seen.append((value, exact(value)))
        assert len(record.warnings) == failing, record.warnings
        assert all(w.startswith("STATE_DELTA not applied") for w in record.warnings)
        for value, then in seen:
            assert exact(value) == then
    assert exact(first) == exact(states[0])


@SOME
@given(st.data())
def test_a_failing_activity_delta_keeps_the_activity(data: st.DataObject) -> None:
    content = data.draw(DOCUMENT)
    activity = {"messageId": "act", "activityType": "plan"}
    events = [{"type": "ACTIVITY_SNAPSHOT", **activity, "content": content}]
    patches, expected, failing = data.draw(deltas(content))
    events += [{"type": "ACTIVITY_DELTA", **activity, "patch": patch} for patch in patches]
    warnings: list[str] = []
    parser = EventParser(warnings.append)
    reducer = RunReducer(ThreadSnapshot(), warnings.append)
    before = exact(content)
    for event in events:
        for parsed in parser.parse(_text(event)):
            reducer.apply(type_of(parsed), parsed)
    assert exact(reducer.messages["act"].content) == exact(expected)
    assert len(warnings) == failing and all("ACTIVITY_DELTA not applied" in w for w in warnings)
    assert exact(content) == before


# -- the generators draw what they say ----------------------------------------------------------


@SOME
@given(st.data())
def test_the_drawn_operations_apply_or_fail_as_drawn(data: st.DataObject) -> None:
    document = data.draw(DOCUMENT)
    assert not fails(document, [data.draw(valid_operation(document))])
    assert fails(document, [data.draw(failing_operation(document))])
    assert exact(reference(document, touch_everything(document))) == exact(document)
