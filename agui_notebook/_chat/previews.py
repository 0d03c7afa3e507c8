"""The notebook's own functions run for a card: previews, checks and verify hooks, each bounded.

A chat takes them by tool-name glob (the policies' rules: ``fnmatch`` on the tool's name), e.g.
``agent.chat(previews={"transfer_money": fn, "delete_*": other})``. Each runs in the kernel with
a time limit (``DEFAULT_TIMEOUT`` unless the chat says otherwise) and never blocks it:

- an ``async`` function runs on the chat's loop, cancelled at the limit;
- any other function runs in a thread of its own, so the loop (and the card's clicks) go on; at
  the limit it is abandoned (a thread cannot be stopped: it finishes, or not, unobserved) and the
  card says so.

What a function returns is judged here: a preview is formatted as IPython formats it (through
the host, in the same thread) and made safe to show (``_view.preview``); a check passes with
``None`` (or ``True``) and fails with anything else, its reason; a verify hook confirms with
``None`` (or ``True``). An exception or a timeout is an outcome too, with its text: nothing a
function does reaches the chat as an exception.
"""

from __future__ import annotations

import asyncio
import fnmatch
import inspect
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .._decisions.interrupts import PendingInterrupt
from .._notebook.host import display_bundle
from .._view.preview import shown_preview

__all__ = [
    "DEFAULT_TIMEOUT",
    "HookContext",
    "HookTable",
    "Hooked",
    "Outcome",
    "call_hook",
    "check_reason",
    "render_preview",
]

#: Seconds a preview, check or verify hook may take before the card goes on without it.
DEFAULT_TIMEOUT = 5.0

Hook = Callable[..., Any]


@dataclass(frozen=True)
class HookContext:
    """What a preview, check or verify hook gets besides the arguments (its last parameter).

    ``state``: the thread's state when the card appeared (for a verify hook: after the resumed
    run); ``interrupt``: the interrupt asked about (its ``tool_name``, ``arguments``,
    ``message``...); ``tool_call``: the thread's tool call (``name``, ``arguments``, ``result``),
    None when the thread holds none; ``edited``: True when the arguments are a person's edit.
    """

    state: Any
    interrupt: PendingInterrupt
    tool_call: Any
    edited: bool = False


@dataclass(frozen=True)
class Hooked:
    """One function for the tools its glob matches, and its time limit."""

    pattern: str
    fn: Hook
    timeout: float = DEFAULT_TIMEOUT

    @property
    def name(self) -> str:
        """The function's name (a lambda's: the glob it was given for)."""
        name = getattr(self.fn, "__name__", "")
        return name if name and name != "<lambda>" else self.pattern


class HookTable:
    """Functions by tool-name glob, in the order given (an exact name before a glob)."""

    def __init__(self, kind: str, hooks: Mapping[str, Hook] | None = None) -> None:
        self.kind = kind
        self._hooks: dict[str, Hooked] = {}
        for pattern, fn in (hooks or {}).items():
            self.add(pattern, fn)

    def add(self, pattern: str, fn: Hook, timeout: float = DEFAULT_TIMEOUT) -> Hook:
        if not isinstance(pattern, str) or not pattern:
            raise TypeError(f"a {self.kind} is given for a tool name or glob (a string)")
        if not callable(fn):
            raise TypeError(f"the {self.kind} for {pattern!r} is not callable: {fn!r}")
        if not timeout > 0:
            raise ValueError(f"the {self.kind} for {pattern!r} needs a timeout above 0 s")
        self._hooks[pattern] = Hooked(pattern, fn, float(timeout))
        return fn

    def decorator(self, pattern: str, timeout: float = DEFAULT_TIMEOUT) -> Callable[[Hook], Hook]:
        """``@chat.preview("transfer_money")``: adds the function, returns it unchanged."""

        def add(fn: Hook) -> Hook:
            return self.add(pattern, fn, timeout)

        return add

    def __bool__(self) -> bool:
        return bool(self._hooks)

    def matching(self, tool: str | None) -> list[Hooked]:
        """Every function whose glob matches ``tool``: the exact name's first."""
        if tool is None:
            return []
        exact = [h for p, h in self._hooks.items() if p == tool]
        globbed = [h for p, h in self._hooks.items() if p != tool and fnmatch.fnmatchcase(tool, p)]
        return exact + globbed

    def first(self, tool: str | None) -> Hooked | None:
        found = self.matching(tool)
        return found[0] if found else None


