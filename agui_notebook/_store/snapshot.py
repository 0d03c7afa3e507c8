"""A stored thread back into what a Thread holds, its messages decoded when first read. No I/O.

:func:`decode_stored` checks a paged thread's pages when it is restored: every page there (its
numbers 0, 1, ... adding up to the row's count) and intact (its digest). When every message page
is intact and was validated when written by this same code (``validated_by`` is this client's
``codec_tag``), the messages are left as their pages' text in a :class:`StoredSnapshot`, and
decoded, in one pass, the first time anything reads ``snapshot.messages``. Anything else (a page
missing or changed, written by another version, a row from before version 3) is decoded at once,
as every restore was before. Tool calls, the state and the interrupts are always decoded at once.
"""

from __future__ import annotations

import json
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import ValidationError

from .._errors import StoreWarning
from .._state.reducer import ThreadSnapshot, ToolCallInfo
from .codec import (
    RestoredThread,
    StoredThreadData,
    collector_paused,
    decode_messages_one_by_one,
    decode_thread,
    interrupt_from_json,
    messages_adapter,
    tool_call_from_json,
)
from .pages import MESSAGES, TOOL_CALLS, Layout, Page, Written, codec_tag, written_from_pages

__all__ = ["StoredSnapshot", "decode_paged_messages", "decode_stored"]

_DECODING = threading.Lock()  # two threads reading a fresh snapshot at once decode it once
_NOUNS = {MESSAGES: "messages", TOOL_CALLS: "tool calls"}


class StoredSnapshot(ThreadSnapshot):
    """A restored :class:`ThreadSnapshot` whose ``messages`` are still their pages' text: the
    first read of ``messages`` (any read: ``len``, a copy, a lookup) decodes them all, in one
    pass, into the same dict of models an eager restore builds, and from then on it is that dict.
    Everything else is a ThreadSnapshot's (and compares equal to one with the same contents)."""

    @classmethod
    def deferred(
        cls,
        bodies: list[str],
        *,
        state: Any,
        tool_calls: dict[str, ToolCallInfo],
        report: Callable[[list[str]], None],
    ) -> StoredSnapshot:
        snapshot = cls(state=state, tool_calls=tool_calls)
        snapshot.__dict__["_pages"] = (bodies, report)
        return snapshot

    @property
    def messages(self) -> dict[str, Any]:
        if "_pages" in self.__dict__:
            with _DECODING:
                pages = self.__dict__.get("_pages")
                if pages is not None:
                    bodies, report = pages
                    notes: list[str] = []
                    with collector_paused():
                        self.__dict__["_messages"] = decode_paged_messages(bodies, notes)
                    self.__dict__.pop(
                        "_pages", None
                    )  # only now: a reader finding it gone reads them
                    if notes:  # cannot happen for pages checked as validated_by: said anyway
                        report(notes)
        messages: dict[str, Any] = self.__dict__["_messages"]
        return messages

    @messages.setter
    def messages(self, value: dict[str, Any]) -> None:
        self.__dict__.pop("_pages", None)
        self.__dict__["_messages"] = value

    @property
    def decoded(self) -> bool:
        """Its messages have been read (and decoded)."""
        return "_pages" not in self.__dict__

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ThreadSnapshot):
            return NotImplemented
        return (self.messages, self.state, self.tool_calls, self.subagents) == (
            other.messages,
            other.state,
            other.tool_calls,
            other.subagents,
        )

    __hash__ = None  # type: ignore[assignment]  # as a ThreadSnapshot's (a mutable dataclass)


def _as_array(bodies: Sequence[str]) -> str:
    # A page's body is JSON Lines; its lines joined by commas are the elements of a JSON array.
    return "[" + ",".join(b.replace("\n", ",") for b in bodies) + "]"


def decode_paged_messages(bodies: Sequence[str], warnings: list[str]) -> dict[str, Any]:
    """Messages by id from their pages' bodies: one pass of pydantic's JSON validator over all of
    them; on any error, page by page, each message on its own (what does not validate is left
    out with a warning, as is a page that is not JSON)."""
    try:
        models = messages_adapter().validate_json(_as_array(bodies))
    except ValidationError:
        pass
    else:
        return {m.id: m for m in models}
    restored: dict[str, Any] = {}
    first = 0
    for n, body in enumerate(bodies):
        try:
            restored.update(decode_messages_one_by_one(_as_array([body]), warnings, first))
        except ValueError:
            warnings.append(f"stored messages page {n} is not JSON: left out")
        first += body.count("\n") + 1
    return restored


