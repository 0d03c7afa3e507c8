"""How a run's request reaches the agent and its events come back: one module per transport.

A :class:`~agui_notebook._transports.base.Transport` opens one run and yields the event texts
(one JSON text per AG-UI event), whatever carries them; HTTP+SSE (``http``) is the first. The
run loop (``_thread``) consumes event texts and knows no framing. ``base`` picks a transport by
name or by the URL's scheme (``Agent(url, transport=None)``).

May import: ``_protocol``, ``_errors``; the network libraries (httpx) live here and nowhere else.
"""
