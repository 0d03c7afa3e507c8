"""pydantic-ai's AG-UI adapter (``AGUIAdapter``, pydantic-ai-slim 2.x). Pure.
See docs/compatibility.md, "pydantic-ai".

A denied (or cancelled) call is answered with a TOOL_CALL_RESULT carrying the denial's text, for
the model to read, followed by a REASONING_ENCRYPTED_VALUE on that result message whose value is
``{"pydantic_ai": {"outcome": "denied"}}``. The marker, not the text, tells such a result from a
run of the tool.
"""

from __future__ import annotations

import json

from .dialect import Dialect, ToolReport

__all__ = ["PydanticAIDialect", "marked_outcome"]


def marked_outcome(encrypted_value: str | None) -> str | None:
    """The ``outcome`` pydantic-ai marked a tool result with, if any."""
    if not encrypted_value or "pydantic_ai" not in encrypted_value:
        return None
    try:
        marker = json.loads(encrypted_value)
    except ValueError:
        return None
    inner = marker.get("pydantic_ai") if isinstance(marker, dict) else None
    outcome = inner.get("outcome") if isinstance(inner, dict) else None
    return outcome if isinstance(outcome, str) else None


class PydanticAIDialect(Dialect):
    name = "pydantic-ai"

    def result_outcome(self, result: ToolReport) -> str | None:
        return "denied" if marked_outcome(result.encrypted_value) == "denied" else None
