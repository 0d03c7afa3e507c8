"""How a run's request reaches the agent and its events come back: one module per transport.

A :class:`~agui_notebook._transports.base.Transport` opens one run and yields the event texts
(one JSON text per AG-UI event), whatever carries them: HTTP+SSE (``http``) and WebSocket
(``websocket``, one run per connection). The run loop (``_run_loop``, for ``_thread``) consumes
event texts and knows no framing; so does recording (``_record``), which wraps any transport and
replays as a transport of its own. ``choose`` picks a transport by name or by the URL's scheme
(``Agent(url, transport=None)``): a new transport is a module here and one entry there.

May import: ``_protocol``, ``_errors``. Requests and sockets go out from here only (httpx's client is used
elsewhere only as a type, a test seam or the demo's in-process client).
"""
