"""The demo's generative UI: a task reporting progress as activities, and an A2UI transfer form.

Pure, like the other scenarios. Two scenarios and one kind of run:

- **Month-end checks** ("month-end", "progress", "checklist"): a multi-step task that reports its
  progress as a ``PLAN`` activity (an ``ACTIVITY_SNAPSHOT``, then one ``ACTIVITY_DELTA`` JSON Patch
  per step as it starts and ends) and a ``SEARCH`` activity for the transactions it looks at.
- **Transfer form** ("transfer form", "payment form", "a form"): an A2UI v0.9 surface in an
  ``a2ui-surface`` activity (``content.a2ui_operations``: createSurface, updateComponents,
  updateDataModel), with from/to accounts, amount, currency, a confirmation box, Send and Cancel.
- **An action** (``forwardedProps.a2uiAction.userAction``, AG-UI's a2ui middleware convention):
  the demo checks it and acts on it. ``submit_transfer`` validates its context (known source
  account, 10-digit destination, a positive amount, a known currency); a problem is shown on the
  form, which stays open; a valid one runs the transfer (STATE_DELTA), and the form is replaced
  by what happened. ``cancel_transfer`` closes the form. Updates to the surface go out as a new
  ``a2ui-surface`` activity carrying only ``updateDataModel`` / ``updateComponents`` for it.

Refusals (RUN_STARTED then RUN_ERROR, nothing changes): an action that is not an object with a
string ``name`` and ``surfaceId`` and an object ``context`` (``A2UI_INVALID_ACTION``), a surface
this thread never showed (``A2UI_UNKNOWN_SURFACE``), a surface already submitted or cancelled
(``A2UI_SURFACE_CLOSED``: a repeated submission never moves money twice), an action the surface
does not have (``A2UI_UNKNOWN_ACTION``).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any, Protocol

import jsonpatch

from . import _bank
from ._emit import NewId, RunScript
from ._resume import Refusal
from ._threads import (
    A2UI_INVALID_ACTION,
    A2UI_SURFACE_CLOSED,
    A2UI_UNKNOWN_ACTION,
    A2UI_UNKNOWN_SURFACE,
    SurfaceRecord,
    ThreadRecord,
)

JSON = dict[str, Any]


class _Agent(Protocol):
    @property
    def new_id(self) -> NewId: ...

    def record_execution(self, thread_id: str, tool: str, arguments: JSON) -> None: ...


class _Turn(Protocol):
    """What these scenarios use of a turn (``_scenarios._Turn``; no import: no circle)."""

    @property
    def agent(self) -> _Agent: ...
    @property
    def record(self) -> ThreadRecord: ...
    @property
    def script(self) -> RunScript: ...


A2UI_VERSION = "v0.9"
A2UI_ACTIVITY = "a2ui-surface"
BASIC_CATALOG = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"
FORM_ACTIONS = ("submit_transfer", "cancel_transfer")

MONTH_END_STEPS = (
    "Fetch this month's statements",
    "Look for unusual transactions",
    "Reconcile the balances",
    "Write the summary",
)


def _op(kind: str, **body: Any) -> JSON:
    return {"version": A2UI_VERSION, kind: body}


def _text(cid: str, text: Any, variant: str | None = None) -> JSON:
    component: JSON = {"id": cid, "component": "Text", "text": text}
    if variant:
        component["variant"] = variant
    return component


def _field(cid: str, label: str, path: str, **extra: Any) -> JSON:
    return {"id": cid, "component": "TextField", "label": label, "value": {"path": path}, **extra}


def transfer_form_components() -> list[JSON]:
    """The form's components (A2UI v0.9 basic catalog), root first."""
    account_check = [
        {
            "condition": {
                "call": "regex",
                "args": {"value": {"path": "/transfer/to"}, "pattern": "^[0-9]{10}$"},
            },
            "message": "An account number has 10 digits.",
        }
    ]
    return [
        {"id": "root", "component": "Card", "child": "form"},
        {
            "id": "form",
            "component": "Column",
            "children": [
                "title",
                "from",
                "to",
                "amount",
                "currency",
                "confirm",
                "problem",
                "buttons",
            ],
        },
        _text("title", "New transfer", "h3"),
        {
            "id": "from",
            "component": "ChoicePicker",
            "label": "From account",
            "variant": "mutuallyExclusive",
            "options": [
                {"label": f"{name} {number}", "value": number}
                for name, number in (
                    ("Checking", _bank.CHECKING),
                    ("Savings", _bank.SAVINGS),
                    ("Business", _bank.BUSINESS),
                )
            ],
            "value": {"path": "/transfer/from"},
        },
        _field("to", "To account (10 digits)", "/transfer/to", checks=account_check),
        _field("amount", "Amount", "/transfer/amount", variant="number"),
        {
            "id": "currency",
            "component": "ChoicePicker",
            "label": "Currency",
            "options": [{"label": c, "value": c} for c in sorted(_bank.RATES_TO_USD)],
            "value": {"path": "/transfer/currency"},
        },
        {
            "id": "confirm",
            "component": "CheckBox",
            "label": "I checked the account numbers",
            "value": {"path": "/transfer/confirmed"},
        },
        _text("problem", {"path": "/problem"}, "caption"),
        {"id": "buttons", "component": "Row", "children": ["submit", "cancel"]},
        _text("submit-label", "Send money"),
        {
            "id": "submit",
            "component": "Button",
            "child": "submit-label",
            "variant": "primary",
            "checks": [
                {
                    "condition": {"path": "/transfer/confirmed"},
                    "message": "Tick the box once you have checked the accounts.",
                }
            ],
            "action": {
                "event": {
                    "name": "submit_transfer",
                    "context": {
                        "from": {"path": "/transfer/from"},
                        "to": {"path": "/transfer/to"},
                        "amount": {"path": "/transfer/amount"},
                        "currency": {"path": "/transfer/currency"},
                    },
                }
            },
        },
        _text("cancel-label", "Cancel"),
        {
            "id": "cancel",
            "component": "Button",
            "child": "cancel-label",
            "action": {"event": {"name": "cancel_transfer", "context": {}}},
        },
    ]


