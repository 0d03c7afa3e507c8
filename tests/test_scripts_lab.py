"""scripts/lab's copy of the notebooks: made fresh, refreshed when untouched, kept when changed.

`scripts/lab --version` runs everything scripts/lab does before JupyterLab starts (the venv check
and the copy), then `jupyter lab --version`, which exits at once. The copy goes to a temporary
AGUI_LAB_DIR; the tracked notebooks are only read. tests/browser/test_lab_copy.py runs the real
thing: JupyterLab, a click, autosave.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"


def run_lab(lab_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
    env["AGUI_LAB_DIR"] = str(lab_dir)
    return subprocess.run(
        [str(ROOT / "scripts" / "lab"), "--version"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )


def test_the_copy_is_made_refreshed_and_never_clobbered(tmp_path: Path) -> None:
    before = {p.name: p.read_bytes() for p in NOTEBOOKS.iterdir() if p.is_file()}
    copy = tmp_path / "notebooks"

    first = run_lab(tmp_path)
    copied = {p.name for p in copy.iterdir()}
    assert "01_quickstart.ipynb" in copied and "_msaf_scripted.py" in copied
    assert not copied & {"conftest.py", "nbval_sanitize.cfg"}  # test configuration stays home
    for name in copied:
        assert (copy / name).read_bytes() == before[name]
    assert f"on a copy of notebooks/ in {copy}" in first.stderr

    # A copy the user changed is kept, and the warning names it.
    edited = copy / "02_decisions.ipynb"
    edited.write_text('{"edited": true}', encoding="utf-8")
    # An untouched copy of an older tracked version (its stamp says it is what was copied) is
    # replaced by the tracked one.
    older = copy / "03_headless_and_regression.ipynb"
    older.write_text('{"older": true}', encoding="utf-8")
    stamp = tmp_path / "copied" / f"{older.name}.sha256"
    stamp.write_text(hashlib.sha256(older.read_bytes()).hexdigest(), encoding="utf-8")

    second = run_lab(tmp_path)
    assert edited.read_text(encoding="utf-8") == '{"edited": true}'
    assert f"kept your changed copy {edited}" in second.stderr
    assert older.read_bytes() == before[older.name]
    assert f"updating {older}" in second.stderr
    assert {p.name: p.read_bytes() for p in NOTEBOOKS.iterdir() if p.is_file()} == before
