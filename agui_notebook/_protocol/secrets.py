"""Credentials: recognising them and keeping them out of anything written or shown. Pure.

The client knows the credentials it sends (``headers=``, its ``http_client``'s headers and auth,
the URL's user info and query). Servers echo them back ("invalid token 'Bearer sk-...'"), in an
HTTP error body, a ``RUN_ERROR`` message, a tool result or the model's own reply. So every text a
server sends is scrubbed once, where it enters the client (:meth:`Scrubber.json_text` on each SSE
message's data before it is parsed, :meth:`Scrubber.text` on an error body), and everything made
from it afterwards (messages, results, errors, run records, cards, recordings, the audit) is clean.
:mod:`.guards` catches a secret split across streamed deltas.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode

import httpx

__all__ = [
    "EMPTY",
    "MIN_ANYWHERE",
    "REDACTED",
    "SAFE_HEADERS",
    "Scrubber",
    "is_credential_name",
    "redact_body",
    "redact_headers",
    "redact_json",
    "redact_url",
    "scrub",
    "scrub_for",
    "secret_values",
]

REDACTED = "<redacted>"

#: Headers known to carry no secret: their values are recorded. Every other header is recorded
#: by name with its value redacted, so an unusual credential header cannot slip through.
SAFE_HEADERS = frozenset(
    {
        "accept",
        "accept-encoding",
        "accept-language",
        "cache-control",
        "connection",
        "content-encoding",
        "content-length",
        "content-type",
        "date",
        "etag",
        "expires",
        "host",
        "keep-alive",
        "last-modified",
        "pragma",
        "server",
        "transfer-encoding",
        "user-agent",
        "vary",
        "x-accel-buffering",
    }
)
_CREDENTIAL_PARTS = (
    "auth",
    "token",
    "secret",
    "key",
    "passw",
    "pwd",
    "cookie",
    "credential",
    "session",
    "signature",
    "bearer",
    "jwt",
)
_CREDENTIAL_NAMES = frozenset({"sig", "code", "pass", "sid", "pin"})
#: A secret this long is scrubbed wherever it appears; a shorter one only as a whole token.
MIN_ANYWHERE = 6
_WORD = re.compile(r"\w")
_SCRUB_SPLIT = re.compile(r"[\s,;]+")
_AUTH_SCHEMES = frozenset({"bearer", "basic", "digest", "token", "apikey"})


def is_credential_name(name: str) -> bool:
    """Whether a header, query parameter or JSON key's name suggests it holds a credential."""
    lowered = name.lower()
    return lowered in _CREDENTIAL_NAMES or any(part in lowered for part in _CREDENTIAL_PARTS)


