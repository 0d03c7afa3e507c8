"""The audit log's records and their hash chain. Pure: no I/O, no clock unless given one.

Every decision on an interrupt (by a person, an "always allow" rule, a policy or a timeout) becomes
one :class:`AuditEntry`. The store appends entries to a chain: each stored record carries the hash
of the record before it, and its own hash covers that previous hash and the record's canonical
JSON, so changing, removing or reordering a record breaks every hash after it.

Canonical JSON follows RFC 8785 (JCS): object keys sorted by their UTF-16 code units, no
whitespace, strings escaped as ECMAScript's ``JSON.stringify`` does, numbers in ECMAScript's
shortest form (``1.0`` is ``1``, ``1e-7`` is ``1e-7``; integers are written exactly), UTF-8
bytes. The proposed arguments of a
tool call are kept as the SHA-256 of their canonical JSON, so a record proves which arguments were
decided on without repeating them.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any, Literal

from .decided_by import DecidedBy
from .decision import Decision
from .evidence import EVIDENCE_FIELDS, Evidence
from .identity import Person
from .interrupts import PendingInterrupt

__all__ = [
    "GENESIS_HASH",
    "AuditEntry",
    "ChainBreak",
    "ChainLink",
    "Decider",
    "argument_changes",
    "arguments_sha256",
    "canonical_json",
    "chain_hash",
    "chat_record",
    "current_user",
    "decider_of",
    "decision_entries",
    "format_head",
    "head_problem",
    "link",
    "parse_head",
    "verify_chain",
]

#: The "previous hash" of the first record in a chain.
GENESIS_HASH = "0" * 64

Decider = Literal["person", "rule", "policy", "timeout"]


# -- canonical JSON (RFC 8785) -----------------------------------------------------------------


def canonical_json(value: Any) -> str:
    """``value`` as RFC 8785 canonical JSON text.

    >>> canonical_json({"b": [1.0, "é", None], "a": True})
    '{"a":true,"b":[1,"é",null]}'
    """
    parts: list[str] = []
    _emit(value, parts)
    return "".join(parts)


def _emit(value: Any, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=False))  # escapes exactly as JCS 3.2.2.2
    elif isinstance(value, int):
        out.append(str(value))  # exact, also beyond 2**53 (JCS leaves those to I-JSON)
    elif isinstance(value, float):
        out.append(_number(value))
    elif isinstance(value, Mapping):
        keys = sorted(value, key=_utf16_key)
        out.append("{")
        for n, key in enumerate(keys):
            if not isinstance(key, str):
                raise TypeError(f"canonical JSON needs string keys, got {type(key).__name__}")
            if n:
                out.append(",")
            out.append(json.dumps(key, ensure_ascii=False))
            out.append(":")
            _emit(value[key], out)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for n, item in enumerate(value):
            if n:
                out.append(",")
            _emit(item, out)
        out.append("]")
    else:
        raise TypeError(f"{type(value).__name__} is not JSON")


def _utf16_key(key: Any) -> bytes:
    # JCS 3.2.3: sort by UTF-16 code units; big-endian UTF-16 bytes compare the same way.
    return str(key).encode("utf-16-be", "surrogatepass")


def _number(value: float) -> str:
    """ECMAScript's Number.prototype.toString for a double (JCS 3.2.2.3)."""
    if math.isnan(value) or math.isinf(value):
        raise ValueError("canonical JSON has no NaN or Infinity")
    if value == 0:
        return "0"
    from decimal import Decimal

    sign = "-" if value < 0 else ""
    # repr() gives the shortest digits that round-trip, as ECMAScript requires.
    digits_tuple = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(str(d) for d in digits_tuple.digits)
    exponent = int(digits_tuple.exponent)
    k = len(digits)
    n = exponent + k  # the decimal point sits after n digits
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        text = f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + text


def arguments_sha256(arguments: Any) -> str | None:
    """SHA-256 (hex) of the canonical JSON of a tool call's proposed arguments.

    Arguments that are not JSON (a string that did not parse stays a string) are hashed as that
    JSON string; None when there were none.
    """
    if arguments is None:
        return None
    return hashlib.sha256(canonical_json(arguments).encode("utf-8", "surrogatepass")).hexdigest()


