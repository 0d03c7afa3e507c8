"""An agent's capabilities document (AG-UI ``AgentCapabilities``): parsed, unknown fields kept.

The shape is ``ag_ui.core.AgentCapabilities`` of ag-ui-protocol 1.0 (identity, transport, tools,
output, state, multiAgent, reasoning, multimodal, execution, humanInTheLoop, custom), camelCase
on the wire and snake_case here. It is declared in this module rather than imported because the
0.1 line (which some servers' adapters pin) spells parts of it differently (``subAgents``, no
``interrupts``): one type under both lines. Every field is optional: an omitted one is
undeclared (unknown), not unsupported.

:func:`parse_capabilities` reads the document's JSON text: not JSON, not an object, or a known
field of the wrong type is a :class:`ProtocolError`; an unknown field is kept (``model_extra``)
and named in a warning, as unknown event fields are.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from .._errors import ProtocolError

__all__ = [
    "AgentCapabilities",
    "ExecutionCapabilities",
    "HumanInTheLoopCapabilities",
    "IdentityCapabilities",
    "MultiAgentCapabilities",
    "MultimodalCapabilities",
    "MultimodalInputCapabilities",
    "MultimodalOutputCapabilities",
    "OutputCapabilities",
    "ReasoningCapabilities",
    "StateCapabilities",
    "SubagentInfo",
    "ToolsCapabilities",
    "TransportCapabilities",
    "parse_capabilities",
]


class _Part(BaseModel):
    model_config = ConfigDict(extra="allow", alias_generator=to_camel, populate_by_name=True)

    def declared(self) -> dict[str, Any]:
        """What the server declared, camelCase, as sent (unknown fields too)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class SubagentInfo(_Part):
    name: str
    description: str | None = None


class IdentityCapabilities(_Part):
    name: str | None = None
    type: str | None = None
    description: str | None = None
    version: str | None = None
    provider: str | None = None
    documentation_url: str | None = None
    metadata: dict[str, Any] | None = None


class TransportCapabilities(_Part):
    streaming: bool | None = None
    websocket: bool | None = None
    http_binary: bool | None = None
    push_notifications: bool | None = None
    resumable: bool | None = None


class ToolsCapabilities(_Part):
    supported: bool | None = None
    #: The tools the agent provides itself (AG-UI Tool shapes: name, description, parameters).
    items: list[dict[str, Any]] | None = None
    parallel_calls: bool | None = None
    client_provided: bool | None = None


class OutputCapabilities(_Part):
    structured_output: bool | None = None
    supported_mime_types: list[str] | None = None


class StateCapabilities(_Part):
    snapshots: bool | None = None
    deltas: bool | None = None
    memory: bool | None = None
    persistent_state: bool | None = None


class MultiAgentCapabilities(_Part):
    supported: bool | None = None
    delegation: bool | None = None
    handoffs: bool | None = None
    subagents: list[SubagentInfo] | None = None


class ReasoningCapabilities(_Part):
    supported: bool | None = None
    streaming: bool | None = None
    encrypted: bool | None = None


class MultimodalInputCapabilities(_Part):
    image: bool | None = None
    audio: bool | None = None
    video: bool | None = None
    pdf: bool | None = None
    file: bool | None = None


class MultimodalOutputCapabilities(_Part):
    image: bool | None = None
    audio: bool | None = None


class MultimodalCapabilities(_Part):
    input: MultimodalInputCapabilities | None = None
    output: MultimodalOutputCapabilities | None = None


class ExecutionCapabilities(_Part):
    code_execution: bool | None = None
    sandboxed: bool | None = None
    max_iterations: int | None = Field(default=None, ge=0)
    max_execution_time: int | None = Field(default=None, ge=0)


class HumanInTheLoopCapabilities(_Part):
    supported: bool | None = None
    approvals: bool | None = None
    interventions: bool | None = None
    feedback: bool | None = None
    interrupts: bool | None = None
    approve_with_edits: bool | None = None


class AgentCapabilities(_Part):
    """What an agent declares about itself; ``None`` everywhere it declares nothing."""

    identity: IdentityCapabilities | None = None
    transport: TransportCapabilities | None = None
    tools: ToolsCapabilities | None = None
    output: OutputCapabilities | None = None
    state: StateCapabilities | None = None
    multi_agent: MultiAgentCapabilities | None = None
    reasoning: ReasoningCapabilities | None = None
    multimodal: MultimodalCapabilities | None = None
    execution: ExecutionCapabilities | None = None
    human_in_the_loop: HumanInTheLoopCapabilities | None = None
    custom: dict[str, Any] | None = None

    @property
    def declines_human_in_the_loop(self) -> bool:
        """True when the server says outright that it has no human-in-the-loop support
        (``humanInTheLoop.supported`` is false); an undeclared field says nothing."""
        hitl = self.human_in_the_loop
        return hitl is not None and hitl.supported is False

    def describe(self) -> str:
        """A few lines: each declared category and what it declares (for a person to read)."""
        declared = self.declared()
        if not declared:
            return "AgentCapabilities: nothing declared"
        lines = ["AgentCapabilities:"]
        for key, value in declared.items():
            text = json.dumps(value, separators=(", ", ": "), ensure_ascii=False)
            lines.append(f"  {key}: {text if len(text) <= 160 else text[:157] + '...'}")
        return "\n".join(lines)


def parse_capabilities(text: str, warn: Callable[[str], None], *, where: str) -> AgentCapabilities:
    """The document at ``where`` as :class:`AgentCapabilities`; unknown fields kept, each
    named once through ``warn``. Raises :class:`ProtocolError` for anything not a document."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        excerpt = text[:120] + ("..." if len(text) > 120 else "")
        raise ProtocolError(
            f"the capabilities document from {where} is not JSON ({exc}): {excerpt!r}"
        ) from None
    if not isinstance(data, dict):
        raise ProtocolError(
            f"the capabilities document from {where} is not a JSON object "
            f"(got {type(data).__name__})"
        )
    try:
        capabilities = AgentCapabilities.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        raise ProtocolError(
            f"the capabilities document from {where} is invalid: {problems}"
        ) from None
    unknown = sorted(set(_unknown(capabilities, "")))
    if unknown:
        warn(
            f"the capabilities document from {where} has fields this client does not know "
            f"(kept as sent): {', '.join(unknown)}"
        )
    return capabilities


def _unknown(model: BaseModel, path: str) -> list[str]:
    out = [f"{path}{key}" for key in model.model_extra or {}]
    for name in type(model).model_fields:
        value = getattr(model, name)
        alias = to_camel(name)
        children = value if isinstance(value, list) else [value]
        for child in children:
            if isinstance(child, BaseModel):
                out += _unknown(child, f"{path}{alias}.")
    return out
