"""A2UI v0.9 surfaces carried by AG-UI activity messages: the model Python needs. Pure.

A2UI (google/A2UI, ``specification/v0_9``) describes a UI as a stream of messages: ``createSurface``,
``updateComponents`` (a flat list of components linked by id, one of them ``root``),
``updateDataModel`` (a JSON Pointer upsert into the surface's data) and ``deleteSurface``. Over AG-UI
they ride in activity messages of type ``a2ui-surface``, as the list ``content["a2ui_operations"]``
(``content["operations"]`` in AG-UI's a2ui middleware before April 2026; both are read).

The front end renders surfaces (``js/src/a2ui.js``). Python keeps the same model for two jobs:
checking an action a view reports (the surface exists, the button exists and carries that action)
and building the action a policy or code takes (type values into the data model, press a button,
resolve the button's bound context), so that a headless run sends what a person's click would.
The action goes back as ``forwardedProps.a2uiAction.userAction`` (:func:`forwarded_props`).
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import ROUND_HALF_UP, Decimal, localcontext
from pathlib import Path
from typing import Any, TypeGuard

from .._decisions.interrupts import parse_expiry

__all__ = [
    "A2UI_ACTIVITY_TYPE",
    "A2UI_VERSION",
    "MESSAGE_KINDS",
    "Surface",
    "SurfaceAction",
    "act",
    "action_problem",
    "forwarded_props",
    "operations_of",
    "surfaces_from",
]

#: The activity type AG-UI's a2ui middleware gives surfaces.
A2UI_ACTIVITY_TYPE = "a2ui-surface"
#: The A2UI version implemented here (the v0.9 specification, closed and published).
A2UI_VERSION = "v0.9"
MESSAGE_KINDS = ("createSurface", "updateComponents", "updateDataModel", "deleteSurface")

#: An action's context is the person's input: bounded so a hostile surface cannot make a view
#: send megabytes back to the agent.
MAX_CONTEXT_BYTES = 256_000


def operations_of(content: Any) -> list[dict[str, Any]]:
    """The A2UI messages of an ``a2ui-surface`` activity's content (non-dicts dropped)."""
    if not isinstance(content, Mapping):
        return []
    ops = content.get("a2ui_operations")
    if ops is None:
        ops = content.get("operations")
    if not isinstance(ops, list):
        return []
    return [op for op in ops if isinstance(op, dict)]


def kind_of(op: Mapping[str, Any]) -> str | None:
    """Which of the four messages ``op`` is (an envelope holds exactly one), else None."""
    kinds = [k for k in MESSAGE_KINDS if isinstance(op.get(k), dict)]
    return kinds[0] if len(kinds) == 1 else None


def surface_id_of(op: Mapping[str, Any]) -> str | None:
    kind = kind_of(op)
    if kind is None:
        return None
    sid = op[kind].get("surfaceId")
    return sid if isinstance(sid, str) and sid else None


# -- JSON Pointer with A2UI's upsert rules ----------------------------------------------------


def split_pointer(pointer: str) -> list[str]:
    """``/a/b~1c`` -> ``["a", "b/c"]``; ``""`` and ``"/"`` are the root."""
    if pointer in ("", "/"):
        return []
    parts = pointer[1:].split("/") if pointer.startswith("/") else pointer.split("/")
    return [p.replace("~1", "/").replace("~0", "~") for p in parts]


def get_pointer(doc: Any, pointer: str) -> Any:
    """The value at ``pointer``, or None where it does not exist."""
    node = doc
    for part in split_pointer(pointer):
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def set_pointer(doc: Any, pointer: str, value: Any, *, remove: bool = False) -> Any:
    """``doc`` with ``value`` upserted at ``pointer`` (intermediate objects/arrays created, as
    A2UI's renderer guide says); ``remove`` deletes the key. Returns the new document."""
    parts = split_pointer(pointer)
    if not parts:
        return None if remove else value
    root: Any = doc if isinstance(doc, dict | list) else {}
    node = root
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        nxt_is_index = not last and parts[i + 1].isdigit()
        if isinstance(node, list):
            if not part.isdigit():
                return root  # a non-numeric index into an array: nothing to set (spec: error)
            index = int(part)
            while len(node) <= index:
                node.append(None)
            if last:
                node[index] = None if remove else value
                return root
            if not isinstance(node[index], dict | list):
                node[index] = [] if nxt_is_index else {}
            node = node[index]
        else:
            if last:
                if remove:
                    node.pop(part, None)
                else:
                    node[part] = value
                return root
            if not isinstance(node.get(part), dict | list):
                node[part] = [] if nxt_is_index else {}
            node = node[part]
    return root