# -- entries -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class AuditEntry:
    """One decision on one interrupt, as the audit log keeps it."""

    time: str  # ISO 8601, UTC: when the decision was sent (or refused)
    agent_url: str  # without credentials
    thread_id: str
    run_id: str | None  # the resume run that carried it (None: refused before sending)
    interrupt_id: str
    tool: str | None
    tool_call_id: str | None
    reason_kind: str  # the interrupt's reason (tool_call, input_required, ...)
    arguments_sha256: str | None
    decision: str  # approve | reject | edit | cancel | answer
    edited_arguments: dict[str, Any] | None
    reason: str | None  # a rejection's reason
    decider: Decider
    decided_by: str  # the person's user name, the policy's or rule's name, or the timeout
    outcome: (
        str | None
    )  # how the run ended: success | interrupt | cancelled | failed: ... | refused: ...
    # Entries written before these fields existed read them as None (their stored JSON, which
    # their hashes cover, is never rewritten).
    kernel_user: str | None = None  # the OS or JupyterHub user running the kernel
    #: Where ``decided_by`` came from: "server" (the click's message header), "kernel" (only
    #: the kernel's user is known), else the decider's kind: "rule", "policy", "timeout".
    identity: str | None = None
    identity_note: str | None = None  # why a person's identity is "kernel", when it is
    display_name: str | None = None  # the person's display name, where one is known
    # What the decision was informed by and what came of it (``evidence``): the preview's hash
    # as shown, an edit's preview's, the checks, an override's reason, the execution verdict.
    preview_sha256: str | None = None
    edited_preview_sha256: str | None = None
    checks: list[dict[str, Any]] | None = None
    checks_override: str | None = None
    execution: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AuditEntry:
        fields: dict[str, Any] = {k: data.get(k) for k in cls.__dataclass_fields__}
        return cls(**fields)


def current_user() -> str:
    """Who "a person" is: ``JUPYTERHUB_USER`` when set (JupyterHub), else the OS user."""
    hub = os.environ.get("JUPYTERHUB_USER")
    if hub:
        return hub
    import getpass

    try:
        return getpass.getuser()
    except Exception:  # no user name in this environment (some containers)
        return f"uid {os.getuid()}" if hasattr(os, "getuid") else "unknown"


def decider_of(decided_by: str | None) -> tuple[Decider, str]:
    """The kind and name of a decider from a chat's ``decidedBy`` text.

    >>> decider_of("policy: approve-all")
    ('policy', 'approve-all')
    >>> decider_of("you")[0]
    'person'
    """
    by = DecidedBy.from_text(decided_by) if decided_by else None
    if by is not None and by.kind in ("rule", "policy", "timeout"):
        return by.kind, by.name
    return "person", current_user()


def decision_entries(
    interrupts: Sequence[PendingInterrupt],
    decisions: Mapping[str, Decision],
    *,
    agent_url: str,
    thread_id: str,
    run_id: str | None,
    time: datetime,
    decided_by: str | None,
    outcome: str | None,
    person: Person | None = None,
    kernel_user: str | None = None,
    evidence: Mapping[str, Evidence] | None = None,
) -> list[AuditEntry]:
    """One entry per interrupt answered; ``decided_by`` as a chat says it (None: a person).

    A person's entry names ``person`` (the clicker the host read) when given, else the
    kernel's user with ``identity: "kernel"``. ``evidence`` (by interrupt id) fills the
    evidence fields (``_decisions.evidence``)."""
    decider, name = decider_of(decided_by)
    kernel_user = kernel_user or current_user()
    identity: str = decider
    note = display = None
    if decider == "person":
        if person is not None:
            name, identity = person.username, person.identity
            note, display = person.note, person.display_name
        else:
            name, identity = kernel_user, "kernel"
    stamp = time.isoformat(timespec="microseconds")
    entries: list[AuditEntry] = []
    for interrupt in interrupts:
        decision = decisions.get(interrupt.id)
        if decision is None:
            continue
        entries.append(
            AuditEntry(
                time=stamp,
                agent_url=agent_url,
                thread_id=thread_id,
                run_id=run_id,
                interrupt_id=interrupt.id,
                tool=interrupt.tool_name,
                tool_call_id=interrupt.tool_call_id,
                reason_kind=interrupt.reason,
                arguments_sha256=arguments_sha256(interrupt.arguments),
                decision=decision.kind,
                edited_arguments=dict(decision.arguments) if decision.arguments else None,
                reason=decision.reason,
                decider=decider,
                decided_by=name,
                outcome=outcome,
                kernel_user=kernel_user,
                identity=identity,
                identity_note=note,
                display_name=display,
                **_evidence(evidence, interrupt.id),
            )
        )
    return entries


