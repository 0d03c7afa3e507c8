"""The AG-UI wire, read and checked. Pure: no I/O, no event loop, no widgets.

Owns the protocol's shapes and the rules of the processing model: SSE text -> event data
(``sse``), the 1.1 wire models and the model of each event type (``wire``), the stages an event
passes, each in its module (the compatibility boundary ``compat``, enforcement ``enforce``, chunk
expansion ``chunks``), the parser that runs them (``events``: one text, or a batch read for the
feed), the frequent events read as their decoded JSON with no model built (``plain``), event
order (``verify``), the outgoing run input enforced and encoded (``run_input``), the scrubbing of
every server text of the credentials sent (``secrets``) and of streamed deltas across events
(``guards``), and an agent's capabilities document (``capabilities``).

May import: ``_errors``, ``_version``, and libraries with no I/O (ag_ui.core, pydantic,
httpx-sse's decoders; ``secrets`` also httpx's URL and request parsers). Nothing else of ours.
"""
