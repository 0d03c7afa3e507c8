"""Interrupts whose metadata names the tool flatly: ``toolName`` (or ``tool_name``) and
``arguments``. The built-in demo agent and several small servers do this. Pure."""

from __future__ import annotations

from typing import Any

from .dialect import Described, Dialect, json_or_text

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
