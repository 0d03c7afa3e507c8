"""Who clicked: a click's message header made into the audit's person, or the kernel's user."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from agui_notebook import approve
from agui_notebook._decisions.audit import AuditEntry, decision_entries
from agui_notebook._decisions.identity import Person, escaped, person_from_header
from agui_notebook._decisions.interrupts import PendingInterrupt


def test_a_stamped_header_username_is_a_server_identity() -> None:
    person = person_from_header({"username": "ada"}, kernel_user="jovyan", attested=True)
    assert person == Person("ada", "server")
    assert person.shown == "ada"


def test_a_username_the_server_did_not_stamp_is_only_a_claim() -> None:
    person = person_from_header({"username": "ada", "display_name": "Ada"}, kernel_user="jovyan")
    assert (person.username, person.identity, person.display_name) == ("jovyan", "kernel", None)
    assert person.note is not None
    assert "names 'ada'" in person.note and "jupyter server extension enable" in person.note


def test_a_display_name_from_the_header_or_the_kernels_mapping() -> None:
    stamped = person_from_header(
        {"username": "ada", "display_name": "Ada Lovelace"}, kernel_user="jovyan", attested=True
    )
    assert stamped.shown == "Ada Lovelace"
    mapped = person_from_header(
        {"username": "ada"}, kernel_user="jovyan", display_names={"ada": "Ada L."}, attested=True
    )
    assert mapped.shown == "Ada L."
    bad = person_from_header(
        {"username": "ada", "display_name": "Ada\u202e"},
        kernel_user="k",
        display_names={},
        attested=True,
    )
    assert bad.shown == "ada"  # a display name with a bidi override is dropped, not shown


@pytest.mark.parametrize(
    ("header", "why"),
    [
        (None, "no message header could be read"),
        ({}, "has no username"),
        ({"username": ""}, "has no username (it was ''"),
        ({"username": "   "}, "has no username"),
        ({"username": "username"}, "has no username (it was 'username')"),
        ({"username": 42}, "not text"),
        ({"username": "ad\u202ea"}, "control or bidi characters (ad\\u202ea)"),
        ({"username": "ada\nroot"}, "control or bidi characters (ada\\u000aroot)"),
        ({"username": "x" * 201}, "longer than 200"),
    ],
)
def test_no_usable_name_falls_back_to_the_kernel_and_says_why(header: object, why: str) -> None:
    person = person_from_header(header, kernel_user="jovyan", attested=True)  # type: ignore[arg-type]
    assert (person.username, person.identity) == ("jovyan", "kernel")
    assert person.note is not None and why in person.note


def test_escaped_writes_bidi_and_control_characters_as_escapes() -> None:
    assert escaped("a\u202eb\u0007c\U000e0001") == "a\\u202eb\\u0007c\\U000e0001"
    assert escaped("Zoë Ünal") == "Zoë Ünal"


def _interrupt() -> PendingInterrupt:
    return PendingInterrupt(
        id="i1", reason="tool_call", tool_call_id="c1", tool_name="transfer", arguments={"a": 5}
    )


def _entry(decided_by: str | None, person: Person | None = None) -> AuditEntry:
    (entry,) = decision_entries(
        [_interrupt()],
        {"i1": approve()},
        agent_url="http://a",
        thread_id="t",
        run_id=None,
        time=datetime(2026, 1, 1, tzinfo=timezone.utc),
        decided_by=decided_by,
        outcome=None,
        person=person,
        kernel_user="jovyan",
    )
    return entry


def test_entries_name_the_person_the_kernel_user_and_where_the_name_came_from() -> None:
    server = _entry("you", Person("ada", "server", "Ada Lovelace"))
    assert (server.decided_by, server.kernel_user, server.identity) == ("ada", "jovyan", "server")
    assert server.display_name == "Ada Lovelace"
    fallback = _entry("you", person_from_header({"username": ""}, kernel_user="jovyan"))
    assert (fallback.decided_by, fallback.identity) == ("jovyan", "kernel")
    assert fallback.identity_note and "no username" in fallback.identity_note
    code = _entry(None)
    assert (code.decided_by, code.identity, code.kernel_user) == ("jovyan", "kernel", "jovyan")
    policy = _entry("policy: approve-all")
    assert (policy.decider, policy.decided_by, policy.identity) == (
        "policy", "approve-all", "policy",
    )  # fmt: skip
    timeout = _entry("timeout: cancel after 5 s")
    assert (timeout.identity, timeout.kernel_user) == ("timeout", "jovyan")
