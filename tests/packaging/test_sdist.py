"""The sdist carries the committed bundle and everything to rebuild and check it.

The sdist is ``$AGUI_NOTEBOOK_SDIST`` (scripts/test builds one; its wheel is built from it, which
shows a wheel builds from the sdist without Node) or built here with ``python -m build --sdist``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
BUNDLE = "agui_notebook/static/chat.js"
# What rebuilding and checking the front end needs (besides node_modules, which npm ci makes).
JS_BUILD = ["js/package.json", "js/package-lock.json", "js/build.mjs", "js/jsconfig.json"]


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("AGUI_NOTEBOOK_SDIST")
    if given:
        path = Path(given)
        assert path.is_file(), f"AGUI_NOTEBOOK_SDIST={given} does not exist"
        return path
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--outdir", str(out), str(REPO_ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (path,) = out.glob("agui_notebook-*.tar.gz")
    return path


def _members(sdist: Path) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(sdist) as tf:
        # Each member is under "agui_notebook-<version>/".
        return {m.name.split("/", 1)[1]: m for m in tf.getmembers() if "/" in m.name}


def test_sdist_carries_the_committed_bundle(sdist: Path) -> None:
    members = _members(sdist)
    assert BUNDLE in members, f"{BUNDLE} missing from {sdist.name}"
    with tarfile.open(sdist) as tf:
        shipped = tf.extractfile(members[BUNDLE])
        assert shipped is not None
        assert shipped.read() == (REPO_ROOT / BUNDLE).read_bytes()


def test_sdist_carries_the_sources_and_the_build(sdist: Path) -> None:
    members = _members(sdist)
    missing = [name for name in JS_BUILD if name not in members]
    sources = sorted(p.name for p in (REPO_ROOT / "js" / "src").glob("*.js"))
    assert sources, "js/src/ has no sources"
    missing += [f"js/src/{name}" for name in sources if f"js/src/{name}" not in members]
    assert not missing, f"missing from {sdist.name}: {missing}"
    assert not [n for n in members if "node_modules" in n]
