"""What a decision was informed by, and what came of it: the audit's evidence fields. Pure.

A chat computes previews and checks in the notebook before a decision, and a verdict on the
call after the resumed run (``verdict``). Each audit entry keeps them beside the decision:

- ``preview_sha256``: the SHA-256 of the preview of the proposed arguments as the card showed it
  (its shown mimebundle's canonical JSON); None when no preview was shown when it was decided;
- ``edited_preview_sha256``: for an edit, the same for the edited arguments' preview;
- ``checks``: each check's ``name``, ``passed`` and ``reason`` for the arguments decided on (an
  edit's: the edited ones);
- ``checks_override``: why an approval went out although a check failed ("Approve anyway" with
  its reason, or the policy that says ``override_checks``);
- ``execution``: the verdict on the call after the resumed run (``verdict``, ``text``,
  ``detail``).

Entries written before these fields existed read them as None.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["EVIDENCE_FIELDS", "Evidence"]


@dataclass
class Evidence:
    """The evidence of one decision on one interrupt (see the module docstring)."""

    preview_sha256: str | None = None
    edited_preview_sha256: str | None = None
    checks: list[dict[str, Any]] | None = None
    checks_override: str | None = None
    execution: dict[str, Any] | None = None

    def fields(self) -> dict[str, Any]:
        return asdict(self)


EVIDENCE_FIELDS = tuple(Evidence.__dataclass_fields__)
