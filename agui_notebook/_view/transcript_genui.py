"""Generative UI in the transcript: activity items and A2UI surfaces as lines a person reads. Pure.

Mirrors what the live view draws (js/src/activity.js, js/src/a2ui.js), from the same defaults
(each activity item carries its renderer's row of ``_state/renderers.json``): a checklist's items with
their state and the progress, a search's query, status and results, any other activity as its
content, and a surface as the texts, fields (label and current value) and buttons it shows, then
the person's action on it and how that ended. Never an id (surface ids carry uuids), a URL or an
image: a picture is named, not linked.
"""

from __future__ import annotations

from typing import Any

from .._state.a2ui import Surface, get_pointer, surfaces_from
from .._state.genui import RENDERER_DEFAULTS
from .blocks import Block, Line, Tone, as_text, clip, json_text, value_lines

__all__ = ["a2ui_block", "activity_block"]

_MARK = {"done": "[x]", "active": "[>]", "failed": "[!]", "pending": "[ ]"}
_TONE: dict[str, Tone] = {"done": "ok", "failed": "bad", "active": "warn", "pending": ""}
_ACTION_TONE: dict[str, Tone] = {"done": "ok", "failed": "bad", "sending": "warn"}


class _Look:
    """What one activity's renderer reads: the item's options, else its renderer's defaults
    (the table in ``_state/renderers.json``, sent with the item, as the view reads them)."""

    def __init__(self, options: dict[str, Any], defaults: dict[str, Any]) -> None:
        self.options, self.defaults = options, defaults

    def pick(self, doc: Any, key: str, *, skip: tuple[str, ...] = ()) -> Any:
        """The value at the option's JSON Pointer, else at the first default pointer that has one."""
        option = self.options.get(key)
        if isinstance(option, str):
            return doc if option == "" else get_pointer(doc, option)
        for pointer in self.defaults.get(key) or ():
            if pointer in skip:
                continue
            value = get_pointer(doc, pointer)
            if value is not None:
                return value
        return None

    def values(self, key: str) -> set[Any]:
        given = self.options.get(key)
        values = given if isinstance(given, list) else self.defaults.get(key) or []
        return {v.lower() if isinstance(v, str) else v for v in values}


def _state(item: Any, look: _Look) -> str:
    raw = look.pick(item, "status")
    value = raw.lower() if isinstance(raw, str) else raw
    if isinstance(item, dict):
        for state, key in (
            ("done", "doneValues"),
            ("failed", "failedValues"),
            ("active", "activeValues"),
        ):
            if value in look.values(key):
                return state
    return "pending"


def _label(item: Any, look: _Look) -> str:
    if not isinstance(item, dict):
        return as_text(item)
    value = look.pick(item, "label")
    return json_text(item) if value is None else as_text(value)


def _checklist(content: Any, look: _Look) -> list[Line] | None:
    explicit = "items" in look.options
    items = content if isinstance(content, list) and not explicit else look.pick(content, "items")
    if not isinstance(items, list):
        return None
    states = [_state(item, look) for item in items]
    done, failed = states.count("done"), states.count("failed")
    lines = [Line(f"{done} of {len(items)} done" + (f", {failed} failed" if failed else ""))]
    for item, state in zip(items, states, strict=True):
        lines.append(Line(f"{_MARK[state]} {clip(_label(item, look))}", tone=_TONE[state]))
    return lines


#: A saved transcript names no URL from data (the live view shows it as text, never a link).
_NO_LINKS = ("/url",)


def _search(content: Any, look: _Look) -> list[Line] | None:
    if not isinstance(content, dict):
        return None
    query = look.pick(content, "query")
    status = look.pick(content, "status")
    results = look.pick(content, "results")
    lines = [Line(clip(as_text(query)), label="Query")]
    if status is not None:
        lines.append(Line(as_text(status), label="Status"))
    if isinstance(results, list):
        lines.append(Line(label=f"Results ({len(results)})"))
        for result in results[:100]:
            title = look.pick(result, "resultTitle")
            detail = look.pick(result, "resultDetail", skip=_NO_LINKS)
            text = as_text(title) if isinstance(result, dict) else as_text(result)
            if detail is not None:
                text += f" ({as_text(detail)})"
            lines.append(Line(clip(text or json_text(result)), depth=1))
    return lines


