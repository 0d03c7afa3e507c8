"""The chat view widget: state for its front end (``js/src/``, bundled into ``static/chat.js``)
and validated messages from it.

State flows Python -> JS through synced traits only; clicks flow JS -> Python as custom messages
(``model.send``), never as trait writes (trait writes while a cell awaits desynchronise
ipywidgets' throttle on ipykernel 7.4). Every incoming message is validated
with pydantic before anything acts on it, and answered with an ``ack`` matched by ``requestId``.
The view's items are held in pages (:class:`ItemPage`, child widgets of
:data:`PAGE_SIZE` items each; the view's ``pages`` trait lists them): a push resends only the pages
whose items changed, the open one at the end as a rule, so a push costs O(page), not O(transcript),
while every consumer (JupyterLab, marimo, nbclient's saved widget state) still gets whole state
through ordinary trait updates. The contract is docs/widget-protocol.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Annotated, Any, Literal

import anywidget
import ipywidgets
import traitlets
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from .._state.items import ItemList
from .html import transcript_html
from .static import chat_js_path
from .transcript import transcript_text

__all__ = [
    "AUDIT_SHOWN",
    "PAGE_SIZE",
    "A2UIActionMessage",
    "A2UIRetryMessage",
    "ChatView",
    "DecideMessage",
    "FrontDecision",
    "FrontMessage",
    "ItemPage",
    "PreviewMessage",
    "RetryMessage",
    "parse_front_message",
]


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FrontDecision(_Msg):
    action: Literal["approve", "reject", "edit", "cancel", "answer"]
    reason: str | None = None
    args: dict[str, Any] | None = None
    payload: Any = None
    #: "Approve anyway": why an approval (or edit) goes out although a check failed.
    override: str | None = Field(default=None, max_length=2000)


class DecideMessage(_Msg):
    type: Literal["decide"]
    requestId: str = Field(min_length=1, max_length=200)
    card: str
    decisions: dict[str, FrontDecision]
    alwaysAllow: list[str] = Field(default_factory=list)


class RetryMessage(_Msg):
    type: Literal["retry"]
    requestId: str = Field(min_length=1, max_length=200)
    card: str


class PreviewMessage(_Msg):
    """A person is editing a call's arguments: preview and check these (valid) ones."""

    type: Literal["preview"]
    requestId: str = Field(min_length=1, max_length=200)
    card: str
    interrupt: str
    args: dict[str, Any]


class UserAction(_Msg):
    """A2UI v0.9's client-to-server ``action``, as a surface's button built it."""

    name: str = Field(min_length=1, max_length=500)
    surfaceId: str = Field(min_length=1, max_length=500)
    sourceComponentId: str = Field(min_length=1, max_length=500)
    timestamp: str = Field(max_length=100)
    context: dict[str, Any]


class A2UIActionMessage(_Msg):
    type: Literal["a2ui-action"]
    requestId: str = Field(min_length=1, max_length=200)
    surfaceId: str = Field(min_length=1, max_length=500)
    seq: int = Field(ge=0)
    action: UserAction


class A2UIRetryMessage(_Msg):
    type: Literal["a2ui-retry"]
    requestId: str = Field(min_length=1, max_length=200)
    surfaceId: str = Field(min_length=1, max_length=500)
    seq: int = Field(ge=0)


AnyFrontMessage = (
    DecideMessage | RetryMessage | A2UIActionMessage | A2UIRetryMessage | PreviewMessage
)
FrontMessage = Annotated[AnyFrontMessage, Field(discriminator="type")]
_FRONT: TypeAdapter[AnyFrontMessage] = TypeAdapter(FrontMessage)


def parse_front_message(content: Any) -> AnyFrontMessage:
    """Validate a message from the front end; raises ``ValueError`` with a readable reason."""
    try:
        return _FRONT.validate_python(content)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise ValueError(f"invalid message from the card ({loc}: {first['msg']})") from None


#: Items per page: a push sends the pages that changed, so at most about this many items, plus
#: the list of page references when a page is added (every PAGE_SIZE items).
PAGE_SIZE = 32
#: The view's live audit table holds this view's last this-many decisions (``audit_count`` says
#: how many there are): each decision re-sends the table, so a long chat in one cell would pay
#: O(its decisions) per decision. The transcript text and ``chat.audit`` keep every one.
AUDIT_SHOWN = 20


class ItemPage(ipywidgets.Widget):  # type: ignore[misc]  # ipywidgets ships no types
    """A run of :data:`PAGE_SIZE` consecutive items of a :class:`ChatView` (the last one may
    hold fewer): a model without a view of its own, which the chat's front end reads.

    A plain widget model (``@jupyter-widgets/base``'s), not an anywidget: marimo serves an
    anywidget's module as a file of the running cell, so a page opened by a click's
    continuation, after the cell ended, failed there (an ``AssertionError`` inside marimo, and the
    turn stopped with the card "sending"). Every front end has the base model.
    """

    items: traitlets.List[dict[str, Any]] = traitlets.List([]).tag(sync=True)
    """The page's display items, in order (docs/widget-protocol.md)."""

    def __repr__(self) -> str:
        return f"ItemPage({len(self.items)} items)"


