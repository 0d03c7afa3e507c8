"""The view's items in pages (ItemPage child widgets): what a front end rebuilds from the comm
messages alone (comm_open and trait updates, as nbclient's saved widget state records them) is
the view's whole item list after every push, and a push sends only the pages whose items changed.

A recording comm stands in for the kernel's (``comm.create_comm`` is the seam ipywidgets opens
every widget's comm through); the messages are JSON-encoded as a kernel would.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import comm
import pytest
from comm.base_comm import BaseComm
from hypothesis import given
from hypothesis import strategies as st

from agui_notebook._view.widget import PAGE_SIZE, ChatView

REF = "IPY_MODEL_"


class FrontEnd:
    """Every widget's state, rebuilt from the messages its comm published."""

    def __init__(self) -> None:
        self.models: dict[str, dict[str, Any]] = {}
        self.updates: list[tuple[str, set[str]]] = []  # (comm id, traits) per update message

    def comm(self, **kwargs: Any) -> BaseComm:
        front = self

        class Recording(BaseComm):
            def publish_msg(self, msg_type: str, data: Any = None, *_: Any, **__: Any) -> None:
                data = json.loads(json.dumps(data))
                if msg_type == "comm_open":
                    front.models[self.comm_id] = dict(data["state"])
                elif msg_type == "comm_msg" and data.get("method") == "update":
                    front.models[self.comm_id].update(data["state"])
                    front.updates.append((self.comm_id, set(data["state"])))
                elif msg_type == "comm_close":
                    front.models.pop(self.comm_id, None)

        return Recording(**kwargs)

    def items(self, view_id: str) -> list[dict[str, Any]]:
        state = self.models[view_id]
        assert "items" not in state  # the items travel in the pages only
        out: list[dict[str, Any]] = []
        for ref in state["pages"]:
            assert ref.startswith(REF)
            out += self.models[ref[len(REF) :]]["items"]
        return out


@pytest.fixture
def front(monkeypatch: pytest.MonkeyPatch) -> Iterator[FrontEnd]:
    front = FrontEnd()
    monkeypatch.setattr(comm, "create_comm", front.comm)
    yield front


def item(n: int, version: int = 0) -> dict[str, Any]:
    return {"kind": "assistant", "id": f"a{n}", "text": f"text {n}.{version}"}


def test_a_growing_chat_sends_the_open_page_not_the_transcript(front: FrontEnd) -> None:
    view = ChatView()
    items: list[dict[str, Any]] = []
    for n in range(5 * PAGE_SIZE + 3):
        items = [*items, item(n)]
        before = len(front.updates)
        view.push(items, None)
        assert front.items(view.model_id) == items
        sent = front.updates[before:]
        # A page that fills up is never sent again: only the last page, or a new one (opened
        # with its state, then referred to by the view's pages).
        assert all(cid != view.model_id or traits == {"pages"} for cid, traits in sent)
        pages = [p.model_id for p in view.pages]
        assert all(cid in (view.model_id, pages[-1]) for cid, _ in sent), (n, sent)
    assert len(view.pages) == 6 and all(len(p.items) == PAGE_SIZE for p in view.pages[:5])
    # A change to an item of an early page resends that page alone.
    items = [*items[:3], item(3, 1), *items[4:]]
    before = len(front.updates)
    view.push(items, None)
    assert front.updates[before:] == [(view.pages[0].model_id, {"items"})]
    assert front.items(view.model_id) == items


_STEP = st.one_of(
    st.tuples(st.just("add"), st.integers(1, 2 * PAGE_SIZE)),
    st.tuples(st.just("change"), st.integers(0, 10_000)),
    st.tuples(st.just("remove"), st.integers(0, 10_000)),
)


@given(st.lists(_STEP, max_size=12))
def test_whatever_the_changes_the_front_end_holds_the_whole_list(steps: list[Any]) -> None:
    front = FrontEnd()
    original = comm.create_comm
    comm.create_comm = front.comm
    try:
        view = ChatView()
        items: list[dict[str, Any]] = []
        counter = 0
        for step, n in steps:
            if step == "add":
                items = items + [item(counter + k) for k in range(n)]
                counter += n
            elif items and step == "change":
                k = n % len(items)
                items = [*items[:k], {**items[k], "text": f"changed {n}"}, *items[k + 1 :]]
            elif items:
                k = n % len(items)
                items = items[:k] + items[k + 1 :]
            view.push(items, None)
            assert front.items(view.model_id) == items
            assert view.items == items
            assert len(view.pages) == -(-len(items) // PAGE_SIZE)
            live = {p.model_id for p in view.pages}
            pages = {k for k, m in front.models.items() if "items" in m}
            assert pages == live  # dropped pages closed
    finally:
        comm.create_comm = original


def test_setting_items_directly_pages_them(front: FrontEnd) -> None:
    view = ChatView()
    view.items = [item(n) for n in range(PAGE_SIZE + 1)]
    assert front.items(view.model_id) == view.items
    assert len(view.pages) == 2