def activity_block(item: dict[str, Any]) -> Block:
    """An activity as its renderer draws it (checklist, search), else its content as a tree."""
    raw_options, raw_defaults = item.get("options"), item.get("defaults")
    renderer = item.get("renderer")
    look = _Look(
        raw_options if isinstance(raw_options, dict) else {},
        raw_defaults
        if isinstance(raw_defaults, dict)
        else RENDERER_DEFAULTS.get(str(renderer), RENDERER_DEFAULTS["tree"]),
    )
    content = item.get("content")
    kind = as_text(item.get("activityType")) or "activity"
    title = as_text(look.pick(content, "title"))
    drawn = (
        _checklist(content, look)
        if renderer == "checklist"
        else _search(content, look)
        if renderer == "search"
        else None
    )
    lines = drawn if drawn is not None else value_lines(content, 0)
    if item.get("problem"):
        lines.append(Line(as_text(item["problem"]), tone="bad"))
    head = Line(f"{kind}: {title}" if title else kind, label="Activity")
    return Block("activity", head, tuple(lines))


# ------------------------------------------------------------------------------------- A2UI

_CONTAINER_KEYS = ("child", "trigger", "content")


def _children(component: dict[str, Any]) -> list[str]:
    out: list[str] = []
    children = component.get("children")
    if isinstance(children, list):
        out.extend(c for c in children if isinstance(c, str))
    elif isinstance(children, dict) and isinstance(children.get("componentId"), str):
        out.append(children["componentId"])
    out.extend(component[k] for k in _CONTAINER_KEYS if isinstance(component.get(k), str))
    for tab in component.get("tabs") or []:
        if isinstance(tab, dict) and isinstance(tab.get("child"), str):
            out.append(tab["child"])
    return out


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(as_text(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return as_text(value)


def _component_lines(surface: Surface) -> list[Line]:
    """What the surface draws, from ``root`` in order: texts, fields with values, buttons."""
    lines: list[Line] = []
    seen: set[str] = set()

    def visit(cid: str) -> None:
        component = surface.components.get(cid)
        if cid in seen or component is None:
            return
        seen.add(cid)
        kind = as_text(component.get("component"))
        label = component.get("label")
        if kind == "Text":
            text = as_text(surface.resolve(component.get("text")))
            if text:
                lines.append(Line(clip(text), depth=1))
        elif kind == "Button":
            face = surface.components.get(as_text(component.get("child")))
            text = as_text(surface.resolve(face.get("text"))) if face else ""
            lines.append(Line(f"[{text or 'button'}]", depth=1))
            seen.add(as_text(component.get("child")))
        elif label is not None and "value" in component:
            value = _shown(surface.resolve(component.get("value")))
            lines.append(Line(clip(value), label=as_text(surface.resolve(label)), depth=1))
        elif kind in ("Image", "Icon", "Video", "AudioPlayer"):
            lines.append(Line(f"({kind.lower()})", tone="muted", depth=1))
        for child in _children(component):
            visit(child)

    visit("root")
    return lines


def _action_line(action: Any) -> list[Line]:
    if not isinstance(action, dict) or action.get("status") in (None, "idle"):
        return []
    status = as_text(action.get("status"))
    by = f", by {as_text(action['decidedBy'])}" if action.get("decidedBy") else ""
    ended = f" => {as_text(action['outcome'])}" if action.get("outcome") else ""
    tone: Tone = {"done": "ok", "failed": "bad", "sending": "warn"}.get(status, "")  # type: ignore[assignment]
    lines = [
        Line(f"{as_text(action.get('name'))} ({status}{by}){ended}", label="Action", tone=tone)
    ]
    if action.get("error"):
        lines.append(Line(clip(as_text(action["error"])), tone="bad"))
    return lines


def a2ui_block(item: dict[str, Any]) -> Block:
    """A2UI surfaces as they are drawn, each with the person's action on it."""
    lines: list[Line] = []
    surfaces = item.get("surfaces")
    for entry in surfaces if isinstance(surfaces, list) else []:
        if not isinstance(entry, dict):
            continue
        ops = entry.get("operations")
        ops = ops if isinstance(ops, list) else []
        built = surfaces_from(op for op in ops if isinstance(op, dict))
        surface = next(iter(built.values()), None)
        if surface is None:
            continue
        lines.append(Line("(removed)" if surface.deleted else "", label="Surface"))
        lines.extend(_component_lines(surface))
        lines.extend(_action_line(entry.get("action")))
    if item.get("updatesElsewhere"):
        lines.append(Line("(updates a surface shown earlier)", tone="muted"))
    if item.get("status"):
        lines.append(Line(as_text(item["status"]), label="Status"))
    if item.get("error"):
        lines.append(Line(clip(as_text(item["error"])), tone="bad"))
    problems = item.get("problems")
    if isinstance(problems, list):
        lines.extend(Line(clip(as_text(p)), tone="bad") for p in problems)
    head = Line(as_text(item.get("activityType")) or "a2ui", label="Generated UI")
    return Block("surface", head, tuple(lines))
