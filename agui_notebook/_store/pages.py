"""A thread's messages and tool calls as pages of rows, so a commit writes what its run changed.

Pure: no I/O. Items (messages, or tool calls) are kept in order in pages of up to
:data:`PAGE_ITEMS` items or about :data:`PAGE_CHARS` characters; a page's ``body`` is its items'
compact JSON texts, one per line (JSON Lines: compact JSON never holds a raw newline). Items are
immutable (a run replaces what it changes), so a journal that remembers what it wrote
(:class:`Written`: the items by identity, their texts, the pages' sizes) finds what a run changed
by identity and :func:`plan` rewrites only the pages that hold it: a run that adds one message to
a thread of 10,000 rewrites the last page, not the thread.

Each page carries a ``digest`` (SHA-256 of its kind, number, size, tag and body), written in the
same transaction as the page, and ``validated_by``: this client's :func:`codec_tag` when every
message in it was validated back into its model when written. A restore that finds every message
page intact (digest) and validated by this same code may leave the messages' validation to their
first read (``_store.snapshot``); anything else is validated at once (docs/store.md).
"""

from __future__ import annotations

import functools
import hashlib
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate, compress
from typing import Any

__all__ = [
    "KINDS",
    "MESSAGES",
    "PAGE_CHARS",
    "PAGE_ITEMS",
    "TOOL_CALLS",
    "Layout",
    "Page",
    "PagePlan",
    "Written",
    "codec_tag",
    "page_digest",
    "paginate",
    "plan",
    "written_from_pages",
]

MESSAGES = "message"
TOOL_CALLS = "tool_call"
KINDS = (MESSAGES, TOOL_CALLS)
#: A page is full at this many items, or once it holds this many characters of JSON: rewriting
#: the page an appended item lands in stays cheap, and a restore reads few rows.
PAGE_ITEMS = 64
PAGE_CHARS = 16_384


@functools.cache
def codec_tag() -> str:
    """What decides whether a stored message validates: this package and the models' libraries.
    A page validated under another tag is validated again when restored."""
    from importlib.metadata import PackageNotFoundError, version

    import pydantic_core

    from .._version import __version__

    try:
        ag_ui = version("ag-ui-protocol")
    except PackageNotFoundError:  # pragma: no cover - a vendored copy
        ag_ui = "unknown"
    return f"agui_notebook {__version__}; ag-ui-protocol {ag_ui}; pydantic-core {pydantic_core.__version__}"


