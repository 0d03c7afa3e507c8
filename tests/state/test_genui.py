"""Activity messages and A2UI surfaces as display items, the renderer registry, and the pure A2UI
model that checks a view's action and builds a policy's (no widgets, no network)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from ag_ui.core import ActivityDeltaEvent, ActivitySnapshotEvent

from agui_notebook import act, policies, register_activity_renderer
from agui_notebook._state.a2ui import (
    Surface,
    action_problem,
    forwarded_props,
    get_pointer,
    operations_of,
    resolve,
    set_pointer,
    surfaces_from,
)
from agui_notebook._state.genui import activity_renderer_for
from agui_notebook._state.items import ItemList
from agui_notebook._state.reducer import RunReducer, ThreadSnapshot

V = "v0.9"


def snapshot(mid: str, kind: str, content: Any, replace: bool | None = None) -> Any:
    data = {"messageId": mid, "activityType": kind, "content": content}
    if replace is not None:
        data["replace"] = replace
    return ActivitySnapshotEvent.model_validate(data)


def delta(mid: str, kind: str, patch: list[dict[str, Any]]) -> Any:
    return ActivityDeltaEvent.model_validate(
        {"messageId": mid, "activityType": kind, "patch": patch}
    )


def form_ops(sid: str = "f") -> list[dict[str, Any]]:
    return [
        {"version": V, "createSurface": {"surfaceId": sid, "catalogId": "c"}},
        {
            "version": V,
            "updateComponents": {
                "surfaceId": sid,
                "components": [
                    {"id": "root", "component": "Column", "children": ["to", "go"]},
                    {
                        "id": "to",
                        "component": "TextField",
                        "label": "To",
                        "value": {"path": "/t/to"},
                    },
                    {"id": "go-label", "component": "Text", "text": "Go"},
                    {
                        "id": "go",
                        "component": "Button",
                        "child": "go-label",
                        "action": {
                            "event": {
                                "name": "submit",
                                "context": {
                                    "to": {"path": "/t/to"},
                                    "note": {
                                        "call": "formatString",
                                        "args": {"value": "to ${/t/to}"},
                                    },
                                    "fixed": 1,
                                },
                            }
                        },
                    },
                ],
            },
        },
        {"version": V, "updateDataModel": {"surfaceId": sid, "path": "/t", "value": {"to": "a"}}},
    ]


@pytest.fixture(autouse=True)
def _clean_registry() -> Iterator[None]:
    yield
    for name in ("deploy", "web_lookup", "PLAN"):
        register_activity_renderer(name, None)


def test_activities_become_items_updated_in_place_by_deltas() -> None:
    items = ItemList()
    content = {"title": "T", "steps": [{"title": "a", "status": "pending"}]}
    items.apply("ACTIVITY_SNAPSHOT", snapshot("m1", "PLAN", content))
    (item,) = items.snapshot()
    assert item["kind"] == "activity" and item["id"] == "activity:m1"
    assert item["renderer"] == "checklist" and item["content"] == content
    items.apply(
        "ACTIVITY_DELTA",
        delta("m1", "PLAN", [{"op": "replace", "path": "/steps/0/status", "value": "done"}]),
    )
    (item,) = items.snapshot()
    assert item["content"]["steps"][0]["status"] == "done"
    assert content["steps"][0]["status"] == "pending"  # the event's content was not mutated
    # A patch that does not apply: the last good content stays, and the item says so.
    items.apply(
        "ACTIVITY_DELTA", delta("m1", "PLAN", [{"op": "replace", "path": "/nope/0", "value": 1}])
    )
    (item,) = items.snapshot()
    assert item["content"]["steps"][0]["status"] == "done"
    assert "could not be applied" in item["problem"]
    # A delta for an activity this view never saw adds nothing.
    items.apply("ACTIVITY_DELTA", delta("zz", "PLAN", [{"op": "add", "path": "/x", "value": 1}]))
    assert len(items) == 1


def test_replace_false_keeps_an_existing_activity_and_omitted_replace_means_true() -> None:
    items = ItemList()
    items.apply("ACTIVITY_SNAPSHOT", snapshot("m", "X", {"v": 1}))
    items.apply("ACTIVITY_SNAPSHOT", snapshot("m", "X", {"v": 2}, replace=False))
    assert items.snapshot()[0]["content"] == {"v": 1}
    items.apply("ACTIVITY_SNAPSHOT", snapshot("m", "X", {"v": 3}))  # replace omitted
    assert items.snapshot()[0]["content"] == {"v": 3}
    # The reducer keeps the same rule (ag-ui-protocol 1.0.0 parses an omitted replace as None).
    reducer = RunReducer(ThreadSnapshot(), lambda w: None)
    reducer.apply("ACTIVITY_SNAPSHOT", snapshot("m", "X", {"v": 1}))
    event = snapshot("m", "X", {"v": 2})
    object.__setattr__(event, "replace", None)
    reducer.apply("ACTIVITY_SNAPSHOT", event)
    assert reducer.messages["m"].content == {"v": 2}
    reducer.apply("ACTIVITY_SNAPSHOT", snapshot("m", "X", {"v": 9}, replace=False))
    assert reducer.messages["m"].content == {"v": 2}


def test_registry_maps_types_to_renderers_with_options() -> None:
    assert activity_renderer_for("PLAN").renderer == "checklist"
    assert activity_renderer_for("search").renderer == "search"
    assert activity_renderer_for("a2ui-surface").renderer == "a2ui"
    assert activity_renderer_for("mastra-background-task").renderer == "tree"
    register_activity_renderer(
        "deploy", "checklist", items="/stages", label="stage", done_values=["ok"]
    )
    chosen = activity_renderer_for("DEPLOY")
    assert chosen.renderer == "checklist"
    assert chosen.options == {"items": "/stages", "label": "/stage", "doneValues": ["ok"]}
    register_activity_renderer("PLAN", "tree")  # a registration wins over the built-in default
    assert activity_renderer_for("PLAN").renderer == "tree"
    items = ItemList()
    items.apply("ACTIVITY_SNAPSHOT", snapshot("d", "deploy", {"stages": []}))
    assert items.snapshot()[0]["options"]["items"] == "/stages"
    with pytest.raises(ValueError, match="unknown renderer"):
        register_activity_renderer("x", "gauge")
    with pytest.raises(TypeError, match="unknown option"):
        register_activity_renderer("x", "search", itemz="/a")
    with pytest.raises(TypeError, match="JSON Pointer"):
        register_activity_renderer("x", "search", query=3)
    with pytest.raises(TypeError, match="list of JSON scalars"):
        register_activity_renderer("x", "checklist", done_values="ok")


def test_surfaces_are_routed_to_the_activity_that_created_them() -> None:
    items = ItemList()
    items.apply("ACTIVITY_SNAPSHOT", snapshot("a", "a2ui-surface", {"a2ui_operations": form_ops()}))
    # A later activity updates the surface: it lands on the first item (in place).
    update = {"version": V, "updateDataModel": {"surfaceId": "f", "path": "/t/to", "value": "b"}}
    items.apply("ACTIVITY_SNAPSHOT", snapshot("b", "a2ui-surface", {"operations": [update]}))
    first, second = items.snapshot()
    assert first["kind"] == "a2ui" and [s["surfaceId"] for s in first["surfaces"]] == ["f"]
    assert len(first["surfaces"][0]["operations"]) == 4
    assert second["surfaces"] == [] and second["updatesElsewhere"] is True
    surface = items.genui.surface("f")
    assert surface is not None and surface.data == {"t": {"to": "b"}}
    # The middleware's lifecycle status before paint, and messages without a surface.
    items.apply(
        "ACTIVITY_SNAPSHOT",
        snapshot("c", "a2ui-surface", {"status": "building", "a2ui_operations": [{"bogus": {}}]}),
    )
    third = items.snapshot()[2]
    assert third["status"] == "building" and "1 A2UI message(s)" in third["problems"][0]
    # Deleting and re-creating a surface starts it afresh.
    gone = {"version": V, "deleteSurface": {"surfaceId": "f"}}
    items.apply("ACTIVITY_SNAPSHOT", snapshot("d", "a2ui-surface", {"a2ui_operations": [gone]}))
    assert items.genui.surfaces() == []
    items.apply("ACTIVITY_SNAPSHOT", snapshot("e", "a2ui-surface", {"a2ui_operations": form_ops()}))
    assert items.genui.owner_item_id("f") == "activity:e"
    assert len(items.genui.operations("f")) == 3


def test_a2ui_model_pointers_and_values() -> None:
    assert operations_of({"a2ui_operations": [1, {"x": 1}]}) == [{"x": 1}]
    assert operations_of({"operations": []}) == [] and operations_of(None) == []
    doc = set_pointer({}, "/a/0/b", 1)
    assert doc == {"a": [{"b": 1}]}
    assert get_pointer(doc, "/a/0/b") == 1 and get_pointer(doc, "/a/5") is None
    assert set_pointer(doc, "/a/0/b", None, remove=True) == {"a": [{}]}
    data = {"n": 3.0, "s": "x", "e": ""}
    assert resolve({"call": "formatString", "args": {"value": "${/n}-${/s}"}}, data) == "3-x"
    assert resolve({"call": "required", "args": {"value": {"path": "/e"}}}, data) is False
    assert resolve({"call": "numeric", "args": {"value": "12", "min": 1}}, data) is True
    assert resolve({"call": "openUrl", "args": {"url": "https://x"}}, data) is None


def test_policy_action_resolves_bound_context_like_a_click() -> None:
    (surface,) = surfaces_from(form_ops()).values()
    spec = act("submit", {"/t/to": "zed"})
    user_action = spec.user_action(surface)
    assert user_action["name"] == "submit" and user_action["sourceComponentId"] == "go"
    assert user_action["context"] == {"to": "zed", "note": "to zed", "fixed": 1}
    assert user_action["timestamp"].endswith("Z")
    assert surface.data == {"t": {"to": "a"}}  # typing for the action leaves the surface alone
    with pytest.raises(LookupError, match="no action 'other'"):
        act("other").user_action(surface)
    with pytest.raises(ValueError, match="JSON Pointers"):
        act("submit", {"t/to": 1})
    props = forwarded_props(user_action, surface)
    assert props == {"a2uiAction": {"userAction": user_action}}
    surface.send_data_model = True
    assert forwarded_props(user_action, surface)["a2uiClientDataModel"] == {
        "surfaces": {"f": {"t": {"to": "a"}}}
    }


def test_a_views_action_is_checked_against_the_surface() -> None:
    (surface,) = surfaces_from(form_ops()).values()
    ok = {"name": "submit", "surfaceId": "f", "sourceComponentId": "go", "context": {}}
    assert action_problem(surface, ok) is None
    assert "no action" in str(action_problem(surface, {**ok, "name": "explode"}))
    assert "no action" in str(action_problem(surface, {**ok, "sourceComponentId": "to"}))
    assert "JSON object" in str(action_problem(surface, {**ok, "context": []}))
    assert "larger" in str(action_problem(surface, {**ok, "context": {"x": "y" * 300_000}}))
    assert "no longer shown" in str(action_problem(None, ok))
    gone = Surface("f", deleted=True)
    assert "no longer shown" in str(action_problem(gone, ok))


def test_scripted_policies_take_surface_actions_in_order() -> None:
    (surface,) = surfaces_from(form_ops()).values()
    policy = policies.parse('script:act:submit:{"/t/to": "q"};approve')
    assert isinstance(policy, policies.SurfacePolicy)
    step = policy.act(surface)
    assert step is not None and step.name == "submit" and dict(step.values) == {"/t/to": "q"}
    assert policy.act(surface) is None  # the next step is a decision: not for a surface
    only_decisions = policies.scripted([])
    assert only_decisions.act(surface) is None  # type: ignore[attr-defined]
    early = policies.parse("script:act:submit")
    from agui_notebook._decisions.interrupts import PendingInterrupt

    interrupt = PendingInterrupt(
        id="i", reason="tool_call", message=None, tool_call_id=None, tool_name="t",
        arguments={}, response_schema=None, expires_at=None, metadata=None, run_id="r",
    )  # fmt: skip
    with pytest.raises(LookupError, match="next step is act submit"):
        early.decide(interrupt)
    with pytest.raises(ValueError, match="JSON object"):
        policies.parse("script:act:submit:[1]")


def test_only_components_still_drawn_can_act() -> None:
    ops = form_ops()
    replaced = {
        "version": V,
        "updateComponents": {
            "surfaceId": "f",
            "components": [{"id": "root", "component": "Text", "text": "Done"}],
        },
    }
    (surface,) = surfaces_from([*ops, replaced]).values()
    assert "go" in surface.components and surface.action_components() == {}
    ok = {"name": "submit", "surfaceId": "f", "sourceComponentId": "go", "context": {}}
    assert "no action" in str(action_problem(surface, ok))
