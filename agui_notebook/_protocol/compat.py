"""The compatibility boundary: older and newer producers read as AG-UI 1.1. Pure.

The first stage an incoming event passes (1.1 basic/processing, "Where middleware sits")::

    producer -> compatibility boundary -> enforcement -> chunk expansion -> verification

Retired shapes are translated, not dropped: ``THINKING_*`` (pre-1.0) become ``REASONING_*``
(:class:`ThinkingTranslator`); the legacy ``binary`` content part becomes an image, audio, video
or document part (:func:`upgrade_binary`, which enforcement calls where it meets parts). A server
that predates ``protocolVersion`` and ``outcome`` is read as 1.0 (the models in :mod:`.wire`
leave both optional); one that declares a newer or unreadable version gets a warning
(:func:`version_warning`) and is read as this client's :data:`CLIENT_VERSION`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["CLIENT_VERSION", "THINKING", "ThinkingTranslator", "upgrade_binary", "version_warning"]

#: The AG-UI version this client implements and declares in every RunAgentInput.
CLIENT_VERSION = "1.1"

_VERSION = re.compile(r"(\d+)\.(\d+)")

#: Pre-1.0 THINKING_* events and the REASONING_* events that replaced them (1.0 retired them).
THINKING = {
    "THINKING_START": "REASONING_START",
    "THINKING_END": "REASONING_END",
    "THINKING_TEXT_MESSAGE_START": "REASONING_MESSAGE_START",
    "THINKING_TEXT_MESSAGE_CONTENT": "REASONING_MESSAGE_CONTENT",
    "THINKING_TEXT_MESSAGE_END": "REASONING_MESSAGE_END",
}

_BINARY_KINDS = (("image/", "image"), ("audio/", "audio"), ("video/", "video"))


def version_warning(declared: str | None) -> str | None:
    """A warning for a producer's ``protocolVersion`` newer than ours or unreadable (1.1
    basic/versioning: proceed, and warn). Versions compare numerically: 1.10 is newer than 1.9."""
    if declared is None:
        return None
    found = _VERSION.fullmatch(declared)
    if found is None:
        return (
            f"the server declares protocolVersion {declared!r}, which is not a MAJOR.MINOR "
            f"version; proceeding as AG-UI {CLIENT_VERSION}"
        )
    major, minor = (int(n) for n in CLIENT_VERSION.split("."))
    if (int(found[1]), int(found[2])) > (major, minor):
        return (
            f"the server speaks AG-UI {declared}, newer than this client's {CLIENT_VERSION}: "
            "proceeding; what this client does not know is dropped or stripped with a warning "
            "(upgrade agui-notebook to use it)"
        )
    return None


class ThinkingTranslator:
    """One stream's ``THINKING_*`` events as ``REASONING_*`` ones. THINKING events carry no
    ids: each phase, and each message in it, gets one minted here (``thinking-<phase>`` and
    ``thinking-<phase>-<message>``), so the ids are the stream's own count."""

    __slots__ = ("_message", "_phase")

    def __init__(self) -> None:
        self._phase = 0
        self._message = 0

    def translate(
        self, raw: dict[str, Any], etype: str, warn: Callable[[str], None]
    ) -> tuple[dict[str, Any], str]:
        """``raw`` (of the THINKING type ``etype``) as its REASONING event, and that type."""
        new_type = THINKING[etype]
        # Everything else travels on, so enforcement judges (and names) what it does not know.
        out: dict[str, Any] = {k: v for k, v in raw.items() if k not in ("type", "title")}
        out["type"] = new_type
        if etype == "THINKING_START":
            self._phase += 1
            if raw.get("title"):
                # REASONING_START has no title: a lossy translation says so (1.1 versioning).
                warn("THINKING_START.title was dropped: REASONING_START has no title")
        if etype == "THINKING_TEXT_MESSAGE_START":
            self._message += 1
            out["role"] = "reasoning"
        if etype in ("THINKING_START", "THINKING_END"):
            out["messageId"] = f"thinking-{self._phase}"
        else:
            out["messageId"] = f"thinking-{self._phase}-{self._message}"
        return out, new_type


def upgrade_binary(part: dict[str, Any]) -> dict[str, Any] | None:
    """The legacy ``binary`` part (retired in 1.0) as the media part that replaced it, or None
    when it names nothing 1.1 can carry."""
    mime = part.get("mimeType")
    if not isinstance(mime, str):
        return None
    if isinstance(part.get("data"), str):
        source: dict[str, Any] = {"type": "data", "value": part["data"], "mimeType": mime}
    elif isinstance(part.get("url"), str):
        source = {"type": "url", "value": part["url"], "mimeType": mime}
    else:
        return None  # a bare id names nothing 1.1 can carry
    kind = next((k for prefix, k in _BINARY_KINDS if mime.startswith(prefix)), "document")
    upgraded: dict[str, Any] = {"type": kind, "source": source}
    if isinstance(part.get("filename"), str):
        upgraded["metadata"] = {"filename": part["filename"]}
    return upgraded
