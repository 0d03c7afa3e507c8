"""Record and replay: a chat's runs in a readable file, served back offline (public face: ``record``).

Both work at the transport seam (``_transports.base``: open one run, hand over event texts), so
a run records and replays whatever carries it, HTTP+SSE or WebSocket. ``recording`` wraps an
agent's transport and writes each run as it happens; ``replay`` is a transport that serves a
recording in-process and checks every request against the recorded one (``matching``: ids the
client makes up are matched consistently, not literally); ``file`` is the format (version 2;
``legacy`` reads version 1, which recorded HTTP itself); ``policy`` answers interrupts as the
recording's resumes did. No secret is ever written.

May import: ``_agent`` (an agent on a recording), ``_transports``, ``_protocol``, ``_decisions``,
``policies``, ``_errors``, ``_version``.
"""
