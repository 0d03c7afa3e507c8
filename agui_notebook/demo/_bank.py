"""The demo's pretend bank: accounts, tools, their argument schemas, and what running them does.

Pure functions over a JSON state dict. A tool never mutates the state it is given: it returns the
JSON Patch (RFC 6902) that the scenario layer applies and streams as STATE_DELTA.

The state every new thread starts from::

    {"currency": "USD",
     "balances": {"1234567890": 2500.0, "0987654321": 1000.0, "1111222233": 5000.0},
     "subscriptions": {"sub_streamflix": {...}, "sub_gym": {...}},
     "closed_accounts": [], "scheduled": [], "payees": []}
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]

CHECKING, SAVINGS, BUSINESS = "1234567890", "0987654321", "1111222233"
UTILITY_PAYEE = "4444333322"  # an external account: money sent there leaves the bank
DEFAULT_SUBSCRIPTION = "sub_streamflix"

# Fixed, made-up rates: the demo is deterministic, so no live FX.
RATES_TO_USD = {"USD": 1.0, "EUR": 1.1, "GBP": 1.25}

INITIAL_STATE: JSON = {
    "currency": "USD",
    "balances": {CHECKING: 2500.0, SAVINGS: 1000.0, BUSINESS: 5000.0},
    "subscriptions": {
        "sub_streamflix": {"name": "StreamFlix", "monthly": 15.99, "status": "active"},
        "sub_gym": {"name": "City Gym", "monthly": 39.0, "status": "active"},
    },
    "closed_accounts": [],
    "scheduled": [],
    "payees": [],
}

_ACCOUNT = {"type": "string", "pattern": "^[0-9]{10}$", "description": "A 10-digit account number"}

TOOL_SCHEMAS: dict[str, JSON] = {
    "transfer_money": {
        "type": "object",
        "properties": {
            "from_account": {**_ACCOUNT, "title": "From account"},
            "to_account": {**_ACCOUNT, "title": "To account"},
            "amount": {"type": "number", "exclusiveMinimum": 0, "title": "Amount"},
            "currency": {
                "type": "string",
                "enum": sorted(RATES_TO_USD),
                "default": "USD",
                "title": "Currency",
            },
        },
        "required": ["from_account", "to_account", "amount"],
        "additionalProperties": False,
    },
    "cancel_subscription": {
        "type": "object",
        "properties": {"subscription_id": {"type": "string", "title": "Subscription"}},
        "required": ["subscription_id"],
        "additionalProperties": False,
    },
    "check_balance": {
        "type": "object",
        "properties": {"account": {**_ACCOUNT, "title": "Account"}},
        "required": ["account"],
        "additionalProperties": False,
    },
    # The hostile scenario's tool: free-text fields a front end must render inertly.
    "update_payee": {
        "type": "object",
        "properties": {
            "payee_name": {"type": "string"},
            "note": {"type": "string"},
            "website": {"type": "string"},
            "reference": {"type": "string"},
            "details": {"type": "object"},
        },
        "required": ["payee_name"],
        "additionalProperties": False,
    },
}

TOOL_DESCRIPTIONS = {
    "transfer_money": "Move money between accounts (needs approval).",
    "cancel_subscription": "Cancel a recurring subscription (needs approval).",
    "check_balance": "Read an account's balance (runs without approval).",
    "update_payee": "Save a payee's details (needs approval).",
}

APPROVAL_NEEDED = {"transfer_money", "cancel_subscription", "update_payee"}

SCHEDULE_FORM_SCHEMA: JSON = {
    "type": "object",
    "title": "Schedule a payment",
    "properties": {
        "date": {"type": "string", "format": "date", "title": "Date"},
        "amount": {"type": "number", "minimum": 0, "title": "Amount (USD)"},
        "memo": {"type": "string", "maxLength": 140, "title": "Memo"},
        "frequency": {
            "type": "string",
            "enum": ["once", "weekly", "monthly"],
            "default": "once",
            "title": "Frequency",
        },
    },
    "required": ["date", "amount"],
    "additionalProperties": False,
}


@dataclass
class ToolOutcome:
    """What running a tool did: its result (for TOOL_CALL_RESULT), the state patch, a sentence."""

    result: JSON
    summary: str
    patch: list[JSON] = field(default_factory=list)


def initial_state() -> JSON:
    return copy.deepcopy(INITIAL_STATE)


def money(amount: float, currency: str = "USD") -> str:
    return f"{amount:,.2f} {currency}"


def describe_call(name: str, args: JSON) -> str:
    """A short human sentence for an approval prompt."""
    if name == "transfer_money":
        amount = money(float(args["amount"]), str(args.get("currency", "USD")))
        return f"transfer {amount} from {args['from_account']} to {args['to_account']}"
    if name == "cancel_subscription":
        return f"cancel subscription {args['subscription_id']}"
    if name == "update_payee":
        return f"save payee {args.get('payee_name', '')}"
    return f"run {name}"


def execute(name: str, args: JSON, state: JSON) -> ToolOutcome:
    """Run tool ``name`` with ``args`` against ``state`` (not mutated)."""
    runner = _RUNNERS.get(name)
    if runner is None:
        return ToolOutcome({"ok": False, "error": f"unknown tool {name}"}, f"I cannot run {name}.")
    return runner(args, state)


def _transfer(args: JSON, state: JSON) -> ToolOutcome:
    source, target = str(args["from_account"]), str(args["to_account"])
    amount, currency = round(float(args["amount"]), 2), str(args.get("currency", "USD"))
    balances: dict[str, float] = state["balances"]
    if source not in balances:
        error = f"account {source} is not one of yours"
        return ToolOutcome({"ok": False, "error": error}, f"The transfer failed: {error}.")
    usd = round(amount * RATES_TO_USD[currency], 2)
    if balances[source] < usd:
        error = f"insufficient funds in {source} ({money(balances[source])})"
        return ToolOutcome({"ok": False, "error": error}, f"The transfer failed: {error}.")
    new_source = round(balances[source] - usd, 2)
    patch: list[JSON] = [{"op": "replace", "path": f"/balances/{source}", "value": new_source}]
    if target in balances and target != source:
        new_target = round(balances[target] + usd, 2)
        patch.append({"op": "replace", "path": f"/balances/{target}", "value": new_target})
    converted = "" if currency == "USD" else f" ({money(usd)})"
    summary = (
        f"Transferred {money(amount, currency)}{converted} from {source} to {target}. "
        f"New balance: {money(new_source)}."
    )
    result = {
        "ok": True,
        "from_account": source,
        "to_account": target,
        "amount": amount,
        "currency": currency,
        "new_balance": new_source,
    }
    return ToolOutcome(result, summary, patch)


def _cancel_subscription(args: JSON, state: JSON) -> ToolOutcome:
    sub_id = str(args["subscription_id"])
    sub = state["subscriptions"].get(sub_id)
    if sub is None:
        error = f"there is no subscription {sub_id}"
        return ToolOutcome({"ok": False, "error": error}, f"The cancellation failed: {error}.")
    if sub["status"] == "cancelled":
        return ToolOutcome(
            {"ok": True, "subscription_id": sub_id, "status": "cancelled"},
            f"{sub['name']} ({sub_id}) was already cancelled.",
        )
    patch = [{"op": "replace", "path": f"/subscriptions/{sub_id}/status", "value": "cancelled"}]
    summary = f"Cancelled {sub['name']} ({sub_id}); you save {money(sub['monthly'])} a month."
    result = {"ok": True, "subscription_id": sub_id, "status": "cancelled"}
    return ToolOutcome(result, summary, patch)


def _check_balance(args: JSON, state: JSON) -> ToolOutcome:
    account = str(args["account"])
    balance = state["balances"].get(account)
    if balance is None:
        error = f"account {account} is not one of yours"
        return ToolOutcome({"ok": False, "error": error}, f"I could not check it: {error}.")
    summary = f"The balance of account {account} is {money(balance)}."
    return ToolOutcome(
        {"ok": True, "account": account, "balance": balance, "currency": "USD"}, summary
    )


def _update_payee(args: JSON, state: JSON) -> ToolOutcome:
    patch = [{"op": "add", "path": "/payees/-", "value": {"payee_name": args["payee_name"]}}]
    return ToolOutcome({"ok": True}, "Saved the payee.", patch)


def schedule_payment(answer: JSON, state: JSON) -> ToolOutcome:
    """Book the scheduled payment the input_required form asked for."""
    entry = {
        "date": answer["date"],
        "amount": round(float(answer["amount"]), 2),
        "memo": answer.get("memo", ""),
        "frequency": answer.get("frequency", "once"),
    }
    memo = f" (memo: {entry['memo']})" if entry["memo"] else ""
    summary = (
        f"Scheduled a {entry['frequency']} payment of {money(entry['amount'])} "
        f"starting {entry['date']}{memo}."
    )
    return ToolOutcome(
        {"ok": True, **entry}, summary, [{"op": "add", "path": "/scheduled/-", "value": entry}]
    )


def close_account(account: str, state: JSON) -> ToolOutcome:
    """What the confirmation scenario does once confirmed."""
    if account not in state["balances"]:
        return ToolOutcome({"ok": False}, f"Account {account} is already closed.")
    patch = [
        {"op": "remove", "path": f"/balances/{account}"},
        {"op": "add", "path": "/closed_accounts/-", "value": account},
    ]
    return ToolOutcome({"ok": True}, f"Closed account {account}.", patch)


_RUNNERS = {
    "transfer_money": _transfer,
    "cancel_subscription": _cancel_subscription,
    "check_balance": _check_balance,
    "update_payee": _update_payee,
}

# --- reading arguments out of a user's sentence -------------------------------------------------

_ACCOUNT_RE = re.compile(r"(?<!\d)\d{10}(?!\d)")
_AMOUNT_RE = re.compile(
    r"([$€£])?\s*(\d[\d,]*(?:\.\d+)?)\s*(usd|eur|gbp|dollars?|euros?|pounds?)?", re.IGNORECASE
)
_CURRENCY_WORDS = {
    "$": "USD",
    "€": "EUR",
    "£": "GBP",
    "dollar": "USD",
    "euro": "EUR",
    "pound": "GBP",
    "usd": "USD",
    "eur": "EUR",
    "gbp": "GBP",
}


def accounts_in(text: str) -> list[str]:
    return _ACCOUNT_RE.findall(text)


def transfer_args(text: str, *, default_amount: float = 100.0) -> JSON:
    """``"Transfer $500 from 1234567890 to 0987654321"`` -> transfer_money arguments."""
    accounts = accounts_in(text)
    without_accounts = _ACCOUNT_RE.sub(" ", text)
    amount, currency = default_amount, "USD"
    for match in _AMOUNT_RE.finditer(without_accounts):
        symbol, number, word = match.groups()
        amount = float(number.replace(",", ""))
        unit = (symbol or word or "usd").lower().rstrip("s")
        currency = _CURRENCY_WORDS.get(unit, "USD")
        break
    return {
        "from_account": accounts[0] if accounts else CHECKING,
        "to_account": accounts[1] if len(accounts) > 1 else SAVINGS,
        "amount": amount,
        "currency": currency,
    }


def subscription_in(text: str, state: JSON) -> str:
    lowered = text.lower()
    explicit = re.search(r"sub_[a-z0-9_]+", lowered)
    if explicit:
        return explicit.group(0)
    for sub_id, sub in state["subscriptions"].items():
        if sub["name"].lower() in lowered or sub_id.removeprefix("sub_") in lowered:
            return str(sub_id)
    return DEFAULT_SUBSCRIPTION
