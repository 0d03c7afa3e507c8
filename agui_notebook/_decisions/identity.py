"""Who clicked: the person a decision names, read from the clicking message's header. Pure.

A click reaches the kernel as a comm message; the Jupyter messaging protocol puts a ``username``
in every message header, and the notebook host (``_notebook.host``) hands that header's fields
here. Nothing the widget's JavaScript writes into the message *content* is ever read as a name.

Trust boundary (docs/security.md): the header is what the front end, or a server extension between
it and the kernel, wrote. A name from it is ``identity: "server"`` only when the host says the
server stamped it (agui_notebook's jupyter_server extension overwrites every browser message's
``username`` with the authenticated user); a name the front end wrote itself is a claim, not the
server's word. No attested, usable name (not stamped, no header, an empty ``username`` as
JupyterLab 4.6 sends, jupyter_client's placeholder ``"username"``, control or bidi characters,
overlong text) falls back to the kernel's own user, ``identity: "kernel"``, and the person's
``note`` says why.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "PLACEHOLDER_USERNAMES",
    "Identity",
    "Person",
    "escaped",
    "kernel_person",
    "person_from_header",
]

Identity = Literal["server", "kernel"]

#: Header names that say "nobody in particular": JupyterLab's default (no username given to its
#: session) and jupyter_client's ``Session.username`` default when ``$USER`` is unset.
PLACEHOLDER_USERNAMES = frozenset({"", "username"})
MAX_NAME = 200


@dataclass(frozen=True)
class Person:
    """A person who decided: their user name, where it came from, and how to show it."""

    username: str
    identity: Identity
    display_name: str | None = None
    #: Why the identity is "kernel" when a click was expected to name someone (else None).
    note: str | None = None

    @property
    def shown(self) -> str:
        """The name a card shows: the display name where one is known, else the user name."""
        return self.display_name or self.username


def kernel_person(kernel_user: str, note: str | None = None) -> Person:
    """The kernel's own user as the decider (code, scripts, front ends that name nobody)."""
    return Person(username=kernel_user, identity="kernel", note=note)


def escaped(text: str) -> str:
    """``text`` with control, format (bidi) and separator characters written as ``\\uXXXX``."""
    return "".join(_escape(c) if _unsafe(c) else c for c in text)


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _unsafe(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp")


def _problem(value: Any, field: str) -> str | None:
    """Why ``value`` is not a usable name (None: it is)."""
    if value is None:
        return f"the click's message header has no {field}"
    if not isinstance(value, str):
        return f"the click's message header has a {field} that is not text"
    if value.strip() in PLACEHOLDER_USERNAMES:
        return f"the click's message header has no {field} (it was {value!r})"
    if any(_unsafe(c) for c in value):
        return (
            f"the click's message header has a {field} with control or bidi characters "
            f"({escaped(value)})"
        )
    if len(value) > MAX_NAME:
        return f"the click's message header has a {field} longer than {MAX_NAME} characters"
    return None


def person_from_header(
    header: Mapping[str, Any] | None,
    *,
    kernel_user: str,
    display_names: Mapping[str, str] | None = None,
    attested: bool = False,
) -> Person:
    """The person a click's message header names, else the kernel's user with the reason.

    ``header`` is the clicking message's header (None: the host could read none); ``attested``
    says whether the server stamped its ``username`` (else the name is only the page's claim). A display
    name comes from the header's ``display_name`` (a server extension may stamp one), else from
    ``display_names`` (the kernel's configured mapping of user names to display names), else
    there is none and the card shows the user name.
    """
    if header is None:
        return kernel_person(kernel_user, "no message header could be read for the click")
    username = header.get("username")
    problem = _problem(username, "username")
    if problem is not None:
        return kernel_person(kernel_user, problem)
    name = str(username).strip()
    if not attested:
        return kernel_person(
            kernel_user,
            f"the click's message header names {escaped(name)!r}, but this kernel's Jupyter "
            "server does not stamp names (turn it on: jupyter server extension enable "
            "agui_notebook)",
        )
    display = header.get("display_name")
    if _problem(display, "display_name") is not None:
        display = (display_names or {}).get(name)
        if display is not None and _problem(display, "display_name") is not None:
            display = None
    return Person(username=name, identity="server", display_name=display)
