"""Headless decisions: who answers an interrupt when nobody clicks. Pure.

A policy looks at one pending interrupt and returns a decision, or ``None`` to leave it to a
person (or to the wait's timeout default). A policy may also answer A2UI surfaces: an ``act``
method gets each surface with actions once it is shown (and again when it changes) and returns a
:class:`~agui_notebook.SurfaceAction` (what to type, which button to press) or ``None``. Pass one to ``agent.chat(policy=...)``, or set the
environment variable ``AGUI_NOTEBOOK_POLICY`` so nbval, papermill and CI runs need no code change
(kernels inherit the runner's environment):

=================================  ==========================================================
``AGUI_NOTEBOOK_POLICY``           policy
=================================  ==========================================================
``approve``                        :func:`approve_all`
``reject`` / ``reject:<reason>``   :func:`reject_all`
``cancel``                         :func:`cancel_all`
``script:<d1>;<d2>;...``           :func:`scripted`; each ``approve``, ``reject[:reason]``,
                                   ``cancel``, ``edit:<json object>``, ``answer:<json>``, or
                                   ``act:<name>[:<json object of pointer: value>]`` (an A2UI
                                   surface's action, see :func:`agui_notebook.act`)
``rules:<path.json>``              :func:`rules` from a JSON list of
                                   ``{"tool": glob, "args": {...}, "decision": ..., "reason": ...}``
``replay:<path.jsonl>``            decisions as recorded (see ``agui_notebook.record``)
=================================  ==========================================================

>>> from agui_notebook import policies, reject
>>> chat = agent.chat(policy=policies.rules(                      # doctest: +SKIP
...     {"tool": "check_*", "decision": "approve"},
...     {"tool": "transfer_money", "when": lambda a: a["amount"] <= 100, "decision": "approve"},
...     default=reject("needs a human"),
... ))
"""

from __future__ import annotations

import fnmatch
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ._decisions.decision import Decision, answer, approve, cancel, edit, reject
from ._decisions.interrupts import PendingInterrupt
from ._state.a2ui import Surface, SurfaceAction, act

__all__ = [
    "ENV_VAR",
    "Policy",
    "SurfacePolicy",
    "approve_all",
    "cancel_all",
    "from_env",
    "parse",
    "reject_all",
    "rules",
    "scripted",
]

ENV_VAR = "AGUI_NOTEBOOK_POLICY"


@runtime_checkable
class Policy(Protocol):
    """Decides interrupts without a person. ``name`` is shown on cards ("by policy: <name>").

    A policy with ``override_checks = True`` has its approvals sent although a chat's check
    failed (the audit says so); without it such an approval raises ``CheckFailed``.
    """

    name: str

    def decide(self, interrupt: PendingInterrupt) -> Decision | None: ...


@runtime_checkable
class SurfacePolicy(Protocol):
    """A policy that also answers A2UI surfaces (the chat calls ``act`` when it has one)."""

    name: str

    def act(self, surface: Surface) -> SurfaceAction | None: ...


Step = Decision | SurfaceAction


@dataclass
class _Constant:
    name: str
    decision: Decision
    override_checks: bool = False

    def decide(self, interrupt: PendingInterrupt) -> Decision | None:
        return self.decision


def approve_all(*, override_checks: bool = False) -> Policy:
    """Approve every interrupt as proposed (``override_checks``: also calls whose check
    failed, see :class:`Policy`)."""
    return _Constant("approve-all", approve(), override_checks)


def reject_all(reason: str | None = None) -> Policy:
    """Reject every interrupt (with ``reason`` where the agent accepts one)."""
    return _Constant("reject-all", reject(reason))


def cancel_all() -> Policy:
    """Cancel (abandon) every interrupt."""
    return _Constant("cancel-all", cancel())


@dataclass
class _Scripted:
    decisions: list[Step]
    name: str = "scripted"
    used: int = 0
    override_checks: bool = False

    def decide(self, interrupt: PendingInterrupt) -> Decision | None:
        if self.used >= len(self.decisions):
            raise LookupError(
                f"the scripted policy has no decision left for interrupt {interrupt.id} "
                f"({interrupt.tool_name or interrupt.reason}); it had {len(self.decisions)}"
            )
        decision = self.decisions[self.used]
        if isinstance(decision, SurfaceAction):
            raise LookupError(
                f"the scripted policy's next step is {decision} (step {self.used + 1}), but "
                f"interrupt {interrupt.id} ({interrupt.tool_name or interrupt.reason}) came first"
            )
        self.used += 1
        return decision

    def act(self, surface: Surface) -> SurfaceAction | None:
        """The next step when it is a surface action for ``surface``; else leave it alone."""
        if self.used >= len(self.decisions):
            return None
        step = self.decisions[self.used]
        if not isinstance(step, SurfaceAction) or step.surface not in (None, surface.id):
            return None
        self.used += 1
        return step


def scripted(
    decisions: Iterable[Step], name: str = "scripted", *, override_checks: bool = False
) -> Policy:
    """Use ``decisions`` in order, one per interrupt; running out is an error, not a guess.

    Steps may also be surface actions (:func:`agui_notebook.act`): each answers the next A2UI
    surface with actions that the agent shows, in the same order as the run asks.
    ``override_checks``: see :class:`Policy`.
    """
    return _Scripted(list(decisions), name, override_checks=override_checks)