def redact_headers(headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> dict[str, str]:
    """Headers as recorded: names lowercased, values kept only for :data:`SAFE_HEADERS`.

    >>> redact_headers({"Authorization": "Bearer sk-1", "Accept": "text/event-stream"})
    {'authorization': '<redacted>', 'accept': 'text/event-stream'}
    """
    items = headers.items() if isinstance(headers, Mapping) else headers
    out: dict[str, str] = {}
    for name, value in items:
        key = name.lower()
        out[key] = value if key in SAFE_HEADERS and not is_credential_name(key) else REDACTED
    return out


def redact_url(url: httpx.URL | str) -> str:
    """The URL without userinfo, with the values of credential-like query parameters redacted.

    >>> redact_url("https://me:pw@example.org/agent?token=abc&v=2")
    'https://example.org/agent?token=%3Credacted%3E&v=2'
    """
    parsed = httpx.URL(str(url))
    query = parsed.query.decode("ascii", errors="replace")
    pairs = [
        (name, REDACTED if is_credential_name(name) else value)
        for name, value in parse_qsl(query, keep_blank_values=True)
    ]
    redacted = parsed.copy_with(username=None, password=None, fragment=None, query=None)
    text = str(redacted)
    return f"{text}?{urlencode(pairs)}" if pairs else text


def redact_json(value: Any) -> Any:
    """A copy of ``value`` with the values of credential-like keys redacted, at any depth."""
    if isinstance(value, dict):
        return {
            k: REDACTED if is_credential_name(str(k)) else redact_json(v) for k, v in value.items()
        }
    if isinstance(value, list):
        return [redact_json(v) for v in value]
    return value


def redact_body(body: Any) -> Any:
    if isinstance(body, dict) and "forwardedProps" in body:
        return {**body, "forwardedProps": redact_json(body["forwardedProps"])}
    return body


def secret_values(request: httpx.Request, body: Any = None) -> set[str]:
    """The credential values a request carries, to scrub from whatever the server sends back.

    Strong sources count whatever their length: the values of headers whose names say they hold
    a credential (``Authorization``, ``X-Api-Key``, ``Cookie``...) and their parts (the token
    after ``Bearer``, a cookie's value, the password inside ``Basic``), the URL's password, and
    credential-like query parameters. Weak sources count only from :data:`MIN_ANYWHERE`
    characters on (they may be ordinary words): other headers not known to be safe, a cookie
    whose name says nothing, a URL user name, credential-like keys in ``forwardedProps``.
    """
    strong: list[str] = []
    weak: list[str] = []
    for name, value in request.headers.items():
        key = name.lower()
        if key in SAFE_HEADERS and not is_credential_name(key):
            continue
        bucket = strong if is_credential_name(key) else weak
        bucket.append(value)
        _header_parts(value, bucket, strong, weak)
    url = request.url
    if url.password:
        strong.append(url.password)
    weak.append(url.username)
    for name, value in url.params.multi_items():
        if is_credential_name(name):
            strong.append(value)
    if isinstance(body, dict):
        _credential_leaves(body.get("forwardedProps"), weak, inside=False)
    found = {s for s in strong if s} | {s for s in weak if len(s) >= MIN_ANYWHERE}
    return {s for s in found if s.lower() not in _AUTH_SCHEMES}


def _header_parts(value: str, bucket: list[str], strong: list[str], weak: list[str]) -> None:
    """``Bearer <token>``, ``a=<x>; b=<y>``, ``Basic base64(user:password)``: the parts go in
    ``bucket`` (the header's own), a pair's value by the pair's name."""
    parts = [p for p in _SCRUB_SPLIT.split(value) if p]
    for part in parts:
        if "=" in part.strip("="):  # a cookie or parameter pair (not just base64 padding)
            name, _, rest = part.partition("=")
            (strong if is_credential_name(name) else weak).append(rest.strip('"'))
        else:
            bucket.append(part)
    if len(parts) == 2 and parts[0].lower() == "basic":
        with contextlib.suppress(ValueError, binascii.Error):
            decoded = base64.b64decode(parts[1], validate=True).decode("utf-8")
            user, colon, password = decoded.partition(":")
            if colon:
                bucket.append(password)
                weak.append(user)


def _credential_leaves(value: Any, out: list[str], *, inside: bool) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _credential_leaves(v, out, inside=inside or is_credential_name(str(k)))
    elif isinstance(value, list):
        for v in value:
            _credential_leaves(v, out, inside=inside)
    elif inside and isinstance(value, str):
        out.append(value)


# -- scrubbing ------------------------------------------------------------------------------------


def _forms(secret: str) -> set[str]:
    """The ways ``secret`` can appear in server text: as is, and escaped inside JSON text."""
    escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
    ascii_escaped = json.dumps(secret)[1:-1]
    return {secret, escaped, ascii_escaped, escaped.replace("/", "\\/")}


def _pattern(form: str) -> str:
    """A regex for one form: anywhere when long, else only as a whole token.

    A short secret (``pw42``, a PIN) searched as a substring would eat parts of ordinary words
    and numbers; as a token it still matches where a credential stands in text (``token pw42.``,
    ``"pw42"``, ``key=pw42&``) but not inside ``pw421``, ``xpw42``, ``pw42_a``, ``1,234.50`` or
    ``v1.1234`` (a ``.``, ``,`` or ``-`` between word characters joins them into one token).
    """
    text = re.escape(form)
    if len(form) >= MIN_ANYWHERE:
        return text
    before = r"(?<!\w)(?<!\w[.,\-])" if _WORD.match(form[0]) else ""
    after = r"(?!\w)(?![.,\-]\w)" if _WORD.match(form[-1]) else ""
    return before + text + after


def _prefixes(head: str) -> str:
    """A regex matching any non-empty leading part of ``head``: ``a(?:b(?:c)?)?``."""
    inner = ""
    for char in reversed(head[1:]):
        inner = re.escape(char) + (f"(?:{inner})?" if inner else "")
    return re.escape(head[0]) + (f"(?:{inner})?" if inner else "")


def _minimal(needles: Iterable[str]) -> tuple[str, ...]:
    """Needles that contain no other needle (finding the shorter one finds the longer too)."""
    ordered = sorted(set(needles), key=len)
    kept: list[str] = []
    for needle in ordered:
        if not any(k in needle for k in kept):
            kept.append(needle)
    return tuple(kept)


# Events whose ``delta`` is streamed text, on the wire (chunks and pre-1.0 names included).
_STREAMED = frozenset(
    {
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CHUNK",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_CHUNK",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_CHUNK",
        "THINKING_TEXT_MESSAGE_CONTENT",
    }
)
_NOTHING: Any = object()


class Scrubber:
    """Removes known credential values from server text, whatever their length.

    >>> s = Scrubber({"sk-live-1234567", "pw42"})
    >>> s.text("bad token sk-live-1234567 (pw42); pw421 and xpw42 are other words")
    'bad token <redacted> (<redacted>); pw421 and xpw42 are other words'

    A secret of :data:`MIN_ANYWHERE` characters or more is replaced wherever it appears; a
    shorter one only where it stands as a whole token. An empty scrubber is falsy, so callers
    can skip it entirely (the hot path pays nothing when the agent has no credentials).
    """

    __slots__ = ("_needles", "_regex", "_tail", "_tail_span", "has_short", "secrets", "tails")

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets: frozenset[str] = frozenset(s for s in secrets if s)
        forms = {f for s in self.secrets for f in _forms(s)}
        #: Cheap first test: if none of these is in a text, nothing in it needs scrubbing.
        self._needles = _minimal(forms)
        # Longest first, so a secret that contains another is replaced whole.
        ordered = sorted(forms, key=lambda f: (-len(f), f))
        self._regex = re.compile("|".join(_pattern(f) for f in ordered)) if ordered else None
        # A text's tail that may begin a secret: any leading part of a short form (its token edge
        # is not known yet, so all of it) or of a long one but its last character. A long form
        # that contains another long form is found by that one, even when split.
        short = {f for f in forms if len(f) < MIN_ANYWHERE}
        heads = sorted(short | {f[:-1] for f in _minimal(forms - short)})
        self._tail = re.compile("(?:" + "|".join(map(_prefixes, heads)) + r")\Z") if heads else None
        self._tail_span = max(map(len, heads), default=0)
        #: Every such tail, for one quick ``str.endswith`` per delta.
        self.tails = tuple({h[:k] for h in heads for k in range(1, len(h) + 1)})
        #: Some secret is matched only as a token, so its edges (in other deltas too) matter.
        self.has_short = any(len(f) < MIN_ANYWHERE for f in forms)

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def __repr__(self) -> str:
        return f"Scrubber({len(self.secrets)} secrets)"  # never the values

    def union(self, secrets: Iterable[str]) -> Scrubber:
        """This scrubber, or a new one that also knows ``secrets``."""
        more = frozenset(s for s in secrets if s)
        return self if more <= self.secrets else Scrubber(self.secrets | more)

    def might_contain(self, text: str) -> bool:
        """False when ``text`` certainly holds no secret (one ``in`` per secret)."""
        for needle in self._needles:  # noqa: SIM110 - a plain loop: any() costs more per event
            if needle in text:
                return True
        return False

    def text(self, text: str) -> str:
        """``text`` with every secret (and its JSON-escaped forms) replaced by ``<redacted>``."""
        if self._regex is None or not self.might_contain(text):
            return text
        return self._regex.sub(REDACTED, text)

    def value(self, value: Any) -> Any:
        """A JSON-like value with secrets removed from every string (keys too), at any depth.

        Numbers, booleans and the structure are left alone, so the result is still valid JSON.
        Returns ``value`` itself when nothing changed.
        """
        if not self:
            return value
        try:
            return self._walk(value)
        except RecursionError:  # too deep to walk: as text, or not at all
            try:
                return json.loads(self.text(json.dumps(value, default=str)))
            except RecursionError:
                return REDACTED

    def _walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            changed = False
            out: dict[Any, Any] = {}
            for k, v in value.items():
                k2 = self.text(k) if isinstance(k, str) else k
                v2 = self._walk(v)
                changed = changed or k2 is not k or v2 is not v
                out[k2] = v2
            return out if changed else value
        if isinstance(value, list | tuple):
            items = [self._walk(v) for v in value]
            if any(a is not b for a, b in zip(items, value, strict=True)):
                return type(value)(items)
            return value
        return value

    def json_text(self, data: str, *, keep_streamed: bool = False) -> str:
        """One SSE message's JSON data, scrubbed before it is parsed.

        Every text the server sends (messages, tool arguments and results, interrupts, state,
        ``RUN_ERROR`` messages) passes here, so it is clean wherever it goes next. Costs one
        ``in`` per secret unless a secret is there; then the JSON is scrubbed value by value
        (a secret that happens to equal a number stays a number, the JSON stays valid).
        ``keep_streamed`` leaves a streamed ``delta`` (text or arguments) to :class:`DeltaGuard`,
        which sees the text around it.
        """
        if not self.might_contain(data):
            return data
        try:
            parsed = json.loads(data)
        except (ValueError, RecursionError):
            return self.text(data)  # the parser will reject it, quoting only scrubbed text
        kept = _NOTHING
        if keep_streamed and isinstance(parsed, dict) and parsed.get("type") in _STREAMED:
            kept = parsed.get("delta", _NOTHING)
            if isinstance(kept, str):
                parsed = {k: v for k, v in parsed.items() if k != "delta"}
            else:
                kept = _NOTHING
        try:
            cleaned = self._walk(parsed)
        except RecursionError:
            return self.text(data)  # as text; the parser then says it is nested too deeply
        if cleaned is parsed:
            return data
        if kept is not _NOTHING:
            cleaned["delta"] = kept
        return json.dumps(cleaned, ensure_ascii=False, separators=(",", ":"))

    def scrub_head(self, before: str, text: str, cut: int) -> tuple[str, int]:
        """``text[:cut]`` scrubbed, judging token edges by ``before`` (what was shown already)
        and by the rest of ``text``; and where to cut after all (a secret that runs past
        ``cut`` is held from its start)."""
        if self._regex is None:
            return text[:cut], cut
        full = before + text
        start = len(before)
        end = start + cut
        pieces: list[str] = []
        pos = start
        for match in self._regex.finditer(full, start):
            if match.start() >= end:
                break
            if match.end() > end:
                end = match.start()
                break
            pieces += (full[pos : match.start()], REDACTED)
            pos = match.end()
        pieces.append(full[pos:end])
        return "".join(pieces), end - start

    def holdback(self, text: str) -> int:
        """How many trailing characters of ``text`` could be the start of a secret.

        A streamed text can split a secret across deltas (``"sk-li"``, ``"ve-1234567"``); those
        characters wait for the next delta before they are shown.
        """
        if self._tail is None or not text.endswith(self.tails):
            return 0
        found = self._tail.search(text, max(0, len(text) - self._tail_span))
        return len(text) - found.start() if found else 0


EMPTY = Scrubber()


def scrub_for(agent: Any, value: Any) -> Any:
    """``value`` (a text, or JSON-like data) without any credential ``agent`` knows.

    For what is written outside the event path (a store, a log line, an export): the credentials
    of ``headers=``, of the ``http_client`` (headers, basic auth), of the URL, and of every request
    sent so far. Server text reaching a thread is already clean; this is the belt to that.
    """
    scrubber: Scrubber = agent.transport.known_scrubber()
    return scrubber.value(value)


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret value (and its JSON-escaped forms) replaced by ``<redacted>``."""
    return Scrubber(secrets).text(text)