def _evidence(evidence: Mapping[str, Evidence] | None, interrupt_id: str) -> dict[str, Any]:
    found = evidence.get(interrupt_id) if evidence is not None else None
    return found.fields() if found is not None else {}


def chat_record(
    entry: AuditEntry,
    *,
    card: str | None,
    arguments: Any,
    payload: Any = None,
) -> dict[str, Any]:
    """An entry in the shape ``chat.audit`` has always had (and the widget's ``audit`` state)."""
    if entry.decider == "person" and entry.identity == "server":
        by = DecidedBy.named(entry.display_name or entry.decided_by)
    elif entry.decider == "person":  # the kernel's user is "you" here; another's by their name
        same = entry.decided_by == current_user()
        by = DecidedBy.you() if same else DecidedBy.named(entry.decided_by)
    else:
        by = DecidedBy(entry.decider, entry.decided_by)
    return {
        "card": card,
        "interrupt": entry.interrupt_id,
        "tool": entry.tool,
        "reason": entry.reason_kind,
        "arguments": arguments,
        "decision": entry.decision,
        "editedArguments": entry.edited_arguments,
        "changes": argument_changes(arguments, entry.edited_arguments),
        "rejectReason": entry.reason,
        "payload": payload,
        "decidedBy": by.shown,
        "decidedAt": entry.time,
        "outcome": entry.outcome,
        "decided_by": entry.decided_by,
        "kernel_user": entry.kernel_user,
        "identity": entry.identity,
        "identity_note": entry.identity_note,
        **{name: getattr(entry, name) for name in EVIDENCE_FIELDS},
    }


def argument_changes(before: Any, after: Any) -> dict[str, list[Any]] | None:
    """``{key: [before, after]}`` for the arguments an edit changed (None for other decisions)."""
    if not after:
        return None
    original = before if isinstance(before, dict) else {}
    return {k: [original.get(k), v] for k, v in dict(after).items() if original.get(k) != v}


# -- the chain ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChainLink:
    """A record as stored: its position, the record, the hash before it and its own hash."""

    seq: int
    record: dict[str, Any]
    prev_hash: str
    hash: str


def chain_hash(prev_hash: str, seq: int, record: Mapping[str, Any]) -> str:
    """SHA-256 over the previous hash, the record's position and its canonical JSON."""
    body = f"{prev_hash}\n{seq}\n{canonical_json(record)}"
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()


def link(prev_hash: str, seq: int, entry: AuditEntry) -> ChainLink:
    """The stored form of ``entry`` appended at ``seq`` after a record hashed ``prev_hash``."""
    record = entry.to_json()
    return ChainLink(seq, record, prev_hash, chain_hash(prev_hash, seq, record))


Problem = Literal["altered", "removed", "reordered", "truncated"]


@dataclass(frozen=True)
class ChainBreak:
    """The first record where a chain stops being intact, and why."""

    seq: int
    problem: Problem
    detail: str

    def __str__(self) -> str:
        return f"record {self.seq}: {self.problem}: {self.detail}"


def verify_chain(
    links: Iterable[ChainLink], *, head: tuple[int, str] | None = None
) -> tuple[int, ChainBreak | None]:
    """Check a chain read in storage order; return (records read, the first break or None).

    ``head`` is the (last seq, last hash) the store noted with its latest append: a chain that
    ends before it lost its tail. Without an outside copy of the head, removing the last records
    *and* rewriting the head is not detectable; ``agui-notebook audit verify`` prints the head so
    it can be kept elsewhere.
    """
    items = list(links)
    position: dict[str, int] = {}
    for i, item in enumerate(items):
        position.setdefault(item.hash, i)
    expected_prev, previous_seq = GENESIS_HASH, 0
    for i, item in enumerate(items):
        if chain_hash(item.prev_hash, item.seq, item.record) != item.hash:
            return len(items), _moved_or_altered(items, i, position, expected_prev)
        if item.prev_hash != expected_prev or item.seq != previous_seq + 1:
            return len(items), _linkage_break(items, i, position, previous_seq)
        expected_prev, previous_seq = item.hash, item.seq
    if head is not None:
        last_seq, last_hash = head
        if last_seq > previous_seq:
            return len(items), ChainBreak(
                previous_seq + 1,
                "truncated",
                f"the log ends at record {previous_seq} but had {last_seq} records",
            )
        if last_seq == previous_seq and last_seq > 0 and last_hash != expected_prev:
            return len(items), ChainBreak(
                last_seq, "altered", "it is not the record the log last ended on"
            )
    return len(items), None


