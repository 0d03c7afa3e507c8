"""Microsoft Agent Framework's AG-UI adapter (``agent-framework-ag-ui`` 1.7). Pure.
See docs/compatibility.md, "Microsoft Agent Framework".

It adds a synthetic ``confirm_changes`` tool call beside every approval. That call never gets a
result and is not a tool to show or to approve. Echoed back in a later request's history, the
server strips only the first per message and answers the others with a phantom "Tool execution
skipped" result, which the model then reads; so the history we send leaves them out. The tool an
approval is about is in ``metadata.agent_framework.function_call`` (``{name, arguments}``).
A rejected call gets a tool message (in the resumed run's MESSAGES_SNAPSHOT) whose text says so:
the server's report of the denial, not a run of the tool.
"""

from __future__ import annotations

from typing import Any

from .dialect import Described, Dialect, ToolReport, json_or_text

__all__ = ["REJECTED_TEXT", "MicrosoftDialect"]

#: The tool message the framework answers a rejected call with (``_approval_lifecycle``).
REJECTED_TEXT = "Error: Tool call invocation was rejected by user."


class MicrosoftDialect(Dialect):
    name = "microsoft-agent-framework"
    synthetic_tools = frozenset({"confirm_changes"})
    hidden_tools = synthetic_tools

    def describe(self, reason: str, metadata: dict[str, Any] | None) -> Described | None:
        framework = metadata.get("agent_framework") if isinstance(metadata, dict) else None
        call = framework.get("function_call") if isinstance(framework, dict) else None
        if not isinstance(call, dict):
            return None
        name = call.get("name")
        return Described(
            None, name if isinstance(name, str) else None, json_or_text(call.get("arguments"))
        )

    def result_outcome(self, result: ToolReport) -> str | None:
        return "denied" if result.content == REJECTED_TEXT else None
