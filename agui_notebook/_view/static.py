"""Where the widgets' front-end code is: the committed bundle inside the package.

``agui_notebook/static/chat.js`` is built from ``js/src/`` by ``cd js && npm run build`` and
committed, so an editable checkout, the wheel and the sdist all load the same file without Node.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["chat_js_path"]

_CHAT_JS = Path(__file__).resolve().parents[1] / "static" / "chat.js"


def chat_js_path() -> Path:
    """``agui_notebook/static/chat.js``, the one ES module the chat view loads."""
    if _CHAT_JS.is_file():
        return _CHAT_JS
    raise FileNotFoundError(
        "agui_notebook's front end (static/chat.js) is missing from this installation; "
        "reinstall the package (in a checkout: cd js && npm run build)"
    )
