"""_patch.apply_patch (a copy-on-write fast path for add/replace/remove) against jsonpatch,
differentially: the same document or the same error class, and neither the input document nor
the patch's values ever mutated, for one operation and for several in one patch."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

import hypothesis.strategies as st
import jsonpatch
import jsonpointer
import msgspec
from hypothesis import HealthCheck, given, settings

from agui_notebook._protocol import plain
from agui_notebook._state.patch import PatchedDocument, apply_patch
from tests._hypothesis import examples

MANY = settings(
    deadline=None, max_examples=examples(800), suppress_health_check=[HealthCheck.too_slow]
)

KEYS = st.sampled_from(["a", "b", "0", "1", "", "~", "a/b"])
LEAF = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(["x", ""])
DOCUMENT = st.recursive(
    LEAF,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=8,
)
TOKENS = st.sampled_from(["a", "b", "0", "1", "2", "-", "01", "", "~0", "~1", "a~1b", "x"])


def _escape(key: Any) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


@st.composite
def existing_path(draw: st.DrawFn, document: Any) -> str:
    """A path into ``document`` (its last token may name a new key, an end or a bad index)."""
    tokens: list[str] = []
    node = document
    while isinstance(node, dict | list) and node and draw(st.booleans()):
        key = draw(st.sampled_from(list(node) if isinstance(node, dict) else range(len(node))))
        tokens.append(_escape(key))
        node = node[key]
    if draw(st.booleans()):
        tokens.append(draw(TOKENS | st.just(str(len(node)) if isinstance(node, list) else "n")))
    return "".join("/" + t for t in tokens)


@st.composite
def operation(draw: st.DrawFn, document: Any) -> dict[str, Any]:
    if draw(st.integers(0, 2)):
        path = draw(existing_path(document))
    else:
        path = "".join("/" + t for t in draw(st.lists(TOKENS, max_size=3)))
    if draw(st.integers(0, 9)) == 0:
        path = draw(st.sampled_from(["a", "a/b", "//", "/a/"]))
    op: dict[str, Any] = {"op": draw(st.sampled_from(["add", "replace", "remove", "test"]))}
    if draw(st.integers(0, 9)):
        op["path"] = path
    if op["op"] != "remove" and draw(st.integers(0, 9)):
        op["value"] = draw(DOCUMENT)
    return op


def outcome(apply: Any, document: Any, patch: list[Any]) -> tuple[str, Any]:
    try:
        return ("ok", apply(document, patch))
    except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException):
        return ("error", None)
    except (TypeError, KeyError, IndexError, AttributeError) as exc:
        return ("error", type(exc).__name__)


def reference(document: Any, patch: list[Any]) -> Any:
    return jsonpatch.apply_patch(document, patch, in_place=False)


def check(document: Any, op: dict[str, Any]) -> None:
    check_patch(document, [op])


def check_patch(document: Any, patch: list[Any]) -> None:
    before, ops = copy.deepcopy(document), copy.deepcopy(patch)
    assert outcome(apply_patch, document, patch) == outcome(reference, document, patch)
    assert document == before  # all-or-nothing: the prior document is never touched
    assert patch == ops  # a value an operation inserts is not changed by a later one


@MANY
@given(st.data())
def test_one_operation_gives_what_jsonpatch_gives(data: st.DataObject) -> None:
    document = data.draw(DOCUMENT)
    check(document, data.draw(operation(document)))


@MANY
@given(st.data())
def test_several_operations_give_what_jsonpatch_gives(data: st.DataObject) -> None:
    document = data.draw(DOCUMENT)
    patch: list[Any] = []
    current = document
    for _ in range(data.draw(st.integers(2, 5))):
        op = data.draw(operation(current))
        patch.append(op)
        # The next operation's paths are drawn from the document as it would be now.
        with contextlib.suppress(
            jsonpatch.JsonPatchException,
            jsonpointer.JsonPointerException,
            TypeError,
            KeyError,
            IndexError,
            AttributeError,
        ):
            current = reference(current, [op])
    check_patch(document, patch)


def test_several_operations_into_what_the_patch_added() -> None:
    # The second operation goes into the object the first inserted: the patch's own value must
    # not change (the event keeps it), and the result must match jsonpatch's.
    value: dict[str, Any] = {"k": 1}
    patch = [
        {"op": "add", "path": "/x", "value": value},
        {"op": "replace", "path": "/x/k", "value": 2},
        {"op": "add", "path": "/list/-", "value": 3},
        {"op": "remove", "path": "/list/0"},
    ]
    document = {"list": [1, 2]}
    check_patch(document, patch)
    assert apply_patch(document, patch) == {"x": {"k": 2}, "list": [2, 3]}
    assert value == {"k": 1}


def test_the_edges_give_what_jsonpatch_gives() -> None:
    edges: list[tuple[Any, dict[str, Any]]] = [
        ({"a": [1, 2]}, {"op": "add", "path": "/a/-", "value": 3}),
        ({"a": [1, 2]}, {"op": "add", "path": "/a/0", "value": 3}),
        ({"a": [1, 2]}, {"op": "add", "path": "/a/2", "value": 3}),
        ({"a": [1, 2]}, {"op": "add", "path": "/a/3", "value": 3}),
        ({"a": [1, 2]}, {"op": "replace", "path": "/a/2", "value": 3}),
        ({"a": {"b": 1}}, {"op": "remove", "path": "/a/b"}),
        ({"a": {"b": 1}}, {"op": "replace", "path": "/a/c", "value": 1}),
        ({"a/b": {"~": 1}}, {"op": "remove", "path": "/a~1b/~0"}),
        ([0], {"op": "add", "path": "/01", "value": 1}),
        ({"a": 1}, {"op": "add", "path": "/a/b", "value": 1}),
    ]
    for document, op in edges:
        check(document, op)


# -- PatchedDocument: a run's patches, its own copies changed in place -------------------------


def _step(document: PatchedDocument, patch: list[Any]) -> tuple[str, Any]:
    try:
        document.apply(patch)
    except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException):
        return ("error", None)
    except (TypeError, KeyError, IndexError, AttributeError) as exc:
        return ("error", type(exc).__name__)
    return ("ok", None)


@MANY
@given(st.data())
def test_a_sequence_of_patches_gives_what_jsonpatch_gives(data: st.DataObject) -> None:
    """Patch after patch on one PatchedDocument, read now and then, against jsonpatch applied
    to a copy: the same document or the same error class at every step; a failed patch leaves
    the document as it was; what was read (and may be kept) never changes afterwards; the
    patches' values and the first document are never mutated."""
    first = data.draw(DOCUMENT)
    original = copy.deepcopy(first)
    document = PatchedDocument(first)
    expected = copy.deepcopy(first)
    patches: list[tuple[list[Any], list[Any]]] = []
    seen: list[tuple[Any, Any]] = []  # (what a reader got, a copy of it then)
    for _ in range(data.draw(st.integers(1, 8))):
        size = data.draw(st.sampled_from([1, 1, 1, 2, 3]))  # most patches should apply
        patch = [data.draw(operation(expected)) for _ in range(size)]
        # As a plain STATE_DELTA carries it (operation objects), when it decodes so.
        given_patch = _as_objects(patch) if data.draw(st.booleans()) else patch
        patches.append((given_patch, copy.deepcopy(given_patch)))
        want = outcome(reference, expected, patch)
        assert _step(document, given_patch) == (want[0], want[1] if want[0] == "error" else None)
        if want[0] == "ok":
            expected = want[1]
        assert document.peek() == expected
        if data.draw(st.booleans()):
            value = document.value
            seen.append((value, copy.deepcopy(value)))
    for value, then in seen:
        assert value == then
    for patch, then in patches:
        assert patch == then
    assert first == original


