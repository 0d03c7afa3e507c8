"""The errors agui_notebook raises, one tree rooted at :class:`AGUIError`.

::

    AGUIError
    ├── TransportError            the network failed before a response arrived
    │   ├── ConnectError          connection refused, DNS, TLS
    │   ├── StreamTimeout         no byte (not even a keepalive comment) within the read timeout
    │   └── WebSocketClosed       the WebSocket closed with an error code (code, reason) before
    │                             the run ended
    ├── HTTPStatusError           the server answered with a non-2xx status (status, body)
    ├── ProtocolError             the server's bytes do not follow AG-UI (bad JSON, bad event value,
    │   │                         wrong order, not SSE, invalid UTF-8, an event too large)
    │   └── TruncatedRunError     the stream ended (or the connection dropped) before
    │                             RUN_FINISHED or RUN_ERROR: a failed run, never a success
    ├── RunError                  the server sent RUN_ERROR (message, code)
    ├── RunAborted                the client aborted the run (Thread.abort() or task cancel)
    ├── NobodyCanClick            a person must decide, but no click can reach Python here: no
    │   │                         front end and no policy, or a wait that would hold clicks back
    │   └── TooFewApprovers       approvals=N, and fewer than N can approve here (a policy
    │                             alone counts as one)
    ├── InterruptReissued         the server raised an answered interrupt again; a chat's policy
    │                             stops rather than answer it the same way in a loop
    ├── ReplayMismatch            a replayed request differs from the recording
    │                             (agui_notebook.record)
    ├── ResumeRefused             the client refused to send a resume, before any request
    │   ├── NothingPending        the thread has no pending interrupt
    │   ├── UnansweredInterrupts  an interrupt would be left without an answer
    │   ├── UnknownInterrupt      an answer names an interrupt that is not pending
    │   ├── ExpiredInterrupt      a resolved answer to an expired interrupt (cancel is allowed)
    │   ├── InvalidDecision       the payload does not validate against the responseSchema
    │   ├── ThreadBusy            another run or resume is in flight on this thread
    │   ├── AlreadyDecided        another kernel (a shared store) claimed these interrupts first:
    │   │                         who, where and when are on the error
    │   └── CheckFailed           an approval of a call whose check failed (a chat's ``checks``),
    │                             by a policy that does not say ``override_checks=True``
    └── StoreError                the thread store (a SQLite file, a PostgreSQL database) cannot
        │                         be used; also a store URL that cannot be read, a missing psycopg
        ├── StoreCorrupt          not a readable store (damaged, not SQLite, foreign tables)
        ├── StoreVersionError     written by a newer agui_notebook (its schema version is higher)
        └── StoreUnavailable      cannot be opened or written (permissions, read-only, disk full,
                                  unreachable, a wrong password)

    StoreWarning (a UserWarning)  a store error during a run: said once, the run goes on unstored

Every failed run or resume leaves its thread exactly as it was before the request: pending
interrupts stay pending, so the same decision can be re-sent. The thread marks the error with
what failed (``during``: "run" or "resume") and, for a resume whose reply broke off after it was
sent (a dropped connection, a timeout, a cut stream), ``maybe_applied``: the server may already
have applied it, which the message and the hint say.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AGUIError",
    "AlreadyDecided",
    "CheckFailed",
    "ConnectError",
    "ExpiredInterrupt",
    "HTTPStatusError",
    "InterruptReissued",
    "InvalidDecision",
    "NobodyCanClick",
    "NothingPending",
    "ProtocolError",
    "ResumeRefused",
    "RunAborted",
    "RunError",
    "StoreCorrupt",
    "StoreError",
    "StoreUnavailable",
    "StoreVersionError",
    "StoreWarning",
    "StreamTimeout",
    "ThreadBusy",
    "TooFewApprovers",
    "TransportError",
    "TruncatedRunError",
    "UnansweredInterrupts",
    "UnknownInterrupt",
    "WebSocketClosed",
]


class AGUIError(Exception):
    """Root of every error agui_notebook raises."""

    #: What the failed request sent: "run" (a message) or "resume" (decisions); set by the thread.
    during: str | None = None
    #: A resume failed after it was sent, with no clear answer: the server may have applied it.
    maybe_applied: bool = False

    def __str__(self) -> str:
        text = super().__str__()
        if self.maybe_applied:
            text += " (the decision was sent: the server may already have applied it)"
        return text

    @property
    def hint(self) -> str | None:
        """A short, human hint on what to do next (shown under the error), fitting what failed."""
        return self._next_step() or None

    def _next_step(self) -> str:
        if self.maybe_applied:
            return (
                "Retry re-sends the same decision, with the same interrupt ids, so a server that "
                "recognises a repeated resume will not apply it twice."
            )
        if self.during == "resume":
            return "The interrupts are still pending here: the same decision can be re-sent."
        if self.during == "run":
            return "Nothing was added to the thread: the message can be sent again."
        return ""


class TransportError(AGUIError):
    """The request could not be completed at the network level."""


class ConnectError(TransportError):
    """The server could not be reached (refused, unresolvable, TLS failure)."""


class StreamTimeout(TransportError):
    """Nothing arrived within the read timeout (keepalive comments reset it)."""

    @property
    def hint(self) -> str | None:
        silent = "The server went silent (raise `timeout=` on the Agent if it is just slow)."
        return f"{silent} {self._next_step()}".rstrip()


class WebSocketClosed(TransportError):
    """The server closed the WebSocket with a code other than 1000/1001 before the run ended
    (``code``, and ``reason`` with credentials scrubbed). 1006 means no close frame arrived."""

    def __init__(self, code: int, reason: str, url: str) -> None:
        self.code = code
        self.reason = reason
        self.url = url
        said = f": {reason}" if reason else ""
        super().__init__(f"the WebSocket to {url} closed with code {code}{said}")


class HTTPStatusError(AGUIError):
    """The server answered with a non-2xx HTTP status."""

    def __init__(self, status_code: int, body: str, url: str) -> None:
        self.status_code = status_code
        self.body = body
        self.url = url
        excerpt = body if len(body) <= 500 else body[:500] + f"... ({len(body)} chars)"
        super().__init__(f"HTTP {status_code} from {url}: {excerpt}".rstrip(": "))

    @property
    def hint(self) -> str | None:
        if self.status_code in (401, 403):
            return "Check the credentials passed in `headers=` or on your `http_client`."
        if self.status_code == 404:
            return "Check the agent URL (a trailing slash can matter)."
        if self.status_code >= 500:
            return f"The server failed. {self._next_step()}".rstrip()
        return None


class ProtocolError(AGUIError):
    """The response does not follow the AG-UI protocol."""

    def __init__(self, message: str, *, event_index: int | None = None) -> None:
        self.event_index = event_index
        where = f" (event #{event_index})" if event_index is not None else ""
        super().__init__(message + where)


class TruncatedRunError(ProtocolError):
    """The stream ended before RUN_FINISHED or RUN_ERROR.

    ``bytes_received`` and ``events_received`` say where it broke; ``last_event`` is the type of
    the last complete event, ``dropped`` says whether the connection failed (versus a clean end).
    """

    @property
    def hint(self) -> str | None:
        return f"The run did not finish. {self._next_step()}".rstrip()

    def __init__(
        self,
        message: str,
        *,
        bytes_received: int,
        events_received: int,
        last_event: str | None,
        dropped: bool,
    ) -> None:
        self.bytes_received = bytes_received
        self.events_received = events_received
        self.last_event = last_event
        self.dropped = dropped
        detail = (
            f"{message} after {bytes_received} bytes and {events_received} events"
            f" (last: {last_event or 'none'})"
        )
        super().__init__(detail)


class RunError(AGUIError):
    """The server ended the run with RUN_ERROR."""

    def __init__(self, message: str, code: str | None = None, run_id: str | None = None) -> None:
        self.message = message
        self.code = code
        self.run_id = run_id
        super().__init__(f"[{code}] {message}" if code else message)


class RunAborted(AGUIError):
    """The client aborted the run; the thread is left as it was before the run."""


class InterruptReissued(AGUIError):
    """The server raised again an interrupt that was already answered; an automatic decision
    would loop, so the chat stops and says so (a person can still decide on the card)."""


class ResumeRefused(AGUIError, ValueError):
    """The client refused to send a resume; nothing was sent."""


class NothingPending(ResumeRefused):
    """``resume`` was called but the thread has no pending interrupt."""


class UnansweredInterrupts(ResumeRefused):
    """A resume must answer every pending interrupt (AG-UI: one entry per interrupt)."""

    def __init__(self, missing: list[str], *, detail: str | None = None) -> None:
        self.missing = missing
        text = "every pending interrupt needs an answer; unanswered: " + ", ".join(missing)
        super().__init__(f"{text} ({detail})" if detail else text)


class UnknownInterrupt(ResumeRefused):
    """An answer names an interrupt id that is not pending on this thread."""

    def __init__(self, unknown: list[str], pending: list[str]) -> None:
        self.unknown = unknown
        self.pending = pending
        super().__init__(
            f"not pending on this thread: {', '.join(unknown)}; pending: {', '.join(pending) or 'none'}"
        )


class ExpiredInterrupt(ResumeRefused):
    """The interrupt's ``expiresAt`` has passed: it can only be cancelled."""

    def __init__(self, interrupt_id: str, expires_at: str) -> None:
        self.interrupt_id = interrupt_id
        self.expires_at = expires_at
        super().__init__(
            f"interrupt {interrupt_id} expired at {expires_at}; it can only be cancelled"
        )