def parse_head(text: str) -> tuple[int, str]:
    """``SEQ:HASH`` (as ``agui-notebook audit head`` prints it) as ``(seq, hash)``; ValueError
    naming the expected form otherwise."""
    seq, sep, digest = text.strip().partition(":")
    digest = digest.strip().lower()
    if (
        not sep
        or not seq.isdigit()
        or len(digest) != 64
        or any(c not in "0123456789abcdef" for c in digest)
    ):
        raise ValueError(
            f"a head is SEQ:HASH, a record number and its 64-hex-digit hash, as `agui-notebook "
            f"audit head` prints it (got {text!r})"
        )
    return int(seq), digest


def format_head(head: tuple[int, str] | None) -> str:
    """A chain head as ``SEQ:HASH`` (``0:000...`` for an empty log)."""
    seq, digest = head if head is not None else (0, GENESIS_HASH)
    return f"{seq}:{digest}"


def head_problem(links: Sequence[ChainLink], head: tuple[int, str]) -> str | None:
    """Why a chain no longer holds a head published earlier (None: it holds it).

    The chain alone cannot tell a record altered and every later hash recomputed, nor its last
    records removed: a head kept elsewhere can. It holds when record ``seq`` is still there with
    that very hash (everything up to it is then what it was when the head was taken)."""
    seq, digest = head
    if seq == 0:
        return None if digest == GENESIS_HASH else "record 0 has no hash but the empty log's"
    found = next((item for item in links if item.seq == seq), None)
    if found is None:
        last = links[-1].seq if links else 0
        return (
            f"the log ends at record {last}, before the published head {seq}: "
            "records were removed after the head was published"
        )
    if found.hash != digest:
        return (
            f"record {seq} now hashes to {found.hash}, not the published {digest}: "
            f"a record at or before {seq} was altered (and the chain re-hashed) or removed "
            "after the head was published"
        )
    return None


def _moved_or_altered(
    items: list[ChainLink], i: int, position: dict[str, int], expected_prev: str
) -> ChainBreak:
    """A record whose hash does not match where it is: moved, or its content changed."""
    item = items[i]
    original = _original_seq(item, limit=items[-1].seq + len(items) + 1)
    if original is None:
        return ChainBreak(item.seq, "altered", "its content does not match its hash")
    j = position.get(item.prev_hash)
    if j is not None and j > i:
        return ChainBreak(
            item.seq,
            "reordered",
            f"it was record {original} and follows record {items[j].seq}, stored after it",
        )
    if original > item.seq and item.prev_hash != expected_prev and j is None:
        gap = f"{item.seq}" + (f"-{original - 1}" if original - 1 > item.seq else "")
        return ChainBreak(
            item.seq,
            "removed",
            f"record(s) {gap} are missing (the records after them were renumbered)",
        )
    return ChainBreak(item.seq, "reordered", f"it was stored as record {original}")


def _original_seq(item: ChainLink, *, limit: int) -> int | None:
    """The position a record's hash was computed for, if any (a renumbered record)."""
    for seq in range(1, max(limit, 1) + 1):
        if chain_hash(item.prev_hash, seq, item.record) == item.hash:
            return seq
    return None


def _linkage_break(
    items: list[ChainLink], i: int, position: dict[str, int], previous_seq: int
) -> ChainBreak:
    """A record intact in itself that does not follow the record stored before it."""
    item = items[i]
    j = position.get(item.prev_hash)
    if j is not None and j > i:
        return ChainBreak(
            item.seq, "reordered", f"it follows record {items[j].seq}, which is stored after it"
        )
    if j is not None and j < i - 1:
        inserted = items[j + 1]
        return ChainBreak(
            inserted.seq,
            "altered",
            f"it was inserted: record {item.seq} follows record {items[j].seq}",
        )
    if item.prev_hash == GENESIS_HASH and i > 0:
        return ChainBreak(item.seq, "reordered", "it was the first record of the log")
    if item.seq > previous_seq + 1 or i == 0:
        first = previous_seq + 1
        gap = f"{first}" + (f"-{item.seq - 1}" if item.seq - 1 > first else "")
        return ChainBreak(first, "removed", f"record(s) {gap} are missing")
    return ChainBreak(
        previous_seq,
        "altered",
        f"it was changed and re-hashed: record {item.seq} follows a different record {previous_seq}",
    )