def _as_objects(patch: list[Any]) -> list[Any]:
    """``patch`` as the plain decoder reads it (``_protocol.plain``), or as it is if it does not."""
    try:
        return msgspec.json.decode(msgspec.json.encode(patch), type=plain.PLAIN_PATCH)
    except msgspec.ValidationError:
        return patch


def test_operation_objects_apply_as_their_json_objects() -> None:
    objects = _as_objects(
        [
            {"op": "replace", "path": "/a", "value": None},
            {"op": "add", "path": "/l/-", "value": {"k": 1}},
            {"op": "remove", "path": "/b"},
        ]
    )
    assert [type(op).__name__ for op in objects] == [
        "ReplaceOperation", "AddOperation", "RemoveOperation"
    ]  # fmt: skip
    assert apply_patch({"a": 1, "b": 2, "l": []}, objects) == {"a": None, "l": [{"k": 1}]}
    # The fast path leaves this one to jsonpatch, which gets the operation as its object.
    missing = _as_objects([{"op": "replace", "path": "/nope", "value": 1}])
    assert outcome(apply_patch, {}, missing) == outcome(reference, {}, msgspec.to_builtins(missing))
    assert outcome(apply_patch, {}, missing)[0] == "error"


def test_appends_to_a_long_list_change_the_runs_own_copy_in_place() -> None:
    # The point of PatchedDocument: after the first patch copied the list, later appends go
    # into that copy (the same object), not into a new copy each time.
    base = {"log": list(range(1000))}
    document = PatchedDocument(base)
    document.apply([{"op": "add", "path": "/log/-", "value": 0}])
    owned_list = document.peek()["log"]
    for i in range(5):
        document.apply([{"op": "add", "path": "/log/-", "value": i}])
    assert document.peek()["log"] is owned_list
    assert len(owned_list) == 1006 and len(base["log"]) == 1000
    handed_out = document.value  # someone keeps it: the next patch copies again
    document.apply([{"op": "add", "path": "/log/-", "value": 9}])
    assert document.peek()["log"] is not owned_list and len(handed_out["log"]) == 1006


