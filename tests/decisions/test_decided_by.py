"""Who decided, as a value, and the texts users, saved notebooks and the store read."""

from __future__ import annotations

import pytest

from agui_notebook._decisions.decided_by import DecidedBy, shown_name
from agui_notebook._decisions.identity import Person, kernel_person

ADA = Person("ada", "server", display_name="Ada Lovelace")
BOB = Person("bob", "server")
KERNEL = kernel_person("jovyan", "the click came with no header")


@pytest.mark.parametrize(
    ("by", "text"),
    [
        (DecidedBy.you(), "you"),
        (DecidedBy.you(ADA), "you"),
        (DecidedBy.named("Ada Lovelace"), "Ada Lovelace"),
        (DecidedBy.policy("approve-all"), "policy: approve-all"),
        (DecidedBy.always_allow(["a", "transfer_money"]), "rule: always allow a, transfer_money"),
        (DecidedBy.timeout("cancel", 600.0), "timeout: cancel after 600 s"),
        (DecidedBy.timeout("reject", 0.2), "timeout: reject after 0.2 s"),
        (DecidedBy.another_resume(), "another resume on this thread"),
    ],
)
def test_each_decider_has_the_text_it_always_had(by: DecidedBy, text: str) -> None:
    assert by.text == text
    back = DecidedBy.from_text(text)
    assert (back.kind, back.text) == (by.kind, text)


def test_a_click_is_shown_by_the_name_the_server_gave_else_as_you() -> None:
    assert DecidedBy.you(ADA).shown == "Ada Lovelace"
    assert DecidedBy.you(BOB).shown == "bob"
    assert DecidedBy.you(KERNEL).shown == "you"  # a name the page claimed is not shown
    assert DecidedBy.you().shown == "you"
    assert DecidedBy.policy("p").shown == "policy: p"
    assert [shown_name(p) for p in (ADA, BOB, KERNEL)] == ["Ada Lovelace", "bob", "you"]


def test_only_people_are_people() -> None:
    people = [DecidedBy.you(), DecidedBy.you(ADA), DecidedBy.named("Ada Lovelace")]
    rules = [
        DecidedBy.policy("p"),
        DecidedBy.always_allow(["t"]),
        DecidedBy.timeout("cancel", 1),
        DecidedBy.another_resume(),
    ]
    assert all(b.is_person for b in people) and not any(b.is_person for b in rules)
    assert [b.is_you for b in people] == [True, True, False]


def test_a_text_that_only_looks_prefixed_names_a_person() -> None:
    assert DecidedBy.from_text("policy:x").kind == "person"  # we always write "policy: x"
    assert DecidedBy.from_text("manager: Ada").kind == "person"
    assert DecidedBy.from_text("policy: rules: a").name == "rules: a"


def test_a_policy_counts_as_one_approver_under_its_own_name() -> None:
    approver = DecidedBy.policy("approve-all").as_approver()
    assert (approver.username, approver.identity, approver.shown) == (
        "policy: approve-all",
        "kernel",
        "policy: approve-all",
    )
    assert shown_name(approver) == "policy: approve-all"
    assert DecidedBy.you(ADA).as_approver() is ADA