class InvalidDecision(ResumeRefused):
    """The decision does not fit the interrupt (its payload fails the ``responseSchema``)."""

    def __init__(self, interrupt_id: str, message: str, payload: Any = None) -> None:
        self.interrupt_id = interrupt_id
        self.payload = payload
        super().__init__(f"interrupt {interrupt_id}: {message}")


class ThreadBusy(ResumeRefused):
    """Another run or resume is in flight on this thread."""


class AlreadyDecided(ResumeRefused):
    """Another kernel sharing the store claimed these interrupts before this resume went out:
    nothing was sent. ``claimant``, ``host``, ``pid``, ``decided_by``, ``claimed_at`` say who and
    when; ``settled`` is True when that resume committed, False while it is being decided (a
    claim whose kernel died lapses at ``lease_until``, an ISO time, and may then be taken)."""

    def __init__(
        self,
        interrupt_id: str,
        *,
        claimant: str,
        host: str,
        pid: int | None,
        decided_by: str | None,
        claimed_at: str,
        lease_until: str,
        settled: bool,
    ) -> None:
        self.interrupt_id = interrupt_id
        self.claimant = claimant
        self.host = host
        self.pid = pid
        self.decided_by = decided_by
        self.claimed_at = claimed_at
        self.lease_until = lease_until
        self.settled = settled
        how = f" ({decided_by})" if decided_by and decided_by != claimant else ""
        where = f"{host}" + (f", pid {pid}" if pid is not None else "")
        if settled:
            text = f"interrupt {interrupt_id} was already decided by {claimant}{how} on {where} at {claimed_at}"
        else:
            text = (
                f"interrupt {interrupt_id} is being decided by {claimant}{how} on {where} since "
                f"{claimed_at} (if that kernel is gone, its claim lapses at {lease_until})"
            )
        super().__init__(text + "; nothing was sent")

    @property
    def hint(self) -> str | None:
        return (
            "Another kernel answers it: agent.thread(id) later shows the outcome."
            if self.settled
            else "Wait for that kernel's resume; agent.thread(id) then shows its outcome."
        )


