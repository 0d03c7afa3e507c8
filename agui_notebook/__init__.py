"""agui_notebook: work with AG-UI agents from a Jupyter notebook.

>>> from agui_notebook import Agent, approve
>>> agent = Agent.demo()                      # or Agent("http://127.0.0.1:8000/")
>>> thread = agent.thread()
>>> result = await thread.run("Transfer $500 from 1234567890 to 0987654321")  # doctest: +SKIP
>>> result = await thread.resume(approve())                                   # doctest: +SKIP

``Chat`` and ``ChatResult`` (the notebook view) load on first use, so ``import agui_notebook``
stays free of widget and Jupyter imports.
"""

import typing as _typing

from . import policies as _policies
from ._agent import Agent
from ._chat.inbox import Inbox
from ._decisions.decision import Decision, answer, approve, cancel, edit, reject
from ._decisions.interrupts import PendingInterrupt
from ._errors import (
    AGUIError,
    AlreadyDecided,
    CheckFailed,
    ConnectError,
    ExpiredInterrupt,
    HTTPStatusError,
    InterruptReissued,
    InvalidDecision,
    NobodyCanClick,
    NothingPending,
    ProtocolError,
    ResumeRefused,
    RunAborted,
    RunError,
    StoreCorrupt,
    StoreError,
    StoreUnavailable,
    StoreVersionError,
    StoreWarning,
    StreamTimeout,
    ThreadBusy,
    TooFewApprovers,
    TransportError,
    TruncatedRunError,
    UnansweredInterrupts,
    UnknownInterrupt,
    WebSocketClosed,
)
from ._protocol.capabilities import AgentCapabilities
from ._record.policy import replay_policy as _replay_policy
from ._state.a2ui import SurfaceAction, act
from ._state.genui import register_activity_renderer
from ._state.reducer import ToolCallInfo
from ._store.codec import InboxItem, ThreadSummary
from ._thread import RunRecord, RunResult, RunStream, Thread
from ._version import __version__

# The package wires its layers: the text form ``replay:<file>`` (policies.parse and
# AGUI_NOTEBOOK_POLICY) belongs to recording, which policies must not import.
_policies.register_kind("replay", _replay_policy)

if _typing.TYPE_CHECKING:
    from ._chat.chat import Chat, ChatResult

_LAZY = {"Chat", "ChatResult"}  # defined in _chat, which imports the widget (anywidget)


def __getattr__(name: str) -> _typing.Any:
    if name in _LAZY:
        from ._chat import chat as _chat

        return getattr(_chat, name)
    raise AttributeError(f"module 'agui_notebook' has no attribute {name!r}")


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    """``jupyter server extension enable agui_notebook``: the server stamps who clicked into each
    kernel message (docs/collaboration.md). Only jupyter_server calls this."""
    return [{"module": "agui_notebook._notebook.server_identity"}]


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "AGUIError",
    "Agent",
    "AgentCapabilities",
    "AlreadyDecided",
    "Chat",
    "ChatResult",
    "CheckFailed",
    "ConnectError",
    "Decision",
    "ExpiredInterrupt",
    "HTTPStatusError",
    "Inbox",
    "InboxItem",
    "InterruptReissued",
    "InvalidDecision",
    "NobodyCanClick",
    "NothingPending",
    "PendingInterrupt",
    "ProtocolError",
    "ResumeRefused",
    "RunAborted",
    "RunError",
    "RunRecord",
    "RunResult",
    "RunStream",
    "StoreCorrupt",
    "StoreError",
    "StoreUnavailable",
    "StoreVersionError",
    "StoreWarning",
    "StreamTimeout",
    "SurfaceAction",
    "Thread",
    "ThreadBusy",
    "ThreadSummary",
    "TooFewApprovers",
    "ToolCallInfo",
    "TransportError",
    "TruncatedRunError",
    "UnansweredInterrupts",
    "UnknownInterrupt",
    "WebSocketClosed",
    "__version__",
    "act",
    "answer",
    "approve",
    "cancel",
    "edit",
    "register_activity_renderer",
    "reject",
]
