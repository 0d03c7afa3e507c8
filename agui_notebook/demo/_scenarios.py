"""The scripted banking assistant: deterministic, LLM-free, pure (no I/O, no clock of its own).

``DemoAgent.run(run_input, now=...)`` turns one ``RunAgentInput`` into the list of events (and
pauses) of its run, updating the in-memory thread store as it goes. A run with ``resume`` entries
answers the thread's pending interrupts (see ``_resume``); any other run replies to the newest user
message, choosing the scenario by the first row of this table whose keywords it contains
(case-insensitive):

=====================================  =============================================================
message contains                       the run
=====================================  =============================================================
"error", "fail"                        starts a reply, then RUN_ERROR code DEMO_ERROR
"hostile"                              update_payee call (approval) whose arguments, message and
                                       metadata carry XSS probes, a 5000-char string and a 30-deep
                                       object; for front-end safety tests
"delegate", "specialist"               a payments subagent (SUBAGENT_STARTED ... FINISHED
                                       suspended) prepares transfer_money, whose approval
                                       interrupt carries its subagentRunId; the resume continues
                                       the same invocation
"statement"                            get_statement(account) runs at once; its TOOL_CALL_RESULT
                                       is a list of content parts: text, an inline PNG chart and a
                                       CSV document
"private"                              reasoning with an encrypted value (REASONING_ENCRYPTED_
                                       VALUE, encryptedValueType "demo.reasoning-signature"),
                                       then an answer that says how many earlier signatures the
                                       client sent back intact
"two transfers", "two approvals",      transfer_money + cancel_subscription in one message: two
"move money and cancel"                approval interrupts in one RUN_FINISHED
"pay bills", "bills"                   batch: transfer_money to the utility (approval) and
                                       check_balance (free, runs now) in one message
"schedule"                             input_required interrupt: a form (date, amount, memo,
                                       frequency) described by responseSchema
"expir", "quick"                       transfer_money approval whose expiresAt is ``expires_in``
                                       seconds ahead (default 60)
"month-end", "progress", "checklist"   a multi-step task reporting progress: PLAN and SEARCH
                                       activities (snapshot, then JSON Patch deltas)
"transfer form", "payment form",       an A2UI v0.9 transfer form (a2ui-surface activity); its
"a form"                               submission comes back as forwardedProps.a2uiAction
"close account"                        confirmation interrupt (no tool call) to close an account
"cancel subscription", "unsubscribe"   cancel_subscription(subscription_id) approval
"transfer", "send money"               transfer_money(from_account, to_account, amount, currency)
                                       approval, arguments read from the text, e.g. "Transfer $500
                                       from 1234567890 to 0987654321"
"balance"                              check_balance(account): no approval, runs inside the run
"think", "reason"                      reasoning events, then an answer (no encrypted value)
"long", "story"                        a long answer streamed slowly (for abort demos)
anything else                          a help text listing all of the above
=====================================  =============================================================

Every run starts with STATE_SNAPSHOT (balances, subscriptions, scheduled payments); a tool that
changes them streams STATE_DELTA. The demo owns the state and the history: it ignores the input's
``state``, and reads only the newest user message of ``messages``. A tool-call interrupt is ``reason: "tool_call"`` with
``toolCallId``, ``metadata: {toolName, arguments}`` and the spec's recommended ``responseSchema``
(``approved`` required, ``editedArgs`` = full replacement of the arguments, ``reason``).

Refusals (RUN_STARTED then RUN_ERROR; nothing changes): a new message while interrupts are pending
(INTERRUPT_PENDING), a resume for an unknown thread (THREAD_NOT_FOUND), and the resume checks of
``_resume`` (RESUME_*). A repeated identical resume gets RESUME_ALREADY_APPLIED: tools never run
twice.
"""

from __future__ import annotations

import base64
import hashlib
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

import jsonpatch
from ag_ui.core import Interrupt, ReasoningMessage, RunAgentInput, UserMessage

from . import _bank, _generative, _media
from ._emit import NewId, PlannedCall, RunScript, Step
from ._options import DemoOptions
from ._resume import Refusal, apply_resume, check_resume
from ._texts import HELP_TEXT, REASONING_TEXT, STORY_TEXT, hostile_arguments
from ._threads import (
    DEMO_ERROR,
    INTERRUPT_PENDING,
    THREAD_NOT_FOUND,
    ActionKind,
    PendingAction,
    ThreadRecord,
)

