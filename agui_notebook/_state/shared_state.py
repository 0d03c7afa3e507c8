"""The agent's shared state as a run changes it: snapshots replace it, deltas patch it. Pure.

A STATE_DELTA is an RFC 6902 patch applied all or nothing; on failure the prior state is kept
and a warning says why (AG-UI 1.1 events/state). The document is the run's copy on write
(:class:`~.patch.PatchedDocument`): whoever reads the state may keep it. :func:`patched` applies
a patch to another document the same way (an activity's content).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jsonpatch
import jsonpointer
from pydantic import BaseModel

from .patch import PatchedDocument, apply_patch

__all__ = ["SharedState", "patched"]

Warn = Callable[[str], None]

# What a patch that cannot apply raises (jsonpatch's own errors, or a value it chokes on).
_PATCH_ERRORS = (
    jsonpatch.JsonPatchException,
    jsonpointer.JsonPointerException,
    TypeError,
    KeyError,
    IndexError,
    AttributeError,
)


class SharedState:
    """One run's state, from the thread's (``base``), never changed in place."""

    __slots__ = ("_document", "_warn")

    def __init__(self, base: Any, warn: Warn) -> None:
        self._document = PatchedDocument(base)
        self._warn = warn

    @property
    def value(self) -> Any:
        """The state so far. Whoever reads it may keep it: later patches copy what they change
        (until then the run's own copies are changed in place, ``_state.patch``)."""
        return self._document.value

    def snapshot(self, event: Any) -> None:
        """A STATE_SNAPSHOT: the state replaced."""
        self._document.value = event.snapshot

    def delta(self, event: Any) -> None:
        """A STATE_DELTA: its patch applied, all or nothing (warned when it does not apply)."""
        self._patch(_ops(event.delta))

    def patch_together(self, patches: list[list[Any]]) -> bool:
        """Consecutive STATE_DELTAs' operations (plain objects) as one patch: True when it
        applied (then each would have, in turn: :meth:`delta` for each); False leaves the state
        as it was, nothing said, for them to be applied one by one."""
        return self._patch([op for ops in patches for op in ops], quiet=True)

    def _patch(self, operations: list[Any], *, quiet: bool = False) -> bool:
        """Apply a STATE_DELTA's operations (plain objects) all or nothing; False (warned,
        unless ``quiet``) when they do not apply."""
        document = self._document
        # No state yet means the empty object: the baseline a run starts from (1.1 run-input).
        absent = document.peek() is None
        if absent:
            document.value = {}
        try:
            document.apply(operations)
        except _PATCH_ERRORS as exc:
            if not quiet:
                _warn_unapplied(self._warn, "STATE_DELTA", "state", exc)
            if absent:
                document.value = None
            return False
        return True


def patched(document: Any, patch: list[Any], etype: str, what: str, warn: Warn) -> Any:
    """The document with the patch (of an ``etype`` event) applied, or the document unchanged
    (warned, naming it ``what``)."""
    try:
        return apply_patch(document, _ops(patch))
    except _PATCH_ERRORS as exc:
        _warn_unapplied(warn, etype, what, exc)
    return document


def _warn_unapplied(warn: Warn, etype: str, what: str, exc: Exception) -> None:
    if isinstance(exc, jsonpatch.JsonPatchException | jsonpointer.JsonPointerException):
        warn(f"{etype} not applied, {what} kept as it was: {exc}")
    else:
        warn(f"{etype} not applied, {what} kept as it was: {type(exc).__name__}: {exc}")


def _ops(patch: list[Any]) -> list[Any]:
    """JSON Patch operations as plain dicts (ag-ui-protocol 1.x parses them into models; a
    patch is all dicts or all models, the parser having refused anything else)."""
    if not patch or type(patch[0]) is dict:
        return patch
    return [
        op.model_dump(mode="json", by_alias=True, exclude_unset=True)
        if isinstance(op, BaseModel)
        else op
        for op in patch
    ]
