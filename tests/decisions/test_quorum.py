"""Several approvers: the counting rules, by example and as properties over any click order."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agui_notebook import approve, cancel, edit, reject
from agui_notebook._decisions.decision import Decision
from agui_notebook._decisions.identity import Person
from agui_notebook._decisions.quorum import Count, check_approvals, count, count_text, needed_for
from tests._hypothesis import examples

ADA, BOB, CY = Person("ada", "server", "Ada"), Person("bob", "server"), Person("cy", "server")


def _click(
    current: Count | None, person: Person, decision: Decision, needed: int = 2
) -> tuple[str, Count | None, Mapping[str, Decision] | None]:
    step = count(current, needed, person, {"i1": decision})
    return step.action, step.count, step.decisions


def test_two_different_people_send_one_approval() -> None:
    action, current, _ = _click(None, ADA, approve())
    assert action == "wait" and current is not None
    assert count_text(current) == "1 of 2 approvals: Ada"
    again, same, _ = _click(current, ADA, approve())
    assert again == "again" and same == current  # the same person twice counts once
    action, done, sent = _click(current, BOB, approve())
    assert action == "send" and sent == {"i1": approve()}
    assert done is not None and count_text(done) == "2 of 2 approvals: Ada, bob"


def test_an_edit_restarts_the_count_with_the_editor_first() -> None:
    _, current, _ = _click(None, ADA, approve())
    action, current, _ = _click(current, BOB, edit(amount=1))
    assert action == "wait" and current is not None
    assert [p.username for p in current.approvers] == ["bob"]
    # Ada's plain Approve now approves the edited arguments the card shows.
    action, _, sent = _click(current, ADA, approve())
    assert action == "send" and sent == {"i1": edit(amount=1)}


def test_an_edit_with_other_arguments_restarts_again() -> None:
    _, current, _ = _click(None, ADA, edit(amount=1))
    action, current, _ = _click(current, BOB, edit(amount=2))
    assert action == "wait" and current is not None
    assert [p.username for p in current.approvers] == ["bob"]
    assert current.decisions == {"i1": edit(amount=2)}


@pytest.mark.parametrize("no", [reject("no"), cancel()])
def test_one_reject_or_cancel_decides_at_once(no: Decision) -> None:
    _, current, _ = _click(None, ADA, approve(), needed=3)
    action, _, sent = _click(current, BOB, no, needed=3)
    assert action == "send" and sent == {"i1": no}


@pytest.mark.parametrize("bad", [0, -1, 1.0, 2.5, True, False, "2", None])
def test_approvals_must_be_a_whole_number_of_people(bad: object) -> None:
    with pytest.raises(ValueError, match="approvals must be a whole number of people"):
        check_approvals(bad)
    assert check_approvals(3) == 3


PEOPLE = [Person(n, "server") for n in ("ada", "bob", "cy", "dee")]
DECISIONS = st.one_of(
    st.just(approve()),
    st.just(reject("no")),
    st.just(cancel()),
    st.builds(lambda a: edit(amount=a), st.integers(0, 2)),
)
CLICKS = st.lists(st.tuples(st.sampled_from(PEOPLE), DECISIONS), max_size=12)


@settings(max_examples=examples(300), deadline=None)
@given(needed=st.integers(1, 4), clicks=CLICKS)
def test_any_click_order_sends_at_most_once_and_only_what_enough_people_approved(
    needed: int, clicks: list[tuple[Person, Decision]]
) -> None:
    current: Count | None = None
    sent: list[Mapping[str, Decision]] = []
    history: list[tuple[Person, Decision]] = []
    for person, decision in clicks:
        if sent:  # a decided card takes no more clicks (the decider refuses them as late)
            break
        history.append((person, decision))
        step = count(current, needed, person, {"i1": decision})
        if step.action == "send":
            assert step.decisions is not None
            sent.append(step.decisions)
        current = step.count if step.count is not None else current
    assert len(sent) <= 1
    if not sent:
        return
    (out,) = sent
    final = out["i1"]
    if final.kind in ("reject", "cancel"):
        assert history[-1][1] == final  # a "no" goes out as the person said it, at once
        return
    # An approval: the last `needed` distinct people who agreed on exactly these arguments.
    assert current is not None and current.done
    names = [p.username for p in current.approvers]
    assert len(names) == len(set(names)) == needed
    assert current.decisions == out
    assert history[-1][0].username == names[-1]
    # every counted approver clicked Approve or this very edit after the count began
    for person in current.approvers:
        assert any(p == person and (d.kind == "approve" or d == final) for p, d in history)


@settings(max_examples=examples(200), deadline=None)
@given(clicks=CLICKS)
def test_one_approver_is_the_old_single_click(clicks: list[tuple[Person, Decision]]) -> None:
    for person, decision in clicks[:1]:
        step = count(None, 1, person, {"i1": decision})
        assert step.action == "send" and step.decisions == {"i1": decision}


def test_approvals_per_tool_take_the_most_a_cards_tools_need() -> None:
    per_tool = check_approvals({"transfer_*": 2, "cancel_subscription": 3})
    assert needed_for(per_tool, ["transfer_money"]) == 2
    assert needed_for(per_tool, ["check_balance"]) == 1
    assert needed_for(per_tool, ["transfer_money", "cancel_subscription"]) == 3
    assert needed_for(per_tool, [None]) == 1
    assert needed_for(2, ["anything"]) == 2
    with pytest.raises(ValueError, match=r"approvals\['transfer_\*'\] must be a whole number"):
        check_approvals({"transfer_*": 0})