# -- the surface model --------------------------------------------------------------------------


@dataclass
class Surface:
    """One surface as its messages built it."""

    id: str
    catalog_id: str | None = None
    created: bool = False
    deleted: bool = False
    send_data_model: bool = False
    components: dict[str, dict[str, Any]] = field(default_factory=dict)
    data: Any = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def apply(self, op: Mapping[str, Any]) -> None:
        kind = kind_of(op)
        body = op.get(kind) if kind else None
        if kind is None or not isinstance(body, dict):
            self.problems.append("a message that is not exactly one of " + ", ".join(MESSAGE_KINDS))
            return
        if kind == "createSurface":
            if self.created and not self.deleted:
                self.problems.append(f"createSurface for {self.id!r}, which already exists")
            self.created, self.deleted = True, False
            catalog = body.get("catalogId")
            self.catalog_id = catalog if isinstance(catalog, str) else None
            self.send_data_model = body.get("sendDataModel") is True
        elif kind == "updateComponents":
            for component in body.get("components") or []:
                if isinstance(component, dict) and isinstance(component.get("id"), str):
                    self.components[component["id"]] = component
        elif kind == "updateDataModel":
            raw_path = body.get("path")
            path = raw_path if isinstance(raw_path, str) else "/"
            if "value" in body:
                self.data = set_pointer(self.data, path, copy.deepcopy(body["value"]))
            else:
                self.data = set_pointer(self.data, path, None, remove=True)
        else:
            self.deleted = True

    # -- actions --------------------------------------------------------------------------

    def reachable(self) -> set[str]:
        """Ids of the components drawn: those reachable from ``root`` (a replaced root leaves
        its old subtree defined but no longer shown)."""
        seen: set[str] = set()
        todo = ["root"]
        while todo:
            cid = todo.pop()
            component = self.components.get(cid)
            if cid in seen or component is None:
                continue
            seen.add(cid)
            children = component.get("children")
            if isinstance(children, list):
                todo.extend(c for c in children if isinstance(c, str))
            elif isinstance(children, dict) and isinstance(children.get("componentId"), str):
                todo.append(children["componentId"])
            for key in ("child", "trigger", "content"):
                if isinstance(component.get(key), str):
                    todo.append(component[key])
            for tab in component.get("tabs") or []:
                if isinstance(tab, dict) and isinstance(tab.get("child"), str):
                    todo.append(tab["child"])
        return seen

    def action_components(self) -> dict[str, dict[str, Any]]:
        """Components shown whose ``action`` sends an event to the agent, by id."""
        shown = self.reachable()
        return {
            cid: c
            for cid, c in self.components.items()
            if cid in shown
            and isinstance(c.get("action"), dict)
            and isinstance(c["action"].get("event"), dict)
        }

    def find_action(self, name: str | None) -> tuple[str, dict[str, Any]]:
        """``(component id, event)`` of the button whose action is ``name`` (or the only one)."""
        events = [
            (cid, c["action"]["event"])
            for cid, c in self.action_components().items()
            if name is None or c["action"]["event"].get("name") == name
        ]
        if not events:
            names = sorted(
                str(c["action"]["event"].get("name")) for c in self.action_components().values()
            )
            raise LookupError(f"surface {self.id!r} has no action {name!r} (it has {names})")
        if len(events) > 1 and name is None:
            raise LookupError(f"surface {self.id!r} has several actions: name one")
        return events[0]

    def resolve(self, value: Any) -> Any:
        """A DynamicValue resolved against the data model (root scope)."""
        return resolve(value, self.data)


