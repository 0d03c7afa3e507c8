"""Agent: an AG-UI endpoint, the transport that talks to it, and the threads on it."""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from ._chat.inbox import DEFAULT_INTERVAL as DEFAULT_INBOX_INTERVAL
from ._chat.inbox import Inbox
from ._notebook.host import kernel_support
from ._protocol.capabilities import AgentCapabilities, parse_capabilities
from ._protocol.secrets import redact_url
from ._protocol.sse import DEFAULT_MAX_EVENT_BYTES
from ._store.codec import InboxItem, ThreadSummary
from ._store.journal import Journal, resolve_store
from ._thread import Thread
from ._transports.base import Transport
from ._transports.choose import make_transport
from ._transports.http import make_timeout, safe_url
from .policies import ENV_VAR as POLICY_ENV

if TYPE_CHECKING:
    from ._chat.chat import Chat

__all__ = ["Agent", "a_person_decides_here"]

_UNSET: Any = object()


def a_person_decides_here() -> bool:
    """A notebook front end runs this process (a Jupyter kernel, Colab, marimo edit or run) and
    no ``AGUI_NOTEBOOK_POLICY`` decides for the person (nbval, nbclient, papermill set one): only
    then does an agent keep its threads in the default store (docs/store.md)."""
    return kernel_support().in_kernel and not os.environ.get(POLICY_ENV, "").strip()