def page_digest(kind: str, number: int, items: int, validated_by: str | None, body: str) -> str:
    """SHA-256 (hex) of a page as written: a page changed afterwards no longer matches it."""
    head = f"{kind}\n{number}\n{items}\n{validated_by or ''}\n"
    return hashlib.sha256((head + body).encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Page:
    """One page row: ``items`` items of ``kind`` numbered from 0 within the thread."""

    kind: str
    number: int
    items: int
    body: str
    digest: str
    #: :func:`codec_tag` when every item was validated when written (messages), else None.
    validated_by: str | None
    #: The thread's revision that wrote it (the store sets it when writing).
    revision: int = 0

    @classmethod
    def of(cls, kind: str, number: int, texts: Sequence[str], validated_by: str | None) -> Page:
        body = "\n".join(texts)
        digest = page_digest(kind, number, len(texts), validated_by, body)
        return cls(kind, number, len(texts), body, digest, validated_by)

    def row(self, agent_url: str, thread_id: str, revision: int) -> tuple[Any, ...]:
        """Its values for the backends' page insert: thread key, kind, page, items, body,
        digest, validated_by, revision, in that order."""
        return (
            agent_url, thread_id, self.kind, self.number, self.items, self.body, self.digest,
            self.validated_by, revision,
        )  # fmt: skip

    def intact(self) -> bool:
        """Its body is what was written with it."""
        return self.digest == page_digest(
            self.kind, self.number, self.items, self.validated_by, self.body
        )


@dataclass
class Written:
    """One kind of a thread's items as the store holds them, as a journal last wrote them."""

    ids: list[str]
    #: The items the texts were made from, by identity (a changed item is a new object).
    objects: list[Any]
    texts: list[str]
    #: Validated back into its model when written (messages; tool calls are always True).
    clean: list[bool]
    #: Items per page, in page order.
    sizes: list[int]
    #: Each page's ``validated_by``: :func:`codec_tag` when all its items are clean, else None.
    tags: list[str | None]


class Layout:
    """What a journal takes the store to hold of one thread: the ``revision`` it last wrote or
    read, the secrets its texts were scrubbed of (None: not known, as after a restore) and, per
    kind, what is written (a :class:`Written`; a function that makes one when first needed, as
    for messages not decoded yet; None: not known)."""

    def __init__(
        self,
        revision: int,
        secrets: frozenset[str] | None,
        kinds: dict[str, Written | Callable[[], Written | None] | None],
    ) -> None:
        self.revision = revision
        self.secrets = secrets
        self._kinds = kinds

    def written(self, kind: str) -> Written | None:
        found = self._kinds.get(kind)
        if callable(found):
            found = self._kinds[kind] = found()
        return found


def written_from_pages(pages: Sequence[Page], objects: list[Any], ids: list[str]) -> Written | None:
    """What a journal holds after restoring ``objects`` from ``pages``: None when they do not
    correspond one for one (a restore that left something out: the next commit writes all)."""
    texts = [t for page in pages for t in page.body.split("\n")]
    if len(texts) != len(objects) or sum(p.items for p in pages) != len(objects):
        return None
    tag = codec_tag()
    clean = [p.validated_by == tag for p in pages for _ in range(p.items)]
    tags = [tag if p.validated_by == tag else None for p in pages]
    return Written(ids, objects, texts, clean, [p.items for p in pages], tags)


@dataclass
class PagePlan:
    """What one commit writes of one kind: ``changed`` pages when the store still holds
    ``before`` (the journal's last write), else every page (:meth:`every_page`)."""

    kind: str
    written: Written
    changed: list[Page]
    #: Positions of the items encoded for this write (new or changed ones), in order.
    fresh: list[int]

    @property
    def page_count(self) -> int:
        """Pages after this write; any numbered from here on are removed."""
        return len(self.written.sizes)

    def every_page(self) -> list[Page]:
        """Every page of the thread (a first write, or a store someone else wrote meanwhile)."""
        starts = [0, *accumulate(self.written.sizes)]
        texts = self.written.texts
        return [
            Page.of(self.kind, n, texts[starts[n] : starts[n + 1]], self.written.tags[n])
            for n in range(self.page_count)
        ]


def paginate(texts: Sequence[str]) -> list[int]:
    """Sizes of the pages ``texts`` fill from an empty page: each page takes items while it
    holds fewer than PAGE_ITEMS items and fewer than PAGE_CHARS characters."""
    sizes: list[int] = []
    items = chars = 0
    for text in texts:
        if items and (items >= PAGE_ITEMS or chars >= PAGE_CHARS):
            sizes.append(items)
            items = chars = 0
        items += 1
        chars += len(text)
    if items:
        sizes.append(items)
    return sizes


def _full(texts: Sequence[str]) -> bool:
    return len(texts) >= PAGE_ITEMS or sum(map(len, texts)) >= PAGE_CHARS


def plan(
    kind: str,
    objects: list[Any],
    ids: list[str],
    before: Written | None,
    encode: Callable[[Any], str],
    validate: Callable[[list[str]], list[bool]] | None,
) -> PagePlan:
    """The pages to write for ``objects`` (keyed ``ids``) given what the store holds (``before``,
    None: nothing known). ``encode`` makes an item's stored text; ``validate`` says which new
    texts validate back into their model (None: all do). The plan keeps the lists it is given.

    Unchanged items (the same object at the same place) keep their text; a changed item's page
    is rewritten; from the first place where the ids differ from ``before`` (an item inserted,
    removed or moved; or, when only appended, the last page if not full) the pages are laid out
    again. Every page after the last one kept or written is removed."""
    count = len(objects)
    if before is None:
        texts = [encode(o) for o in objects]
        clean = validate(texts) if validate is not None else [True] * count
        sizes = paginate(texts)
        written = Written(ids, objects, texts, clean, sizes, [])
        return _planned(kind, written, 0, set(range(len(sizes))), list(range(count)))
    old_count = len(before.ids)
    same_ids = min(count, old_count)
    if not _same_prefix(ids, before.ids, same_ids):
        same_ids = next(i for i in range(same_ids) if ids[i] != before.ids[i])
    # Within the aligned part, an item is unchanged when it is the same object: one pass in C.
    changed = list(compress(range(same_ids), map(operator.is_not, objects, before.objects)))
    starts = [0, *accumulate(before.sizes)]
    # The first page laid out again: the one holding the first item out of line, else (items
    # only appended) the last page if it can take more.
    if same_ids < old_count:
        first = _page_of(starts, same_ids)
    elif count > old_count and before.sizes and not _full(before.texts[starts[-2] :]):
        first = len(before.sizes) - 1
    else:
        first = len(before.sizes)
    start = starts[first]
    texts = before.texts[:start]
    clean = before.clean[:start]
    fresh: list[int] = []  # positions encoded now
    for i in changed:
        if i < start:
            texts[i] = encode(objects[i])
            fresh.append(i)
    # The tail: reuse the text of an item that is still the same object (moved), encode the rest.
    reuse = {id(o): n for n, o in enumerate(before.objects[start:], start)}
    for i in range(start, count):
        n = reuse.get(id(objects[i]))
        if n is not None and before.objects[n] is objects[i]:
            texts.append(before.texts[n])
            clean.append(before.clean[n])
        else:
            texts.append(encode(objects[i]))
            clean.append(False)
            fresh.append(i)
    if fresh:
        ok = validate([texts[i] for i in fresh]) if validate is not None else [True] * len(fresh)
        for i, good in zip(fresh, ok, strict=True):
            clean[i] = good
    sizes = before.sizes[:first] + paginate(texts[start:])
    dirty = {_page_of(starts, i) for i in changed if i < start} | set(range(first, len(sizes)))
    fresh.sort()
    written = Written(ids, objects, texts, clean, sizes, before.tags[:first])
    return _planned(kind, written, first, dirty, fresh)


def _same_prefix(a: list[str], b: list[str], length: int) -> bool:
    """``a[:length] == b[:length]``, slicing only the longer list (one C pass: the ids are
    mostly the very same str objects)."""
    return (a if len(a) == length else a[:length]) == (b if len(b) == length else b[:length])


def _page_of(starts: list[int], position: int) -> int:
    """The page holding ``position`` (``starts``: each page's first position, then the end)."""
    import bisect

    return bisect.bisect_right(starts, position) - 1


def _planned(kind: str, written: Written, kept: int, dirty: set[int], fresh: list[int]) -> PagePlan:
    """The plan, once ``written.tags`` (those of the first ``kept`` pages so far) holds every
    page's, the dirty pages' tags made again."""
    tag = codec_tag()
    starts = [0, *accumulate(written.sizes)]
    tags = written.tags
    del tags[kept:]
    tags += [None] * (len(written.sizes) - kept)
    changed = []
    for n in sorted(dirty):
        tags[n] = tag if all(written.clean[starts[n] : starts[n + 1]]) else None
        changed.append(Page.of(kind, n, written.texts[starts[n] : starts[n + 1]], tags[n]))
    return PagePlan(kind, written, changed, fresh)