@dataclass(frozen=True)
class Outcome:
    """What a function gave: its value, or why there is none (``error``), and how long it took."""

    value: Any = None
    error: str | None = None
    seconds: float = 0.0


async def call_hook(
    fn: Hook, args: tuple[Any, ...], *, timeout: float, then: Hook | None = None
) -> Outcome:
    """``fn(*args)`` within ``timeout`` seconds; ``then(value)`` runs after it in the same
    thread (a preview's formatting), within the same limit. Never raises but a cancellation."""
    started = time.perf_counter()
    loop = asyncio.get_running_loop()
    if inspect.iscoroutinefunction(fn):
        try:
            value = await asyncio.wait_for(fn(*args), timeout)
        except asyncio.TimeoutError:
            return Outcome(error=_too_slow(timeout), seconds=timeout)
        except Exception as exc:
            return Outcome(error=_raised(exc), seconds=time.perf_counter() - started)
        if then is None:
            return Outcome(value, seconds=time.perf_counter() - started)
        left = max(0.05, timeout - (time.perf_counter() - started))
        return await _in_thread(loop, then, (value,), left, started)
    return await _in_thread(loop, _chain(fn, then), args, timeout, started)


def _chain(fn: Hook, then: Hook | None) -> Hook:
    def run(*args: Any) -> Any:
        value = fn(*args)
        if inspect.isawaitable(value):
            raise TypeError(
                "it returned an awaitable from a function that is not async: define it with "
                "`async def` to have it awaited"
            )
        return then(value) if then is not None else value

    return run


async def _in_thread(
    loop: asyncio.AbstractEventLoop,
    fn: Hook,
    args: tuple[Any, ...],
    timeout: float,
    started: float,
) -> Outcome:
    """Run ``fn`` in a daemon thread of its own; abandon it at ``timeout``."""
    done: asyncio.Future[Outcome] = loop.create_future()

    def settle(outcome: Outcome) -> None:
        if not done.done():
            done.set_result(outcome)

    def work() -> None:
        try:
            outcome = Outcome(fn(*args), seconds=time.perf_counter() - started)
        except BaseException as exc:
            outcome = Outcome(error=_raised(exc), seconds=time.perf_counter() - started)
        if not loop.is_closed():
            loop.call_soon_threadsafe(settle, outcome)

    threading.Thread(target=work, name="agui-hook", daemon=True).start()
    try:
        return await asyncio.wait_for(asyncio.shield(done), timeout)
    except asyncio.TimeoutError:
        return Outcome(error=_too_slow(timeout), seconds=timeout)


def render_preview(value: Any) -> dict[str, Any]:
    """A preview function's value as the card shows it (``_view.preview.shown_preview``);
    raises when it cannot be formatted (the caller's thread says so on the card)."""
    return shown_preview(display_bundle(value))


def check_reason(value: Any) -> str | None:
    """None when a check's (or verify hook's) value means "fine", else the reason it gave."""
    if value is None or value is True:
        return None
    if value is False:
        return "it returned False"
    return value if isinstance(value, str) else _safe_str(value)


def _raised(exc: BaseException) -> str:
    text = _safe_str(exc)
    return f"raised {type(exc).__name__}" + (f": {text}" if text else "")


def _too_slow(timeout: float) -> str:
    return f"did not finish within {timeout:g} s (abandoned; the card goes on without it)"


def _safe_str(value: Any) -> str:
    try:
        text = str(value)
    except Exception:  # a value whose str() fails is still a reason
        text = f"a {type(value).__name__} that cannot be shown as text"
    return text if len(text) <= 2000 else text[:2000] + "…"
