"""_items and _parts: AG-UI 1.1 material as the view's display items (docs/widget-protocol.md)."""

from __future__ import annotations

import base64
import json
from typing import Any

from agui_notebook._decisions.interrupts import PendingInterrupt
from agui_notebook._protocol.events import type_of
from agui_notebook._state.items import ItemList, card_interrupt
from agui_notebook._state.parts import MAX_INLINE_IMAGE_BYTES, display_parts, parts_text
from tests.thread._streams import (
    ev,
    parse_events,
    run_finished,
    run_started,
    text_message,
    tool_call,
)

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 16).decode()


def items_of(*events: Any) -> list[dict[str, Any]]:
    items = ItemList()
    for event in parse_events(*events):
        items.apply(type_of(event), event)
    return items.snapshot()


def by_id(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {item["id"]: item for item in items}


# -- content parts ----------------------------------------------------------------------------


def test_an_inline_png_is_shown_from_its_data_with_its_mime_type() -> None:
    [part] = display_parts(
        [{"type": "image", "source": {"type": "data", "value": PNG, "mimeType": "image/png"}}]
    ) or [None]
    assert part == {
        "type": "image",
        "mimeType": "image/png",
        "data": PNG,
        "label": "image",
        "bytes": 24,
        "metadata": None,
    }


def test_an_image_by_url_is_a_line_of_text_never_an_image() -> None:
    url = "https://tracker.example/pixel.png?user=1"
    [part] = display_parts(
        [{"type": "image", "source": {"type": "url", "value": url, "mimeType": "image/png"}}]
    ) or [None]
    assert part is not None and part["type"] == "file"
    assert (part["kind"], part["source"], part["location"]) == ("image", "url", url)
    assert "data" not in part


def test_inline_data_that_is_not_what_it_claims_is_not_shown() -> None:
    svg = base64.b64encode(b"<svg onload=alert(1)>").decode()
    fake_png = base64.b64encode(b"<html>not a png</html>").decode()
    parts = display_parts(
        [
            {
                "type": "image",
                "source": {"type": "data", "value": svg, "mimeType": "image/svg+xml"},
            },
            {
                "type": "image",
                "source": {"type": "data", "value": fake_png, "mimeType": "image/png"},
            },
            {"type": "image", "source": {"type": "data", "value": "%%%", "mimeType": "image/png"}},
        ]
    )
    assert parts is not None
    assert [p["type"] for p in parts] == ["file", "file", "file"]
    assert "not shown inline" in parts[0]["note"]
    assert parts[1]["note"] == "the bytes are not image/png"
    assert parts[2]["note"] == "not valid base64"


def test_a_large_image_is_listed_with_its_size() -> None:
    big = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * MAX_INLINE_IMAGE_BYTES).decode()
    [part] = display_parts(
        [{"type": "image", "source": {"type": "data", "value": big, "mimeType": "image/png"}}]
    ) or [None]
    assert part is not None and part["type"] == "file"
    assert part["bytes"] == MAX_INLINE_IMAGE_BYTES + 8 and "larger than" in part["note"]


def test_documents_and_provider_files_are_labelled_lines_with_their_metadata() -> None:
    parts = display_parts(
        [
            {"type": "text", "text": "Statement attached."},
            {
                "type": "document",
                "source": {"type": "data", "value": "YSxiCjEsMgo=", "mimeType": "text/csv"},
                "metadata": {"filename": "statement.csv", "rows": 1},
            },
            {
                "type": "document",
                "source": {"type": "file", "value": "file-123", "provider": "openai"},
            },
        ]
    )
    assert parts is not None
    assert parts[0] == {"type": "text", "text": "Statement attached."}
    assert parts[1] == {
        "type": "file",
        "kind": "document",
        "label": "statement.csv",
        "mimeType": "text/csv",
        "source": "data",
        "location": None,
        "provider": None,
        "bytes": 8,
        "note": None,
        "metadata": {"filename": "statement.csv", "rows": 1},
    }
    assert (parts[2]["location"], parts[2]["provider"], parts[2]["label"]) == (
        "file-123",
        "openai",
        "document",
    )


def test_the_text_of_parts_is_their_text_parts_joined() -> None:
    content = [
        {"type": "text", "text": "a"},
        {"type": "audio", "source": {}},
        {"type": "text", "text": "b"},
    ]
    assert parts_text(content) == "a\nb"
    assert parts_text("plain") == "plain" and display_parts("plain") is None


def test_a_tool_result_with_parts_carries_text_and_display_parts() -> None:
    result = ev(
        "TOOL_CALL_RESULT",
        messageId="t1",
        toolCallId="c1",
        content=[
            {"type": "text", "text": "Chart:"},
            {"type": "image", "source": {"type": "data", "value": PNG, "mimeType": "image/png"}},
        ],
    )
    tool = by_id(items_of(tool_call("c1", "chart", {}), result))["tool:c1"]
    assert tool["status"] == "done" and tool["result"] == "Chart:"
    assert [p["type"] for p in tool["resultParts"]] == ["text", "image"]


