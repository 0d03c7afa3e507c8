"""The property tests keep what they find and can run long (issue 29; tests/_hypothesis.py).

Every Hypothesis test of the suite runs under the loaded profile's example database (in the cache
directory, which outlives CI's fresh clones), the properties of threads run hundreds of examples,
and ``HYPOTHESIS_PROFILE=nightly`` multiplies every test's examples.
"""

from __future__ import annotations

import importlib
import inspect
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

from tests import _hypothesis

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
# The property tests of threads and of the fast paths, and the few @given tests elsewhere: every
# test module below tests/ that uses hypothesis (as a dotted name).
MODULES = sorted(
    ".".join(p.relative_to(ROOT).with_suffix("").parts)
    for p in TESTS.rglob("test_*.py")
    if "from hypothesis import" in p.read_text(encoding="utf-8")
    and p.resolve() != Path(__file__).resolve()
    and "servers" not in p.parts
)


def given_tests(module: ModuleType) -> dict[str, settings]:
    """Each @given test of ``module`` with the settings it runs under."""
    return {
        name: getattr(fn, "_hypothesis_internal_use_settings", None) or settings.default
        for name, fn in inspect.getmembers(module, inspect.isfunction)
        if getattr(fn, "is_hypothesis_test", False)
    }


def test_the_default_profile_keeps_a_database_in_the_cache_dir() -> None:
    assert _hypothesis.loaded() == (os.environ.get("HYPOTHESIS_PROFILE") or "ci")
    database = settings.default.database
    assert isinstance(database, DirectoryBasedExampleDatabase)
    assert Path(database.path) == _hypothesis.database_dir()
    assert not Path(database.path).is_relative_to(ROOT)  # CI clones afresh: outside the clone


def test_the_database_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGUI_HYPOTHESIS_DB", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/var/cache/ci")
    assert _hypothesis.database_dir() == Path("/var/cache/ci/agui-notebook/hypothesis")
    monkeypatch.setenv("AGUI_HYPOTHESIS_DB", "/tmp/hyp")
    assert _hypothesis.database_dir() == Path("/tmp/hyp")


@pytest.mark.parametrize("name", MODULES)
def test_every_property_test_keeps_what_it_finds(name: str) -> None:
    found = given_tests(importlib.import_module(name))
    assert found, f"{name} mentions hypothesis but has no @given test"
    for test, used in found.items():
        assert isinstance(used.database, DirectoryBasedExampleDatabase), (name, test)
        assert Path(used.database.path) == _hypothesis.database_dir(), (name, test)


def test_the_properties_of_threads_run_hundreds_of_examples() -> None:
    found = given_tests(importlib.import_module("tests.thread.test_properties"))
    assert len(found) == 6
    scale = _hypothesis.SCALE[_hypothesis.loaded()]
    assert min(s.max_examples for s in found.values()) >= 300 * scale, {
        test: s.max_examples for test, s in found.items()
    }


def test_the_nightly_profile_multiplies_every_test() -> None:
    code = (
        "from hypothesis import settings\n"
        "from tests import _hypothesis\n"
        "print(_hypothesis.load(), _hypothesis.examples(300), settings.default.max_examples,"
        " settings.default.database is not None)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "HYPOTHESIS_PROFILE": "nightly"},
        check=True,
    )
    assert done.stdout.split() == ["nightly", "6000", "2000", "True"]
    wrong = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "HYPOTHESIS_PROFILE": "nightly-ish"},
    )
    assert wrong.returncode != 0 and "the profiles are ci, nightly" in wrong.stderr
