"""One table of activity renderer defaults: sent with each item, read by the transcript as by the
view (js/test/activity.test.js reads the same file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ag_ui.core import ActivitySnapshotEvent

from agui_notebook._state.genui import RENDERER_DEFAULTS, GenUIItems
from agui_notebook._view.transcript_genui import activity_block

TABLE = Path(__file__).resolve().parents[2] / "agui_notebook" / "_state" / "renderers.json"


def _items(activity_type: str, content: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    event = ActivitySnapshotEvent.model_validate(
        {
            "type": "ACTIVITY_SNAPSHOT",
            "messageId": "a1",
            "activityType": activity_type,
            "content": content,
        }
    )
    GenUIItems().apply("ACTIVITY_SNAPSHOT", event, out.append)
    return out


def test_each_activity_item_carries_its_renderers_row_of_the_one_table() -> None:
    table = {k: v for k, v in json.loads(TABLE.read_text()).items() if not k.startswith("$")}
    assert table == RENDERER_DEFAULTS
    (item,) = _items("PLAN", {"steps": [{"title": "a", "complete": True}]})
    assert item["renderer"] == "checklist"
    assert item["defaults"] == table["checklist"]
    # "/complete" is in the table (the view read it, the transcript once did not).
    assert "[x] a" in "\n".join(line.text for line in activity_block(item).lines)


def test_the_transcript_reads_the_items_defaults_not_a_copy_of_its_own() -> None:
    (item,) = _items("PLAN", {"phases": [{"what": "ship", "phase": "shipped"}]})
    assert "[x] ship" not in "\n".join(line.text for line in activity_block(item).lines)
    item["defaults"] = {
        **item["defaults"],
        "items": ["/phases"],
        "label": ["/what"],
        "status": ["/phase"],
        "doneValues": ["shipped"],
    }
    lines = [line.text for line in activity_block(item).lines]
    assert lines[:2] == ["1 of 1 done", "[x] ship"]