JSON = dict[str, Any]
Scenario = Callable[["_Turn"], None]


def _uuid_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex}"


def iso_utc(moment: datetime) -> str:
    """ISO 8601 in UTC with a ``Z``, millisecond precision (``expiresAt``)."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class DemoAgent:
    """The demo's brain. One instance per app: it owns the thread store and the execution log."""

    def __init__(self, options: DemoOptions | None = None, *, new_id: NewId = _uuid_id) -> None:
        self.options = options or DemoOptions()
        self.new_id = new_id
        self.threads: dict[str, ThreadRecord] = {}
        self.executions: list[JSON] = []
        """Every tool the demo actually ran: ``{"tool", "arguments", "thread_id"}``, in order."""

    def run(self, run_input: RunAgentInput, *, now: datetime | None = None) -> list[Step]:
        """The events (and pauses) of the run ``run_input`` asks for, in wire order."""
        now = now or datetime.now(timezone.utc)
        script = RunScript(run_input.thread_id, run_input.run_id, self.options, self.new_id)
        action = _generative.user_action_of(run_input.forwarded_props)
        if run_input.resume:
            self._resume(run_input, script, now)
        elif action is not None:
            self._act(run_input, action, script, now)
        else:
            self._reply(run_input, script, now)
        return script.steps

    def record_execution(self, thread_id: str, tool: str, arguments: JSON) -> None:
        self.executions.append({"tool": tool, "arguments": dict(arguments), "thread_id": thread_id})

    def _resume(self, run_input: RunAgentInput, script: RunScript, now: datetime) -> None:
        assert run_input.resume
        record = self.threads.get(run_input.thread_id)
        if record is None:
            message = f"Unknown thread {run_input.thread_id!r}: nothing to resume."
            return _refuse(script, Refusal(THREAD_NOT_FOUND, message))
        refusal = check_resume(record, run_input.resume, now)
        if refusal:
            return _refuse(script, refusal)
        script.start()
        apply_resume(record, run_input.resume, script, self, run_input.messages)
        record.add_messages(script.messages)

    def _act(self, run_input: RunAgentInput, action: Any, script: RunScript, now: datetime) -> None:
        """A person's (or a policy's) action on an A2UI surface this thread showed."""
        record = self.threads.get(run_input.thread_id)
        if record is None:
            message = f"Unknown thread {run_input.thread_id!r}: no surface to act on."
            return _refuse(script, Refusal(THREAD_NOT_FOUND, message))
        if record.pending:
            message = f"Thread {record.thread_id} is waiting for answers to its interrupts first."
            return _refuse(script, Refusal(INTERRUPT_PENDING, message))
        refusal = _generative.check_action(record, action)
        if refusal:
            return _refuse(script, refusal)
        script.start()
        script.state_snapshot(record.state)
        _generative.apply_action(_Turn(self, record, script, "", now), action)
        record.add_messages(script.messages)

    def _reply(self, run_input: RunAgentInput, script: RunScript, now: datetime) -> None:
        record = self.threads.get(run_input.thread_id)
        if record is not None and record.pending:
            message = (
                f"Thread {record.thread_id} is waiting for an answer to {len(record.pending)} "
                f"interrupt(s) ({', '.join(record.pending)}); resume with an entry for each "
                "(or cancel them) before sending a new message."
            )
            return _refuse(script, Refusal(INTERRUPT_PENDING, message))
        if record is None:
            record = self.threads[run_input.thread_id] = ThreadRecord(run_input.thread_id)
        user = _last_user_message(run_input)
        if user is not None:
            record.add_messages([user])
        script.start()
        script.state_snapshot(record.state)
        turn = _Turn(self, record, script, _text_of(user).lower(), now)
        turn.returned = _returned_signatures(run_input)
        pick_scenario(turn.text)(turn)
        record.add_messages(script.messages)