class Agent:
    """An AG-UI agent at ``url``.

    >>> agent = Agent("http://127.0.0.1:8000/", headers={"Authorization": "Bearer ..."})
    >>> thread = agent.thread()

    ``headers`` are sent with every request and never shown or saved (reprs, widgets,
    recordings and errors leave them out). ``http_client`` is your own ``httpx.AsyncClient``
    (auth, proxies, a test transport). ``timeout`` is in seconds (or an ``httpx.Timeout``); the
    read timeout applies per chunk, so a server's keepalive comments keep a slow run alive, and
    ``idle_timeout`` bounds how long keepalives alone may do so.

    ``transport`` is how runs reach the agent: None picks it from the URL's scheme (``http``
    and ``https``: HTTP+SSE; ``ws`` and ``wss``: WebSocket, one run per connection), a name
    (``"http"``, ``"websocket"``: on an ``http://`` URL it connects to the same host and path
    over ``ws://``) picks one, or pass your own transport object (see ``_transports/base.py``;
    then give it your headers and client, not the agent). The WebSocket transport sends
    ``headers`` on the handshake and takes no ``http_client``.

    ``strict=True`` applies the AG-UI 1.1 processing rules literally where real servers need
    tolerance (docs/architecture.md, "Deliberate departures"): a MESSAGES_SNAPSHOT drops the
    messages it does not mention, and a TOOL_CALL_END for a call the thread already closed fails
    the run. The default keeps Microsoft Agent Framework's partial snapshots and re-closed calls.

    ``store`` is the SQLite file that keeps this agent's threads and decisions (see
    ``agent.thread(id)``, ``agent.threads()``), a ``postgresql://user@host:port/db`` URL for a
    store a team shares (the ``postgres`` extra; docs/store.md), or None to keep nothing. By
    default the ``AGUI_NOTEBOOK_STORE`` environment variable (a path, a URL, or ``off``), else,
    in a notebook a person decides in, ``store.sqlite3`` in the user's data directory, and
    nothing in a script, a test or a notebook run headless under ``AGUI_NOTEBOOK_POLICY``
    (docs/store.md). Credentials are never stored, and a URL's password is never shown.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        http_client: httpx.AsyncClient | None = None,
        timeout: float | httpx.Timeout | None = _UNSET,
        idle_timeout: float | None = 600.0,
        send_history: bool = True,
        max_events_kept: int | None = 10_000,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        strict: bool = False,
        store: str | os.PathLike[str] | None = _UNSET,
        transport: Transport | str | None = None,
    ) -> None:
        if timeout is _UNSET:
            # Your own client's timeout wins unless you pass one.
            resolved = None if http_client is not None else make_timeout(60.0)
        else:
            resolved = make_timeout(timeout)
        self.url = url
        self._transport = make_transport(
            transport, url, headers=headers, http_client=http_client, timeout=resolved
        )
        self.idle_timeout = idle_timeout
        #: Send the thread's messages with every run (stateless servers need them; AG-UI's
        #: TypeScript client does the same).
        self.send_history = send_history
        self.max_events_kept = max_events_kept
        self.max_event_bytes = max_event_bytes
        #: Follow the 1.1 processing rules literally (see the class docstring).
        self.strict = strict
        #: The demo server's ASGI app when made by :meth:`demo` (tests inspect its requests).
        self.demo_app: Any = None
        #: What the server declared at the last :meth:`capabilities` (None: not asked, or none).
        self.declared_capabilities: AgentCapabilities | None = None
        location = resolve_store(
            None if store is _UNSET else store,
            given=store is not _UNSET,
            interactive=a_person_decides_here,
        )
        self._journal = (
            None
            if location is None
            else Journal(location, redact_url(url), self._transport.known_scrubber)
        )
        #: The store file, or the database URL without its password (None: nothing is kept).
        #: Opened at the first run that commits.
        self.store_path: Path | str | None = (
            location if isinstance(location, Path) or self._journal is None else self._journal.path
        )

    @classmethod
    def demo(cls, **options: Any) -> Agent:
        """The built-in demo agent, in-process: no API key, no server, no socket.

        Options are the demo's (e.g. ``text_delay=0``); see ``agui_notebook.demo``.
        """
        from .demo import demo_transport  # the demo is only imported when asked for

        agent_options = {
            k: options.pop(k)
            for k in (
                "idle_timeout",
                "send_history",
                "max_events_kept",
                "max_event_bytes",
                "timeout",
                "strict",
                "store",
            )
            if k in options
        }
        transport, app = demo_transport(**options)
        client = httpx.AsyncClient(transport=transport, timeout=make_timeout(60.0))
        agent = cls("http://agui-demo.invalid/", http_client=client, **agent_options)
        agent.demo_app = app
        return agent

    async def capabilities(self) -> AgentCapabilities | None:
        """The server's AG-UI capabilities document (``GET {url}/capabilities``, else a GET on
        the run URL itself, where some servers answer it; for a ws:// agent, its http(s)://
        twin), or None when it serves none (404) or the transport cannot ask. A chat's cards
        hide what it declares unsupported (``approveWithEdits: false``: no Edit), and say why. Fields the client does not know are kept, with a warning; a document that is not
        JSON is a :class:`ProtocolError`. ``.describe()`` lists what it declares; a chat made
        afterwards says at once when the server declares no human-in-the-loop support."""
        fetch = getattr(self._transport, "capabilities", None)
        text = await fetch() if fetch is not None else None
        if text is None:
            self.declared_capabilities = None
            return None
        found = parse_capabilities(
            text,
            lambda note: warnings.warn(note, UserWarning, stacklevel=3),
            where=safe_url(self.url),
        )
        self.declared_capabilities = found
        return found

    @property
    def transport(self) -> Transport:
        """The transport this agent's threads run on (what ``Thread`` needs: ``_thread.Endpoint``)."""
        return self._transport

    def thread(self, thread_id: str | None = None) -> Thread:
        """A new thread (a fresh id), or ``thread("id")`` to continue one.

        A thread this agent's store holds comes back as it was committed: ``.messages``,
        ``.state`` and ``.pending`` (``await thread.resume(approve())`` answers them).
        """
        thread = Thread(self, thread_id)
        if self._journal is not None:
            thread.journal = self._journal
            if thread_id is not None:
                self._journal.restore(thread)
        return thread

    def threads(self, pending: bool | None = None) -> list[ThreadSummary]:
        """This agent's stored threads, newest first; ``pending=True`` only those waiting for a
        decision (``False``: only those not waiting). Empty when the agent keeps no store."""
        if self._journal is None:
            return []
        return self._journal.threads(pending)

    def inbox(self, *, interval: float = DEFAULT_INBOX_INTERVAL, **chat_options: Any) -> Inbox:
        """Every approval waiting in this agent's store, across its threads and every kernel
        sharing the store (a PostgreSQL store: the whole team's), newest first. Each item has
        the thread, the interrupt (tool, arguments, expiry) and ``status``: ``waiting``,
        ``expired``, or ``being decided by ada on host-2``. Empty when the agent keeps no store.

        Shown in a notebook, it is a card per pending thread: a click resumes that thread from
        this kernel, once; the store is read again every ``interval`` seconds. ``chat_options``
        go to each card's chat (``timeout``, ``on_timeout``...)."""
        journal = self._journal

        def read() -> list[InboxItem]:
            return [] if journal is None else journal.inbox()

        def open_chat(thread_id: str) -> Chat:
            return self.chat(thread_id, **{"display": False, **chat_options})

        return Inbox(read, open_chat, interval=interval)

    def chat(self, thread_id: str | None = None, **options: Any) -> Chat:
        """A thread with a live view in the notebook; see :class:`agui_notebook.Chat`.

        ``agent.chat(thread_id)`` on a stored thread with pending interrupts shows their cards
        again; a decision resumes the thread (``await chat.wait()`` gives the final result).
        """
        from ._chat.chat import Chat

        return Chat(self.thread(thread_id), **options)

    async def aclose(self) -> None:
        await self._transport.aclose()
        if self._journal is not None:
            self._journal.close()  # a later commit opens the store again

    async def __aenter__(self) -> Agent:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"Agent({safe_url(self.url)!r})"
