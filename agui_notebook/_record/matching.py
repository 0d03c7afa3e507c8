"""A replayed request held to the recorded one (pure): ids matched consistently, not literally.

The ids a client makes up (threadId, runId, message ids) differ from run to run, so a recorded
id matches the first live id seen in its place, and from then on only that one (:class:`IdMap`,
one to one). Everything else must be equal; :func:`differences` gives each difference as a JSON
path and what differs, in document order, never showing a credential-like value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .._protocol.secrets import REDACTED, is_credential_name, redact_json
from .file import parse_json

__all__ = ["IdMap", "describe", "describe_live", "differences", "map_ids"]

_MISSING: Any = object()
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _is_id_key(key: str) -> bool:
    return key == "id" or key.endswith("Id")


class IdMap:
    """Recorded id <-> live id, one to one, learned on first sight."""

    def __init__(self) -> None:
        self.forward: dict[str, str] = {}
        self.backward: dict[str, str] = {}

    def copy(self) -> IdMap:
        other = IdMap()
        other.forward, other.backward = dict(self.forward), dict(self.backward)
        return other

    def match(self, recorded: str, got: str) -> bool:
        known = self.forward.get(recorded)
        if known is not None:
            return known == got
        if got in self.backward:
            return False  # two recorded ids cannot become the same live one
        self.forward[recorded] = got
        self.backward[got] = recorded
        return True


def _render(value: Any, key: str | None = None) -> str:
    if key is not None and is_credential_name(key) and value is not _MISSING:
        return REDACTED
    if value is _MISSING:
        return "nothing"
    text = json.dumps(redact_json(value), ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def _child(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if _IDENTIFIER.match(key) else f"{path}[{json.dumps(key)}]"


def differences(
    recorded: Any, got: Any, ids: IdMap, path: str = "$", key: str | None = None
) -> Iterable[tuple[str, str]]:
    """(JSON path, description) of each difference, in document order; learns ids as it goes."""
    if isinstance(recorded, str) and recorded == REDACTED:
        return  # redacted when recorded: any value matches
    if key is not None and _is_id_key(key) and isinstance(recorded, str) and isinstance(got, str):
        if not ids.match(recorded, got):
            expected = ids.forward.get(recorded)
            why = f"recorded id {recorded!r}"
            why += f" (here {expected!r})" if expected else " (already seen as another id)"
            yield path, f"{why}, got {got!r}"
        return
    if key == "timestamp" and isinstance(recorded, str) and isinstance(got, str):
        return  # the client's clock (an A2UI action's time): never the same twice
    if isinstance(recorded, dict) and isinstance(got, dict):
        for k, v in recorded.items():
            yield from differences(v, got.get(k, _MISSING), ids, _child(path, k), k)
        for k, v in got.items():
            if k not in recorded:
                yield _child(path, k), f"not recorded, got {_render(v, k)}"
        return
    if isinstance(recorded, list) and isinstance(got, list):
        for index, (r, g) in enumerate(zip(recorded, got, strict=False)):
            yield from differences(r, g, ids, _child(path, index), key)
        if len(recorded) != len(got):
            yield path, f"recorded {len(recorded)} items, got {len(got)}"
        return
    if not _same_scalar(recorded, got):
        yield path, f"recorded {_render(recorded, key)}, got {_render(got, key)}"


def _same_scalar(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and bool(a == b)


def map_ids(value: Any, forward: Mapping[str, str]) -> Any:
    """``value`` with every string that is a recorded id replaced by its live id."""
    if isinstance(value, str):
        return forward.get(value, value)
    if isinstance(value, dict):
        return {k: map_ids(v, forward) for k, v in value.items()}
    if isinstance(value, list):
        return [map_ids(v, forward) for v in value]
    return value


def describe(request: Mapping[str, Any]) -> str:
    """A recorded request, in a few words."""
    body = request.get("body")
    if isinstance(body, dict):
        return _summary(body)
    if request.get("op") == "capabilities":
        return "a capabilities request"
    return f"{request.get('method')} {request.get('url')}"


def describe_live(op: str, body: bytes) -> str:
    """A request the client makes, in a few words."""
    if op == "capabilities":
        return "a capabilities request"
    sent = parse_json(body)
    return _summary(sent) if isinstance(sent, dict) else f"{len(body)} bytes"


def _summary(body: Mapping[str, Any]) -> str:
    resume = body.get("resume")
    if resume:
        return f"a resume answering {len(resume)} interrupt(s)"
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    content = last.get("content") if isinstance(last, dict) else None
    if isinstance(content, str):
        return f"a run with message {content[:60]!r}"
    return "a run"