class _Turn:
    """What a scenario works with: the agent, the thread, the script, the message, the time."""

    def __init__(
        self, agent: DemoAgent, record: ThreadRecord, script: RunScript, text: str, now: datetime
    ) -> None:
        self.agent, self.record, self.script, self.text, self.now = agent, record, script, text, now
        #: Encrypted reasoning values the request carried back: reasoning message id -> value.
        self.returned: dict[str, str] = {}

    def call(self, name: str, arguments: JSON) -> PlannedCall:
        return PlannedCall(self.agent.new_id("call"), name, arguments)

    def run_now(self, call: PlannedCall) -> _bank.ToolOutcome:
        """A tool that needs no approval: run it inside this run and stream its result."""
        outcome = _bank.execute(call.name, call.arguments, self.record.state)
        self.agent.record_execution(self.record.thread_id, call.name, call.arguments)
        self.script.tool_result(call.id, outcome.result)
        if outcome.patch:
            self.record.state = jsonpatch.apply_patch(self.record.state, outcome.patch)
            self.script.state_delta(outcome.patch)
        return outcome

    def approval(
        self,
        call: PlannedCall,
        *,
        expires_in: float | None = None,
        message: str | None = None,
        metadata: JSON | None = None,
        subagent: tuple[str, str] | None = None,
    ) -> Interrupt:
        """Raise a tool_call interrupt for ``call`` (spec: patterns/interrupt-resume); raised
        inside ``subagent`` (its run id and name) when given."""
        expires_at = self.now + timedelta(seconds=expires_in) if expires_in is not None else None
        interrupt = Interrupt(
            subagent_run_id=subagent[0] if subagent else None,
            id=self.agent.new_id("int"),
            reason="tool_call",
            message=message or f"Approve: {_bank.describe_call(call.name, call.arguments)}?",
            tool_call_id=call.id,
            response_schema=approval_schema(_bank.TOOL_SCHEMAS[call.name]),
            expires_at=iso_utc(expires_at) if expires_at else None,
            metadata={"toolName": call.name, "arguments": call.arguments, **(metadata or {})},
        )
        self._pend(
            PendingAction(interrupt, "tool", call.arguments, call.name, expires_at, subagent)
        )
        return interrupt

    def ask(
        self, reason: str, message: str, schema: JSON, action: str, arguments: JSON
    ) -> Interrupt:
        """Raise a non-tool interrupt (input_required form, confirmation)."""
        interrupt = Interrupt(
            id=self.agent.new_id("int"),
            reason=reason,
            message=message,
            response_schema=schema,
            metadata={"action": action, "arguments": arguments},
        )
        kind: ActionKind = "form" if reason == "input_required" else "confirmation"
        self._pend(PendingAction(interrupt, kind, arguments))
        return interrupt

    def _pend(self, action: PendingAction) -> None:
        self.record.pending[action.id] = action


def approval_schema(arguments_schema: JSON) -> JSON:
    """The spec's recommended approval answer: approved, editedArgs (full replacement), reason."""
    return {
        "type": "object",
        "properties": {
            "approved": {"type": "boolean", "title": "Approve"},
            "editedArgs": arguments_schema,
            "reason": {"type": "string", "title": "Reason"},
        },
        "required": ["approved"],
        "additionalProperties": False,
    }


CONFIRMATION_SCHEMA: JSON = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["approved"],
    "additionalProperties": False,
}


# --- the scenarios, in the order of the module docstring's table ----------------------------------


def _deliberate_error(turn: _Turn) -> None:
    turn.script.say_partially("Let me look into that for you. Checking the ledger now")
    turn.script.fail(DEMO_ERROR, "The demo agent failed on purpose (you asked for an error).")


def _hostile(turn: _Turn) -> None:
    arguments = hostile_arguments()
    call = turn.call("update_payee", arguments)
    turn.script.say(
        f"I'll save the payee {arguments['payee_name']}. {arguments['note']} Approve below.",
        [call],
    )
    interrupt = turn.approval(
        call,
        message=f"Save payee {arguments['payee_name']}? {arguments['note']} {arguments['website']}",
        metadata={"html": "<img src=x onerror=alert(1)>", "link": arguments["website"]},
    )
    turn.script.finish([interrupt])


def _delegate(turn: _Turn) -> None:
    """A subagent with an approval inside it (spec: events/subagents, interrupts)."""
    call = turn.call("transfer_money", _bank.transfer_args(turn.text, default_amount=75.0))
    specialist = (turn.agent.new_id("sub"), "payments")
    turn.script.say("I'll hand this to the payments specialist.")
    interrupt = turn.approval(call, subagent=specialist)
    with turn.script.subagent(*specialist, suspended_on=[interrupt.id]):
        turn.script.say(
            f"Payments specialist here. I'll {_bank.describe_call(call.name, call.arguments)}; "
            "that needs your approval.",
            [call],
        )
    turn.script.finish([interrupt])