def transfer_form_data() -> JSON:
    return {
        "transfer": {
            "from": [_bank.CHECKING],
            "to": "",
            "amount": "",
            "currency": ["USD"],
            "confirmed": False,
        },
        "problem": "",
    }


# -- scenarios --------------------------------------------------------------------------------


def month_end(turn: _Turn) -> None:
    script = turn.script
    script.say("Running the month-end checks. I'll report progress as I go.")
    plan_id = turn.agent.new_id("activity")
    steps = [{"title": title, "status": "pending"} for title in MONTH_END_STEPS]
    script.activity_snapshot(plan_id, "PLAN", {"title": "Month-end checks", "steps": steps})
    search_id = turn.agent.new_id("activity")
    balances = turn.record.state["balances"]
    for index in range(len(MONTH_END_STEPS)):
        script.pause_step()
        script.activity_delta(
            plan_id,
            "PLAN",
            [{"op": "replace", "path": f"/steps/{index}/status", "value": "in_progress"}],
        )
        if index == 1:
            query = "transactions over 1,000 USD this month"
            script.activity_snapshot(
                search_id, "SEARCH", {"query": query, "status": "searching", "results": []}
            )
            script.pause_step()
            results = [
                {"title": f"Account {number}", "snippet": f"balance {_bank.money(amount)}"}
                for number, amount in balances.items()
                if amount > 1000
            ]
            script.activity_delta(
                search_id,
                "SEARCH",
                [
                    {"op": "replace", "path": "/results", "value": results},
                    {"op": "replace", "path": "/status", "value": "done"},
                ],
            )
        script.pause_step()
        script.activity_delta(
            plan_id, "PLAN", [{"op": "replace", "path": f"/steps/{index}/status", "value": "done"}]
        )
    total = sum(balances.values())
    script.say(
        f"All {len(MONTH_END_STEPS)} checks are done: nothing unusual, and your accounts hold "
        f"{_bank.money(total)} in total."
    )
    script.finish()


def transfer_form(turn: _Turn) -> None:
    surface_id = turn.agent.new_id("transfer-form")
    message_id = f"a2ui-surface-{surface_id}"
    turn.record.surfaces[surface_id] = SurfaceRecord(surface_id, "transfer-form")
    turn.script.say("Here is a transfer form. Fill it in and press Send money.")
    ops = [
        _op("createSurface", surfaceId=surface_id, catalogId=BASIC_CATALOG),
        _op("updateComponents", surfaceId=surface_id, components=transfer_form_components()),
        _op("updateDataModel", surfaceId=surface_id, path="/", value=transfer_form_data()),
    ]
    turn.script.activity_snapshot(message_id, A2UI_ACTIVITY, {"a2ui_operations": ops})
    turn.script.finish()


# -- an action on a surface ---------------------------------------------------------------------


def user_action_of(forwarded: Any) -> Any:
    """``forwardedProps.a2uiAction.userAction`` when present (any value), else None."""
    if not isinstance(forwarded, Mapping):
        return None
    action = forwarded.get("a2uiAction")
    return action.get("userAction") if isinstance(action, Mapping) else action


