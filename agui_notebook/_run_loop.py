"""One run read off its transport: the request handed over, event texts fed on, the verdict.

Everything between handing the RunAgentInput to the transport and knowing how the run ended is
here, and nothing of the thread: the caller (``_thread.RunStream``) builds the run's pipeline
(parser, order verifier, reducer, fed in order by a ``RunFeed``) on the thread's committed
snapshot and decides what to commit. How the texts travel is the transport's business
(``_transports.base``); what the server sent is scrubbed of the credentials the transport sent
before anything parses it.

A run that closed (RUN_FINISHED or RUN_ERROR) is read :data:`AFTER_FINISH_GRACE` seconds more,
for a new run or a late RUN_ERROR on the same stream; a stream that breaks then leaves the run
standing, with a warning. A stream that ends or breaks before the run closed is a
:class:`TruncatedRunError`, keepalives alone for longer than ``idle_timeout`` a
:class:`StreamTimeout`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Callable
from typing import Any

from pydantic import BaseModel

from ._errors import RunAborted, RunError, StreamTimeout, TransportError, TruncatedRunError
from ._protocol.events import EventParser, type_of
from ._protocol.guards import EventGuard
from ._protocol.verify import OrderVerifier
from ._run_result import RunRecord
from ._state.feed import RunFeed
from ._state.reducer import RunReducer
from ._transports.base import ConnectionDropped, EventStream, StreamCut, Transport

__all__ = ["AFTER_FINISH_GRACE", "read_run"]

#: Seconds to keep reading after RUN_FINISHED or RUN_ERROR (for a new run, or a late RUN_ERROR,
#: on the same stream) when the server does not close it.
AFTER_FINISH_GRACE = 2.0

_CLOSED = ("finished", "failed")


async def read_run(
    transport: Transport,
    body: bytes,
    *,
    forwarded_props: Any,
    max_event_bytes: int,
    idle_timeout: float | None,
    parser: EventParser,
    verifier: OrderVerifier,
    reducer: RunReducer,
    feed: RunFeed,
    record: RunRecord,
    deliver: bool,
    aborting: Callable[[], bool],
) -> AsyncGenerator[BaseModel, None]:
    """Hand ``body`` to ``transport`` and feed the run's events to ``feed``; yield each event
    taken when ``deliver`` (else the frequent ones stay plain: nobody reads them one by one).

    Returns when the run closed with RUN_FINISHED. Raises :class:`RunError` (RUN_ERROR),
    :class:`TruncatedRunError`, :class:`StreamTimeout`, :class:`RunAborted` (``aborting()``
    became true) or the transport's own errors.
    """
    handle = feed.event
    last_event_at = time.monotonic()

    def truncated(what: str, stream: EventStream, *, dropped: bool) -> TruncatedRunError:
        return TruncatedRunError(
            what,
            bytes_received=stream.bytes_received,
            events_received=record.event_count,
            last_event=feed.last_type,
            dropped=dropped,
        )

    async with transport.open(
        body, forwarded_props=forwarded_props, max_event_bytes=max_event_bytes
    ) as stream:
        # Server text is scrubbed of the credentials sent, before it is parsed: every
        # message, result, error and card made from it is clean (_protocol/secrets.py).
        parse = parser.parse
        # Nobody reads events one by one (Thread.run): the frequent ones stay plain,
        # unless the guard must read every text before it is parsed.
        plain = not deliver and not transport.scrubber
        if transport.scrubber:
            parse = EventGuard(transport.scrubber, parse, type_of).parse
        iterator = stream.__aiter__()
        try:
            while True:
                try:
                    if verifier.phase in _CLOSED:
                        # The run is closed; a well-behaved server closes the stream now.
                        # Wait a moment for a new run or a late RUN_ERROR, no more.
                        batch = await asyncio.wait_for(iterator.__anext__(), AFTER_FINISH_GRACE)
                    else:
                        batch = await iterator.__anext__()
                except StopAsyncIteration:
                    break
                except (asyncio.TimeoutError, StreamTimeout):
                    if verifier.phase not in _CLOSED:
                        raise
                    if verifier.phase == "finished":
                        record.warnings.append(
                            "the server kept the stream open after RUN_FINISHED; stopped reading"
                        )
                    break
                except TransportError as exc:
                    # A socket closed with an error code after the run closed: the run
                    # stands (as a drop after RUN_FINISHED does), with a warning.
                    if verifier.phase not in _CLOSED:
                        raise
                    record.warnings.append(f"after the run closed: {exc}")
                    break
                if aborting():
                    raise RunAborted("the run was aborted by the client")
                seen = record.event_count
                if plain:
                    feed.texts(batch, parse)
                else:
                    for data in batch:
                        for event in parse(data):
                            if handle(type_of(event), event) and deliver:
                                yield event
                                if aborting():  # abort() from the consumer
                                    raise RunAborted("the run was aborted by the client")
                now = time.monotonic()
                if record.event_count != seen:
                    last_event_at = now
                elif idle_timeout is not None and now - last_event_at > idle_timeout:
                    raise StreamTimeout(
                        f"no event for {idle_timeout:g} s (only keepalive comments); "
                        "raise idle_timeout on the Agent if the agent is just slow"
                    )
            try:
                tail = stream.finish()
            except StreamCut as exc:
                if verifier.phase not in _CLOSED:  # cut inside a character or a frame
                    raise truncated(f"the stream was cut ({exc})", stream, dropped=False) from None
                record.warnings.append(f"ignored bytes after the run closed: {exc}")
                tail = []
            for data in tail:
                for event in parse(data):
                    if handle(type_of(event), event) and deliver:
                        yield event
        except ConnectionDropped as exc:
            if verifier.phase not in _CLOSED:
                raise truncated(f"the connection dropped ({exc})", stream, dropped=True) from None
    if verifier.phase == "failed":
        message_text, code = reducer.error or ("the run failed", None)
        raise RunError(message_text, code, run_id=reducer.run_id)
    if verifier.phase != "finished":
        where = "inside an event" if stream.in_message else "between events"
        raise truncated(
            f"the stream ended {where} before RUN_FINISHED or RUN_ERROR", stream, dropped=False
        )