def _statement(turn: _Turn) -> None:
    """A tool result made of content parts: text, an inline PNG and a CSV document."""
    accounts = _bank.accounts_in(turn.text)
    account = accounts[0] if accounts else _bank.CHECKING
    call = turn.call("get_statement", {"account": account})
    turn.script.say("Here is your statement.", [call])
    balances = turn.record.state["balances"]
    turn.agent.record_execution(turn.record.thread_id, call.name, call.arguments)
    png = base64.b64encode(_media.balance_chart_png(balances)).decode()
    csv = base64.b64encode(_media.statement_csv(balances)).decode()
    turn.script.tool_result_parts(
        call.id,
        [
            {
                "type": "text",
                "text": f"Statement for {account}: {_bank.money(balances.get(account, 0.0))}.",
            },
            {
                "type": "image",
                "source": {"type": "data", "value": png, "mimeType": "image/png"},
                "metadata": {"title": "Balances by account", "alt": "A bar per account"},
            },
            {
                "type": "document",
                "source": {"type": "data", "value": csv, "mimeType": "text/csv"},
                "metadata": {"filename": f"statement-{account}.csv", "title": "Statement"},
            },
        ],
    )
    turn.script.say("The chart and the CSV are attached to the get_statement result.")
    turn.script.finish()


def _private_reasoning(turn: _Turn) -> None:
    """Reasoning with an encrypted value the client must keep and return (spec: reasoning)."""
    issued = dict(turn.record.signatures)
    intact = sum(1 for mid, value in issued.items() if turn.returned.get(mid) == value)
    digest = hashlib.sha256(f"{turn.record.thread_id}:{len(issued)}".encode()).digest()
    value = base64.b64encode(digest).decode()
    reasoning_id = turn.script.reason(
        PRIVATE_REASONING_TEXT, signature=(value, "demo.reasoning-signature")
    )
    turn.record.signatures[reasoning_id] = value
    turn.script.say(
        "I kept part of my reasoning private; your client holds it signed and must send it back "
        f"unchanged. Earlier signed reasoning returned intact: {intact} of {len(issued)}."
    )
    turn.script.finish()


PRIVATE_REASONING_TEXT = "Summary only: I checked the balances; the details stay encrypted."


def _two_approvals(turn: _Turn) -> None:
    transfer = turn.call("transfer_money", _bank.transfer_args(turn.text, default_amount=200.0))
    cancel = turn.call("cancel_subscription", {"subscription_id": _bank.DEFAULT_SUBSCRIPTION})
    turn.script.say(
        "Two things need your approval: a transfer and a cancellation.", [transfer, cancel]
    )
    turn.script.finish([turn.approval(transfer), turn.approval(cancel)])


def _pay_bills(turn: _Turn) -> None:
    bill = turn.call(
        "transfer_money",
        {
            "from_account": _bank.CHECKING,
            "to_account": _bank.UTILITY_PAYEE,
            "amount": 120.5,
            "currency": "USD",
        },
    )
    balance = turn.call("check_balance", {"account": _bank.CHECKING})
    turn.script.say(
        "Your electricity bill is 120.50 USD. I'll check your balance and prepare the payment.",
        [bill, balance],
    )
    outcome = turn.run_now(balance)
    turn.script.say(f"{outcome.summary} The bill payment needs your approval.")
    turn.script.finish([turn.approval(bill)])


def _schedule(turn: _Turn) -> None:
    turn.script.say("Sure, I can schedule a payment. I need a few details first.")
    interrupt = turn.ask(
        "input_required",
        "When should the payment go out, how much, and what is it for?",
        _bank.SCHEDULE_FORM_SCHEMA,
        "schedule_payment",
        {},
    )
    turn.script.finish([interrupt])


def _expiring(turn: _Turn) -> None:
    call = turn.call("transfer_money", _bank.transfer_args(turn.text, default_amount=50.0))
    seconds = turn.agent.options.expires_in
    turn.script.say(f"Quick transfer ready. This approval expires in {seconds:g} seconds.", [call])
    turn.script.finish([turn.approval(call, expires_in=seconds)])


