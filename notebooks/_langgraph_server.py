"""Start the LangGraph AG-UI server of the test suite from its own venv, for ``08_langgraph.ipynb``.

The server is ``tests/servers/langgraph/server.py``: a LangGraph graph served by ``ag-ui-langgraph``
with a scripted, LLM-free chat model. It needs LangChain and LangGraph, which this notebook's kernel
does not have, so it runs in its own venv, ``.venv-servers/langgraph``, which ``scripts/test`` builds
from ``tests/servers/langgraph/requirements.txt``. To build only that venv, from the repository root:

    bash -c 'source scripts/_bootstrap.sh && ensure_server_venv langgraph'

``LangGraphServer(style)`` starts it on a free port of 127.0.0.1 and stops it with ``stop()``; a
missing venv or a server that cannot start raises ``ServerUnavailable`` saying what to do.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

# The checkout: beside notebooks/, or (for the copy scripts/lab opens) where it says.
REPO_ROOT = Path(os.environ.get("AGUI_NOTEBOOK_REPO") or Path(__file__).resolve().parents[1])
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from tests.servers.external import ServerUnavailable, start  # noqa: E402

__all__ = ["LangGraphServer", "ServerUnavailable"]


class LangGraphServer:
    """``style``: ``"default"`` (``CUSTOM on_interrupt``) or ``"outcome"`` (the AG-UI 1.1 outcome)."""

    def __init__(self, style: str = "default") -> None:
        self.style = style
        self._handle = start("langgraph", "--style", style)
        self.url = self._handle.url

    @property
    def running(self) -> bool:
        return self._handle.process.poll() is None

    @property
    def executions(self) -> list[tuple[str, dict[str, Any]]]:
        """What the server's tools really did, in order."""
        return self._handle.executions

    def last_request(self) -> dict[str, Any]:
        """The body of the last request the server received."""
        body: dict[str, Any] = self._handle.requests[-1].json
        return body

    def stop(self) -> None:
        self._handle.stop()

    def __repr__(self) -> str:  # no port: notebook outputs must not change from run to run
        return f"LangGraphServer(style={self.style!r}, running={self.running})"
