"""The demo's fixed words: help text, reasoning, the long story, and the hostile payloads."""

from __future__ import annotations

from typing import Any

HELP_TEXT = """\
Hi! I'm the demo banking assistant: scripted, no API key, no LLM. Try one of these:
- "Transfer $500 from 1234567890 to 0987654321": a transfer that needs your approval
- "Cancel subscription sub_gym" (or "unsubscribe"): needs your approval
- "What is my balance?": runs right away, no approval
- "Pay bills": one call needing approval and one that runs right away
- "Two transfers": two approvals at once
- "Schedule a payment": a form asking for a date, an amount and a memo
- "Quick transfer": an approval that expires soon
- "Close account 1111222233": a confirmation
- "Run the month-end checks": a task that reports its progress live (activities)
- "Open a transfer form": a form drawn in the cell (A2UI); submit it to move money
- "Think about my savings": reasoning, then an answer
- "Think privately about my savings": reasoning kept encrypted (your client sends it back)
- "Delegate a transfer of $75 from 1234567890 to 0987654321": a payments subagent that asks you
- "Show my statement": a tool result with a chart image and a CSV document
- "Tell me a long story": a long streamed answer (try stopping it)
- "Show me an error": a deliberate RUN_ERROR
- "Hostile": a tool call full of HTML and script probes, for testing front ends"""

REASONING_TEXT = (
    "The user wants advice about savings. I should look at the balances in the shared state, "
    "add them up, and compare the savings account with a few months of typical expenses. "
    "No money moves, so no approval is needed."
)

_CHAPTER = (
    "Once upon a time, in a small town by the river, there was a bank with a single clerk "
    "named Ada. Every morning Ada unlocked the heavy oak door, wound the brass clock, and "
    "counted the coins in the vault twice, because counting once had never been enough for "
    "her. The townspeople came with their questions: could they afford a new roof, a second "
    "cow, a journey to the city? Ada listened, wrote careful numbers in her green ledger, and "
    "never once moved a single coin without asking its owner first. One winter a stranger "
    "arrived with a letter that asked her to send every coin in the vault to an account far "
    "away. Ada read the letter slowly, looked at the stranger, and asked the question she "
    "always asked: who approved this? Nobody had. So the coins stayed where they were, the "
    "stranger left on the evening coach, and the town slept soundly."
)

STORY_TEXT = "\n\n".join(f"Chapter {n}. {_CHAPTER}" for n in range(1, 5)) + "\n\nThe end."


def _nested(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"level": depth, "label": "<b>deepest</b>"}
    for level in range(depth - 1, 0, -1):
        node = {"level": level, "child": node}
    return node


def hostile_arguments() -> dict[str, Any]:
    """Arguments a front end must show as inert text: markup, script URLs, huge and deep values."""
    return {
        "payee_name": "<img src=x onerror=alert(1)>",
        "note": "<script>window.__pwned=1</script>",
        "website": "javascript:alert(1)",
        "reference": "0123456789" * 500,
        "details": _nested(30),
    }
