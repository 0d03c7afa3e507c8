"""PendingInterrupt: an AG-UI interrupt with what a person needs to decide it. Pure.

The wire ``Interrupt`` names a ``toolCallId``; the tool's name and arguments live elsewhere (the
TOOL_CALL_* events, or server-specific metadata). This module resolves them once, when the run
that raised the interrupt finishes, so cards and policies read one shape whatever the server.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from .._frameworks.adk import CONFIRMATION_SCHEMA, tool_confirmation
from .._frameworks.crewai import reviewed_call
from .._frameworks.langgraph import tool_and_message

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
        name, args = _tool_from_metadata(metadata)
        message = interrupt.message
        tool_call_id, schema = interrupt.tool_call_id, interrupt.response_schema
        adk = tool_confirmation(interrupt.reason, metadata)
        if adk is not None:
            # Google ADK: the interrupt names its confirmation call; the tool call is the gated one.
            tool_call_id, name, args = adk
            schema = schema or CONFIRMATION_SCHEMA
        crewai = reviewed_call(interrupt.reason, metadata) if name is None else None
        if crewai is not None:
            # CrewAI: a flow pause whose reviewed output names a tool call.
            tool_call_id, name, args = crewai[0] or tool_call_id, crewai[1], crewai[2]
        if name is None:
            # LangGraph: what its interrupt() value carries, the same in both of its styles.
            name, args, question = tool_and_message(metadata)
            args = _maybe_json(args)
            message = message if message is not None else question
        call = tool_calls.get(tool_call_id) if tool_call_id else None
        if call is not None:
            name = call.name or name
            if call.arguments is not None:
                args = call.arguments
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


def _tool_from_metadata(metadata: dict[str, Any] | None) -> tuple[str | None, Any]:
    """Tool name and arguments from metadata shapes real servers use."""
    if not metadata:
        return None, None
    # Microsoft Agent Framework: metadata.agent_framework.function_call.{name, arguments}
    framework = metadata.get("agent_framework")
    if isinstance(framework, dict) and isinstance(framework.get("function_call"), dict):
        call = framework["function_call"]
        return _str_or_none(call.get("name")), _maybe_json(call.get("arguments"))
    # The demo agent and others: flat toolName / arguments
    name = metadata.get("toolName") or metadata.get("tool_name")
    if name is not None:
        return _str_or_none(name), _maybe_json(metadata.get("arguments"))
    return None, None


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _maybe_json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