def check_action(record: ThreadRecord, action: Any) -> Refusal | None:
    """Why this action cannot be acted on (a stable code), or None."""
    if (
        not isinstance(action, Mapping)
        or not isinstance(action.get("name"), str)
        or not isinstance(action.get("surfaceId"), str)
        or not isinstance(action.get("context", {}), Mapping)
    ):
        return Refusal(
            A2UI_INVALID_ACTION,
            "forwardedProps.a2uiAction.userAction must be an object with string name and "
            "surfaceId and an object context.",
        )
    surface = record.surfaces.get(action["surfaceId"])
    if surface is None:
        return Refusal(
            A2UI_UNKNOWN_SURFACE,
            f"Thread {record.thread_id} never showed a surface {action['surfaceId']!r}.",
        )
    if surface.status != "open":
        return Refusal(
            A2UI_SURFACE_CLOSED,
            f"Surface {surface.surface_id} was already {surface.status}; nothing was done again.",
        )
    if action["name"] not in FORM_ACTIONS:
        return Refusal(
            A2UI_UNKNOWN_ACTION,
            f"Surface {surface.surface_id} has no action {action['name']!r}; it has "
            f"{', '.join(FORM_ACTIONS)}.",
        )
    return None


def apply_action(turn: _Turn, action: Mapping[str, Any]) -> None:
    """Act on a checked action: a transfer, a correction asked for, or a cancellation."""
    surface = turn.record.surfaces[action["surfaceId"]]
    script = turn.script
    context = action.get("context") or {}
    if action["name"] == "cancel_transfer":
        surface.status = "cancelled"
        _update_surface(turn, surface.surface_id, "Transfer cancelled. Nothing was moved.")
        script.say("Cancelled the transfer form; no money moved.")
        script.finish()
        return
    arguments, problems = _transfer_arguments(context, turn.record.state)
    if problems:
        message = "Please correct: " + "; ".join(problems) + "."
        _update_data(turn, surface.surface_id, "/problem", message)
        script.say(f"I could not send that transfer. {message}")
        script.finish()
        return
    outcome = _bank.execute("transfer_money", arguments, turn.record.state)
    if not outcome.result.get("ok"):
        _update_data(turn, surface.surface_id, "/problem", outcome.summary)
        script.say(outcome.summary)
        script.finish()
        return
    surface.status = "submitted"
    turn.agent.record_execution(turn.record.thread_id, "transfer_money", arguments)
    if outcome.patch:
        turn.record.state = jsonpatch.apply_patch(turn.record.state, outcome.patch)
        script.state_delta(outcome.patch)
    _update_surface(turn, surface.surface_id, f"Done: {outcome.summary}")
    script.say(outcome.summary)
    script.finish()


def _transfer_arguments(context: Mapping[str, Any], state: JSON) -> tuple[JSON, list[str]]:
    problems = []
    source = _one(context.get("from"))
    if source not in state["balances"]:
        problems.append(f"the source account {source or '(none)'} is not one of yours")
    target = _one(context.get("to")).strip()
    if not re.fullmatch(r"[0-9]{10}", target):
        problems.append("the destination must be a 10-digit account number")
    elif target == source:
        problems.append("the destination is the source account")
    amount = _number(context.get("amount"))
    if amount is None or amount <= 0:
        problems.append("the amount must be a number above 0")
    currency = _one(context.get("currency")) or "USD"
    if currency not in _bank.RATES_TO_USD:
        problems.append(f"the currency must be one of {', '.join(sorted(_bank.RATES_TO_USD))}")
    arguments = {
        "from_account": source,
        "to_account": target,
        "amount": amount or 0.0,
        "currency": currency,
    }
    return arguments, problems


def _one(value: Any) -> str:
    """A ChoicePicker's value is a list of strings; a text field's is a string."""
    if isinstance(value, list):
        value = value[0] if len(value) == 1 else None
    return value if isinstance(value, str) else ""


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def _update_data(turn: _Turn, surface_id: str, path: str, value: Any) -> None:
    ops = [_op("updateDataModel", surfaceId=surface_id, path=path, value=copy.deepcopy(value))]
    _surface_activity(turn.script, turn.agent.new_id("a2ui-update"), ops)


def _update_surface(turn: _Turn, surface_id: str, text: str) -> None:
    ops = [
        _op(
            "updateComponents",
            surfaceId=surface_id,
            components=[
                {"id": "root", "component": "Card", "child": "outcome"},
                _text("outcome", text),
            ],
        )
    ]
    _surface_activity(turn.script, turn.agent.new_id("a2ui-update"), ops)


def _surface_activity(script: RunScript, message_id: str, ops: list[JSON]) -> None:
    script.activity_snapshot(message_id, A2UI_ACTIVITY, {"a2ui_operations": ops})
