"""PendingInterrupt: an AG-UI interrupt with what a person needs to decide it. Pure.

The wire ``Interrupt`` names a ``toolCallId``; the tool's name and arguments live elsewhere (the
TOOL_CALL_* events, or server-specific metadata, which the framework registry reads). This module
resolves them once, when the run that raised the interrupt finishes, so cards and policies read
one shape whatever the server.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from .._frameworks import registry

__all__ = ["PendingInterrupt", "parse_expiry"]


def parse_expiry(value: str | None) -> datetime | None:
    """Read ``expiresAt`` as ISO 8601 (``Z`` accepted); None when absent or unreadable.

    The spec leaves the format open: a value we cannot read is not judged expired.
    """
    if not value:
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed


@dataclass(frozen=True)
class PendingInterrupt:
    """An interrupt waiting for an answer.

    >>> it = thread.pending[0]          # doctest: +SKIP
    >>> it.tool_name, it.arguments      # doctest: +SKIP
    ('transfer_money', {'amount': 500, ...})
    """

    id: str
    reason: str
    message: str | None = None
    tool_call_id: str | None = None
    tool_name: str | None = None
    #: The tool call's arguments as the agent proposed them (a dict when they parse).
    arguments: Any = None
    response_schema: dict[str, Any] | None = None
    expires_at: datetime | None = None
    expires_at_raw: str | None = None
    metadata: dict[str, Any] | None = None
    #: The subagent invocation that raised it (None: the parent agent), and that subagent's name
    #: when the stream announced it (SUBAGENT_STARTED).
    subagent_run_id: str | None = None
    subagent_name: str | None = None
    run_id: str | None = None
    #: True when the server raised again an interrupt id this client had already answered.
    reissued: bool = False
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def is_expired(self, now: datetime | None = None) -> bool:
        """True when ``expiresAt`` is now or earlier (then it can only be cancelled)."""
        if self.expires_at is None:
            return False
        return (now or datetime.now(timezone.utc)) >= self.expires_at

    @property
    def is_tool_approval(self) -> bool:
        return self.tool_name is not None and self.reason in ("tool_call", "function_approval")

    @classmethod
    def from_wire(
        cls,
        interrupt: Any,
        *,
        run_id: str | None,
        tool_calls: dict[str, Any],
        reissued: bool = False,
        subagents: dict[str, Any] | None = None,
    ) -> PendingInterrupt:
        """Build from an ``ag_ui.core.Interrupt`` and the thread's known tool calls."""
        metadata = interrupt.metadata if isinstance(interrupt.metadata, dict) else None
        message = interrupt.message
        tool_call_id, schema = interrupt.tool_call_id, interrupt.response_schema
        name: str | None = None
        args: Any = None
        described = registry.describe(interrupt.reason, metadata)
        if described is not None:
            # What the server's own metadata names (Microsoft's function_call, ADK's gated call,
            # a CrewAI step's reviewed call, a LangGraph interrupt's value...).
            name, args = described.tool_name, described.arguments
            tool_call_id = described.tool_call_id or tool_call_id
            schema = schema or described.response_schema
            message = message if message is not None else described.question
        call = tool_calls.get(tool_call_id) if tool_call_id else None
        if call is not None:
            name = call.name or name
            parsed = call.arguments  # parsed from its text on each read
            if parsed is not None:
                args = parsed
        subagent = getattr(interrupt, "subagent_run_id", None)
        known = (subagents or {}).get(subagent) if subagent else None
        return cls(
            id=interrupt.id,
            reason=interrupt.reason,
            message=message,
            tool_call_id=tool_call_id,
            tool_name=name,
            arguments=args,
            response_schema=schema,
            expires_at=parse_expiry(interrupt.expires_at),
            expires_at_raw=interrupt.expires_at,
            metadata=metadata,
            subagent_run_id=subagent,
            subagent_name=getattr(known, "name", None),
            run_id=run_id,
            reissued=reissued,
            raw=interrupt.model_dump(by_alias=True, exclude_none=True),
        )
