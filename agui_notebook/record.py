"""Record a chat to a readable JSON-lines file; replay it offline, checking every request.

>>> from agui_notebook.record import record, replay, replay_policy
>>> recorded = record(Agent("http://127.0.0.1:8000/", headers=...), "chat.jsonl")  # doctest: +SKIP
>>> chat = recorded.chat(policy=policies.approve_all())                            # doctest: +SKIP
>>> await chat.send("Transfer $500 from 1234567890 to 0987654321")                 # doctest: +SKIP

Later, with no server::

    agent = replay("chat.jsonl")                   # requests must match the recording
    chat = agent.chat(policy=replay_policy("chat.jsonl"))   # or AGUI_NOTEBOOK_POLICY=replay:chat.jsonl

Any transport records and replays: HTTP+SSE, WebSocket, your own (recording wraps the agent's
transport; a replay is a transport of its own). Credentials (Authorization and other credential
headers, cookies, tokens in URLs and in ``forwardedProps``) are never written to the file. The
format is described in ``agui_notebook._record.file``.
"""

from ._protocol.secrets import redact_headers, redact_url
from ._record.file import load_recording
from ._record.policy import replay_policy
from ._record.recording import RecordingTransport, record
from ._record.replay import ReplayMismatch, ReplayTransport, replay

__all__ = [
    "RecordingTransport",
    "ReplayMismatch",
    "ReplayTransport",
    "load_recording",
    "record",
    "redact_headers",
    "redact_url",
    "replay",
    "replay_policy",
]
