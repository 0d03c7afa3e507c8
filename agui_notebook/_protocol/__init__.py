"""The AG-UI wire, read and checked. Pure: no I/O, no event loop, no widgets.

Owns the protocol's shapes and the rules of the processing model: SSE text -> event data
(``sse``), the 1.1 wire models (``wire``), event data -> enforced, chunk-expanded events
(``events``), the frequent events read as their decoded JSON with no model built (``plain``),
event order (``verify``), the scrubbing of every server text of the credentials sent
(``secrets``), and an agent's capabilities document (``capabilities``).

May import: ``_errors``, ``_version``, and libraries with no I/O (ag_ui.core, pydantic,
httpx-sse's decoders; ``secrets`` also httpx's URL and request parsers). Nothing else of ours.
"""
