"""RFC 6902 JSON Patch, all-or-nothing, with a copy-on-write fast path. Pure.

Agents stream state as many small patches (``replace /balance``). ``jsonpatch`` deep-copies the
whole document for each one, so a state that grows (a list an agent appends to) made every delta
cost the whole state: quadratic over a run. Patches of ``add``/``replace``/``remove`` operations
(JSON objects, or the operation objects ``_protocol.plain`` decodes) are applied here by
copying only the containers on each operation's path; the prior document is
never mutated, so a failure leaves it intact. Anything else, and any case the fast path does not
fully understand, goes to ``jsonpatch``, which also words the errors.

:class:`PatchedDocument`, for a run's sequence of patches, copies a container once per run: a
container it copied is its own until someone reads the document, so later patches change it in
place (an append to a long list costs the append, not the list), and an undo log puts back what
a failing patch changed. :func:`apply_patch` is one patch on a document nobody owns.
"""

from __future__ import annotations

from typing import Any

import jsonpatch
import msgspec

from .._protocol.plain import ReplaceOperation

__all__ = ["PatchedDocument", "apply_patch"]


class _Unsupported(Exception):
    """Not a case for the fast path; use jsonpatch."""


def apply_patch(document: Any, patch: list[Any]) -> Any:
    """The patched document (a new object); raises jsonpatch/jsonpointer errors on failure."""
    patched = PatchedDocument(document)
    patched.apply(patch)
    return patched.peek()


