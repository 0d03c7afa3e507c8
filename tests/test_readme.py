"""The README is short and true (issues 18 and 42): its script runs as shown, its two commands
are the ones the site includes, its links lead somewhere, and what it says `scripts/test` needs
and sets up is what scripts/_bootstrap.sh does."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
BOOTSTRAP = (ROOT / "scripts" / "_bootstrap.sh").read_text(encoding="utf-8")
#: The issue's bound: what it is, the two commands, the quickstart, the script, the links.
MAX_LINES = 180


def python_block_after(heading: str) -> str:
    start = README.index(heading)
    fence = README.index("```python\n", start) + len("```python\n")
    return README[fence : README.index("```", fence)]


def snippet(name: str) -> str:
    """The README's part between ``--8<-- [start:name]`` and ``[end:name]``: what docs pages
    include from it (pymdownx.snippets)."""
    start = README.index(f"<!-- --8<-- [start:{name}] -->\n")
    end = README.index(f"<!-- --8<-- [end:{name}] -->")
    return README[start:end]


def test_the_readme_stays_short() -> None:
    assert len(README.splitlines()) <= MAX_LINES


@pytest.mark.timeout(180)
def test_the_script_form_runs_to_the_transfer(tmp_path: Path) -> None:
    code = python_block_after("### As a script")
    assert "asyncio.run(" in code and "policy=" in code  # nobody clicks in a script
    script = tmp_path / "transfer.py"
    script.write_text(code, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "AGUI_NOTEBOOK_POLICY"}
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=150,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "True policy: approve-all"  # completed, and who decided
    assert lines[1].startswith("Transferred 500.00 USD from 1234567890 to 0987654321")
    assert lines[2].startswith("transfer_money(") and lines[2].endswith(
        "-> approve (by policy: approve-all) => success"
    )


def test_the_two_commands_are_shown_and_included_by_the_site() -> None:
    commands = re.findall(r"^(scripts/\w+)\s+#", snippet("two-commands"), re.MULTILINE)
    assert commands == ["scripts/lab", "scripts/test"]
    assert all(os.access(ROOT / c, os.X_OK) for c in commands)
    page = (ROOT / "docs/getting-started.md").read_text(encoding="utf-8")
    assert '--8<-- "README.md:two-commands"' in page
    assert '--8<-- "README.md:prerequisites"' in page


def test_every_link_leads_somewhere() -> None:
    links = re.findall(r"\]\(([^)\s]+)\)", README)
    local = [link for link in links if not re.match(r"[a-z]+://", link)]
    assert "docs/api.md" in local and "docs/images/card-pending.png" in local  # it parses
    missing = [link for link in local if not (ROOT / link.split("#")[0]).exists()]
    assert missing == []


def test_the_prerequisites_name_every_venv_and_package_scripts_test_sets_up() -> None:
    """A newcomer once found `scripts/test` installing PostgreSQL with apt-get, which the README
    did not say, and three of its five server venvs named."""
    text = snippet("prerequisites")
    servers = sorted(p.parent.name for p in (ROOT / "tests" / "servers").glob("*/requirements.txt"))
    assert len(servers) >= 5
    assert [s for s in servers if f"`{s}`" not in text] == []
    packages = re.findall(r"apt-get install -y -q --no-install-recommends (\w+)", BOOTSTRAP)
    assert sorted(packages) == ["chromium", "postgresql"]
    for package in packages:
        assert f"apt-get install {package}" in text
    assert "sudo -n" in BOOTSTRAP and "`sudo -n`" in text
    script = (ROOT / "scripts" / "test").read_text(encoding="utf-8")
    venvs = set(re.findall(r'"\$REPO_ROOT/(\.venv[\w-]*)"', script))
    assert {".venv", ".venv-agui1", ".venv-docs"} <= venvs  # it parses
    assert [v for v in sorted(venvs) if f"`{v}`" not in text] == []
    assert "`.venv-servers/`" in text and "`js/node_modules`" in text
    # The Node the JS tools need, as node_is_recent_enough checks it (tests/test_scripts.py).
    assert "vite 7 needs 20.19+ or 22.12+" in BOOTSTRAP
    assert "Node.js 20.19 or newer (or 22.12+)" in text
