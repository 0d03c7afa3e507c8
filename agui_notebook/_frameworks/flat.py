"""Interrupts whose metadata names the tool flatly: ``toolName`` (or ``tool_name``) and
``arguments``. The built-in demo agent and several small servers do this. Pure.

The demo answers a rejected or cancelled call with a result that says so,
``{"ok": false, "status": "rejected"}`` (so the history has no dangling call): a report of the
denial, not a run of the tool."""

from __future__ import annotations

import json
from typing import Any

from .dialect import Described, Dialect, ToolReport, json_or_text

__all__ = ["FlatDialect"]


class FlatDialect(Dialect):
    name = "flat-metadata"

    def describe(self, reason: str, metadata: dict[str, Any] | None) -> Described | None:
        if not isinstance(metadata, dict):
            return None
        name = metadata.get("toolName") or metadata.get("tool_name")
        if name is None:
            return None
        return Described(
            None, name if isinstance(name, str) else None, json_or_text(metadata.get("arguments"))
        )

    def result_outcome(self, result: ToolReport) -> str | None:
        content = result.content
        if not isinstance(content, str) or '"status"' not in content:
            return None
        try:
            value = json.loads(content)
        except ValueError:
            return None
        denied = isinstance(value, dict) and value.get("ok") is False
        return "denied" if denied and value.get("status") in ("rejected", "cancelled") else None
