"""Who decided a card: a person, a policy, an "always allow" rule, a timeout, another resume. Pure.

The decider is named in many places: the card ("done (decided by policy: approve-all)"),
``chat.audit`` and the view's audit table, the store's audit log, the saved transcript and
``ChatResult.decided_by``. Users, saved notebooks and the store read those texts ("you",
"policy: approve-all", "rule: always allow transfer_money", "timeout: cancel after 600 s",
"another resume on this thread", "Ada Lovelace"), so they are written here and read back here
(:meth:`DecidedBy.from_text`); the code that decides asks a :class:`DecidedBy` what kind of
decider it is, and never compares texts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from .identity import Person

__all__ = ["DecidedBy", "DeciderKind", "shown_name"]

#: ``person``: someone clicked (at this page, or named by the store or a late click's text);
#: ``policy``, ``rule``, ``timeout``: decided without a person; ``resume``: another resume on the
#: same thread answered the card's interrupts (code, while the card waited).
DeciderKind = Literal["person", "policy", "rule", "timeout", "resume"]

#: How a chat names the person at this page: whoever clicked here, or the code's user.
_YOU = "you"
_ANOTHER_RESUME = "another resume on this thread"
#: Deciders whose text is "<kind>: <name>".
_PREFIXED = ("policy", "rule", "timeout")


@dataclass(frozen=True)
class DecidedBy:
    """Who decided, as a value; :attr:`text` and :attr:`shown` are the texts it becomes."""

    kind: DeciderKind
    #: A policy's name, what a rule allows ("always allow transfer_money"), a timeout's default
    #: ("cancel after 600 s"), a person's name where one was given as text ("" for you).
    name: str = ""
    #: A click at this page: who clicked, as the host read them (None: the code's user, or a
    #: person known only by name).
    person: Person | None = None

    @classmethod
    def you(cls, person: Person | None = None) -> DecidedBy:
        """The person at this page: ``person`` clicked (None: code decided, as its user)."""
        return cls("person", "", person)

    @classmethod
    def named(cls, name: str) -> DecidedBy:
        """A person known by name only: a server-given name, another kernel user's."""
        return cls("person", name)

    @classmethod
    def policy(cls, name: str) -> DecidedBy:
        return cls("policy", name)

    @classmethod
    def always_allow(cls, tools: Iterable[str]) -> DecidedBy:
        """The "always allow" rule for ``tools`` (in the order given)."""
        return cls("rule", f"always allow {', '.join(tools)}")

    @classmethod
    def timeout(cls, default: str, seconds: float) -> DecidedBy:
        """The timeout's default (``cancel`` or ``reject``) after ``seconds`` without a click."""
        return cls("timeout", f"{default} after {seconds:g} s")

    @classmethod
    def another_resume(cls) -> DecidedBy:
        return cls("resume", _ANOTHER_RESUME)

    @classmethod
    def from_text(cls, text: str) -> DecidedBy:
        """The decider a :attr:`text` (or :attr:`shown`) names: "policy: x" a policy, "you" the
        person at this page, any other name a person by that name."""
        kind, sep, name = text.partition(": ")
        if sep and kind in _PREFIXED:
            return cls(kind, name)  # type: ignore[arg-type]  # one of _PREFIXED
        if text == _ANOTHER_RESUME:
            return cls.another_resume()
        return cls.you() if text == _YOU else cls.named(text)

    @property
    def is_person(self) -> bool:
        """A person decided (so a person may retry or decide again), not a rule of the chat."""
        return self.kind == "person"

    @property
    def is_you(self) -> bool:
        """The person at this page decided (a click here, or code)."""
        return self.kind == "person" and not self.name

    @property
    def text(self) -> str:
        """As a run, the store's audit log and the card's own record name the decider: "you",
        "policy: approve-all", "rule: always allow transfer_money", ..."""
        if self.kind == "person":
            return self.name or _YOU
        if self.kind == "resume":
            return self.name
        return f"{self.kind}: {self.name}"

    @property
    def shown(self) -> str:
        """As a card and ``chat.audit`` name the decider: a clicker by the name the server gave
        them (see :func:`shown_name`), anyone else by :attr:`text`."""
        if self.person is not None:
            return shown_name(self.person)
        return self.text

    def as_approver(self) -> Person:
        """The decider as one approver when several are needed: the clicker, or a policy or
        rule under its own text (so the card's count names it)."""
        if self.person is not None:
            return self.person
        return Person(self.text, "kernel", display_name=self.text)


def shown_name(person: Person) -> str:
    """A clicker as a card names them: a server-given (or display) name, else "you" (the
    kernel's own user: a name a page could have claimed is not shown as if it were true)."""
    return person.shown if person.identity == "server" or person.display_name else _YOU