def surfaces_from(operations: Iterable[Mapping[str, Any]]) -> dict[str, Surface]:
    """Surfaces built from A2UI messages in order (a surface may skip createSurface)."""
    out: dict[str, Surface] = {}
    for op in operations:
        sid = surface_id_of(op)
        if sid is None:
            continue
        surface = out.setdefault(sid, Surface(sid))
        surface.apply(op)
    return out


# -- dynamic values and the basic catalog's functions --------------------------------------------


def resolve(value: Any, data: Any, depth: int = 0) -> Any:
    """Literal, ``{"path": ...}`` or ``{"call": ...}`` (the basic catalog's pure functions)."""
    if depth > 32:
        return None
    if isinstance(value, dict):
        if set(value) == {"path"} and isinstance(value["path"], str):
            return copy.deepcopy(get_pointer(data, value["path"]))
        if isinstance(value.get("call"), str):
            return _call(value["call"], value.get("args") or {}, data, depth)
        return {k: resolve(v, data, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, data, depth + 1) for v in value]
    return value


def _text(value: Any) -> str:
    """A value as text the way A2UI interpolates it (null: "", objects: JSON as JS writes it)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str | int | float):
        return str(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# The basic catalog's functions, as the view evaluates them (js/src/a2ui.js, the reference: a
# person's click and the cards are drawn there). The cases both sides must agree on are one table,
# tests/fixtures/a2ui/dynamic_values.json, run by pytest and by vitest.

_EMAIL = re.compile(r"^[^\s@]+@[^\s@]+\.[^\s@]+$")
_CURRENCIES: dict[str, list[Any]] = {
    code: form
    for code, form in json.loads(
        Path(__file__).with_name("currencies.json").read_text(encoding="utf-8")
    ).items()
    if not code.startswith("$")
}
_CURRENCY_CODE = re.compile(r"^[A-Za-z]{3}$")
_DAYS = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_DATE_TOKEN = re.compile(r"yyyy|YYYY|MMM|MM|dd|d|E|HH|h|mm|ss|a")


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _bool_of(value: Any) -> bool:
    if isinstance(value, str):
        return value.lower() == "true"
    if _is_number(value):
        return bool(value)
    return value is True


def _number_of(value: Any) -> float:
    """JS ``numberOf``: a finite number, a numeric text, else 0."""
    if _is_number(value):
        return float(value) if math.isfinite(value) else 0.0
    if isinstance(value, str) and value.strip():
        number = _js_number(value)
        if number is not None:
            return number
    return 0.0


def _js_number(value: Any) -> float | None:
    """JS ``Number(value)`` for the values data holds; None where it is NaN or infinite."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if _is_number(value):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return 0.0
        try:
            number = float(text)
        except ValueError:
            return None
        return (
            number
            if math.isfinite(number) and text.lower().lstrip("+-") not in ("inf", "infinity", "nan")
            else None
        )
    return None


def _grouped(number: float, decimals: int | None, grouping: bool = True) -> str:
    """Intl.NumberFormat("en-US") with that many decimals (None: up to 20, trailing zeros off):
    the shortest decimal of the double, rounded half away from zero."""
    exact = Decimal(repr(float(number)))
    with localcontext() as context:
        context.prec = 400  # a double needs at most 309 integer digits, plus 20 decimals
        return _grouped_exact(exact, decimals, grouping)


def _grouped_exact(exact: Decimal, decimals: int | None, grouping: bool) -> str:
    if decimals is None:
        rounded = exact.quantize(Decimal(1).scaleb(-20), rounding=ROUND_HALF_UP).normalize()
        text = format(rounded, ",f" if grouping else "f")
    else:
        rounded = exact.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
        text = format(rounded, f",.{decimals}f" if grouping else f".{decimals}f")
    return text