def test_a_failing_patch_is_undone_in_the_runs_own_copies() -> None:
    document = PatchedDocument({"a": {"x": 1}, "list": [1, 2]})
    document.apply([{"op": "add", "path": "/list/-", "value": 3}])  # the run owns them now
    before = copy.deepcopy(document.peek())
    patch = [
        {"op": "add", "path": "/list/0", "value": 0},
        {"op": "remove", "path": "/a/x"},
        {"op": "add", "path": "/a/y", "value": 2},
        {"op": "replace", "path": "/list/1", "value": 9},
        {"op": "remove", "path": "/missing"},  # fails: everything above is put back
    ]
    with contextlib.suppress(jsonpatch.JsonPatchException, jsonpointer.JsonPointerException):
        document.apply(patch)
        raise AssertionError("the patch should have failed")
    assert document.peek() == before
    assert list(document.peek()["a"]) == ["x"]  # key order too


def test_a_replace_on_a_known_path_whose_member_was_removed_is_an_error() -> None:
    # A path walked before stays known after a remove of its member (the dict it ends in is
    # still there): a replace of it is still jsonpatch's error, not an add.
    document = PatchedDocument({"a": {"x": 1, "y": 2}})
    document.apply(_as_objects([{"op": "replace", "path": "/a/x", "value": 2}]))
    document.apply(_as_objects([{"op": "remove", "path": "/a/x"}]))
    replace = _as_objects([{"op": "replace", "path": "/a/x", "value": 3}])
    assert _step(document, replace) == ("error", None)
    assert document.peek() == {"a": {"y": 2}}
    both = _as_objects(
        [{"op": "add", "path": "/a/x", "value": 4}, {"op": "remove", "path": "/a/x"}, *replace]
    )
    assert _step(document, both) == ("error", None)
    assert document.peek() == {"a": {"y": 2}}