def _decode_calls(pages: Sequence[Page], warnings: list[str]) -> dict[str, ToolCallInfo]:
    try:
        data = json.loads(_as_array([p.body for p in pages]))
    except ValueError:
        data = []
        for page in pages:
            try:
                data += json.loads(_as_array([page.body]))
            except ValueError:
                warnings.append(f"stored tool calls page {page.number} is not JSON: left out")
    return {c["id"]: tool_call_from_json(c) for c in data}


def _intact(kind: str, pages: list[Page], count: int, warnings: list[str]) -> bool:
    """Every page of ``kind`` is there (numbered 0, 1, ..., ``count`` items) and as written."""
    noun = _NOUNS[kind]
    ok = True
    held = sum(p.items for p in pages)
    if [p.number for p in pages] != list(range(len(pages))) or held != count:
        warnings.append(
            f"the store holds {held} of the thread's {count} {noun} (a page is missing)"
        )
        ok = False
    for page in pages:
        if not page.intact():
            warnings.append(
                f"stored {noun} page {page.number} changed after it was written (its digest "
                "does not match); read and validated now"
            )
            ok = False
    return ok


def decode_stored(data: StoredThreadData, thread_id: str) -> RestoredThread:
    """A stored thread back into the pieces a Thread holds (module docstring: what is checked
    when); raises ValueError (TypeError, KeyError) when it cannot be read at all."""
    if not data.paged:
        return decode_thread(
            messages=data.messages,
            state=data.state,
            tool_calls=data.tool_calls,
            pending=data.pending,
            answered=data.answered,
            last_run_id=data.last_run_id,
        )
    notes: list[str] = []
    kinds: dict[str, list[Page]] = {MESSAGES: [], TOOL_CALLS: []}
    for page in sorted(data.pages, key=lambda p: p.number):
        kinds.setdefault(page.kind, []).append(page)
    message_pages, call_pages = kinds[MESSAGES], kinds[TOOL_CALLS]
    messages_intact = _intact(MESSAGES, message_pages, data.message_count, notes)
    calls_intact = _intact(TOOL_CALLS, call_pages, data.tool_call_count, notes)
    with collector_paused():
        left = len(notes)
        calls = _decode_calls(call_pages, notes)
        calls_whole = calls_intact and len(notes) == left
    state = json.loads(data.state)
    tag = codec_tag()
    bodies = [p.body for p in message_pages]
    seed: Written | Callable[[], Written | None] | None
    snapshot: ThreadSnapshot
    if messages_intact and all(p.validated_by == tag for p in message_pages):

        def report(late: list[str]) -> None:
            for note in late:
                warnings.warn(StoreWarning(f"thread {thread_id}: {note}"), stacklevel=4)

        snapshot = StoredSnapshot.deferred(bodies, state=state, tool_calls=calls, report=report)
        seed = lambda: _seed(message_pages, snapshot.messages)  # noqa: E731 - decoded when asked
    else:
        left = len(notes)
        with collector_paused():
            messages = decode_paged_messages(bodies, notes)
        snapshot = ThreadSnapshot(messages=messages, state=state, tool_calls=calls)
        seed = _seed(message_pages, messages) if messages_intact and len(notes) == left else None
    return RestoredThread(
        snapshot=snapshot,
        pending=[interrupt_from_json(p) for p in json.loads(data.pending)],
        last_run_id=data.last_run_id,
        answered={
            p.id: p
            for p in (
                interrupt_from_json(a) for a in json.loads(data.answered) if isinstance(a, dict)
            )
        },
        warnings=notes,
        layout=Layout(
            data.revision,
            None,  # scrubbed of secrets this journal may not know: checked at its next commit
            {MESSAGES: seed, TOOL_CALLS: _seed(call_pages, calls) if calls_whole else None},
        ),
    )


def _seed(pages: list[Page], items: dict[str, Any]) -> Written | None:
    return written_from_pages(pages, list(items.values()), list(items))