class PatchedDocument:
    """A document patched many times by one owner, such as a run's state.

    The containers it copied are kept by identity (and alive, so an identity is never reused)
    while nobody else can see them; :attr:`value` hands the document out and so ends that
    ownership, as does setting it. A patch that fails is undone, then handed to ``jsonpatch``
    for its error, so the document is exactly as it was.
    """

    __slots__ = ("_dropped", "_fresh", "_owned", "_parents", "_undo", "_value")

    def __init__(self, value: Any) -> None:
        self._value = value
        self._owned: dict[int, Any] = {}
        #: Path -> (the owned container its last token is in, that token), for the paths walked
        #: since ownership began; forgotten with it, and when the document's shape changes (an
        #: owned container replaced or removed, a list shifted): a run patches the same paths.
        self._parents: dict[str, tuple[Any, str]] = {}
        #: During a patch: the containers it copied (the prior document holds none of them),
        self._fresh: set[int] = set()
        #: how to put back each change to a container the prior document holds,
        self._undo: list[tuple[Any, ...]] = []
        #: and whether an owned container left the document (its identity must not stay alive).
        self._dropped = False

    def peek(self) -> Any:
        """The document, for a look that keeps nothing of it (it may change in place later)."""
        return self._value

    @property
    def value(self) -> Any:
        """The document; whoever reads it may keep it, so it is no longer changed in place."""
        self._disown()
        return self._value

    @value.setter
    def value(self, value: Any) -> None:
        self._disown()
        self._value = value

    def _disown(self) -> None:
        self._owned.clear()
        self._parents.clear()

    def apply(self, patch: list[Any]) -> None:
        """Apply ``patch`` all or nothing; raises jsonpatch/jsonpointer errors on failure."""
        if patch:
            self._fresh.clear()
            self._undo.clear()
            self._dropped = False
            try:
                root = self._value
                parents = self._parents
                for operation in patch:
                    # The run's common case first: a decoded replace on a path walked before,
                    # to a member of a dict (what _apply_one concludes, without its questions).
                    if type(operation) is ReplaceOperation:
                        known = parents.get(operation.path)
                        if known is not None:
                            parent, last = known
                            if type(parent) is dict and last in parent:
                                self._replace(parent, last, operation.value)
                                continue
                    root = self._apply_one(root, operation)
                self._value = root
                if self._dropped:
                    self._disown()
                return
            except _Unsupported:
                self._rollback()
        self.value = jsonpatch.apply_patch(self._value, _as_dicts(patch), in_place=False)

    def _apply_one(self, document: Any, operation: Any) -> Any:
        if type(operation) is dict:
            op = operation.get("op")
            if op not in _FAST_OPS or (op != "remove" and "value" not in operation):
                raise _Unsupported
            path = operation.get("path")
            value = operation.get("value")
        else:  # a decoded operation object (``_protocol.plain``): well formed already
            op = getattr(operation, "op", None)
            if op not in _FAST_OPS:
                raise _Unsupported
            path = operation.path
            value = None if op == "remove" else operation.value
        known = self._parents.get(path) if type(path) is str else None
        if known is not None:  # walked before, and nothing on the way changed since
            root = document  # owned (else nothing would be known)
            parent, last = known
        else:
            root, parent, last = self._walk(document, path)
        if type(parent) is dict:  # owned: a plain dict (``_own``)
            if op == "remove":
                if last not in parent:
                    raise _Unsupported  # jsonpatch raises the proper error
                self._remove(parent, last)
            elif last in parent:  # add over a member replaces it (RFC 6902 4.1)
                self._replace(parent, last, value)
            elif op == "add":
                self._add_member(parent, last, value)
            else:
                raise _Unsupported  # replace of a member that is not there: jsonpatch's error
            return root
        if isinstance(parent, list):
            if op == "add" and last == "-":
                self._insert(parent, len(parent), value)
                return root
            index = _key(parent, last, for_add=op == "add")
            if op == "add":
                self._insert(parent, index, value)
            elif op == "replace":
                self._replace(parent, index, value)
            else:
                self._remove(parent, index)
            return root
        raise _Unsupported

    def _walk(self, document: Any, path: Any) -> tuple[Any, Any, str]:
        """The owned root, the owned container the path's last token is in, and that token:
        every container on the way copied unless owned already."""
        tokens, last = _route(path)
        owned = self._owned
        root = document if id(document) in owned else self._own(document)
        parent = root
        for token in tokens:
            if type(parent) is dict:
                if token not in parent:
                    raise _Unsupported  # jsonpatch words the error
                key: Any = token
            else:
                key = _key(parent, token, for_add=False)
            current = parent[key]
            if id(current) not in owned:
                child = self._own(current)
                self._replace(parent, key, child)
                current = child
            parent = current
        self._parents[path] = (parent, last)
        return root, parent, last

    def _own(self, value: Any) -> Any:
        """A shallow copy of ``value`` that this document now owns."""
        if isinstance(value, dict):
            copied: Any = dict(value)
        elif isinstance(value, list):
            copied = list(value)
        else:
            raise _Unsupported  # the path goes through a scalar: an error for jsonpatch to word
        self._owned[id(copied)] = copied
        self._fresh.add(id(copied))
        return copied

    # -- changes, each with its undo when the prior document can see the container -----------

    def _replace(self, container: Any, key: Any, value: Any) -> None:
        """``container[key] = value`` where ``key`` is there already (a dict's member, or a
        list's index)."""
        old = container[key]
        if id(container) not in self._fresh:
            self._undo.append(("set", container, key, old))
        if id(old) in self._owned:
            self._dropped = True
            self._parents.clear()  # a path through it now leads elsewhere
        container[key] = value

    def _add_member(self, container: dict[str, Any], key: str, value: Any) -> None:
        """``container[key] = value`` where the dict has no ``key`` yet."""
        if id(container) not in self._fresh:
            self._undo.append(("del", container, key))
        container[key] = value

    def _insert(self, container: list[Any], index: int, value: Any) -> None:
        if id(container) not in self._fresh:
            self._undo.append(("del", container, index))
        if index != len(container):
            self._parents.clear()  # the items after it moved
        container.insert(index, value)

    def _remove(self, container: Any, key: Any) -> None:
        if id(container) not in self._fresh:
            if isinstance(container, dict):  # put back whole: a key added again would move
                self._undo.append(("dict", container, dict(container)))
            else:
                self._undo.append(("insert", container, key, container[key]))
        if id(container[key]) in self._owned:
            self._dropped = True
            self._parents.clear()
        elif isinstance(container, list):
            self._parents.clear()  # the items after it moved
        del container[key]

    def _rollback(self) -> None:
        """Undo, newest first, what the failed patch changed in containers the document held."""
        for entry in reversed(self._undo):
            kind, container = entry[0], entry[1]
            if kind == "set":
                container[entry[2]] = entry[3]
            elif kind == "del":
                del container[entry[2]]
            elif kind == "insert":
                container.insert(entry[2], entry[3])
            else:
                container.clear()
                container.update(entry[2])
        self._disown()  # the copies it made are garbage now


_FAST_OPS = frozenset({"add", "replace", "remove"})


def _as_dicts(patch: list[Any]) -> list[Any]:
    """The operations as jsonpatch reads them: decoded operation objects as their JSON objects."""
    return [op if type(op) is dict else msgspec.to_builtins(op) for op in patch]


# A path's tokens, split once: a run patches the same few paths over and over.
_ROUTES: dict[str, tuple[tuple[str, ...], str]] = {}


def _route(path: Any) -> tuple[tuple[str, ...], str]:
    """``path``'s tokens before the last one, and the last one; escapes and odd pointers are
    left to jsonpatch."""
    if type(path) is not str:
        raise _Unsupported
    route = _ROUTES.get(path)
    if route is None:
        if not path or path[0] != "/" or "~" in path:
            raise _Unsupported
        *tokens, last = path[1:].split("/")
        route = (tuple(tokens), last)
        if len(_ROUTES) >= 4096:
            _ROUTES.clear()
        _ROUTES[path] = route
    return route


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
