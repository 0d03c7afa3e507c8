"""A brand-new venv with the wheel installed, its dependencies borrowed from the dev venv.

The wheel goes in by pip (the dev venv's pip driving the new venv with ``--python``), ``--no-deps``:
the package code comes only from the wheel. Its dependencies are borrowed by a ``.pth`` line naming
the dev venv's site-packages *after* the new venv's own (a plain path line: the dev venv's own .pth
files, among them the editable install of this checkout, are not processed), so there is no second
resolve and download of ~80 packages. ``also`` names distributions to install into the new venv for
real (``--no-deps``, pinned to the dev venv's versions), for their console scripts (``jupyter``).
"""

from __future__ import annotations

import importlib.metadata as md
import subprocess
import sys
import sysconfig
from pathlib import Path


def wheel_venv(wheel: Path, venv: Path, *, also: tuple[str, ...] = ()) -> Path:
    """Make ``venv``, install ``wheel`` (and ``also``) into it; its Python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    pinned = [f"{name}=={md.version(name)}" for name in also]
    index = ["--no-index"] if not also else []  # the wheel alone needs no index
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
         "--no-deps", *index, str(wheel), *pinned],
        check=True,
        timeout=300,
    )  # fmt: skip
    child_purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    dev_purelib = sysconfig.get_paths()["purelib"]
    Path(child_purelib, "_agui_test_dev_deps.pth").write_text(dev_purelib + "\n")
    return python
