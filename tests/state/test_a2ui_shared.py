"""The A2UI cases the view and the Python side share: a transcript and a policy's action resolve
dynamic values as the card a person sees does (tests/fixtures/a2ui/dynamic_values.json; vitest
runs the same table against js/src/a2ui.js)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agui_notebook._state.a2ui import resolve

TABLE = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "a2ui" / "dynamic_values.json").read_text(
        encoding="utf-8"
    )
)


def test_the_table_covers_every_function_of_the_basic_catalog() -> None:
    called = {c["value"].get("call") for c in TABLE["cases"] if isinstance(c["value"], dict)}
    assert {
        "required", "email", "regex", "length", "numeric", "and", "or", "not", "formatString",
        "formatNumber", "formatCurrency", "formatDate", "pluralize", "openUrl",
    } <= called  # fmt: skip


@pytest.mark.parametrize("case", TABLE["cases"], ids=[c["name"] for c in TABLE["cases"]])
def test_python_resolves_as_the_view_does(case: dict[str, Any]) -> None:
    assert resolve(case["value"], case["data"]) == case["expect"]
