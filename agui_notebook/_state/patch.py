"""RFC 6902 JSON Patch, all-or-nothing, with a copy-on-write fast path. Pure.

Agents stream state as many small patches (``replace /balance``). ``jsonpatch`` deep-copies the
whole document for each one, so a state that grows (a list an agent appends to) made every delta
cost the whole state: quadratic over a run. Patches of ``add``/``replace``/``remove`` operations
are applied here by copying only the containers on each operation's path, once per patch (a
container copied for an earlier operation of the same patch is changed in place); the prior
document is never mutated, so a failure leaves it intact. Anything else, and any case the fast
path does not fully understand, goes to ``jsonpatch``, which also words the errors.
"""

from __future__ import annotations

from typing import Any

import jsonpatch

__all__ = ["apply_patch"]


class _Unsupported(Exception):
    """Not a case for the fast path; use jsonpatch."""


def apply_patch(document: Any, patch: list[Any]) -> Any:
    """The patched document (a new object); raises jsonpatch/jsonpointer errors on failure."""
    if patch:
        try:
            owned: dict[int, Any] = {}  # the containers this patch copied (kept alive: ids hold)
            root = document
            for operation in patch:
                root = _apply_one(root, operation, owned)
            return root
        except _Unsupported:
            pass
    return jsonpatch.apply_patch(document, patch, in_place=False)


def _apply_one(document: Any, operation: Any, owned: dict[int, Any]) -> Any:
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
    root = _own(document, owned)
    parent = root
    for token in tokens[:-1]:
        key = _key(parent, token, for_add=False)
        child = _own(parent[key], owned)
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


def _own(value: Any, owned: dict[int, Any]) -> Any:
    """``value`` itself when this patch copied it already, else a shallow copy it now owns."""
    if id(value) in owned:
        return value
    if isinstance(value, dict):
        copied: Any = dict(value)
    elif isinstance(value, list):
        copied = list(value)
    else:
        raise _Unsupported  # the path goes through a scalar: an error for jsonpatch to word
    owned[id(copied)] = copied
    return copied


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