def _format_currency(value: Any, currency: Any) -> str:
    code = _text(currency) or "USD"
    if not _CURRENCY_CODE.match(code):  # Intl refuses it (RangeError): the view's fallback
        return f"{_number_of(value):.2f} {_text(currency)}".strip()
    code = code.upper()
    symbol, gap, decimals = _CURRENCIES.get(code, [code, "\u00a0", 2])
    number = _number_of(value)
    amount = _grouped(abs(number), int(decimals))
    sign = "-" if number < 0 or math.copysign(1.0, number) < 0 else ""
    return f"{sign}{symbol}{gap}{amount}"


def _format_date(value: Any, fmt: str) -> str:
    moment: datetime | None = None
    if _is_number(value) and math.isfinite(value):
        try:
            moment = datetime.fromtimestamp(value / 1000, timezone.utc)
        except (OverflowError, OSError, ValueError):
            moment = None
    elif isinstance(value, str):
        moment = parse_expiry(value)  # ISO 8601, "Z" read, no zone read as UTC (as JS does)
    if moment is None:
        return _text(value)
    moment = moment.astimezone(timezone.utc)
    hour = moment.hour
    parts = {
        "yyyy": str(moment.year),
        "YYYY": str(moment.year),
        "MMM": _MONTHS[moment.month - 1],
        "MM": f"{moment.month:02d}",
        "dd": f"{moment.day:02d}",
        "d": str(moment.day),
        "E": _DAYS[(moment.weekday() + 1) % 7],
        "HH": f"{hour:02d}",
        "h": str(hour % 12 or 12),
        "mm": f"{moment.minute:02d}",
        "ss": f"{moment.second:02d}",
        "a": "AM" if hour < 12 else "PM",
    }
    return _DATE_TOKEN.sub(lambda m: parts[m.group(0)], fmt)


def _format_string(template: str, data: Any, depth: int) -> str:
    """``${/abs/path}`` and ``${relative}``; ``\\${`` is a literal; a call is not evaluated."""
    out: list[str] = []
    i = 0
    while i < len(template):
        if template[i] == "\\" and template.startswith("${", i + 1):
            out.append("${")
            i += 3
            continue
        if template.startswith("${", i):
            end = template.find("}", i + 2)
            if end < 0:
                out.append(template[i:])
                break
            expr = template[i + 2 : end].strip()
            if "(" not in expr:
                out.append(_text(resolve({"path": expr}, data, depth + 1)))
            i = end + 1
            continue
        out.append(template[i])
        i += 1
    return "".join(out)


def _within(n: float, a: dict[str, Any]) -> bool:
    low, high = a.get("min"), a.get("max")
    return (not _is_number(low) or n >= low) and (not _is_number(high) or n <= high)


def _call(name: str, raw_args: Any, data: Any, depth: int) -> Any:
    args = raw_args if isinstance(raw_args, dict) else {}
    a = {k: resolve(v, data, depth + 1) for k, v in args.items()}
    value = a.get("value")
    if name == "required":
        return not (value is None or value == "" or value == [])
    if name == "email":
        return isinstance(value, str) and bool(_EMAIL.match(value))
    if name == "regex":
        pattern, text = _text(a.get("pattern")), _text(value)
        if len(pattern) > 500 or len(text) > 10_000:
            return False
        try:
            return re.search(pattern, text) is not None
        except re.error:
            return False
    if name == "length":
        return _within(len(_text(value)), a)
    if name == "numeric":
        number = None if value is None or value == "" else _js_number(value)
        return number is not None and _within(number, a)
    if name in ("and", "or"):
        values = a.get("values")
        truths = [_bool_of(v) for v in values] if isinstance(values, list) else []
        return all(truths) if name == "and" else any(truths)
    if name == "not":
        return not _bool_of(value)
    if name == "formatString":
        return _format_string(_text(value), data, depth)
    if name == "formatNumber":
        decimals = a.get("decimals")
        places = max(0, min(20, int(decimals))) if _is_number(decimals) else None
        return _grouped(_number_of(value), places, a.get("grouping") is not False)
    if name == "formatCurrency":
        return _format_currency(value, a.get("currency"))
    if name == "formatDate":
        return _format_date(value, _text(a.get("format")) or "yyyy-MM-dd")
    if name == "pluralize":
        rule = "one" if _number_of(value) == 1 else "other"  # en-US plural rules
        return _text(a[rule] if rule in a else a.get("other"))
    return None  # openUrl and unknown functions do nothing here (no URLs are opened)


