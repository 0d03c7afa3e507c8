"""Generative UI in the view: activity messages and A2UI surfaces as display items. Pure.

AG-UI 1.1 activity messages (``ACTIVITY_SNAPSHOT`` / ``ACTIVITY_DELTA``) carry an open
``activityType`` and JSON ``content`` patched in place. Each becomes one display item, rendered by
the front end with the renderer the registry names for its type:

- ``tree``: any content, as a titled, collapsible value tree (the default);
- ``checklist``: a plan or checklist with its progress (``PLAN``, ``checklist``, ``todo``...);
- ``search``: a search with its query, status, count and results (``SEARCH``...);
- ``a2ui``: A2UI surfaces (``a2ui-surface``; see ``_state.a2ui``).

Users map their own types to these renderers from Python, with JSON Pointers to the fields
(:func:`register_activity_renderer`), so the common cases need no JavaScript.

Surfaces are routed to the activity that created them: a later activity (another message id)
that updates an existing surface adds its A2UI messages to that surface, so it changes in place,
where the person sees it. Each surface also carries the state of the person's action on it
(``idle``/``sending``/``done``/``failed`` and a sequence number), which the chat owns.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonpatch
import jsonpointer

from .a2ui import A2UI_ACTIVITY_TYPE, Surface, kind_of, operations_of, surface_id_of, surfaces_from
from .patch import apply_patch

__all__ = [
    "RENDERERS",
    "ActivityRenderer",
    "GenUIItems",
    "activity_renderer_for",
    "register_activity_renderer",
]

#: Built-in renderers and the options each accepts (Python name -> name in the item).
RENDERERS: dict[str, dict[str, str]] = {
    "tree": {"title": "title"},
    "checklist": {
        "title": "title",
        "items": "items",
        "label": "label",
        "status": "status",
        "done_values": "doneValues",
        "active_values": "activeValues",
        "failed_values": "failedValues",
    },
    "search": {
        "title": "title",
        "query": "query",
        "status": "status",
        "count": "count",
        "results": "results",
        "result_title": "resultTitle",
        "result_detail": "resultDetail",
    },
    "a2ui": {},
}

_LIST_OPTIONS = frozenset({"done_values", "active_values", "failed_values"})

#: Per renderer, where it looks when an option is not given and which status values it reads
#: (``renderers.json`` beside this module, the one copy: each activity item carries its row as
#: ``defaults``, so the front end holds no such rule of its own).
RENDERER_DEFAULTS: dict[str, dict[str, list[Any]]] = {
    name: row
    for name, row in json.loads(
        (Path(__file__).with_name("renderers.json")).read_text(encoding="utf-8")
    ).items()
    if not name.startswith("$")
}


@dataclass(frozen=True)
class ActivityRenderer:
    """Which built-in renderer shows an activity type, with its options (item spelling)."""

    renderer: str
    options: Mapping[str, Any] = field(default_factory=dict)


_DEFAULTS: dict[str, ActivityRenderer] = {
    **{t: ActivityRenderer("checklist") for t in ("plan", "checklist", "todo", "todos", "tasks")},
    **{t: ActivityRenderer("search") for t in ("search", "web_search", "search_results")},
    A2UI_ACTIVITY_TYPE: ActivityRenderer("a2ui"),
}
_REGISTERED: dict[str, ActivityRenderer] = {}


def register_activity_renderer(activity_type: str, renderer: str | None, **options: Any) -> None:
    """Show activities of ``activity_type`` with a built-in ``renderer``; ``None`` forgets it.

    Options are JSON Pointers into the content (item fields: pointers into each item), and for a
    checklist the status values that count as done, active or failed:

    >>> register_activity_renderer(                                   # doctest: +SKIP
    ...     "deploy_steps", "checklist",
    ...     title="/name", items="/stages", label="/stage", status="/state",
    ...     done_values=["ok"], failed_values=["broken"])
    >>> register_activity_renderer("web_lookup", "search", query="/q", results="/hits")

    Renderers: ``tree`` (title), ``checklist`` (title, items, label, status, done_values,
    active_values, failed_values), ``search`` (title, query, status, count, results,
    result_title, result_detail), ``a2ui`` (none). Applies to views drawn from then on.
    """
    if not isinstance(activity_type, str) or not activity_type:
        raise ValueError("activity_type must be a non-empty string")
    if renderer is None:
        _REGISTERED.pop(activity_type, None)
        return
    if renderer not in RENDERERS:
        raise ValueError(f"unknown renderer {renderer!r}; built-in: {sorted(RENDERERS)}")
    known = RENDERERS[renderer]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise TypeError(
            f"unknown option(s) {unknown} for renderer {renderer!r}; it takes {sorted(known)}"
        )
    out: dict[str, Any] = {}
    for name, value in options.items():
        if name in _LIST_OPTIONS:
            if not isinstance(value, list | tuple) or not all(
                isinstance(v, str | int | float | bool) or v is None for v in value
            ):
                raise TypeError(f"{name} must be a list of JSON scalars")
            out[known[name]] = list(value)
        elif not isinstance(value, str):
            raise TypeError(f"{name} must be a JSON Pointer string such as '/title'")
        else:
            out[known[name]] = value if value.startswith("/") or value == "" else "/" + value
    _REGISTERED[activity_type] = ActivityRenderer(renderer, out)


def activity_renderer_for(activity_type: str) -> ActivityRenderer:
    """The renderer for a type: registered (exact, then any case), built-in, else ``tree``."""
    for table in (_REGISTERED, _DEFAULTS):
        found = table.get(activity_type)
        if found is None:
            lowered = activity_type.lower()
            found = next((r for t, r in table.items() if t.lower() == lowered), None)
        if found is not None:
            return found
    return ActivityRenderer("tree")


@dataclass
class _Activity:
    message_id: str
    activity_type: str
    content: Any
    problem: str | None = None


Put = Callable[[dict[str, Any]], None]


class GenUIItems:
    """The activity and surface items of one view, built from activity events."""

    def __init__(self) -> None:
        self._activities: dict[str, _Activity] = {}  # in the order first seen
        self._surface_owner: dict[str, str] = {}
        self._surface_ops: dict[str, list[dict[str, Any]]] = {}
        #: The person's action on each surface (owned by the chat; shown by the view).
        self.actions: dict[str, dict[str, Any]] = {}

    def apply(self, etype: str, event: Any, put: Put) -> None:
        """Fold an ACTIVITY_SNAPSHOT or ACTIVITY_DELTA into the items (``put`` stores one)."""
        mid = event.message_id
        existing = self._activities.get(mid)
        if etype == "ACTIVITY_SNAPSHOT":
            # AG-UI 1.1: an omitted ``replace`` means true (ag-ui-protocol 1.0.0 parses it as None).
            if existing is not None and getattr(event, "replace", None) is False:
                return
            self._activities[mid] = _Activity(
                mid, event.activity_type, copy.deepcopy(event.content)
            )
        elif existing is None:
            return  # a delta for an activity this view never showed (the reducer warns)
        else:
            try:
                existing.content = apply_patch(existing.content, _ops(event.patch))
                existing.problem = None
            except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as exc:
                existing.problem = (
                    f"an update could not be applied ({exc}); showing the last good content"
                )
            except (TypeError, KeyError, IndexError, AttributeError) as exc:
                existing.problem = (
                    f"an update could not be applied ({type(exc).__name__}); "
                    "showing the last good content"
                )
        self._emit(mid, put)

    # -- surfaces -------------------------------------------------------------------------

    def surface(self, surface_id: str) -> Surface | None:
        """The surface as its messages built it, or None."""
        ops = self._surface_ops.get(surface_id)
        return surfaces_from(ops).get(surface_id) if ops else None

    def surfaces(self) -> list[Surface]:
        """Every surface shown and not deleted, oldest first."""
        out = []
        for sid in self._surface_ops:
            surface = self.surface(sid)
            if surface is not None and not surface.deleted:
                out.append(surface)
        return out

    def operations(self, surface_id: str) -> list[dict[str, Any]]:
        """The A2UI messages that built a surface, in order."""
        return list(self._surface_ops.get(surface_id, []))

    def owner_item_id(self, surface_id: str) -> str | None:
        mid = self._surface_owner.get(surface_id)
        return f"activity:{mid}" if mid is not None else None

    def set_action(self, surface_id: str, put: Put, **changes: Any) -> dict[str, Any]:
        """Change the action state of a surface and re-emit its item."""
        state = self.actions.setdefault(surface_id, _idle())
        state.update(changes)
        owner = self._surface_owner.get(surface_id)
        if owner is not None:
            self._emit(owner, put)
        return state

    # -- building items -------------------------------------------------------------------

    def _emit(self, mid: str, put: Put) -> None:
        activity = self._activities[mid]
        choice = activity_renderer_for(activity.activity_type)
        if choice.renderer == "a2ui":
            for owner in self._route():
                put(self._a2ui_item(self._activities[owner], choice))
            return
        put(
            {
                "kind": "activity",
                "id": f"activity:{mid}",
                "activityType": activity.activity_type,
                "renderer": choice.renderer,
                "options": dict(choice.options),
                "defaults": RENDERER_DEFAULTS.get(choice.renderer, {}),
                "content": activity.content,
                "problem": activity.problem,
            }
        )

    def _route(self) -> list[str]:
        """Recompute which activity owns each surface; return the a2ui activities' ids."""
        owners: dict[str, str] = {}
        ops: dict[str, list[dict[str, Any]]] = {}
        a2ui = [
            a.message_id
            for a in self._activities.values()
            if activity_renderer_for(a.activity_type).renderer == "a2ui"
        ]
        for mid in a2ui:
            for op in operations_of(self._activities[mid].content):
                sid = surface_id_of(op)
                if sid is None:
                    continue
                if kind_of(op) == "createSurface" or sid not in owners:
                    if sid in owners and owners[sid] != mid:
                        ops[sid] = []  # a surface created anew: its earlier messages are gone
                    owners[sid] = mid
                ops.setdefault(sid, []).append(op)
        self._surface_owner, self._surface_ops = owners, ops
        return a2ui

    def _a2ui_item(self, activity: _Activity, choice: Any) -> dict[str, Any]:
        content = activity.content if isinstance(activity.content, Mapping) else {}
        mid = activity.message_id
        surfaces = [
            {
                "surfaceId": sid,
                "operations": ops,
                "action": dict(self.actions.get(sid) or _idle()),
            }
            for sid, ops in self._surface_ops.items()
            if self._surface_owner.get(sid) == mid
        ]
        ops = operations_of(content)
        unusable = sum(1 for op in ops if surface_id_of(op) is None)
        problems = [activity.problem] if activity.problem else []
        if unusable:
            problems.append(f"{unusable} A2UI message(s) without a surface were ignored")
        status = content.get("status")
        return {
            "kind": "a2ui",
            "id": f"activity:{mid}",
            "activityType": activity.activity_type,
            "status": status if isinstance(status, str) else None,
            "error": content.get("error"),
            "surfaces": surfaces,
            "updatesElsewhere": bool(ops) and not surfaces and not unusable,
            "problems": problems,
        }


def _idle() -> dict[str, Any]:
    return {
        "status": "idle",
        "seq": 0,
        "name": None,
        "decidedBy": None,
        "outcome": None,
        "error": None,
    }


def _ops(patch: list[Any]) -> list[Any]:
    """JSON Patch operations as plain dicts (ag-ui-protocol 1.x parses them into models)."""
    return [
        op.model_dump(mode="json", by_alias=True, exclude_unset=True)
        if hasattr(op, "model_dump")
        else op
        for op in patch
    ]