class CheckFailed(ResumeRefused):
    """A chat's check failed for the arguments an approval (or edit) would send, and nothing
    says to send it anyway: nothing was sent. ``failed`` lists ``(tool, check, reason)``."""

    hint = (
        'Reject, edit the arguments, or let a person choose "Approve anyway" with a reason '
        "(a policy may say override_checks=True)."
    )

    def __init__(self, message: str, failed: list[tuple[str, str, str]]) -> None:
        self.failed = failed
        super().__init__(message)


class NobodyCanClick(AGUIError):
    """A person must decide, but no click can reach Python where this runs.

    Raised at once instead of waiting out the timeout: by ``Chat.send`` when nothing can show a
    card (plain Python, no policy), and by ``Chat.wait`` where a click cannot arrive while a cell
    runs (marimo, ipykernel < 7.4) and a card still waits for one. Nothing was sent: the
    interrupts stay pending.
    """

    hint = (
        "Choose who decides: agent.chat(policy=policies.approve_all()) (or reject_all, "
        "scripted, rules), or set AGUI_NOTEBOOK_POLICY=approve (or reject, cancel, script:..., "
        "rules:<file>, replay:<file>)."
    )


class TooFewApprovers(NobodyCanClick):
    """``approvals=N`` needs N different approvers, and fewer than N can approve here.

    Raised at once where nothing can show a card and a policy or an "always allow" rule was
    the only approver (it counts as one). Nothing was sent: the interrupts stay pending.
    """

    hint = (
        "Run it where people can click the card, or use approvals=1 for a run decided by a "
        "policy alone."
    )


class StoreError(AGUIError):
    """The thread store cannot be used. During a run this is a :class:`StoreWarning` instead:
    the run goes on, unstored."""

    #: A passing problem (a lock held too long, a lost connection): the next commit tries again.
    transient: bool = False

    def __init__(self, message: str, path: str | None = None) -> None:
        self.path = path
        super().__init__(message)


class StoreCorrupt(StoreError):
    """The store file is damaged or is not an agui_notebook store."""

    hint = "Move the file aside (or point AGUI_NOTEBOOK_STORE elsewhere); a new one is created."


class StoreVersionError(StoreError):
    """The store was written by a newer agui_notebook (``found`` > ``supported``)."""

    hint = "Upgrade agui_notebook, or use another store file for this version."

    def __init__(self, message: str, path: str | None, *, found: int, supported: int) -> None:
        self.found = found
        self.supported = supported
        super().__init__(message, path)


class StoreUnavailable(StoreError):
    """The store cannot be opened or written: permissions, a read-only place, a full disk, a
    database that cannot be reached or refuses the sign-in."""


class StoreWarning(UserWarning):
    """A store problem met during a run: said once per store, the client goes on without it."""
