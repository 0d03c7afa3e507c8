"""Content parts (1.1 tool results and messages) as the view shows them. Pure.

What a notebook may show of a part, and nothing more:

- text is text;
- an image is shown inline only from inline data (``source.type == "data"``), only as PNG, JPEG,
  GIF or WebP whose bytes really start like one, and only up to :data:`MAX_INLINE_IMAGE_BYTES`;
  the front end gets base64 and a MIME type and builds a ``data:`` URL itself;
- everything else (an image by URL or provider handle, audio, video, documents, anything too
  large or not what it claims) is a labelled line: its kind, a label from its metadata, MIME
  type, size and where it lives. A URL or a provider file handle is shown as text and never
  fetched or loaded (a file handle is opaque, 1.1 run-input; nothing from a server becomes a
  ``src`` or ``href``).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from pydantic import BaseModel

__all__ = ["MAX_INLINE_IMAGE_BYTES", "display_parts", "image_problem", "parts_text"]

#: Images larger than this are listed, not shown (they travel in widget state).
MAX_INLINE_IMAGE_BYTES = 2 * 1024 * 1024

_MAGIC = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
}
_LABEL_KEYS = ("title", "filename", "name", "alt", "caption")


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    return value


def parts_text(content: Any) -> str:
    """A result or message content as one string: the text parts joined (the lossy form for
    anything that can only hold text; 1.1 tool-calls says to render it so)."""
    if isinstance(content, str):
        return content
    texts = [
        p.get("text", "")
        for p in (_plain(part) for part in content or [])
        if p.get("type") == "text"
    ]
    return "\n".join(t for t in texts if isinstance(t, str))


def display_parts(content: Any) -> list[dict[str, Any]] | None:
    """The display form of a list of content parts; None for plain text content."""
    if isinstance(content, str) or content is None:
        return None
    return [_display(_plain(part)) for part in content]


def _display(part: dict[str, Any]) -> dict[str, Any]:
    kind = part.get("type")
    if kind == "text":
        return {"type": "text", "text": str(part.get("text", ""))}
    found = part.get("source")
    source: dict[str, Any] = found if isinstance(found, dict) else {}
    metadata = part.get("metadata")
    label = _label(kind, metadata)
    mime = source.get("mimeType") if isinstance(source.get("mimeType"), str) else None
    where = source.get("type")
    size: int | None = None
    note: str | None = None
    if where == "data":
        raw = _decoded(source.get("value"))
        if raw is None:
            note = "not valid base64"
        else:
            size = len(raw)
            if kind == "image":
                problem = _image_problem(raw, mime)
                if problem is None:
                    return {
                        "type": "image",
                        "mimeType": mime,
                        "data": source["value"],
                        "label": label,
                        "bytes": size,
                        "metadata": metadata if isinstance(metadata, dict) else None,
                    }
                note = problem
    return {
        "type": "file",
        "kind": kind if isinstance(kind, str) else "file",
        "label": label,
        "mimeType": mime,
        "source": where if isinstance(where, str) else None,
        # A URL or a provider handle, shown as text: never fetched, never a link.
        "location": source.get("value") if where in ("url", "file") else None,
        "provider": source.get("provider") if where == "file" else None,
        "bytes": size,
        "note": note,
        "metadata": metadata if isinstance(metadata, dict) else None,
    }


def _label(kind: Any, metadata: Any) -> str:
    if isinstance(metadata, dict):
        for key in _LABEL_KEYS:
            value = metadata.get(key)
            if isinstance(value, str) and value.strip():
                return value
    return str(kind or "file")


def _decoded(value: Any) -> bytes | None:
    if not isinstance(value, str):
        return None
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None


def image_problem(raw: bytes, mime: str | None) -> str | None:
    """Why these bytes are not shown inline as ``mime`` (None: show them)."""
    return _image_problem(raw, mime)


def _image_problem(raw: bytes, mime: str | None) -> str | None:
    """Why these bytes are not shown inline (None: show them)."""
    magic = _MAGIC.get(mime or "")
    if magic is None:
        return (
            f"{mime or 'an image of unknown type'} is not shown inline (PNG, JPEG, GIF, WebP are)"
        )
    if not raw.startswith(magic) or (mime == "image/webp" and raw[8:12] != b"WEBP"):
        return f"the bytes are not {mime}"
    if len(raw) > MAX_INLINE_IMAGE_BYTES:
        return f"larger than {MAX_INLINE_IMAGE_BYTES // (1024 * 1024)} MB, not shown inline"
    return None