class ChatView(anywidget.AnyWidget):
    """One turn of a chat, as it streams: messages, tool calls, cards, errors."""

    _esm = chat_js_path()

    pages: traitlets.List[ItemPage] = traitlets.List(traitlets.Instance(ItemPage)).tag(
        sync=True, **ipywidgets.widget_serialization
    )
    """The display items in pages, in order: the front end shows their items one after another."""
    items: traitlets.List[dict[str, Any]] = traitlets.List([])
    """Display items in order (docs/widget-protocol.md); kept here, sent through :attr:`pages`
    (setting it pages it)."""
    state = traitlets.Any(None).tag(sync=True)
    """The agent's shared state."""
    status = traitlets.Unicode("idle").tag(sync=True)
    """idle | running | waiting | sending | error."""
    audit: traitlets.List[dict[str, Any]] = traitlets.List([]).tag(sync=True)
    """The last :data:`AUDIT_SHOWN` decisions made in this view (plain records; saved with the
    notebook's widget state); set :attr:`audit_records` instead."""
    audit_count = traitlets.Int(0).tag(sync=True)
    """How many decisions this view has in all (``audit`` holds the last of them)."""
    outcome = traitlets.Unicode(None, allow_none=True).tag(sync=True)
    """How the turn ended: success | cancelled | interrupt | error | aborted; None until then."""

    #: At most this many state pushes per second while streaming (text deltas are coalesced).
    max_updates_per_second = 30.0

    def __init__(self, *, on_message: Callable[[ChatView, Any], None] | None = None) -> None:
        super().__init__()
        self._listener = on_message
        self._last_push = 0.0
        #: How many coalesced pushes of items/state were sent (bench/widget_traffic.py).
        self.pushes = 0
        self.item_list = ItemList()
        self.pending_state: Any = None
        self.flush_scheduled = False
        #: The display id Chat showed this view with, to update that output when a turn ends,
        #: and the cell run it was shown in (a _waiting.CellRun).
        self.display_id: str | None = None
        self.display_cell: Any = None
        self._audit_records: list[dict[str, Any]] = []

    @property
    def audit_records(self) -> list[dict[str, Any]]:
        """Every decision made in this view (the static transcript shows them all)."""
        return self._audit_records

    @audit_records.setter
    def audit_records(self, records: list[dict[str, Any]]) -> None:
        self._audit_records = records
        with self.hold_sync():
            # Copies: a record changed in place (its outcome) must read as a change of the trait.
            self.audit = [dict(r) for r in records[-AUDIT_SHOWN:]]
            self.audit_count = len(records)

    def __repr__(self) -> str:
        # Deterministic (no ids, no addresses); the display's text/plain is the transcript.
        return "ChatView()"

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The widget, plus the static text and HTML that viewers without a kernel show."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is None:
            return None
        data, metadata = bundle
        return {**data, **self.static_bundle()}, metadata

    def static_bundle(self) -> dict[str, str]:
        """``text/plain`` (a deterministic transcript) and ``text/html`` (the same, inert)."""
        view = {
            "state": self.state,
            "audit": self._audit_records,
            "status": self.status,
            "outcome": self.outcome,
        }
        return {
            "text/plain": transcript_text(self.items, **view),
            "text/html": transcript_html(self.items, **view),
        }

    def _handle_custom_msg(self, *args: Any) -> None:
        """ipywidgets' entry point for a ``model.send`` from the front end: ``(content, buffers)``.

        Also accepts ``(widget, content, buffers)``, the ``on_msg`` callback form. It may run on a
        kernel subshell thread: validate here, act on the loop (the listener hands it over).
        """
        content = args[-2] if len(args) >= 2 else None
        request_id = content.get("requestId") if isinstance(content, dict) else None
        try:
            message = parse_front_message(content)
        except ValueError as exc:
            self.ack(str(request_id or ""), accepted=False, error=str(exc))
            return
        if self._listener is None:
            self.ack(message.requestId, accepted=False, error="this view is not waiting")
            return
        self._listener(self, message)

    def ack(
        self,
        request_id: str,
        *,
        accepted: bool,
        error: str | None = None,
        late: bool = False,
        waiting: bool = False,
    ) -> None:
        """Answer a front-end message; ``late``: a click on a card already decided (``error``
        then says what happened, for the card to show as a note, not as an error); ``waiting``:
        an approval counted while more approvers are needed (the card stays pending)."""
        content: dict[str, Any] = {"type": "ack", "requestId": request_id, "accepted": accepted}
        if error:
            content["error"] = error
        if late:
            content["late"] = True
        if waiting:
            content["waiting"] = True
        self.send(content)

    def due(self) -> bool:
        """Whether a push now keeps within ``max_updates_per_second``."""
        return time.monotonic() - self._last_push >= 1.0 / self.max_updates_per_second

    def push(self, items: list[dict[str, Any]], state: Any) -> None:
        """Send new items and state to the front end (callers coalesce with :meth:`due`)."""
        self._last_push = time.monotonic()
        with self.hold_sync():
            self.items = items  # _items_changed pages them
            if state is not self.state:
                self.state = state
        self.pushes += 1

    @traitlets.observe("items")
    def _items_changed(self, change: dict[str, Any]) -> None:
        self._page(change["new"])

    def _page(self, items: list[dict[str, Any]]) -> None:
        """Give each page its slice of ``items``; only a page whose slice changed is sent.

        Items are replaced, never changed in place, so comparing a page's list with its new
        slice is a pointer comparison for the items that stayed (done in C by ``list ==``).
        """
        pages = list(self.pages)
        count = -(-len(items) // PAGE_SIZE)
        for k in range(count):
            chunk = items[k * PAGE_SIZE : (k + 1) * PAGE_SIZE]
            if k < len(pages):
                if pages[k].items != chunk:
                    pages[k].items = chunk
            else:
                pages.append(ItemPage(items=chunk))
        for page in pages[count:]:
            page.close()
        if len(pages) != len(self.pages) or count < len(pages):
            self.pages = pages[:count]

    def close(self) -> None:
        """Close the view and its pages."""
        for page in self.pages:
            page.close()
        super().close()


def stack(views: list[ChatView]) -> ipywidgets.VBox:
    """Views one under the other (the inbox's cards), as one widget; ``.children`` grows."""
    return ipywidgets.VBox(children=tuple(views))
