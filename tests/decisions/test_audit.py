"""The audit log's pure core: RFC 8785 canonical JSON, entries, and the hash chain's verdicts."""

from __future__ import annotations

import hashlib
import struct
from dataclasses import replace
from datetime import datetime, timezone

import pytest

from agui_notebook import approve, cancel, edit, reject
from agui_notebook._decisions.audit import (
    GENESIS_HASH,
    AuditEntry,
    ChainLink,
    arguments_sha256,
    canonical_json,
    chat_record,
    current_user,
    decider_of,
    decision_entries,
    link,
    verify_chain,
)
from agui_notebook._decisions.interrupts import PendingInterrupt

# -- canonical JSON: the examples of RFC 8785 ---------------------------------------------------


def test_rfc8785_section_3_2_example() -> None:
    value = {
        "numbers": [333333333.33333329, 1e30, 4.50, 2e-3, 0.000000000000000000000000001],
        "string": "\u20ac$\u000f\u000aA'\u0042\u0022\u005c\\\"/",
        "literals": [None, True, False],
    }
    assert canonical_json(value) == (
        '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
    )


def test_rfc8785_sorts_keys_by_utf16_code_units() -> None:
    value = {
        "\u20ac": "Euro Sign",
        "\r": "Carriage Return",
        "\ufb33": "Hebrew Letter Dalet With Dagesh",
        "1": "One",
        "\U0001f600": "Emoji: Grinning Face",
        "\u0080": "Control",
        "\u00f6": "Latin Small Letter O With Diaeresis",
    }
    text = canonical_json(value)
    order = ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]
    positions = [text.index(canonical_json(k) + ":") for k in order]
    assert positions == sorted(positions)
    # Code-point order would put the emoji (U+1F600) after U+FB33: UTF-16 puts it before.
    assert text.index("\U0001f600") < text.index("\ufb33")


@pytest.mark.parametrize(
    ("bits", "expected"),
    [
        (0x0000000000000000, "0"),
        (0x8000000000000000, "0"),
        (0x0000000000000001, "5e-324"),
        (0x8000000000000001, "-5e-324"),
        (0x7FEFFFFFFFFFFFFF, "1.7976931348623157e+308"),
        (0xFFEFFFFFFFFFFFFF, "-1.7976931348623157e+308"),
        (0x4340000000000000, "9007199254740992"),
        (0xC340000000000000, "-9007199254740992"),
        (0x4430000000000000, "295147905179352830000"),
        (0x44B52D02C7E14AF5, "9.999999999999997e+22"),
        (0x44B52D02C7E14AF6, "1e+23"),
        (0x44B52D02C7E14AF7, "1.0000000000000001e+23"),
        (0x444B1AE4D6E2EF4E, "999999999999999700000"),
        (0x444B1AE4D6E2EF4F, "999999999999999900000"),
        (0x444B1AE4D6E2EF50, "1e+21"),
        (0x3EB0C6F7A0B5ED8C, "9.999999999999997e-7"),
        (0x3EB0C6F7A0B5ED8D, "0.000001"),
        (0x41B3DE4355555553, "333333333.3333332"),
        (0x41B3DE4355555554, "333333333.33333325"),
        (0x41B3DE4355555555, "333333333.3333333"),
        (0x41B3DE4355555556, "333333333.3333334"),
        (0x41B3DE4355555557, "333333333.33333343"),
        (0xBECBF647612F3696, "-0.0000033333333333333333"),
        (0x43143FF3C1CB0959, "1424953923781206.2"),
    ],
)
def test_rfc8785_appendix_b_numbers(bits: int, expected: str) -> None:
    (value,) = struct.unpack(">d", bits.to_bytes(8, "big"))
    assert canonical_json(value) == expected


