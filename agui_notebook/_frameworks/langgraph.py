"""LangGraph's AG-UI adapter (``ag-ui-langgraph``): its default interrupt style, read and answered.
Pure. See docs/compatibility.md, "LangGraph".

By default the adapter ends a run paused in ``interrupt(value)`` with one ``CUSTOM`` event named
``on_interrupt`` per interrupt and a ``RUN_FINISHED`` *without* an outcome, and expects the answer
as ``forwardedProps.command.resume`` on a new run of the same thread. Its 1.1 mode
(``emit_interrupt_outcome=True``) sends the same events *and* ``outcome: interrupt``.

Reading (:func:`interrupts_from_events`): when a run ends with no outcome after ``on_interrupt``
events, the run's outcome is ``interrupt`` and each event becomes the ``Interrupt`` the adapter's
1.1 mode would have sent for it (``reason``, ``message``, ``toolCallId``, ``responseSchema``,
``expiresAt`` read from the value's keys; the value under ``metadata.langgraph.raw``), so cards
and policies see the same thing in both styles. When the run has an outcome the events are
ignored: each interrupt counts once. The interrupt id is LangGraph's, from ``rawEvent.id`` (the
adapter sends it unless ``emit_raw_events=False``); without it the client names the interrupt
itself, and that name is never sent.

Answering (:func:`route_resume`): in the default style the answer goes in
``forwardedProps.command.resume`` as the value the adapter would have built from ``resume[]`` in
its 1.1 mode, so the graph reads the same thing either way: one interrupt -> the payload (a
string JSON-encoded, because the adapter parses a string as JSON: "123" would arrive as 123);
a cancel -> ``{"__agui_cancelled__": true, "interrupt_id": ...}``. Several interrupts -> LangGraph's
own resume map ``{interrupt_id: value}``, in *both* styles: the adapter turns several ``resume[]``
entries into one value that LangGraph refuses while several interrupts are pending (RUN_ERROR).
What the adapter cannot carry is refused before anything is sent (:class:`InvalidDecision`): an
empty (null) answer in the default style (read as "no answer"), and several answers when the
server sent no interrupt ids. A new message while a LangGraph interrupt is pending is refused too
(:func:`refuse_new_message`): the adapter ignores it and raises the same interrupt again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from ag_ui.core import Interrupt, ResumeEntry

from .._errors import InvalidDecision, UnansweredInterrupts
from .dialect import Asked, Described, Dialect, json_or_text

__all__ = [
    "ON_INTERRUPT",
    "LangGraphDialect",
    "interrupts_from_events",
    "is_langgraph",
    "refuse_new_message",
    "restates_arguments",
    "route_resume",
    "tool_and_message",
]

ON_INTERRUPT = "on_interrupt"
#: What the adapter resumes a cancelled interrupt with (ag_ui_langgraph.interrupts).
CANCELLED_MARKER = "__agui_cancelled__"
#: Where the client notes, on an interrupt read from ``on_interrupt``, how to answer it.
CLIENT_KEY = "agui_notebook"
_LANGGRAPH_ID = re.compile(r"^[0-9a-f]{32}$")  # LangGraph keys its resume map by these only


# -- reading ------------------------------------------------------------------------------


def interrupts_from_events(events: Iterable[Any], run_id: str | None = None) -> list[Interrupt]:
    """The interrupts a run's ``CUSTOM on_interrupt`` events stand for, in order.

    An interrupt without an id on the wire is named after the run that raised it, so a later
    interrupt is never taken for one already answered.
    """
    local = f"langgraph-{run_id}" if run_id else "langgraph-interrupt"
    out: list[Interrupt] = []
    for index, event in enumerate(events, start=1):
        value = _event_value(event)
        raw = event.raw_event if isinstance(event.raw_event, dict) else {}
        wire_id = raw.get("id") if isinstance(raw.get("id"), str) and raw.get("id") else None
        fields = value if isinstance(value, dict) else {}
        reason = fields.get("reason")
        schema = _first(fields, "responseSchema", "response_schema")
        expires = _first(fields, "expiresAt", "expires_at")
        tool_call_id = _first(fields, "toolCallId", "tool_call_id")
        message = value if isinstance(value, str) else fields.get("message")
        out.append(
            Interrupt(
                id=wire_id or f"{local}-{index}",
                reason=reason if isinstance(reason, str) else "langgraph:interrupt",
                message=message if isinstance(message, str) else None,
                tool_call_id=tool_call_id if isinstance(tool_call_id, str) else None,
                response_schema=schema if isinstance(schema, dict) else None,
                expires_at=expires if isinstance(expires, str) else None,
                metadata={
                    "langgraph": {"raw": value, "ns": raw.get("ns"), "when": raw.get("when")},
                    CLIENT_KEY: {
                        "answerVia": "forwardedProps.command.resume",
                        "idOnWire": bool(wire_id),
                    },
                },
            )
        )
    return out


def _event_value(event: Any) -> Any:
    """The interrupt's value: ``rawEvent.value`` as sent, else ``value`` (a dict arrives
    JSON-encoded; a string value arrives as it is, so a string that is not JSON is the value)."""
    raw = event.raw_event
    if isinstance(raw, dict) and "value" in raw:
        return raw["value"]
    return json_or_text(event.value)


def _first(fields: dict[str, Any], *keys: str) -> Any:
    return next((fields[k] for k in keys if fields.get(k) is not None), None)


def tool_and_message(metadata: dict[str, Any] | None) -> tuple[str | None, Any, str | None]:
    """Tool name, arguments and a question to show, from ``metadata.langgraph.raw`` (both styles).

    The name is the value's ``tool``/``toolName``/``tool_name``/``name``, the arguments its
    ``arguments``/``args``; the question, for a value with no ``message``, its ``question`` or
    the value itself as compact JSON (so a card never shows an empty question).
    """
    section = metadata.get("langgraph") if isinstance(metadata, dict) else None
    if not isinstance(section, dict) or "raw" not in section:
        return None, None, None
    value = section["raw"]
    if isinstance(value, str):
        return None, None, value
    if not isinstance(value, dict):
        return None, None, json.dumps(value, separators=(",", ":"))
    name = _first(value, "tool", "toolName", "tool_name", "name")
    args = _first(value, "arguments", "args")
    question = value.get("message") if isinstance(value.get("message"), str) else None
    if question is None and isinstance(value.get("question"), str):
        question = value["question"]
    if question is None and not isinstance(name, str):
        question = json.dumps(value, separators=(",", ":"), default=str)
    return (name if isinstance(name, str) else None), args, question


# -- answering ----------------------------------------------------------------------------


def is_langgraph(interrupt: Asked) -> bool:
    return isinstance(interrupt.metadata, dict) and isinstance(
        interrupt.metadata.get("langgraph"), dict
    )


def _via_command(interrupt: Asked) -> bool:
    note = interrupt.metadata.get(CLIENT_KEY) if interrupt.metadata else None
    return isinstance(note, dict) and note.get("answerVia") == "forwardedProps.command.resume"


def _wire_id(interrupt: Asked) -> str | None:
    note = interrupt.metadata.get(CLIENT_KEY) if interrupt.metadata else None
    if isinstance(note, dict) and note.get("idOnWire") is False:
        return None
    return interrupt.id


def route_resume(
    pending: Sequence[Asked], entries: list[ResumeEntry], forwarded_props: Any
) -> tuple[Any, bool]:
    """``(forwardedProps to send, whether resume[] goes on the wire)`` for answering ``pending``.

    Servers other than LangGraph, and a single interrupt in LangGraph's 1.1 mode: unchanged,
    ``resume[]``. Otherwise the answer goes in ``forwardedProps.command.resume`` (module doc).
    Raises :class:`InvalidDecision` (nothing is sent) for what that channel cannot carry.
    """
    if not entries or not all(is_langgraph(p) for p in pending):
        return forwarded_props, True
    by_id = {p.id: p for p in pending}
    if len(entries) == 1 and not _via_command(by_id[entries[0].interrupt_id]):
        return forwarded_props, True  # the 1.1 mode reads a single resume[] entry as is
    if len(entries) == 1:
        value = _single_value(by_id[entries[0].interrupt_id], entries[0])
    else:
        value = {}
        for entry in entries:
            interrupt = by_id[entry.interrupt_id]
            wire_id = _wire_id(interrupt)
            if wire_id is None or not _LANGGRAPH_ID.match(wire_id):
                raise InvalidDecision(
                    interrupt.id,
                    "this LangGraph server sent no interrupt ids (its on_interrupt events have no "
                    "rawEvent: emit_raw_events=False), so several interrupts cannot be answered "
                    "at once; nothing was sent",
                )
            value[wire_id] = (
                _cancel_marker(wire_id) if entry.status == "cancelled" else entry.payload
            )
    props = dict(forwarded_props) if isinstance(forwarded_props, dict) else {}
    command = props.get("command")
    props["command"] = {**(command if isinstance(command, dict) else {}), "resume": value}
    return props, False


def _single_value(interrupt: Asked, entry: ResumeEntry) -> Any:
    if entry.status == "cancelled":
        return _cancel_marker(_wire_id(interrupt))
    payload = entry.payload
    if payload is None:
        raise InvalidDecision(
            interrupt.id,
            "LangGraph's default interrupt style reads an empty (null) answer as no answer and "
            "would raise the interrupt again; nothing was sent",
        )
    # The adapter parses a string command.resume as JSON: encode it so it arrives as written.
    return json.dumps(payload) if isinstance(payload, str) else payload


def _cancel_marker(wire_id: str | None) -> dict[str, Any]:
    marker: dict[str, Any] = {CANCELLED_MARKER: True}
    if wire_id is not None:
        marker["interrupt_id"] = wire_id
    return marker


def refuse_new_message(pending: Sequence[Asked]) -> None:
    """A new message on a thread paused by LangGraph: refused, as the adapter would ignore it."""
    waiting = [p.id for p in pending if is_langgraph(p)]
    if waiting:
        raise UnansweredInterrupts(
            waiting,
            detail=(
                "the LangGraph agent is paused on an interrupt and ignores new messages until it "
                "is answered (it would only raise the same interrupt again); answer it first "
                "(resume, or cancel()); nothing was sent"
            ),
        )


def restates_arguments(held: str, streamed: str) -> bool:
    """True when a later run reopened a tool call only to stream its arguments again.

    The adapter re-sends TOOL_CALL_START/ARGS/END for a call the thread already holds when a run
    resumes. AG-UI 1.1 says a reopened call's arguments append, which would leave ``{...}{...}``:
    so a reopening whose text is exactly the held text again is read as a restatement (a
    departure, DEP-5, off under ``Agent(strict=True)``).
    """
    return bool(held) and streamed == held + held


class LangGraphDialect(Dialect):
    name = "langgraph"
    pause_events = frozenset({ON_INTERRUPT})

    def describe(self, reason: str, metadata: dict[str, Any] | None) -> Described | None:
        name, args, question = tool_and_message(metadata)
        if name is None and args is None and question is None:
            return None
        return Described(None, name, json_or_text(args), question=question)

    def interrupts_from_custom(
        self, events: Sequence[Any], run_id: str | None
    ) -> list[Interrupt] | None:
        ours = [e for e in events if e.name == ON_INTERRUPT]
        return interrupts_from_events(ours, run_id) if ours else None

    def refuse_new_message(self, pending: Sequence[Asked]) -> None:
        refuse_new_message(pending)

    def route_resume(
        self, pending: Sequence[Asked], entries: list[ResumeEntry], forwarded_props: Any
    ) -> tuple[Any, bool] | None:
        if not entries or not all(is_langgraph(p) for p in pending):
            return None
        return route_resume(pending, entries, forwarded_props)

    def restates_arguments(self, held: str, streamed: str) -> bool:
        return restates_arguments(held, streamed)

    def restreamed_arguments(self, held: str, text: str) -> str:
        # The adapter restarts a reopened call's arguments instead of appending (see above): what
        # it streamed is the text after the held one.
        if held and len(text) > len(held) and text.startswith(held):
            return text[len(held) :]
        return text
