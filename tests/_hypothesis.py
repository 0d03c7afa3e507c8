"""Hypothesis profiles of the suite, chosen by ``HYPOTHESIS_PROFILE`` (tests/conftest.py loads one
before any test module is imported).

    ci       the default (scripts/test, CI, a plain ``pytest``): each property test's own number of
             examples, and the example database in the cache directory, so a failure found in one
             run is tried first in the next ones, in CI's fresh clones too
    nightly  20 times the examples of every property test (a few minutes): for a scheduled or
             manual long run, ``HYPOTHESIS_PROFILE=nightly pytest tests/protocol tests/state tests/thread -k "fast or propert"``

The database is ``$AGUI_HYPOTHESIS_DB`` when set, else ``agui-notebook/hypothesis`` in
``$XDG_CACHE_HOME`` (default ``~/.cache``). It only replays examples that once failed: a test
never passes or fails because of what an earlier run left.

A test with its own ``max_examples`` writes it as ``examples(n)``, so the nightly profile scales it
too (an explicit value wins over a profile's).
"""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

PROFILE_ENV = "HYPOTHESIS_PROFILE"
#: How many times each test's own number of examples a profile runs.
SCALE = {"ci": 1, "nightly": 20}
DEFAULT = "ci"
_loaded = DEFAULT


def database_dir() -> Path:
    given = os.environ.get("AGUI_HYPOTHESIS_DB", "").strip()
    if given:
        return Path(given).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(cache) / "agui-notebook" / "hypothesis"


def load() -> str:
    """Register the profiles and load the one ``HYPOTHESIS_PROFILE`` names (``ci`` if unset)."""
    global _loaded
    database = DirectoryBasedExampleDatabase(database_dir())
    settings.register_profile("ci", max_examples=100, database=database, print_blob=True)
    settings.register_profile(
        "nightly", parent=settings.get_profile("ci"), max_examples=100 * SCALE["nightly"]
    )
    name = os.environ.get(PROFILE_ENV, "").strip() or DEFAULT
    if name not in SCALE:
        raise ValueError(f"{PROFILE_ENV}={name!r}: the profiles are {', '.join(SCALE)}")
    settings.load_profile(name)
    _loaded = name
    return name


def loaded() -> str:
    return _loaded


def examples(n: int) -> int:
    """``n`` examples under ``ci``, scaled by the loaded profile."""
    return n * SCALE[_loaded]