def test_integers_are_exact_and_non_json_is_refused() -> None:
    assert canonical_json(2**60 + 1) == str(2**60 + 1)
    assert canonical_json({"a": (1, 2)}) == '{"a":[1,2]}'
    with pytest.raises(ValueError):
        canonical_json(float("nan"))
    with pytest.raises(TypeError):
        canonical_json({1: "x"})
    with pytest.raises(TypeError):
        canonical_json({"a": object()})


def test_arguments_hash_ignores_key_order_and_float_spelling() -> None:
    one = arguments_sha256({"amount": 500.0, "to": "0987654321"})
    two = arguments_sha256({"to": "0987654321", "amount": 500})
    assert one == two
    assert one == hashlib.sha256(b'{"amount":500,"to":"0987654321"}').hexdigest()
    assert arguments_sha256({"amount": 501}) != one
    assert arguments_sha256(None) is None


# -- entries -----------------------------------------------------------------------------------

WHEN = datetime(2026, 12, 3, 9, 30, tzinfo=timezone.utc)


def _interrupt(iid: str = "i1", **args: object) -> PendingInterrupt:
    return PendingInterrupt(
        id=iid,
        reason="tool_call",
        tool_call_id=f"call-{iid}",
        tool_name="transfer_money",
        arguments=args or {"amount": 500, "to": "0987654321"},
    )


def _entries(decisions: dict[str, object], decided_by: str | None, *ids: str) -> list[AuditEntry]:
    return decision_entries(
        [_interrupt(i) for i in ids or ("i1",)],
        decisions,  # type: ignore[arg-type]
        agent_url="http://127.0.0.1:8000/",
        thread_id="t1",
        run_id="r2",
        time=WHEN,
        decided_by=decided_by,
        outcome="success",
    )


def test_an_entry_holds_what_the_issue_lists() -> None:
    (entry,) = _entries({"i1": edit(amount=250)}, "you")
    assert entry.time == "2026-12-03T09:30:00.000000+00:00"
    assert (entry.thread_id, entry.run_id, entry.interrupt_id) == ("t1", "r2", "i1")
    assert entry.tool == "transfer_money" and entry.tool_call_id == "call-i1"
    assert entry.arguments_sha256 == arguments_sha256({"amount": 500, "to": "0987654321"})
    assert entry.decision == "edit" and entry.edited_arguments == {"amount": 250}
    assert (entry.decider, entry.decided_by) == ("person", current_user())
    assert entry.outcome == "success"
    assert AuditEntry.from_json(entry.to_json()) == entry


