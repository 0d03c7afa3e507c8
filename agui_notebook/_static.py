"""Where the widgets' front-end code is: inside the wheel, or js/ in a checkout."""

from __future__ import annotations

from pathlib import Path

__all__ = ["chat_js_path"]

_PACKAGE = Path(__file__).parent


def chat_js_path() -> Path:
    """``chat.js``: ``agui_notebook/static/`` in a wheel, ``js/`` in an editable checkout."""
    for candidate in (_PACKAGE / "static" / "chat.js", _PACKAGE.parent / "js" / "chat.js"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(
        "agui_notebook's front end (chat.js) is missing from this installation; "
        "reinstall the package"
    )
