"""The paged layout's incremental writes against writing everything, differentially (issue 28).

A thread's items (messages, tool calls) go through random runs: items appended, changed in place
(a new object under the same id), inserted, removed, moved, all replaced by equal new objects,
and sometimes another kernel writing the thread meanwhile. Each commit's :func:`plan` is applied
to a store the way the backends apply it (its changed pages, nothing past its last page; every
page when the store is not at the revision the journal knows), and after every commit:

- the store holds, page after page, exactly the texts of encoding every item afresh (what a
  whole write gives), laid out as :meth:`PagePlan.every_page` lays them out;
- only new or changed items were encoded (the same object keeps its text), and a run that only
  appended rewrote the last page and new ones;
- a page says it was validated exactly when each of its items validated.

Small page limits make every run cross page boundaries by count and by size.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from unittest.mock import patch

import hypothesis.strategies as st
from hypothesis import given, settings

from agui_notebook._store import pages
from agui_notebook._store.pages import MESSAGES, Page, PagePlan, Written, codec_tag, plan
from tests._hypothesis import examples


@dataclass(frozen=True, eq=False)  # compared by identity, as the journal compares items
class Item:
    id: str
    value: str


class Kernel:
    """A journal's view: what it last wrote, at which revision."""

    def __init__(self) -> None:
        self.written: Written | None = None
        self.revision: int | None = None
        self.encoded: list[Item] = []

    def encode(self, item: Item) -> str:
        self.encoded.append(item)
        return json.dumps({"id": item.id, "v": item.value}, separators=(",", ":"))


class Store:
    """Pages of one thread and one kind, written as the backends write them."""

    def __init__(self) -> None:
        self.pages: dict[int, Page] = {}
        self.revision = 0

    def commit(self, kernel: Kernel, items: list[Item]) -> tuple[PagePlan, bool]:
        before = kernel.written if kernel.revision == self.revision else None
        planned = plan(MESSAGES, items, [i.id for i in items], before, kernel.encode, _validate)
        every = before is None
        if every:
            self.pages = {p.number: p for p in planned.every_page()}
        else:
            self.pages.update({p.number: p for p in planned.changed})
            for number in [n for n in self.pages if n >= planned.page_count]:
                del self.pages[number]
        self.revision += 1
        kernel.written, kernel.revision = planned.written, self.revision
        return planned, every


def _validate(texts: list[str]) -> list[bool]:
    # An item whose value says "bad" does not validate.
    return ["bad" not in json.loads(t)["v"] for t in texts]


_VALUES = st.one_of(
    st.text(max_size=6), st.text(min_size=20, max_size=60), st.sampled_from(["bad", "x\u2028y"])
)


@st.composite
def _run(draw: st.DrawFn, items: list[Item], fresh: list[int]) -> list[Item]:
    """One run's change to the thread's items (a new list; items are never mutated)."""

    def new_id() -> str:
        fresh[0] += 1
        return f"i{fresh[0]}"

    out = list(items)
    kind = draw(
        st.sampled_from(["append", "append", "change", "insert", "remove", "move", "equal", "none"])
    )
    where = draw(st.integers(0, max(0, len(out) - 1)))
    if kind == "append" or not out:
        out += [Item(new_id(), draw(_VALUES)) for _ in range(draw(st.integers(1, 12)))]
    elif kind == "change":
        for i in draw(st.lists(st.integers(0, len(out) - 1), max_size=3)):
            out[i] = Item(out[i].id, draw(_VALUES))
    elif kind == "insert":
        out.insert(where, Item(new_id(), draw(_VALUES)))
    elif kind == "remove":
        del out[where : where + draw(st.integers(1, 5))]
    elif kind == "move":
        out.append(out.pop(where))
    elif kind == "equal":  # a snapshot that brings every item back as a new, equal object
        out = [Item(i.id, i.value) for i in out]
    return out


def _stored_texts(store: Store) -> list[str]:
    assert sorted(store.pages) == list(range(len(store.pages)))
    texts = [t for n in sorted(store.pages) for t in store.pages[n].body.split("\n")]
    assert sum(p.items for p in store.pages.values()) == len(texts)
    return texts


@settings(deadline=None, max_examples=examples(150))
@given(st.data(), st.sampled_from([(3, 40), (4, 10_000), (64, 16_384)]))
def test_incremental_pages_hold_what_writing_everything_holds(
    data: st.DataObject, limits: tuple[int, int]
) -> None:
    with patch.object(pages, "PAGE_ITEMS", limits[0]), patch.object(pages, "PAGE_CHARS", limits[1]):
        store = Store()
        kernels = [Kernel(), Kernel()]
        items: list[Item] = []
        fresh = [0]
        for _ in range(data.draw(st.integers(1, 12))):
            kernel = kernels[data.draw(st.sampled_from([0, 0, 0, 1]))]  # now and then the other
            previous = kernel.written
            known = kernel.revision == store.revision
            new_items = data.draw(_run(items, fresh))
            kernel.encoded.clear()
            planned, every = store.commit(kernel, new_items)
            items = new_items

            reference = Kernel()
            expected = [reference.encode(i) for i in items]
            assert _stored_texts(store) == expected
            assert [store.pages[n] for n in sorted(store.pages)] == [
                Page(p.kind, p.number, p.items, p.body, p.digest, p.validated_by)
                for p in planned.every_page()
            ]
            for page in store.pages.values():
                assert page.intact()
                start = sum(store.pages[n].items for n in range(page.number))
                good = all("bad" not in i.value for i in items[start : start + page.items])
                assert page.validated_by == (codec_tag() if good else None)

            if known and previous is not None:
                old = {id(o) for o in previous.objects}
                assert all(id(i) not in old for i in kernel.encoded)  # a kept object: no encoding
                if [i.id for i in items[: len(previous.ids)]] == previous.ids and all(
                    a is b for a, b in zip(items, previous.objects, strict=False)
                ):  # only appended: the last page and new ones
                    assert {p.number for p in planned.changed} <= set(
                        range(max(0, len(previous.sizes) - 1), len(planned.written.sizes))
                    )
            else:
                assert every or previous is None


def test_a_run_that_adds_one_item_to_a_long_thread_rewrites_one_page() -> None:
    kernel, store = Kernel(), Store()
    items = [Item(f"i{n}", "word " * 20) for n in range(10_000)]
    store.commit(kernel, items)
    kernel.encoded.clear()
    planned, every = store.commit(kernel, [*items, Item("new", "one more")])
    assert not every
    assert kernel.encoded == [planned.written.objects[-1]]
    assert [p.number for p in planned.changed] == [planned.page_count - 1]
    assert sum(len(p.body) for p in planned.changed) <= pages.PAGE_CHARS + 200


def test_an_empty_thread_has_no_pages() -> None:
    kernel, store = Kernel(), Store()
    planned, _ = store.commit(kernel, [])
    assert planned.every_page() == [] and store.pages == {}
    store.commit(kernel, [Item("a", "x")])
    planned, _ = store.commit(kernel, [])
    assert planned.page_count == 0 and store.pages == {}