def _close_account(turn: _Turn) -> None:
    accounts = _bank.accounts_in(turn.text)
    account = accounts[0] if accounts else _bank.BUSINESS
    turn.script.say(f"Closing account {account} cannot be undone, so I need your confirmation.")
    interrupt = turn.ask(
        "confirmation",
        f"Close account {account}? This cannot be undone.",
        CONFIRMATION_SCHEMA,
        "close_account",
        {"account": account},
    )
    turn.script.finish([interrupt])


def _cancel_subscription(turn: _Turn) -> None:
    sub_id = _bank.subscription_in(turn.text, turn.record.state)
    call = turn.call("cancel_subscription", {"subscription_id": sub_id})
    turn.script.say(f"I can cancel {sub_id} for you once you approve.", [call])
    turn.script.finish([turn.approval(call)])


def _transfer(turn: _Turn) -> None:
    call = turn.call("transfer_money", _bank.transfer_args(turn.text))
    turn.script.say(
        f"I'll {_bank.describe_call(call.name, call.arguments)}. This needs your approval.", [call]
    )
    turn.script.finish([turn.approval(call)])


def _balance(turn: _Turn) -> None:
    accounts = _bank.accounts_in(turn.text)
    call = turn.call("check_balance", {"account": accounts[0] if accounts else _bank.CHECKING})
    turn.script.say("Let me check that balance.", [call])
    outcome = turn.run_now(call)
    turn.script.say(outcome.summary)
    turn.script.finish()


def _reasoning(turn: _Turn) -> None:
    balances = turn.record.state["balances"]
    total = sum(balances.values())
    turn.script.reason(REASONING_TEXT)
    turn.script.say(
        f"Across your {len(balances)} accounts you hold {_bank.money(total)}. "
        "Keeping three months of expenses in savings is a sensible target."
    )
    turn.script.finish()


def _story(turn: _Turn) -> None:
    turn.script.say(STORY_TEXT)
    turn.script.finish()


def _help(turn: _Turn) -> None:
    turn.script.say(HELP_TEXT)
    turn.script.finish()


SCENARIOS: list[tuple[tuple[str, ...], Scenario]] = [
    (("error", "fail"), _deliberate_error),
    (("hostile",), _hostile),
    (("delegate", "specialist"), _delegate),
    (("statement",), _statement),
    (("private",), _private_reasoning),
    (("two transfers", "two approvals", "move money and cancel"), _two_approvals),
    (("pay bills", "bills"), _pay_bills),
    (("schedule",), _schedule),
    (("expir", "quick"), _expiring),
    (("month-end", "month end", "progress", "checklist"), _generative.month_end),
    (("transfer form", "payment form", "a form"), _generative.transfer_form),
    (("close account",), _close_account),
    (("cancel subscription", "unsubscribe"), _cancel_subscription),
    (("transfer", "send money"), _transfer),
    (("balance",), _balance),
    (("think", "reason"), _reasoning),
    (("long", "story"), _story),
]


def pick_scenario(text: str) -> Scenario:
    lowered = text.lower()
    for keywords, scenario in SCENARIOS:
        if any(keyword in lowered for keyword in keywords):
            return scenario
    return _help


def _refuse(script: RunScript, refusal: Refusal) -> None:
    """RUN_STARTED then RUN_ERROR with a stable code; the thread is left exactly as it was."""
    script.start()
    script.fail(refusal.code, refusal.message)


def _last_user_message(run_input: RunAgentInput) -> UserMessage | None:
    for message in reversed(run_input.messages):
        if isinstance(message, UserMessage):
            return message
    return None


def _returned_signatures(run_input: RunAgentInput) -> dict[str, str]:
    """The encrypted reasoning values the request's history carries: message id -> value."""
    return {
        m.id: m.encrypted_value
        for m in run_input.messages
        if isinstance(m, ReasoningMessage) and m.encrypted_value is not None
    }


def _text_of(message: UserMessage | None) -> str:
    """A user message's text: a string, or the text parts of a multimodal content list."""
    if message is None:
        return ""
    if isinstance(message.content, str):
        return message.content
    return " ".join(str(getattr(part, "text", "")) for part in message.content)
