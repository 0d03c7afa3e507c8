"""Credentials in server text (issue 18): which values count, how they are found, and that
ordinary text is left alone. Pure: no network (the HTTP paths are in tests/reliability)."""

from __future__ import annotations

import base64
import itertools
import json

import httpx
import hypothesis.strategies as st
import pytest
from hypothesis import given

from agui_notebook._protocol.guards import DeltaGuard
from agui_notebook._protocol.secrets import EMPTY, Scrubber, secret_values

LONG = "sk-live-1234567"
SHORT = "pw42"
PIN = "1234"

# -- which values are secrets -----------------------------------------------------------------


def request(url: str = "http://agent.test/", **headers: str) -> httpx.Request:
    return httpx.Request("POST", url, headers=headers)


def test_credential_headers_count_whatever_their_length() -> None:
    found = secret_values(request(Authorization="Bearer k9", x_api_key="77"))
    assert {"k9", "77", "Bearer k9"} <= found
    assert "Bearer" not in found  # the scheme is not a secret


def test_ordinary_headers_count_only_when_long_enough_to_be_tokens() -> None:
    found = secret_values(request(x_tenant="acme", x_request_id="req-0123456789"))
    assert "acme" not in found and "req-0123456789" in found


def test_cookie_values_count_by_their_own_names() -> None:
    found = secret_values(request(Cookie="session=ab; lang=en; theme=darkmode"))
    assert "ab" in found  # a session cookie, however short
    assert "en" not in found  # a short value under a name that says nothing
    assert "darkmode" in found  # long enough to be scrubbed anywhere anyway


def test_basic_auth_reveals_its_password() -> None:
    token = base64.b64encode(b"alice:pw").decode()
    found = secret_values(request(Authorization=f"Basic {token}"))
    assert {"pw", token} <= found and "alice" not in found


def test_url_credentials() -> None:
    found = secret_values(request("http://me:pw@agent.test/?token=ab&v=2&code=xyz"))
    assert {"pw", "ab", "xyz"} <= found
    assert "me" not in found and "2" not in found  # a short user name is not a credential


# -- finding them in text ---------------------------------------------------------------------

ORDINARY = [
    "Transferred 1,234.00 USD from 1234567890 to 0987654321.",
    "12345 1234.5 v1.1234 a1234 1234a 1234_0 x-1234-y",
    "pw421 xpw42 pw42_a PW42 pw4 2 pw-42",
    "sk-live-123456 is not the token, nor is sk-live-12345678x... wait, that one contains it",
]


def test_short_secrets_are_found_only_as_whole_tokens() -> None:
    scrubber = Scrubber({SHORT, PIN})
    assert scrubber.text(ORDINARY[0]) == ORDINARY[0]
    assert scrubber.text(ORDINARY[1]) == ORDINARY[1]
    assert scrubber.text(ORDINARY[2]) == ORDINARY[2]
    said = 'token pw42. PIN: 1234, "pw42" key=pw42&x (1234) pw42\n1234'
    assert scrubber.text(said) == (
        "token <redacted>. PIN: <redacted>, "
        '"<redacted>" key=<redacted>&x (<redacted>) <redacted>\n<redacted>'
    )


def test_long_secrets_are_found_anywhere_and_in_json_escaped_forms() -> None:
    scrubber = Scrubber({LONG, 'a"quoted/secret\\x', "clé-secrète-ünïcode"})
    assert scrubber.text(f"x{LONG}y") == "x<redacted>y"
    assert scrubber.text(ORDINARY[3]) == (
        "sk-live-123456 is not the token, nor is <redacted>8x... wait, that one contains it"
    )
    for secret in ('a"quoted/secret\\x', "clé-secrète-ünïcode"):
        for text in (
            json.dumps({"m": secret}),
            json.dumps({"m": secret}, ensure_ascii=False),
            json.dumps({"m": secret}).replace("/", "\\/"),
        ):
            assert secret not in scrubber.text(text) and "<redacted>" in scrubber.text(text)


