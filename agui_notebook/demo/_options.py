"""The demo agent's knobs, shared by the scenarios (pacing, expiry) and the app (keepalives)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class DemoOptions:
    """How the demo agent paces and shapes its streams. Content never depends on these.

    >>> DemoOptions(text_delay=0).text_delay
    0
    """

    text_delay: float = 0.02
    """Seconds between two streamed text deltas (0 in tests; ~0.02 reads like a real model)."""
    chunk_words: int = 1
    """Words per TEXT_MESSAGE_CONTENT / REASONING_MESSAGE_CONTENT delta."""
    keepalive_interval: float = 15.0
    """Seconds of silence after which the SSE stream sends a ``: keepalive`` comment."""
    expires_in: float = 60.0
    """Seconds between raising the expiring interrupt and its ``expiresAt``."""
    max_body_bytes: int = 64_000_000
    """Largest request body accepted (HTTP 413 above it). A client sends the whole history with
    each run: a 1,000-turn chat's is about 3 MB, so 1 MB refused a chat after ~600 turns."""

    def __post_init__(self) -> None:
        if self.text_delay < 0 or self.expires_in < 0:
            raise ValueError("text_delay and expires_in must be >= 0")
        if self.chunk_words < 1:
            raise ValueError("chunk_words must be >= 1")
        if self.keepalive_interval <= 0:
            raise ValueError("keepalive_interval must be > 0")

    @classmethod
    def from_kwargs(cls, options: DemoOptions | None = None, **overrides: Any) -> DemoOptions:
        """Options from keywords; an unknown name is an error (a typo must not be a no-op)."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise TypeError(f"unknown demo option(s): {', '.join(unknown)}; known: {sorted(known)}")
        base = options or cls()
        values = {f.name: getattr(base, f.name) for f in fields(cls)}
        values.update(overrides)
        return cls(**values)
