"""_decisions: decisions -> resume entries, shaped by the interrupt's responseSchema."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from ag_ui.core import Interrupt

from agui_notebook import (
    ExpiredInterrupt,
    InvalidDecision,
    NothingPending,
    PendingInterrupt,
    ResumeRefused,
    UnansweredInterrupts,
    UnknownInterrupt,
    answer,
    approve,
    cancel,
    edit,
    reject,
)
from agui_notebook._decisions.decision import build_resume, build_resume_entry, prepare_validators
from agui_notebook._decisions.interrupts import parse_expiry
from agui_notebook._state.reducer import ToolCallInfo

ARGS = {"amount": 500, "to": "bob"}

SPEC = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "editedArgs": {"type": "object"},
        "reason": {"type": "string"},
    },
}
# pydantic-ai's AGUIAdapter (tests/fixtures/transcripts/pydantic_ai_transfer_interrupt.sse)
PYDANTIC_AI = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "editedArgs": {"type": "object"},
        "reason": {"type": "string"},
    },
    "required": ["approved"],
}
# Microsoft Agent Framework 1.7 (tests/fixtures/transcripts/msaf_two_mixed.sse, arguments renamed)
MSAF = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "accepted": {"type": "boolean"},
        "amount": {"type": "integer"},
        "to": {"type": "string"},
        "editedArgs": {
            "type": "object",
            "properties": {"amount": {"type": "integer"}, "to": {"type": "string"}},
            "required": ["amount", "to"],
            "additionalProperties": False,
        },
    },
    "anyOf": [{"required": ["approved"]}, {"required": ["accepted"]}],
    "additionalProperties": False,
}
# Microsoft's documented shape: accepted plus each argument as a flat property.
MSAF_FLAT = {
    "type": "object",
    "properties": {
        "accepted": {"type": "boolean"},
        "amount": {"type": "integer"},
        "to": {"type": "string"},
    },
    "required": ["accepted"],
    "additionalProperties": False,
}


def pending(
    iid: str = "i1", schema: dict[str, Any] | None = None, **fields: Any
) -> PendingInterrupt:
    fields.setdefault("arguments", dict(ARGS))
    return PendingInterrupt(
        id=iid,
        reason="tool_call",
        tool_call_id="c1",
        tool_name="transfer",
        response_schema=schema,
        **fields,
    )


def payload(interrupt: PendingInterrupt, decision: Any) -> Any:
    entry, _ = build_resume_entry(interrupt, decision)
    assert entry.status == "resolved"
    return entry.payload


# -- default shape (no schema) --------------------------------------------------------------


def test_default_shape_without_schema() -> None:
    it = pending()
    assert payload(it, approve()) == {"approved": True}
    assert payload(it, reject()) == {"approved": False}
    assert payload(it, reject("too much")) == {"approved": False, "reason": "too much"}
    assert payload(it, edit(amount=250)) == {
        "approved": True,
        "editedArgs": {"amount": 250, "to": "bob"},
    }


def test_schema_without_properties_uses_the_default_shape() -> None:
    assert payload(pending(schema={"type": "object"}), approve()) == {"approved": True}


# -- spec / pydantic-ai / Microsoft -----------------------------------------------------------


@pytest.mark.parametrize("schema", [SPEC, PYDANTIC_AI], ids=["spec", "pydantic-ai"])
def test_spec_and_pydantic_ai_shape(schema: dict[str, Any]) -> None:
    it = pending(schema=schema)
    assert payload(it, approve()) == {"approved": True}
    assert payload(it, reject("no")) == {"approved": False, "reason": "no"}
    assert payload(it, edit({"amount": 1})) == {
        "approved": True,
        "editedArgs": {"amount": 1, "to": "bob"},
    }


def test_pydantic_ai_requires_a_real_boolean() -> None:
    with pytest.raises(InvalidDecision, match="approved"):
        payload(pending(schema=PYDANTIC_AI), answer({"approved": "yes"}))


def test_microsoft_schema_with_edited_args() -> None:
    it = pending(schema=MSAF)
    assert payload(it, approve()) == {"approved": True}
    assert payload(it, edit(amount=250)) == {
        "approved": True,
        "editedArgs": {"amount": 250, "to": "bob"},
    }


def test_microsoft_reject_reason_has_no_place_and_becomes_a_note() -> None:
    entry, notes = build_resume_entry(pending(schema=MSAF), reject("nope"))
    assert entry.payload == {"approved": False}
    assert len(notes) == 1 and "no 'reason'" in notes[0]


def test_microsoft_flat_argument_shape() -> None:
    it = pending(schema=MSAF_FLAT)
    assert payload(it, approve()) == {"accepted": True}
    assert payload(it, reject("x")) == {"accepted": False}
    assert payload(it, edit(amount=250)) == {"accepted": True, "amount": 250, "to": "bob"}


def test_edit_key_the_flat_schema_does_not_list_is_refused() -> None:
    with pytest.raises(InvalidDecision, match=r"no place for argument\(s\) \['memo'\]"):
        payload(pending(schema=MSAF_FLAT), edit(memo="hi"))


def test_flag_prefers_the_required_key() -> None:
    schema = {
        "type": "object",
        "properties": {"approved": {"type": "boolean"}, "accepted": {"type": "boolean"}},
        "required": ["accepted"],
    }
    assert payload(pending(schema=schema), approve()) == {"accepted": True}


def test_edit_where_the_schema_has_no_place_for_arguments() -> None:
    schema = {"type": "object", "properties": {"approved": {"type": "boolean"}}}
    with pytest.raises(InvalidDecision, match="no place for edited arguments"):
        payload(pending(schema=schema), edit(amount=1))


def test_approve_on_an_input_request_must_be_an_answer() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    with pytest.raises(InvalidDecision, match="use answer"):
        payload(pending(schema=schema), approve())
    assert payload(pending(schema=schema), answer({"city": "Oslo"})) == {"city": "Oslo"}


# -- validation -----------------------------------------------------------------------------


def test_payload_failing_the_schema_is_invalid_decision() -> None:
    schema = {
        "type": "object",
        "properties": {
            "approved": {"type": "boolean"},
            "editedArgs": {
                "type": "object",
                "properties": {"amount": {"type": "integer", "maximum": 1000}},
            },
        },
    }
    with pytest.raises(
        InvalidDecision, match=r"editedArgs/amount: 5000 is greater than the maximum"
    ) as info:
        payload(pending(schema=schema), edit(amount=5000))
    assert info.value.interrupt_id == "i1"
    assert info.value.payload == {"approved": True, "editedArgs": {"amount": 5000, "to": "bob"}}
    assert isinstance(info.value, ResumeRefused)


def test_microsoft_additional_properties_false_is_enforced_on_answers() -> None:
    with pytest.raises(InvalidDecision, match="Additional properties"):
        payload(pending(schema=MSAF_FLAT), answer({"accepted": True, "arguments": {"amount": 1}}))


def test_answer_not_matching_the_schema() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    with pytest.raises(InvalidDecision, match="'city' is a required property"):
        payload(pending(schema=schema), answer({"town": "Oslo"}))


def test_a_broken_schema_is_not_used_to_validate() -> None:
    schema = {"type": "object", "properties": {"approved": {"type": 12}}}
    assert payload(pending(schema=schema), approve()) == {"approved": True}


# -- cancel and expiry ----------------------------------------------------------------------


NOW = datetime(2030, 1, 1, tzinfo=timezone.utc)


def test_cancel_has_no_payload() -> None:
    entry, notes = build_resume_entry(pending(schema=PYDANTIC_AI), cancel())
    assert entry.status == "cancelled" and entry.payload is None and notes == []
    assert entry.model_dump(mode="json", by_alias=True, exclude_none=True) == {
        "interruptId": "i1",
        "status": "cancelled",
    }


def test_resolved_entry_is_camel_case() -> None:
    entry, _ = build_resume_entry(pending(), reject("x"))
    assert entry.model_dump(mode="json", by_alias=True, exclude_none=True) == {
        "interruptId": "i1",
        "status": "resolved",
        "payload": {"approved": False, "reason": "x"},
    }


@pytest.mark.parametrize(
    "decision", [approve(), reject("x"), edit(amount=1), answer({"approved": True})]
)
def test_an_expired_interrupt_can_only_be_cancelled(decision: Any) -> None:
    it = pending(expires_at=NOW - timedelta(seconds=1), expires_at_raw="2029-12-31T23:59:59Z")
    with pytest.raises(ExpiredInterrupt, match="expired at 2029-12-31T23:59:59Z") as info:
        build_resume_entry(it, decision, now=NOW)
    assert info.value.interrupt_id == "i1"
    entry, _ = build_resume_entry(it, cancel(), now=NOW)
    assert entry.status == "cancelled"


def test_expiry_boundary_is_inclusive_and_future_is_fine() -> None:
    it = pending(expires_at=NOW)
    assert it.is_expired(NOW) and not it.is_expired(NOW - timedelta(microseconds=1))
    assert payload(pending(expires_at=datetime(2999, 1, 1, tzinfo=timezone.utc)), approve()) == {
        "approved": True
    }


def test_parse_expiry() -> None:
    assert parse_expiry("2030-01-01T00:00:00Z") == NOW
    assert parse_expiry("2030-01-01T01:00:00+01:00") == NOW
    assert parse_expiry("2030-01-01T00:00:00") == NOW  # naive: read as UTC
    assert parse_expiry("next tuesday") is None  # unreadable: never judged expired
    assert parse_expiry(None) is None


# -- build_resume: coverage -----------------------------------------------------------------


def test_nothing_pending() -> None:
    with pytest.raises(NothingPending):
        build_resume([], approve())


def test_one_decision_for_several_pending_is_refused() -> None:
    with pytest.raises(UnansweredInterrupts) as info:
        build_resume([pending("a"), pending("b")], approve())
    assert info.value.missing == ["b"]


def test_an_unanswered_interrupt_is_refused() -> None:
    with pytest.raises(UnansweredInterrupts, match="unanswered: b, c") as info:
        build_resume([pending("a"), pending("b"), pending("c")], {"a": approve()})
    assert info.value.missing == ["b", "c"]


def test_an_unknown_interrupt_is_refused() -> None:
    with pytest.raises(UnknownInterrupt) as info:
        build_resume([pending("a")], {"a": approve(), "zzz": reject()})
    assert (info.value.unknown, info.value.pending) == (["zzz"], ["a"])


def test_a_non_decision_value_is_refused() -> None:
    with pytest.raises(InvalidDecision, match=r"True is not a decision: use approve\(\) or reject"):
        build_resume([pending("a")], {"a": True})  # type: ignore[dict-item]


# -- slips at the boundary (issue 18): the mistake and the fix, before anything else -------------


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("approve", r"the string 'approve' is not a decision: use approve\(\)"),
        ("Reject", r"the string 'Reject' is not a decision: use reject\('why'\)"),
        ("edit", r"use edit\(amount=250\)"),
        (approve, r"call it: approve\(\)"),
        (cancel, r"call it: cancel\(\)"),
        (True, r"True is not a decision: use approve\(\) or reject"),
        (None, r"None is not a decision: build it with approve\(\)"),
        ([approve()], r"answer several interrupts with a dict"),
        (42, r"a int \(42\) is not a decision"),
    ],
)
def test_a_slip_is_a_type_error_naming_the_fix(value: Any, says: str) -> None:
    for pending_now in ([pending("a")], []):  # the slip is named even when nothing is pending
        with pytest.raises(TypeError, match=says) as info:
            build_resume(pending_now, value)
        assert "resume() takes a decision" in str(info.value)
        assert not isinstance(info.value, UnknownInterrupt)  # not "a, p, p, r, o, v, e"


def test_a_slip_inside_a_dict_names_the_interrupt_and_the_fix() -> None:
    with pytest.raises(InvalidDecision, match=r"interrupt a: the string 'approve' .* use approve"):
        build_resume([pending("a")], {"a": "approve"})  # type: ignore[dict-item]
    it = pending("a", arguments=None)  # hashable: no dict fields
    with pytest.raises(TypeError, match=r"keyed by interrupt id .* use its id"):
        build_resume([it], {it: approve()})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match=r"that is the question, not an answer"):
        build_resume([it], it)  # type: ignore[arg-type]


def test_decision_builders_refuse_wrong_types() -> None:
    with pytest.raises(TypeError, match=r"edit\(amount=250\)"):
        edit("amount")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"reject\('too much'\)"):
        reject(500)  # type: ignore[arg-type]


# -- edit where the proposed arguments are unknown (issue 18) ------------------------------------


def test_edit_without_schema_or_known_arguments_is_refused_not_sent_partial() -> None:
    it = pending(arguments=None)
    with pytest.raises(InvalidDecision, match=r"proposed arguments are unknown") as info:
        payload(it, edit(amount=250))
    assert "answer({'approved': True, 'editedArgs'" in str(info.value)
    # The escape hatch the message names works: a complete replacement, said explicitly.
    full = {"approved": True, "editedArgs": {"amount": 250, "to": "bob"}}
    assert payload(it, answer(full)) == full


def test_edit_with_known_arguments_sends_the_full_set() -> None:
    assert payload(pending(), edit(amount=250)) == {
        "approved": True,
        "editedArgs": {"amount": 250, "to": "bob"},
    }


def test_edit_with_unknown_arguments_uses_the_schema_to_know_the_full_set() -> None:
    it = pending(schema=MSAF, arguments=None)
    with pytest.raises(InvalidDecision, match=r"missing: to"):
        payload(it, edit(amount=250))
    assert payload(it, edit(amount=250, to="carol")) == {
        "approved": True,
        "editedArgs": {"amount": 250, "to": "carol"},
    }
    # Flat properties are merged by the server: the changed key alone is a complete answer.
    assert payload(pending(schema=MSAF_FLAT, arguments=None), edit(amount=250)) == {
        "accepted": True,
        "amount": 250,
    }


def test_expired_resolved_among_several_is_refused() -> None:
    expired = pending("b", expires_at=NOW - timedelta(hours=1))
    with pytest.raises(ExpiredInterrupt):
        build_resume([pending("a"), expired], {"a": approve(), "b": approve()}, now=NOW)
    entries, _ = build_resume([pending("a"), expired], {"a": approve(), "b": cancel()}, now=NOW)
    assert [(e.interrupt_id, e.status) for e in entries] == [("a", "resolved"), ("b", "cancelled")]


def test_entries_follow_the_pending_order_and_collect_notes() -> None:
    entries, notes = build_resume(
        [pending("a", schema=MSAF), pending("b")], {"b": approve(), "a": reject("why")}
    )
    assert [e.interrupt_id for e in entries] == ["a", "b"]
    assert len(notes) == 1 and notes[0].startswith("interrupt a:")


# -- decisions and PendingInterrupt ---------------------------------------------------------


def test_decision_constructors() -> None:
    assert edit({"a": 1}, b=2).arguments == {"a": 1, "b": 2}
    with pytest.raises(TypeError):
        edit()
    assert repr(reject("x")) == "reject('x')" and repr(approve()) == "approve()"
    assert repr(edit(a=1)) == "edit({'a': 1})"


def test_pending_interrupt_resolves_tool_name_and_arguments_from_the_tool_call() -> None:
    calls = {
        "c1": ToolCallInfo(
            id="c1", name="transfer", arguments_text='{"amount": 5}', status="called"
        )
    }
    it = PendingInterrupt.from_wire(
        Interrupt(
            id="i1", reason="tool_call", tool_call_id="c1", expires_at="2030-01-01T00:00:00Z"
        ),
        run_id="r1",
        tool_calls=calls,
    )
    assert (it.tool_name, it.arguments, it.run_id, it.expires_at) == (
        "transfer",
        {"amount": 5},
        "r1",
        NOW,
    )
    assert it.is_tool_approval
    assert it.raw == {
        "id": "i1",
        "reason": "tool_call",
        "toolCallId": "c1",
        "expiresAt": "2030-01-01T00:00:00Z",
    }


def test_pending_interrupt_reads_microsoft_metadata() -> None:
    metadata = {
        "agent_framework": {"function_call": {"name": "transfer", "arguments": '{"amount": 7}'}}
    }
    it = PendingInterrupt.from_wire(
        Interrupt(id="af-call-1", reason="tool_call", tool_call_id="x", metadata=metadata),
        run_id="r1",
        tool_calls={},
    )
    assert (it.tool_name, it.arguments) == ("transfer", {"amount": 7})


# -- validators made ahead of the decision ------------------------------------------------------


def test_prepare_validators_makes_each_schema_validator_once() -> None:
    from agui_notebook._decisions import decision

    decision._validator.cache_clear()
    prepare_validators([pending("a", MSAF), pending("b", MSAF), pending("c")])
    info = decision._validator.cache_info()
    assert (info.currsize, info.misses) == (1, 1)  # one schema, made once; none for no schema
    assert payload(pending("a", MSAF), approve()) == {"approved": True}
    assert decision._validator.cache_info().hits == info.hits + 1  # the decision used it
