"""The replay policy: interrupts answered, in order, as the recording's resumes answered them.

Each resume entry a recording sent becomes the decision that produces it (the inverse of
``_decisions.decision``'s entries); ``replay_policy`` hands them out one per interrupt. Running
out is an error, not a guess.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._decisions.decision import Decision, answer, approve, cancel, edit, reject
from .._decisions.interrupts import PendingInterrupt
from ..policies import Policy
from .file import load_recording

__all__ = ["decision_from_entry", "replay_policy"]


def decision_from_entry(entry: Mapping[str, Any]) -> Decision:
    """A recorded resume entry as the decision that produces it (the inverse of _decisions)."""
    if entry.get("status") == "cancelled":
        return cancel()
    payload = entry.get("payload")
    if isinstance(payload, dict):
        flags = [k for k in ("approved", "accepted") if isinstance(payload.get(k), bool)]
        if flags:
            approved = payload[flags[0]]
            rest = {k: v for k, v in payload.items() if k not in ("approved", "accepted", "reason")}
            if not approved:
                reason = payload.get("reason")
                return reject(reason if isinstance(reason, str) else None)
            if isinstance(rest.get("editedArgs"), dict) and len(rest) == 1:
                return edit(rest["editedArgs"])
            if rest and "editedArgs" not in rest:
                return edit(rest)  # arguments as flat properties (Microsoft Agent Framework)
            if not rest:
                return approve()
    return answer(payload)


@dataclass
class _ReplayPolicy:
    decisions: list[Decision]
    name: str
    used: int = 0

    def decide(self, interrupt: PendingInterrupt) -> Decision | None:
        if self.used >= len(self.decisions):
            raise LookupError(
                f"the recording has no decision left for interrupt {interrupt.id} "
                f"({interrupt.tool_name or interrupt.reason}); it had {len(self.decisions)}"
            )
        decision = self.decisions[self.used]
        self.used += 1
        return decision


def replay_policy(path: str | os.PathLike[str]) -> Policy:
    """A policy answering interrupts, in order, as the recording's resume requests did.

    >>> chat = agent.chat(policy=replay_policy("chat.jsonl"))    # doctest: +SKIP

    Also ``AGUI_NOTEBOOK_POLICY=replay:chat.jsonl``. Running out of recorded decisions is an
    error, not a guess.
    """
    _, exchanges = load_recording(path)
    decisions: list[Decision] = []
    for exchange in exchanges:
        body = exchange.request.get("body")
        resume = body.get("resume") if isinstance(body, dict) else None
        for entry in resume or []:
            if isinstance(entry, dict):
                decisions.append(decision_from_entry(entry))
    return _ReplayPolicy(decisions, f"replay:{Path(path).name}")