# -- actions ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SurfaceAction:
    """What a policy (or code) does on a surface: type ``values`` (JSON Pointer -> value) into
    its data model, then press the button whose action is ``name``.

    >>> act("submit_transfer", {"/transfer/amount": 250})              # doctest: +SKIP
    """

    name: str | None = None
    values: Mapping[str, Any] = field(default_factory=dict)
    surface: str | None = None

    def user_action(self, surface: Surface, now: datetime | None = None) -> dict[str, Any]:
        """The ``userAction`` a person's click would send, resolved against ``surface``."""
        data = copy.deepcopy(surface.data)
        for pointer, value in self.values.items():
            data = set_pointer(data, pointer, copy.deepcopy(value))
        component_id, event = surface.find_action(self.name)
        context = event.get("context")
        resolved = resolve(context, data) if isinstance(context, dict) else {}
        moment = now or datetime.now(timezone.utc)
        return {
            "name": event.get("name"),
            "surfaceId": surface.id,
            "sourceComponentId": component_id,
            "timestamp": moment.isoformat().replace("+00:00", "Z"),
            "context": resolved,
        }

    def __str__(self) -> str:
        values = f" {json.dumps(dict(self.values), sort_keys=True)}" if self.values else ""
        where = f" on {self.surface}" if self.surface else ""
        return f"act {self.name or '(the only action)'}{where}{values}"


def act(
    name: str | None = None, values: Mapping[str, Any] | None = None, *, surface: str | None = None
) -> SurfaceAction:
    """Press the button whose action is ``name`` (the only one when None) on ``surface`` (the
    newest one with actions when None), after typing ``values`` (``{"/json/pointer": value}``)."""
    for pointer in values or {}:
        if not isinstance(pointer, str) or not pointer.startswith("/"):
            raise ValueError(
                f"values are keyed by absolute JSON Pointers like '/a/b', not {pointer!r}"
            )
    return SurfaceAction(name, dict(values or {}), surface)


def action_problem(surface: Surface | None, user_action: Mapping[str, Any]) -> str | None:
    """Why a view's ``userAction`` cannot be sent for ``surface`` (None: it can)."""
    if surface is None or surface.deleted:
        return "this surface is no longer shown"
    name, source = user_action.get("name"), user_action.get("sourceComponentId")
    shown = isinstance(source, str) and source in surface.reachable()
    component = surface.components.get(source) if shown and isinstance(source, str) else None
    action = component.get("action") if component else None
    event = action.get("event") if isinstance(action, dict) else None
    if not isinstance(event, dict) or event.get("name") != name:
        return f"component {source!r} of surface {surface.id!r} has no action {name!r}"
    context = user_action.get("context")
    if not isinstance(context, dict):
        return "an action's context must be a JSON object"
    if len(json.dumps(context, separators=(",", ":"))) > MAX_CONTEXT_BYTES:
        return f"the action's context is larger than {MAX_CONTEXT_BYTES} bytes"
    return None


def forwarded_props(user_action: Mapping[str, Any], surface: Surface | None) -> dict[str, Any]:
    """``forwardedProps`` of the run that carries an action (AG-UI's a2ui middleware reads
    ``a2uiAction.userAction``); a surface created with ``sendDataModel`` adds its data model as
    ``a2uiClientDataModel`` (A2UI v0.9 "client data model", here in forwardedProps)."""
    props: dict[str, Any] = {"a2uiAction": {"userAction": dict(user_action)}}
    if surface is not None and surface.send_data_model:
        props["a2uiClientDataModel"] = {"surfaces": {surface.id: copy.deepcopy(surface.data)}}
    return props
