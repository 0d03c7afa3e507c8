"""RFC 6902 JSON Patch, all-or-nothing, with a fast path for the common single operation. Pure.

Agents stream state as many one-operation patches (``replace /balance``). ``jsonpatch`` deep-copies
the whole document and re-parses the pointer for each one, which dominated a run's cost. A single
``add``/``replace``/``remove`` is applied here by copying only the containers on its path (the
prior document is never mutated, so a failure leaves it intact); anything else, and any case the
fast path does not fully understand, goes to ``jsonpatch``, which also words the errors.
"""

from __future__ import annotations

from typing import Any

import jsonpatch

__all__ = ["apply_patch"]


class _Unsupported(Exception):
    """Not a case for the fast path; use jsonpatch."""


def apply_patch(document: Any, patch: list[Any]) -> Any:
    """The patched document (a new object); raises jsonpatch/jsonpointer errors on failure."""
    if len(patch) == 1:
        try:
            return _apply_one(document, patch[0])
        except _Unsupported:
            pass
    return jsonpatch.apply_patch(document, patch, in_place=False)


def _apply_one(document: Any, operation: Any) -> Any:
    if not isinstance(operation, dict):
        raise _Unsupported
    op = operation.get("op")
    path = operation.get("path")
    if op not in ("add", "replace", "remove") or not isinstance(path, str) or not path:
        raise _Unsupported
    if op != "remove" and "value" not in operation:
        raise _Unsupported
    if path[0] != "/" or "~" in path:
        raise _Unsupported  # escapes and odd pointers: leave them to jsonpatch
    tokens = path[1:].split("/")
    root = _copy(document)
    parent = root
    for token in tokens[:-1]:
        key = _key(parent, token, for_add=False)
        child = _copy(parent[key])
        parent[key] = child
        parent = child
    last = tokens[-1]
    if isinstance(parent, dict):
        if op == "add":
            parent[last] = operation["value"]
        elif last not in parent:
            raise _Unsupported  # jsonpatch raises the proper error
        elif op == "replace":
            parent[last] = operation["value"]
        else:
            del parent[last]
        return root
    if isinstance(parent, list):
        if op == "add" and last == "-":
            parent.append(operation["value"])
            return root
        index = _key(parent, last, for_add=op == "add")
        if op == "add":
            parent.insert(index, operation["value"])
        elif op == "replace":
            parent[index] = operation["value"]
        else:
            del parent[index]
        return root
    raise _Unsupported


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return list(value)
    raise _Unsupported  # the path goes through a scalar: an error for jsonpatch to word


def _key(container: Any, token: str, *, for_add: bool) -> Any:
    if isinstance(container, dict):
        if token not in container:
            raise _Unsupported
        return token
    if isinstance(container, list):
        if not token.isdigit() or (len(token) > 1 and token[0] == "0"):
            raise _Unsupported
        index = int(token)
        limit = len(container) + (1 if for_add else 0)
        if index >= limit:
            raise _Unsupported
        return index
    raise _Unsupported