def test_event_data_stays_valid_json_with_numbers_and_keys() -> None:
    scrubber = Scrubber({PIN, LONG})
    data = json.dumps({"type": "STATE_SNAPSHOT", "snapshot": {"pin": 1234, PIN: f"{LONG} 1234"}})
    cleaned = json.loads(scrubber.json_text(data))
    assert cleaned == {
        "type": "STATE_SNAPSHOT",
        "snapshot": {"pin": 1234, "<redacted>": "<redacted> <redacted>"},
    }
    untouched = '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hello"}'
    assert scrubber.json_text(untouched) is untouched


def test_without_secrets_nothing_is_done() -> None:
    assert not EMPTY and not Scrubber(["", ""])
    text = "anything 1234"
    assert EMPTY.text(text) is text and EMPTY.value({"a": text})["a"] is text
    assert "1234" not in repr(Scrubber({PIN}))


# -- streamed text: a secret split across deltas ------------------------------------------------

STREAMED = f"rejected {SHORT} and {LONG}. Not secrets: pw421, x{PIN}, 1,234.5, {PIN}0 end {PIN}"
EXPECTED = (
    "rejected <redacted> and <redacted>. Not secrets: pw421, x1234, 1,234.5, 12340 end <redacted>"
)


def stream(scrubber: Scrubber, pieces: list[str]) -> str:
    guard = DeltaGuard(scrubber)
    out = []
    for piece in pieces:
        clean = not scrubber.might_contain(piece)
        if clean and guard.passes(piece):
            out.append(piece)
        else:
            out.append(guard.feed("m", piece, clean=clean))
    return "".join(out) + guard.flush("m")


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 1000])
def test_a_secret_split_across_deltas_is_still_found(size: int) -> None:
    scrubber = Scrubber({SHORT, LONG, PIN})
    pieces = [STREAMED[i : i + size] for i in range(0, len(STREAMED), size)]
    assert stream(scrubber, pieces) == EXPECTED


@given(st.lists(st.integers(min_value=1, max_value=len(STREAMED) - 1), max_size=12))
def test_any_split_of_a_stream_gives_the_same_clean_text(cuts: list[int]) -> None:
    scrubber = Scrubber({SHORT, LONG, PIN})
    points = [0, *sorted(set(cuts)), len(STREAMED)]
    pieces = [STREAMED[a:b] for a, b in itertools.pairwise(points)]
    assert stream(scrubber, pieces) == EXPECTED


def test_a_tail_that_may_begin_a_secret_waits_for_the_next_delta() -> None:
    guard = DeltaGuard(Scrubber({LONG}))
    assert guard.feed("m", "the token is sk-li") == "the token is "
    assert guard.feed("m", "ve-1234567 ok") == "<redacted> ok"
    assert guard.feed("m", "sk") == ""
    assert guard.flush("m") == "sk"  # the stream ended: it was not a secret after all


# -- one call for whatever is written outside the event path (a store, a log) -------------------


def test_scrub_for_knows_every_credential_of_an_agent_before_any_request() -> None:
    from agui_notebook import Agent
    from agui_notebook._protocol.secrets import scrub_for

    client = httpx.AsyncClient(headers={"X-Api-Key": "key-from-client-99"}, auth=("bob", "hunter2"))
    agent = Agent("http://me:pw@agent.test/?token=tk", headers={"Authorization": f"Bearer {LONG}"})
    row = {"text": f"{LONG} pw tk", "n": 1234, "nested": ["tk!", "pw42"]}
    assert scrub_for(agent, row) == {
        "text": "<redacted> <redacted> <redacted>",
        "n": 1234,
        "nested": ["<redacted>!", "pw42"],
    }
    other = Agent("http://agent.test/", http_client=client)
    assert scrub_for(other, "key-from-client-99 and hunter2") == "<redacted> and <redacted>"
    assert scrub_for(Agent("http://agent.test/"), row) is row  # nothing known: untouched