@dataclass
class _Rule:
    tool: str | None
    args: Mapping[str, Any]
    when: Callable[[Any], bool] | None
    decision: Decision
    reason: str | None = None

    def matches(self, interrupt: PendingInterrupt) -> bool:
        name = interrupt.tool_name
        if self.tool is not None and (name is None or not fnmatch.fnmatchcase(name, self.tool)):
            return False
        arguments = interrupt.arguments if isinstance(interrupt.arguments, dict) else {}
        if any(arguments.get(k) != v for k, v in self.args.items()):
            return False
        return self.when is None or bool(self.when(arguments))


@dataclass
class _Rules:
    rules: list[_Rule]
    default: Decision | None
    name: str = "rules"
    matched: list[int] = field(default_factory=list)
    override_checks: bool = False

    def decide(self, interrupt: PendingInterrupt) -> Decision | None:
        for index, rule in enumerate(self.rules):
            if rule.matches(interrupt):
                self.matched.append(index)
                return rule.decision
        return self.default


def rules(
    *specs: Mapping[str, Any],
    default: Decision | None = None,
    name: str = "rules",
    override_checks: bool = False,
) -> Policy:
    """First matching rule decides; ``default`` (or a person) decides the rest.

    A rule is ``{"tool": glob, "args": {key: value}, "when": callable(args) -> bool,
    "decision": Decision | "approve" | "reject" | "cancel", "reason": str}``; every key but
    ``decision`` is optional. ``override_checks``: see :class:`Policy`.
    """
    return _Rules([_rule(spec) for spec in specs], default, name, override_checks=override_checks)


def _rule(spec: Mapping[str, Any]) -> _Rule:
    unknown = set(spec) - {"tool", "args", "when", "decision", "reason"}
    if unknown:
        raise ValueError(f"unknown rule key(s) {sorted(unknown)}")
    decision = spec.get("decision")
    if isinstance(decision, str):
        decision = _decision_from_text(decision, spec.get("reason"))
    if not isinstance(decision, Decision):
        raise ValueError(f"a rule needs a decision, got {decision!r}")
    return _Rule(spec.get("tool"), dict(spec.get("args") or {}), spec.get("when"), decision)


def _step_from_text(text: str) -> Step:
    """A script step: a decision, or ``act:<name>[:<json object of pointer: value>]``."""
    kind, _, rest = text.partition(":")
    if kind.strip().lower() != "act":
        return _decision_from_text(text)
    name, _, values = rest.partition(":")
    parsed = json.loads(values) if values.strip() else {}
    if not isinstance(parsed, dict):
        raise ValueError("act:<name>:<json> needs a JSON object of JSON Pointer -> value")
    return act(name.strip() or None, parsed)


def _decision_from_text(text: str, reason: str | None = None) -> Decision:
    kind, _, rest = text.partition(":")
    kind = kind.strip().lower()
    if kind == "approve":
        return approve()
    if kind == "reject":
        return reject(rest or reason or None)
    if kind == "cancel":
        return cancel()
    if kind == "edit":
        value = json.loads(rest)
        if not isinstance(value, dict):
            raise ValueError("edit:<json> needs a JSON object")
        return edit(value)
    if kind == "answer":
        return answer(json.loads(rest))
    raise ValueError(
        f"unknown decision {text!r} (approve, reject[:reason], cancel, edit:{{...}}, answer:<json>)"
    )


#: Text forms that layers above this module add, so that it never imports them: ``replay:``
#: belongs to recording and is registered by the package's ``__init__``.
_KINDS: dict[str, Callable[[str], Policy]] = {}


def register_kind(kind: str, make: Callable[[str], Policy]) -> None:
    """Let :func:`parse` (and ``AGUI_NOTEBOOK_POLICY``) read ``<kind>:<rest>`` as ``make(rest)``."""
    _KINDS[kind.lower()] = make


def parse(spec: str) -> Policy:
    """A policy from its text form (the values of ``AGUI_NOTEBOOK_POLICY``)."""
    kind, _, rest = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "approve":
        return approve_all()
    if kind == "reject":
        return reject_all(rest or None)
    if kind == "cancel":
        return cancel_all()
    if kind == "script":
        return scripted([_step_from_text(p) for p in rest.split(";") if p.strip()])
    if kind == "rules":
        with open(rest, encoding="utf-8") as fh:
            specs = json.load(fh)
        return rules(*specs, name=f"rules:{os.path.basename(rest)}")
    if kind in _KINDS:
        return _KINDS[kind](rest)
    raise ValueError(
        f"unknown policy {spec!r}: use approve, reject[:reason], cancel, script:..., "
        "rules:<file.json> or replay:<file.jsonl>"
    )


def from_env(environ: Mapping[str, str] | None = None) -> Policy | None:
    """The policy named by ``AGUI_NOTEBOOK_POLICY``, or None when it is unset or empty."""
    value = (environ if environ is not None else os.environ).get(ENV_VAR, "").strip()
    return parse(value) if value else None
