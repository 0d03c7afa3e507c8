"""nbval, taught what every Jupyter front end does with ``update_display_data``.

A chat view is displayed when its turn starts and its display is updated in place when the turn
ends, so the display's ``text/plain`` (the transcript) and ``text/html`` are the final state.
JupyterLab, Notebook 7, nbclient (``agui-notebook notebooks --reexecute``, which saves the
notebooks) and nbconvert apply such updates; nbval 0.11 drops them ("unhandled iopub msg") and
would compare the first frame of every chat view with the saved final one.

So, per cell: remember which ``display_data`` carried which display id, and the latest
``update_display_data`` of each id, then apply the updates to the cell's fresh outputs just before
nbval compares them with the saved ones. Nothing else changes: no output is added, dropped or
sanitized here.
"""

from __future__ import annotations

from typing import Any

from nbval.plugin import IPyNbCell, IPyNbFile

if not (hasattr(IPyNbFile, "get_kernel_message") and hasattr(IPyNbCell, "compare_outputs")):
    raise ImportError(
        "notebooks/conftest.py hooks nbval's IPyNbFile.get_kernel_message and "
        "IPyNbCell.compare_outputs, which this nbval version does not have"
    )

_get_kernel_message = IPyNbFile.get_kernel_message
_compare_outputs = IPyNbCell.compare_outputs


class _Displays:
    """What one cell displayed (display ids in output order) and the latest update of each."""

    def __init__(self, cell_msg_id: str | None = None) -> None:
        self.cell_msg_id = cell_msg_id
        self.order: list[str | None] = []
        self.updates: dict[str, dict[str, Any]] = {}


def _display_id(content: dict[str, Any]) -> str | None:
    transient = content.get("transient") or {}
    display_id = transient.get("display_id")
    return display_id if isinstance(display_id, str) else None


def get_kernel_message(self: IPyNbFile, *args: Any, **kwargs: Any) -> dict[str, Any]:
    msg: dict[str, Any] = _get_kernel_message(self, *args, **kwargs)
    displays: _Displays = getattr(self, "_agui_displays", None) or _Displays()
    msg_type = msg.get("msg_type")
    parent = (msg.get("parent_header") or {}).get("msg_id")
    if msg_type == "execute_input":  # a new cell starts
        displays = _Displays(parent)
    elif parent is not None and parent == displays.cell_msg_id:
        if msg_type in ("display_data", "execute_result"):
            displays.order.append(_display_id(msg["content"]))
        elif msg_type == "update_display_data":
            display_id = _display_id(msg["content"])
            if display_id is not None:
                displays.updates[display_id] = msg["content"]
    self._agui_displays = displays  # type: ignore[attr-defined]
    return msg


def compare_outputs(
    self: IPyNbCell, test: list[Any], ref: list[Any], skip_compare: Any = None
) -> Any:
    displays: _Displays | None = getattr(self.parent, "_agui_displays", None)
    if displays is not None and displays.updates:
        ids = iter(displays.order)
        for output in test:
            if output.get("output_type") not in ("display_data", "execute_result"):
                continue
            update = displays.updates.get(next(ids, None) or "")
            if update is not None:
                output["data"] = update["data"]
                output["metadata"] = update.get("metadata", {})
    return _compare_outputs(self, test, ref, skip_compare)


IPyNbFile.get_kernel_message = get_kernel_message  # type: ignore[method-assign]
IPyNbCell.compare_outputs = compare_outputs  # type: ignore[method-assign]