def test_who_decided(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUPYTERHUB_USER", "ada")
    assert decider_of("you") == ("person", "ada")
    assert decider_of(None) == ("person", "ada")
    assert decider_of("policy: approve-all") == ("policy", "approve-all")
    assert decider_of("rule: always allow transfer_money") == (
        "rule",
        "always allow transfer_money",
    )
    assert decider_of("timeout: cancel after 600 s") == ("timeout", "cancel after 600 s")
    monkeypatch.delenv("JUPYTERHUB_USER")
    import getpass

    assert decider_of("you") == ("person", getpass.getuser())


def test_the_chat_view_keeps_the_old_record_shape_and_adds_who() -> None:
    (entry,) = _entries({"i1": reject("too much")}, "policy: reject-all")
    record = chat_record(entry, card="card-1", arguments={"amount": 500, "to": "0987654321"})
    assert list(record) == [
        "card",
        "interrupt",
        "tool",
        "reason",
        "arguments",
        "decision",
        "editedArguments",
        "changes",
        "rejectReason",
        "payload",
        "decidedBy",
        "decidedAt",
        "outcome",
        "decided_by",
        "kernel_user",
        "identity",
        "identity_note",
        # what the decision was informed by, and what came of it (issue 43)
        "preview_sha256",
        "edited_preview_sha256",
        "checks",
        "checks_override",
        "execution",
    ]
    assert record["decidedBy"] == "policy: reject-all"
    assert (record["decided_by"], record["identity"]) == ("reject-all", "policy")
    assert record["rejectReason"] == "too much"
    (mine,) = _entries({"i1": edit(amount=250)}, "you")
    view = chat_record(mine, card="card-2", arguments={"amount": 500, "to": "x"})
    assert view["decidedBy"] == "you"
    assert view["changes"] == {"amount": [500, 250]}


def test_entries_skip_interrupts_without_a_decision() -> None:
    entries = _entries({"i2": cancel()}, None, "i1", "i2")
    assert [e.interrupt_id for e in entries] == ["i2"]


# -- the chain ---------------------------------------------------------------------------------


def _chain(n: int = 5) -> list[ChainLink]:
    links: list[ChainLink] = []
    prev = GENESIS_HASH
    for seq in range(1, n + 1):
        (entry,) = _entries({"i1": approve()}, "you")
        item = link(prev, seq, replace(entry, interrupt_id=f"i{seq}"))
        links.append(item)
        prev = item.hash
    return links


def _head(links: list[ChainLink]) -> tuple[int, str]:
    return links[-1].seq, links[-1].hash


def test_an_intact_chain_verifies() -> None:
    links = _chain()
    assert verify_chain(links, head=_head(links)) == (5, None)
    assert verify_chain([], head=None) == (0, None)


def test_an_altered_record_is_named() -> None:
    links = _chain()
    record = dict(links[2].record, decision="reject")
    links[2] = replace(links[2], record=record)
    _, problem = verify_chain(links, head=_head(_chain()))
    assert problem is not None and (problem.seq, problem.problem) == (3, "altered")


def test_an_altered_and_rehashed_record_is_named() -> None:
    links = _chain()
    forged = link(links[1].hash, 3, AuditEntry.from_json(dict(links[2].record, decision="reject")))
    links[2] = forged
    _, problem = verify_chain(links)
    assert problem is not None and (problem.seq, problem.problem) == (3, "altered")


@pytest.mark.parametrize("renumber", [False, True])
def test_a_removed_record_is_named(renumber: bool) -> None:
    links = _chain()
    del links[2]
    if renumber:
        links = [replace(item, seq=n) for n, item in enumerate(links, start=1)]
    _, problem = verify_chain(links)
    assert problem is not None and (problem.seq, problem.problem) == (3, "removed"), problem


def test_a_removed_first_record_is_named() -> None:
    links = _chain()[1:]
    _, problem = verify_chain(links)
    assert problem is not None and (problem.seq, problem.problem) == (1, "removed")


@pytest.mark.parametrize(("swap_seq", "named"), [(True, 2), (False, 3)])
def test_reordered_records_are_named(swap_seq: bool, named: int) -> None:
    links = _chain()
    links[1], links[2] = links[2], links[1]
    if swap_seq:  # the rows keep their positions' numbers: only the contents moved
        links[1] = replace(links[1], seq=2)
        links[2] = replace(links[2], seq=3)
    # else: record 3 is stored before record 2 (it is the first one out of place)
    _, problem = verify_chain(links)
    assert problem is not None and (problem.seq, problem.problem) == (named, "reordered"), problem


def test_a_removed_tail_is_caught_by_the_head() -> None:
    links = _chain()
    head = _head(links)
    _, problem = verify_chain(links[:-2], head=head)
    assert problem is not None and (problem.seq, problem.problem) == (4, "truncated")
    assert "record 3" in str(problem)


def test_an_inserted_record_is_named() -> None:
    links = _chain()
    (entry,) = _entries({"i1": approve()}, "policy: approve-all")
    forged = link(links[1].hash, 3, entry)  # a valid-looking record 3 ...
    links.insert(2, forged)  # ... while the real 3, 4, 5 keep their numbers: 3 twice
    links = [replace(item, seq=n) for n, item in enumerate(links, start=1)]
    _, problem = verify_chain(links)
    assert problem is not None and problem.seq in (3, 4), problem
