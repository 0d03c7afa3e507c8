"""Credentials: recognising them and keeping them out of anything written or shown. Pure.

Used by recordings (every line) and by errors (an HTTP error body that echoes the token it was
sent is scrubbed before it reaches a card, a notebook or a log).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode

import httpx

__all__ = [
    "REDACTED",
    "SAFE_HEADERS",
    "is_credential_name",
    "redact_body",
    "redact_headers",
    "redact_json",
    "redact_url",
    "scrub",
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
_MIN_SCRUB = 6  # shorter secret values are not searched for in free text (too many false hits)
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
    """The credential values a request carries, to scrub from free text (bodies, event data)."""
    found: list[str] = []
    for name, value in request.headers.items():
        if name.lower() not in SAFE_HEADERS or is_credential_name(name):
            found.append(value)
            for part in _SCRUB_SPLIT.split(value):  # "Bearer <token>", "a=<x>; b=<y>"
                found.append(part.partition("=")[2] if "=" in part.strip("=") else part)
    url = request.url
    found.extend([url.username, url.password])
    for name, value in url.params.multi_items():
        if is_credential_name(name):
            found.append(value)
    if isinstance(body, dict):
        _credential_leaves(body.get("forwardedProps"), found, inside=False)
    return {s for s in found if len(s) >= _MIN_SCRUB and s.lower() not in _AUTH_SCHEMES}


def _credential_leaves(value: Any, out: list[str], *, inside: bool) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _credential_leaves(v, out, inside=inside or is_credential_name(str(k)))
    elif isinstance(value, list):
        for v in value:
            _credential_leaves(v, out, inside=inside)
    elif inside and isinstance(value, str):
        out.append(value)


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret value (and its JSON-escaped form) replaced by ``<redacted>``."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, REDACTED)
        escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
        if escaped != secret and escaped in text:
            text = text.replace(escaped, REDACTED)
    return text
