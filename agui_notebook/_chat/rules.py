"""Who may decide a chat's cards without a person, and how long a person has. Pure.

One object per chat, owned by the :class:`~agui_notebook._chat.chat.Chat` (whose ``policy``,
``timeout``, ``on_timeout`` and ``always_allow`` read and write it) and lent to the card deck and
the decider, so a change made between turns (``chat.policy = ...``) reaches both at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from .._decisions.interrupts import PendingInterrupt
from .._decisions.quorum import Approvals, check_approvals, needed_for
from ..policies import Policy

__all__ = ["ChatRules", "TimeoutDefault"]

TimeoutDefault = Literal["cancel", "reject"]


@dataclass
class ChatRules:
    #: Decides without a person (``agent.chat(policy=...)`` or ``AGUI_NOTEBOOK_POLICY``).
    policy: Policy | None
    #: Seconds any wait for a person may take; then :attr:`on_timeout` applies.
    timeout: float
    on_timeout: TimeoutDefault
    #: Tools a person chose to always allow in this chat.
    always_allow: set[str] = field(default_factory=set)
    #: Different people who must approve the same arguments before an approval goes out
    #: (or per tool-name glob: ``{"transfer_*": 2}``).
    approvals: Approvals = 1

    def __post_init__(self) -> None:
        if self.on_timeout not in ("cancel", "reject"):
            raise ValueError("on_timeout must be 'cancel' or 'reject'")
        self.approvals = check_approvals(self.approvals)

    def needed(self, interrupts: Iterable[PendingInterrupt]) -> int:
        """Approvers a card for these interrupts needs."""
        return needed_for(self.approvals, (i.tool_name for i in interrupts))