# -- subagents -------------------------------------------------------------------------------


def test_a_subagents_work_is_grouped_under_its_item() -> None:
    items = items_of(
        ev("SUBAGENT_STARTED", subagentRunId="s1", name="payments", description="Moves money"),
        ev("TEXT_MESSAGE_START", messageId="m1", role="assistant", subagentRunId="s1"),
        ev("TEXT_MESSAGE_CONTENT", messageId="m1", delta="Checking"),
        ev("TEXT_MESSAGE_END", messageId="m1"),
        ev("TOOL_CALL_START", toolCallId="c1", toolCallName="transfer", parentMessageId="m1"),
        ev("TOOL_CALL_END", toolCallId="c1"),
        ev("SUBAGENT_FINISHED", subagentRunId="s1", outcome={"type": "suspended"}),
        text_message("m2", "Parent speaking"),
    )
    assert [i["id"] for i in items] == ["subagent:s1", "msg:m1", "tool:c1", "msg:m2"]
    found = by_id(items)
    assert found["subagent:s1"] == {
        "kind": "subagent",
        "id": "subagent:s1",
        "subagentRunId": "s1",
        "name": "payments",
        "description": "Moves money",
        "parentSubagentRunId": None,
        "parentToolCallId": None,
        "status": "suspended",
        "error": None,
        "subagent": None,
    }
    assert found["msg:m1"]["subagent"] == "s1"
    assert found["tool:c1"]["subagent"] == "s1"  # an untagged call belongs to its message
    assert found["msg:m2"]["subagent"] is None


def test_an_unannounced_subagent_still_gets_a_group_and_errors_show() -> None:
    items = by_id(
        items_of(
            ev("TEXT_MESSAGE_START", messageId="m1", role="assistant", subagentRunId="s9"),
            ev("TEXT_MESSAGE_CONTENT", messageId="m1", delta="x"),
            ev("TEXT_MESSAGE_END", messageId="m1"),
            ev("SUBAGENT_STARTED", subagentRunId="s2", name="n", parentSubagentRunId="s9"),
            ev("SUBAGENT_ERROR", subagentRunId="s2", message="quota"),
        )
    )
    assert items["subagent:s9"]["name"] is None and items["subagent:s9"]["status"] is None
    assert items["subagent:s2"]["subagent"] == "s9"  # nested under its parent invocation
    assert (items["subagent:s2"]["status"], items["subagent:s2"]["error"]) == ("error", "quota")


def test_a_card_says_which_subagent_asked() -> None:
    interrupt = PendingInterrupt(
        id="i1", reason="tool_call", tool_name="t", subagent_run_id="s1", subagent_name="payments"
    )
    card = card_interrupt(interrupt, None)
    assert (card["subagentRunId"], card["subagentName"]) == ("s1", "payments")


# -- reasoning and run end --------------------------------------------------------------------


def test_encrypted_reasoning_is_a_flag_never_the_value() -> None:
    items = items_of(
        ev("REASONING_MESSAGE_START", messageId="r1", role="reasoning"),
        ev("REASONING_MESSAGE_END", messageId="r1"),
        ev("REASONING_ENCRYPTED_VALUE", subtype="message", entityId="r1", encryptedValue="SIG"),
        tool_call("c1", "f", {}),
        ev("TOOL_CALL_RESULT", messageId="t1", toolCallId="c1", content="ok"),
        ev("REASONING_ENCRYPTED_VALUE", subtype="message", entityId="t1", encryptedValue="SIG2"),
    )
    found = by_id(items)
    assert found["msg:r1"] == {
        "kind": "reasoning",
        "id": "msg:r1",
        "text": "",
        "streaming": False,
        "subagent": None,
        "encrypted": True,
    }
    assert found["tool:c1"]["encrypted"] is True
    assert "SIG" not in json.dumps(items)


def test_run_end_usage_sums_only_reported_counts() -> None:
    items = items_of(
        run_started(),
        run_finished(
            usage=[
                {"provider": "a", "inputTokens": 10, "outputTokens": 2},
                {"provider": "b", "outputTokens": 3},
            ],
            metadata={"finishReason": "stop"},
        ),
    )
    [end] = [i for i in items if i["kind"] == "run-end"]
    assert end == {
        "kind": "run-end",
        "id": "run-end:r1",
        "runId": "r1",
        "outcome": "success",
        "usage": [
            {"provider": "a", "inputTokens": 10, "outputTokens": 2},
            {"provider": "b", "outputTokens": 3},
        ],
        "totals": {"inputTokens": 10, "outputTokens": 5, "totalTokens": None},
        "metadata": {"finishReason": "stop"},
        "result": None,
    }


def test_a_plain_run_end_adds_no_item() -> None:
    assert items_of(run_started(), run_finished()) == []
