"""The outgoing run input: enforced as incoming events are, and encoded, once per message. Pure.

The compatibility and enforcement boundary guards what goes out too (1.1 processing, "Outgoing
material"): :func:`enforce_input` strips unknown material from a run input (with a warning) and
refuses a malformed one before anything is sent. A thread sends its whole history on every run,
so :func:`enforce_run_input` keeps what it established for each message in an
:class:`InputCache` and :func:`encode_run_input` each message's JSON text: a long history is
enforced and encoded once, not on every run, with the same output, warnings and errors
(``tests/protocol/test_enforce_cached.py`` holds them to :func:`enforce_input`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from .._errors import ProtocolError
from . import wire as _wire
from .enforce import describe, prune_messages, refuse_null, strip_extra, strip_unknown

__all__ = ["InputCache", "encode_run_input", "enforce_input", "enforce_run_input"]

Warn = Callable[[str], None]


def enforce_input(body: dict[str, Any], warn: Warn) -> dict[str, Any]:
    """The run input as it will be sent: unknown material stripped (with a warning), a malformed
    known value refused before anything is sent (1.1 processing, "Outgoing material")."""
    prune_messages(body.get("messages"), "RunAgentInput.messages", warn)
    try:
        model = _wire.RunAgentInput.model_validate(body)
    except ValidationError as exc:
        raise ProtocolError(
            f"the run input is malformed, nothing was sent: {describe(exc)}"
        ) from None
    strip_unknown(model, "RunAgentInput", warn)
    out: dict[str, Any] = model.model_dump(mode="json", by_alias=True)
    return out


_MARK = "\x00"  # stands for a message's path in the warnings an InputCache keeps


@dataclass(slots=True)
class _Enforced:
    """What enforcing one message established: its warnings (``_MARK`` for its path), whether
    it is kept, and what is sent for it."""

    source: BaseModel
    pruned: list[str]
    kept: bool
    raw: dict[str, Any]
    out: dict[str, Any] | None = None
    stripped: list[str] | None = None
    encoded: bytes | None = None  # out as compact JSON, once the body was encoded


class InputCache:
    """What :func:`enforce_run_input` established for each outgoing message, by identity.

    A thread's messages are replaced, never changed in place, when they change: a message
    enforced in an earlier run (the same object, or an equal one of the same type under the same
    id, as a MESSAGES_SNAPSHOT brings back) is sent as it was then (its warnings said again, at
    its position now) instead of being dumped, validated and stripped once more. Only the
    messages of the latest run are kept.
    """

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: _Run | None = None

    def __len__(self) -> int:
        return len(self._last.entries) if self._last is not None else 0

    @property
    def _entries(self) -> dict[object, _Enforced]:
        return self._last.entries if self._last is not None else {}


def _same(a: BaseModel, b: BaseModel) -> bool:
    """Whether ``b`` dumps as ``a`` does: the same type, values and unknown properties (what
    pydantic's ``==`` compares)."""
    return type(a) is type(b) and a == b


def _enforce_one(message: BaseModel) -> _Enforced:
    raw = message.model_dump(mode="json", by_alias=True)
    pruned: list[str] = []
    holder = [raw]
    prune_messages(holder, _MARK, pruned.append)
    return _Enforced(message, pruned, bool(holder), raw)


@dataclass(slots=True)
class _Run:
    """What the latest run's messages gave: a run whose messages begin with them starts there."""

    messages: list[BaseModel]
    entries: dict[object, _Enforced]
    ordered: list[_Enforced]
    pruned: list[str]  # the pruning warnings, as said
    stripped: list[str]  # the messages' stripping warnings, as said
    sent: list[dict[str, Any]] | None = None  # the body's "messages" list, as returned
    #: (n, the JSON texts of ordered[:n] joined by ",", as bytes): handed on while the next run's
    #: ordered list begins with this one's, so a long history is joined once, not every run.
    joined: tuple[int, bytes] | None = None


def _cached_enforce(
    body: dict[str, Any], messages: list[BaseModel], cache: InputCache, warn: Warn
) -> tuple[dict[str, Any], _Run]:
    last = cache._last
    start = len(last.messages) if last is not None else 0
    # The history as the last run sent it, then what is new: one comparison (by identity first,
    # in C), and the last run's work is this one's up to there, warnings included.
    if last is not None and len(messages) >= start and messages[:start] == last.messages:
        entries = dict(last.entries)
        ordered, pruned = list(last.ordered), list(last.pruned)
        old: dict[object, _Enforced] = {}
        joined = last.joined
    else:
        start = 0
        entries, ordered, pruned = {}, [], []
        old = last.entries if last is not None else {}
        joined = None
    prefix = len(ordered)
    for i in range(start, len(messages)):
        message = messages[i]
        key = getattr(message, "id", None)
        if not isinstance(key, str) or key in entries:
            key = id(message)  # no id, or the id twice: by identity alone
        entry = old.get(key)
        if entry is None or (entry.source is not message and not _same(entry.source, message)):
            entry = _enforce_one(message)
        entries[key] = entry
        here = f"RunAgentInput.messages[{i}]"
        for text in entry.pruned:
            pruned.append(text.replace(f"{_MARK}[0]", here, 1))
        if entry.kept:
            ordered.append(entry)
    for text in pruned:
        warn(text)
    fresh = [e for e in ordered[prefix:] if e.out is None]
    model = _wire.RunAgentInput.model_validate({**body, "messages": [e.raw for e in fresh]})
    for entry, validated in zip(fresh, model.messages, strict=True):
        said: list[str] = []
        strip_unknown(validated, _MARK, said.append)
        entry.stripped = said
    stripped = list(last.stripped) if last is not None and prefix else []
    for j in range(prefix, len(ordered)):
        for text in ordered[j].stripped or ():
            stripped.append(text.replace(_MARK, f"RunAgentInput.messages[{j}]", 1))
    # strip_unknown(model, "RunAgentInput", warn), with the messages' warnings at their place.
    strip_extra(model, "RunAgentInput", warn)
    refuse_null(model, "RunAgentInput")
    for name in type(model).model_fields:
        if name == "messages":
            for text in stripped:
                warn(text)
            continue
        child = getattr(model, name, None)
        if isinstance(child, BaseModel | list):
            strip_unknown(child, f"RunAgentInput.{name}", warn)
    out: dict[str, Any] = model.model_dump(mode="json", by_alias=True)
    for entry, dumped in zip(fresh, out["messages"], strict=True):
        entry.out = dumped
    sent = out["messages"] = [e.out for e in ordered]
    return out, _Run(list(messages), entries, ordered, pruned, stripped, sent, joined)


def enforce_run_input(
    body: dict[str, Any], messages: list[BaseModel], cache: InputCache, warn: Warn
) -> dict[str, Any]:
    """:func:`enforce_input` of ``{**body, "messages": [m.model_dump(...) for m in messages]}``,
    the same output, warnings and errors, with what ``cache`` holds for a message object
    reused: a long thread's history is enforced once, not on every run
    (``tests/protocol/test_enforce_cached.py`` holds it to :func:`enforce_input`).

    The returned body shares the cached messages' dicts: encode it, do not change it.
    """
    said: list[str] = []
    try:
        out, run = _cached_enforce(body, messages, cache, said.append)
    except (ValidationError, ProtocolError):
        # The general code says what is wrong, exactly as it would have.
        dumped = [m.model_dump(mode="json", by_alias=True) for m in messages]
        return enforce_input({**body, "messages": dumped}, warn)
    cache._last = run
    for text in said:
        warn(text)
    return out


def encode_run_input(body: dict[str, Any], cache: InputCache) -> bytes:
    """``json.dumps(body, separators=(",", ":")).encode()``, the same bytes, with each message's
    JSON text kept in ``cache`` when ``body`` is the latest :func:`enforce_run_input` gave: a long
    history is encoded once, not on every run."""
    last = cache._last
    sent = last.sent if last is not None else None
    if (
        last is None
        or sent is None
        or len(sent) != len(last.ordered)  # grown since: the general encoding
        or body.get("messages") is not sent
    ):
        return json.dumps(body, separators=(",", ":")).encode()
    done, joined = last.joined or (0, b"")
    texts = [joined] if done else []
    for entry in last.ordered[done:]:
        if entry.encoded is None:
            entry.encoded = json.dumps(entry.out, separators=(",", ":")).encode()
        texts.append(entry.encoded)
    joined = b",".join(texts)
    last.joined = (len(last.ordered), joined)
    # What the encoder writes for a dict of string keys: "{" key ":" value, joined by "," "}".
    pieces: list[bytes] = []
    sep = "{"
    for key, value in body.items():
        pieces.append((sep + json.dumps(key) + ":").encode())
        sep = ","
        if key == "messages":
            pieces += (b"[", joined, b"]")
        else:
            pieces.append(json.dumps(value, separators=(",", ":")).encode())
    pieces.append(b"}" if pieces else b"{}")
    return b"".join(pieces)
