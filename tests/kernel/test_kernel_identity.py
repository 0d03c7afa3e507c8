"""Who clicked, in a real kernel (the installed ipykernel): the comm message's header names the
person, never the message content; two people approve before one resume goes out.

The front end (tests/kernel/_frontend.py) writes ``username`` into each click's header, as a
Jupyter front end does; the cell awaits the card while the clicks arrive.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.kernel._frontend import Kernel

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300)]

SETUP = """
import os, json, getpass
os.environ.pop("AGUI_NOTEBOOK_POLICY", None)
os.environ["AGUI_NOTEBOOK_STORE"] = "off"
os.environ["AGUI_NOTEBOOK_DISPLAY_NAMES"] = json.dumps({"ada": "Ada Lovelace"})
# What a Jupyter server with agui_notebook's extension tells its kernels: it stamps usernames.
os.environ["AGUI_NOTEBOOK_SERVER_IDENTITY"] = "stamped"
from agui_notebook import Agent
"""

SEND = """
agent = Agent.demo(text_delay=0)
chat = agent.chat(timeout=90, approvals={approvals})
result = await chat.send("Transfer ${amount} from 1234567890 to 0987654321")
print("OUTCOME", result.outcome, result.decided_by)
print("RESUMES", sum(1 for r in agent.demo_app.requests if (r["body"] or {{}}).get("resume")))
print("AUDIT", json.dumps([
    {{k: r.get(k) for k in ("decision", "decided_by", "identity", "kernel_user", "identity_note",
      "decidedBy", "outcome", "approval")}} for r in chat.audit
]))
print("KERNEL", getpass.getuser())
"""


@pytest.fixture(scope="module")
def kernel() -> Iterator[Kernel]:
    k = Kernel()
    try:
        k.run(SETUP)
        yield k
    finally:
        k.close()


def _audit(out: str) -> list[dict[str, Any]]:
    return json.loads(out.split("AUDIT ", 1)[1].splitlines()[0])


def _ack(kernel: Kernel, request_id: str) -> dict[str, Any]:
    kernel.pump(lambda: any(a.get("requestId") == request_id for a in kernel.acks), 60, "no ack")
    return next(a for a in kernel.acks if a.get("requestId") == request_id)


def _card(kernel: Kernel, comm: str, card_id: str) -> dict[str, Any]:
    return next(c for c in kernel.views[comm] if c.get("id") == card_id)


def test_the_header_username_is_the_person_and_content_names_are_refused(kernel: Kernel) -> None:
    cell = kernel.start(SEND.format(approvals=1, amount=11))
    comm, card = kernel.wait_for_card()
    # A name the widget puts in the message content is not a name: the message is refused.
    kernel.click(comm, card, username="", request_id="forged", extra={"username": "mallory"})
    assert _ack(kernel, "forged")["accepted"] is False
    kernel.click(comm, card, username="ada", request_id="ada")
    assert _ack(kernel, "ada")["accepted"] is True
    kernel.pump(lambda: cell in kernel.idle, 90, "the cell did not finish")
    out = kernel.output(cell)
    assert "OUTCOME success Ada Lovelace" in out, out
    kernel_user = out.split("KERNEL ", 1)[1].split()[0]
    [entry] = _audit(out)
    assert entry["decided_by"] == "ada" and entry["identity"] == "server"
    assert entry["kernel_user"] == kernel_user and entry["decidedBy"] == "Ada Lovelace"
    kernel.pump(lambda: _card(kernel, comm, card["id"])["status"] == "done", 30, "card not done")
    assert _card(kernel, comm, card["id"])["decidedBy"] == "Ada Lovelace"


def test_a_header_without_a_usable_name_falls_back_to_the_kernel(kernel: Kernel) -> None:
    cell = kernel.start(SEND.format(approvals=1, amount=12))
    comm, card = kernel.wait_for_card()
    kernel.click(comm, card, username="ad\u202ea", request_id="bidi")
    assert _ack(kernel, "bidi")["accepted"] is True
    kernel.pump(lambda: cell in kernel.idle, 90, "the cell did not finish")
    out = kernel.output(cell)
    [entry] = _audit(out)
    kernel_user = out.split("KERNEL ", 1)[1].split()[0]
    assert (entry["decided_by"], entry["identity"]) == (kernel_user, "kernel")
    assert "control or bidi characters (ad\\u202ea)" in entry["identity_note"]
    assert "OUTCOME success you" in out


def test_a_name_no_server_stamped_is_only_a_claim(kernel: Kernel) -> None:
    kernel.run('os.environ.pop("AGUI_NOTEBOOK_SERVER_IDENTITY")')
    try:
        cell = kernel.start(SEND.format(approvals=1, amount=14))
        comm, card = kernel.wait_for_card()
        kernel.click(comm, card, username="ada", request_id="claim")
        assert _ack(kernel, "claim")["accepted"] is True
        kernel.pump(lambda: cell in kernel.idle, 90, "the cell did not finish")
    finally:
        kernel.run('os.environ["AGUI_NOTEBOOK_SERVER_IDENTITY"] = "stamped"')
    out = kernel.output(cell)
    [entry] = _audit(out)
    kernel_user = out.split("KERNEL ", 1)[1].split()[0]
    assert (entry["decided_by"], entry["identity"]) == (kernel_user, "kernel")
    assert "names 'ada'" in entry["identity_note"] and "does not stamp" in entry["identity_note"]


def test_four_eyes_two_people_one_resume(kernel: Kernel) -> None:
    cell = kernel.start(SEND.format(approvals=2, amount=13))
    comm, card = kernel.wait_for_card()
    kernel.click(comm, card, username="ada", request_id="a1")
    assert _ack(kernel, "a1")["accepted"] is True
    kernel.pump(
        lambda: (_card(kernel, comm, card["id"]).get("approvals") or {}).get("count") == 1,
        30,
        "the card does not show the first approval",
    )
    shown = _card(kernel, comm, card["id"])
    assert shown["status"] == "pending"
    assert shown["approvals"]["text"] == "1 of 2 approvals: Ada Lovelace"
    assert shown["approvals"]["missing"] == "one more approval is needed"
    kernel.click(comm, card, username="ada", request_id="a2")  # the same person again
    again = _ack(kernel, "a2")
    assert again["accepted"] is False and "already approved" in again["error"]
    kernel.click(comm, card, username="bob", request_id="b1")
    assert _ack(kernel, "b1")["accepted"] is True
    kernel.pump(lambda: cell in kernel.idle, 90, "the cell did not finish")
    out = kernel.output(cell)
    assert "RESUMES 1" in out and "OUTCOME success" in out, out
    audit = _audit(out)
    assert [(e["decided_by"], e["identity"], bool(e["approval"])) for e in audit] == [
        ("ada", "server", True),
        ("bob", "server", False),
    ]
    assert audit[0]["outcome"].startswith("not sent yet: 1 of 2 approvals")
    assert audit[1]["outcome"] == "success"
    kernel.pump(lambda: _card(kernel, comm, card["id"])["status"] == "done", 30, "card not done")
    assert _card(kernel, comm, card["id"])["decidedBy"] == "Ada Lovelace, bob"
