"""What a chat view shows, as lines a person reads: the view's deterministic transcript. Pure.

A viewer without a live kernel (a code host, nbviewer, ``jupyter nbconvert``, a VS Code preview)
and nbval see a chat view through the ``text/plain`` and ``text/html`` of its display. Both are
built from the :class:`Block` s of :func:`document`: the view's items, state, audit and status in
the order the live view shows them, one line per thing a person sees, and nothing that changes
between runs (no ids, times, addresses or durations), so nbval can compare them. This module
writes them as text; ``_view.html`` writes the same blocks as inert HTML.

Item kinds plug in by name with :func:`register_item_kind`. A kind nobody registered is shown by
a generic, deterministic fallback (its readable fields, and the names of the others), never
dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .._state.items import summarize_arguments
from .blocks import (
    BLOCK_KINDS,
    Block,
    Line,
    Tone,
    as_text,
    clean,
    clip,
    json_text,
    value_lines,
)
from .preview import informed_lines, verdict_lines
from .transcript_genui import a2ui_block, activity_block

__all__ = [
    "BLOCK_KINDS",
    "Block",
    "Line",
    "audit_head_line",
    "audit_line",
    "document",
    "register_item_kind",
    "status_text",
    "transcript_text",
]

ItemRenderer = Callable[[dict[str, Any]], "Block | None"]


# ----------------------------------------------------------------------------------- status


RUN_STATUS_TEXT = {
    "idle": "idle",
    "running": "running…",
    "waiting": "waiting for your decision",
    "sending": "sending your decision…",
    "error": "error",
}
# How a turn ended (ChatView.outcome), as the live view's header says it once the view is idle.
RUN_OUTCOME_TEXT = {
    "success": "finished",
    "cancelled": "finished: cancelled by the agent",
    "interrupt": "stopped: questions left unanswered",
    "error": "stopped: error",
    "aborted": "stopped: aborted",
}


def status_text(status: str, outcome: str | None) -> str:
    """The view's header: the run's status, or how the turn ended once it is idle."""
    if status == "idle" and outcome:
        return RUN_OUTCOME_TEXT.get(outcome, f"finished: {outcome}")
    return RUN_STATUS_TEXT.get(status, status)


def _text_of(item: dict[str, Any], key: str) -> str:
    return as_text(item.get(key))


# ------------------------------------------------------------------------------ item renderers

TOOL_STATUS_TEXT = {
    "streaming": "receiving arguments…",
    "called": "called",
    "awaiting": "awaiting a decision",
    "done": "done",
    "rejected": "rejected",
    "cancelled": "cancelled",
}
_TOOL_TONE: dict[str, Tone] = {
    "done": "ok",
    "rejected": "bad",
    "cancelled": "bad",
    "awaiting": "warn",
}
DECISION_VERB = {
    "approve": "approved",
    "reject": "rejected",
    "edit": "approved with edited arguments",
    "cancel": "cancelled",
    "answer": "answered",
}
_DECISION_TONE: dict[str, Tone] = {
    "approve": "ok",
    "edit": "ok",
    "answer": "ok",
    "reject": "bad",
    "cancel": "bad",
}
_CARD_TONE: dict[str, Tone] = {"done": "ok", "failed": "bad"}
REASON_LABEL = {
    "tool_call": "tool call",
    "input_required": "input required",
    "confirmation": "confirmation",
}


def _user(item: dict[str, Any]) -> Block:
    return Block("user", Line(_text_of(item, "text"), label="You"))


def _assistant(item: dict[str, Any]) -> Block:
    return Block("assistant", Line(_text_of(item, "text"), label="Assistant"))


def _reasoning(item: dict[str, Any]) -> Block:
    text = _text_of(item, "text") or ("(encrypted)" if item.get("encrypted") else "")
    return Block("reasoning", Line(text, label="Reasoning"), collapsed=True)


def _tool(item: dict[str, Any]) -> Block:
    status = as_text(item.get("status"))
    name = _text_of(item, "name")
    head = Line(f"{name} ({TOOL_STATUS_TEXT.get(status, status)})", label="Tool")
    args = item.get("args")
    if args is not None:
        lines = value_lines(args, 0)
    elif _text_of(item, "argsText"):
        lines = [Line(clip(_text_of(item, "argsText")))]
    else:
        lines = [Line("(no arguments)", tone="muted")]
    if item.get("result") is not None:
        lines.append(Line(clip(_text_of(item, "result")), label="Result"))
    parts = item.get("resultParts")
    for part in parts if isinstance(parts, list) else []:
        if isinstance(part, dict) and part.get("type") != "text":  # text parts are the result
            lines.append(Line(clip(_attachment(part)), label="Attached", tone="muted"))
    return Block("tool", head, tuple(lines), tone=_TOOL_TONE.get(status, ""))


def _attachment(part: dict[str, Any]) -> str:
    """A content part the view shows as a picture or a file, named (never fetched or linked)."""
    kind = "image" if part.get("type") == "image" else as_text(part.get("kind")) or "file"
    about = [kind] + [as_text(part[k]) for k in ("mimeType", "location", "note") if part.get(k)]
    if isinstance(part.get("bytes"), int):
        about.append(f"{part['bytes']:,} bytes")
    return f"{as_text(part.get('label')) or kind} ({', '.join(about)})"


def _mode(interrupt: dict[str, Any]) -> str:
    """Tool approval, schema form or free answer, as the card decides (section.js)."""
    mode = interrupt.get("mode")
    schema = interrupt.get("responseSchema")
    if mode in ("tool", "free"):
        return str(mode)
    if mode == "form":
        return "form" if isinstance(schema, dict) else "free"
    if isinstance(schema, dict):
        return "form"
    return (
        "tool" if isinstance(interrupt.get("toolName"), str) and interrupt["toolName"] else "free"
    )


def _section(interrupt: Any, card: dict[str, Any]) -> list[Line]:
    it = interrupt if isinstance(interrupt, dict) else {}
    mode = _mode(it)
    reason = as_text(it.get("reason"))
    label = REASON_LABEL.get(reason, reason or "question")
    tool = _text_of(it, "toolName")
    reissued = " (re-issued)" if it.get("reissued") is True else ""
    lines = [
        Line(tool + reissued, label="Tool call") if mode == "tool" else Line(reissued, label=label)
    ]
    message = _text_of(it, "message")
    if message:
        lines.append(Line(clip(message)))
    if mode == "tool":
        args = it.get("args")
        if args is None:
            lines.append(Line("(no arguments)", label="Arguments", tone="muted"))
        else:
            lines.append(Line(label="Arguments"))
            lines.extend(value_lines(args, 1))
    lines.extend(informed_lines(it))  # the preview and checks computed in the notebook
    status = as_text(card.get("status")) or "pending"
    if status == "pending" and it.get("expiresAt"):
        lines.append(Line("this question expires; then only Cancel is possible", tone="warn"))
    if status in ("done", "failed"):
        lines.extend(_decision(it.get("id"), card))
        lines.extend(verdict_lines(it))  # whether what ran is what was decided
    return lines


def _decision(interrupt_id: Any, card: dict[str, Any]) -> list[Line]:
    decisions = card.get("decisions")
    decided_by = _text_of(card, "decidedBy")
    by = f" by {decided_by}" if decided_by else ""
    found = decisions.get(interrupt_id) if isinstance(decisions, dict) else None
    if not isinstance(found, dict):
        text = f"decided{by}" if decided_by else "no decision recorded"
        return [Line(text, label="Decision", tone="muted")]
    action = as_text(found.get("action"))
    lines = [
        Line(
            DECISION_VERB.get(action, action) + by,
            label="Decision",
            tone=_DECISION_TONE.get(action, ""),
        )
    ]
    if isinstance(found.get("reason"), str) and found["reason"]:
        lines.append(Line(clip(clean(found["reason"])), label="Reason"))
    if found.get("args") is not None:
        lines.append(Line(label="Arguments sent"))
        lines.extend(value_lines(found["args"], 1))
    if found.get("payload") is not None:
        lines.append(Line(label="Answer"))
        lines.extend(value_lines(found["payload"], 1))
    return lines


def _card(item: dict[str, Any]) -> Block:
    interrupts = item.get("interrupts")
    interrupts = interrupts if isinstance(interrupts, list) else []
    status = as_text(item.get("status")) or "pending"
    all_tools = bool(interrupts) and all(
        _mode(i if isinstance(i, dict) else {}) == "tool" for i in interrupts
    )
    title = "Approval needed" if all_tools else "Your input is needed"
    decided_by = _text_of(item, "decidedBy")
    verdict = _text_of(item, "verdict")  # "Approved by Ada Lovelace", from the chat
    count = item.get("approvals")
    waiting = "pending (waiting for a decision)"
    if isinstance(count, dict) and count.get("text"):
        missing = _text_of(count, "missing")
        waiting = f"pending ({_text_of(count, 'text')}{'; ' + missing if missing else ''})"
    shown = {
        "pending": waiting,
        "sending": "sending…",
        "done": verdict or (f"done (decided by {decided_by})" if decided_by else "done"),
    }.get(status, status)
    lines: list[Line] = []
    for interrupt in interrupts:
        lines.extend(_section(interrupt, item))
    if not interrupts:
        lines.append(Line("(no questions in this card)", tone="muted"))
    if status == "pending" and item.get("timeoutAt") and item.get("timeoutDefault"):
        default = _text_of(item, "timeoutDefault")
        lines.append(Line(f"with no answer in time: {default}", tone="warn"))
    error = item.get("error")
    if status == "failed" and error:
        title_text = _text_of(error, "title") if isinstance(error, dict) else ""
        message = _text_of(error, "message") if isinstance(error, dict) else as_text(error)
        lines.append(
            Line(clip(message), label=title_text or "Sending the decision failed", tone="bad")
        )
    if _text_of(item, "note"):
        lines.append(Line(_text_of(item, "note"), tone="muted"))
    return Block(
        "card", Line(shown, label=title), tuple(lines), tone=_CARD_TONE.get(status, "warn")
    )


def _error(item: dict[str, Any]) -> Block:
    lines = [Line(_text_of(item, "message"), tone="bad")]
    if _text_of(item, "hint"):
        lines.append(Line(_text_of(item, "hint"), tone="muted"))
    return Block(
        "error", Line(_text_of(item, "title") or "Error", label="Error"), tuple(lines), "bad"
    )


def _notice(item: dict[str, Any]) -> Block:
    return Block("notice", Line(_text_of(item, "text"), tone="muted"))


# Fields worth reading in an item of a kind nobody registered; any other field is named only,
# since its value may be an id or a time (the transcript must not change between runs).
_READABLE = ("title", "name", "text", "message", "content", "summary", "status")


def generic_block(item: dict[str, Any], kind: str) -> Block:
    lines = [
        Line(clip(as_text(item[key])), label=key)
        for key in _READABLE
        if item.get(key) not in (None, "", [], {})
    ]
    others = [clean(str(k)) for k in item if k not in _READABLE and k not in ("kind", "id")]
    if others:
        lines.append(Line(", ".join(others), label="other fields", tone="muted"))
    return Block("other", Line(f'"{clean(kind)}"', label="Item of kind"), tuple(lines))


_KINDS: dict[str, ItemRenderer] = {
    "user": _user,
    "assistant": _assistant,
    "reasoning": _reasoning,
    "tool": _tool,
    "card": _card,
    "error": _error,
    "notice": _notice,
    "activity": activity_block,
    "a2ui": a2ui_block,
}


def register_item_kind(kind: str, render: ItemRenderer) -> None:
    """Show items of ``kind`` with ``render(item) -> Block`` (``None`` shows nothing).

    ``render`` must be deterministic: build lines from what a person reads, never from ids or
    times. It replaces an earlier renderer of the same kind.
    """
    _KINDS[kind] = render


def _blocks(items: Iterable[Any]) -> list[Block]:
    blocks: list[Block] = []
    for raw in items:
        item = raw if isinstance(raw, dict) else {"value": raw}
        kind = item["kind"] if isinstance(item.get("kind"), str) else "unknown"
        render = _KINDS.get(kind)
        try:
            block = render(item) if render is not None else generic_block(item, kind)
        except Exception:  # a renderer's bug must not cost the view its text form
            block = generic_block(item, kind)
        if block is not None:
            blocks.append(block)
    return blocks


# ------------------------------------------------------------------------------------- audit


def audit_line(record: dict[str, Any]) -> str:
    """One decision as deterministic text: ``transfer_money(amount=500) -> approve (by you)``."""
    subject = record.get("tool") or record.get("action") or record.get("reason") or "interrupt"
    call = f"{subject}({summarize_arguments(record.get('arguments'), 80)})"
    decision = record["decision"]
    changes = record.get("changes")
    if changes:
        decision += " " + ", ".join(f"{k}={new!r}" for k, (_, new) in changes.items())
    if record.get("rejectReason"):
        decision += f" {record['rejectReason']!r}"
    return (
        f"{call} -> {decision} (by {record['decidedBy']}) => {record.get('outcome') or 'pending'}"
    )


def audit_head_line(record: dict[str, Any]) -> str | None:
    """``  audit head SEQ:HASH``: the store's chain head once this decision was written
    (``chat.audit_text()``; None when the chat keeps no store)."""
    head = record.get("auditHead") if isinstance(record, dict) else None
    return f"  audit head {head}" if isinstance(head, str) and head else None


def _audit_lines(audit: Sequence[Any]) -> list[Line]:
    lines = []
    for record in audit:
        try:
            text = audit_line(record)
        except (KeyError, TypeError, AttributeError, ValueError):
            text = json_text(record)
        lines.append(Line(clean(text)))
        # The head to publish, as audit_text() shows it: a saved notebook read without a kernel
        # still says which head each decision left (it differs on every run: nbval masks it).
        head = audit_head_line(record)
        if head is not None:
            lines.append(Line(clean(head)))
    return lines


# Fields a state holds for machines, not people, whose values change every run (LangGraph's
# messages carry uuids): the state line leaves them out, so the transcript stays comparable.
_VOLATILE = re.compile(r"(^id$|Id$|_id$|ID$|At$|_at$|^timestamp$)")


def without_ids_and_times(value: Any, depth: int = 0) -> Any:
    """``value`` without the object fields named like ids or times, at any depth."""
    if depth > 64:
        return value
    if isinstance(value, dict):
        return {
            k: without_ids_and_times(v, depth + 1)
            for k, v in value.items()
            if not (isinstance(k, str) and _VOLATILE.search(k))
        }
    if isinstance(value, list):
        return [without_ids_and_times(v, depth + 1) for v in value]
    return value


def document(
    items: Iterable[Any], state: Any, audit: Sequence[Any], status: str, outcome: str | None
) -> list[Block]:
    blocks = [Block("status", Line(status_text(status, outcome), label="Status"))]
    blocks.extend(_blocks(items))
    empty_state = state is None or (isinstance(state, dict) and not state)
    if not empty_state:
        shown = clip(json_text(without_ids_and_times(state)))
        blocks.append(Block("state", Line(shown, label="State"), collapsed=True))
    if audit:
        head = Line(label=f"Audit ({len(audit)})")
        blocks.append(Block("audit", head, tuple(_audit_lines(audit)), collapsed=True))
    return blocks


# -------------------------------------------------------------------------------- plain text


def _text_line(line: Line, indent: int) -> str:
    pad = "  " * (indent + max(0, line.depth))
    if line.label and line.text:
        body = f"{line.label}: {line.text}"
    elif line.label:
        body = f"{line.label}:"
    else:
        body = line.text
    # Continuation lines of a multi-line text sit under the first, a little further in.
    return "\n".join(
        (pad if i == 0 else pad + "  ") + part if part else ""
        for i, part in enumerate(body.split("\n"))
    ).rstrip()


def transcript_text(
    items: Iterable[Any],
    *,
    state: Any = None,
    audit: Sequence[Any] = (),
    status: str = "idle",
    outcome: str | None = None,
) -> str:
    """The view as text: one line per thing a person sees (nbval compares it)."""
    out = []
    for block in document(items, state, audit, status, outcome):
        out.append(_text_line(block.head, 0))
        out.extend(_text_line(line, 1) for line in block.lines)
    return "\n".join(out)
