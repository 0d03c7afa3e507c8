"""`scripts/lab` as a new user meets it: the URL it prints opens the quickstart, the notebook it
opens is a copy, and approving a card there (then JupyterLab's autosave) leaves the repository
exactly as it was. Also: the saved chat views show as their static HTML before anything runs, and
once a turn ends the updated display is still the live card, with its state.

`scripts/lab` itself is started (with throwaway Jupyter config, settings and workspace
directories, a known token and a free port passed through to `jupyter lab`), and the copy goes
to a temporary AGUI_LAB_DIR, so the developer's own `.lab/` is never touched. JupyterLab's
autosave interval is set to 10 s (a user setting) so the test can wait past it.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest
from _jupyter import REPO_ROOT, USER_SETTINGS, JupyterServer, _wait_until_ready, free_port
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

SCRIPT = REPO_ROOT / "scripts" / "lab"
QUICKSTART = REPO_ROOT / "notebooks" / "01_quickstart.ipynb"
NAME = QUICKSTART.name
# Short, so the test can wait past it, but not shorter than a save takes on a loaded machine:
# at 2 s JupyterLab sometimes started a save while the previous one was still in flight and then
# took its own earlier save for a change on disk (its "File Changed" dialog).
AUTOSAVE_SECONDS = 10
WAIT_MS = 60_000
ARTIFACTS = REPO_ROOT / "artifacts" / "browser"


def git_state() -> tuple[str, str]:
    """`git status --porcelain` (untracked files included) and the diff of tracked files."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, check=True
        ).stdout

    return git("status", "--porcelain", "--untracked-files=all"), git("diff")


@pytest.fixture
def lab_script(tmp_path: Path) -> Iterator[tuple[JupyterServer, str]]:
    """scripts/lab running; yields the server and the URL it printed."""
    dirs = {n: tmp_path / n for n in ("config", "runtime", "data", "settings", "workspaces", "ipy")}
    for d in dirs.values():
        d.mkdir()
    settings = {
        **USER_SETTINGS,
        "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {
            "autosave": True,
            "autosaveInterval": AUTOSAVE_SECONDS,
        },
    }
    for rel, value in settings.items():
        target = dirs["settings"] / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(value), encoding="utf-8")
    (dirs["config"] / "jupyter_server_config.json").write_text(
        json.dumps({"LabApp": {"news_url": None}}), encoding="utf-8"
    )
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("JUPYTER", "PYTHONPATH")) and k != "AGUI_NOTEBOOK_POLICY"
    }
    env.update(
        AGUI_LAB_DIR=str(tmp_path / "lab"),
        JUPYTER_CONFIG_DIR=str(dirs["config"]),
        JUPYTER_RUNTIME_DIR=str(dirs["runtime"]),
        JUPYTER_DATA_DIR=str(dirs["data"]),
        JUPYTERLAB_SETTINGS_DIR=str(dirs["settings"]),
        JUPYTERLAB_WORKSPACES_DIR=str(dirs["workspaces"]),
        IPYTHONDIR=str(dirs["ipy"]),
        JUPYTER_PLATFORM_DIRS="1",
    )
    port, token = free_port(), secrets.token_hex(16)
    log_path = tmp_path / "scripts-lab.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [
                str(SCRIPT),
                "--no-browser",
                f"--port={port}",
                "--port-retries=0",
                f"--IdentityProvider.token={token}",
                f"--LabServerApp.user_settings_dir={dirs['settings']}",
                f"--LabServerApp.workspaces_dir={dirs['workspaces']}",
                "--ServerApp.terminals_enabled=False",
            ],
            cwd=REPO_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    server = JupyterServer(
        kind="lab",
        url=f"http://127.0.0.1:{port}/",
        token=token,
        root_dir=tmp_path / "lab" / "notebooks",
        python=str(REPO_ROOT / ".venv" / "bin" / "python"),
        process=process,
        log_path=log_path,
    )
    try:
        _wait_until_ready(server)
        printed = ""
        deadline = time.monotonic() + 30
        while not printed and time.monotonic() < deadline:
            found = re.search(rf"http://127\.0\.0\.1:{port}/\S*", server.read_log())
            printed = found.group(0) if found else ""
            time.sleep(0.2)
        yield server, printed
    finally:
        server.shutdown()


def test_scripts_lab_works_on_a_copy_and_leaves_the_repository_clean(
    lab_script: tuple[JupyterServer, str], page: Page
) -> None:
    server, printed = lab_script
    before = git_state()
    tracked = QUICKSTART.read_bytes()
    copy = server.root_dir / NAME
    assert copy.read_bytes() == tracked  # a fresh copy of the tracked notebook

    # The printed URL opens the quickstart itself, not the Launcher.
    assert urlparse(printed).path == f"/lab/tree/{NAME}", printed
    # (It carries "token=..." when the token was given, as here: the same path, our token.)
    page.goto(f"{server.url.rstrip('/')}{urlparse(printed).path}?token={server.token}")
    page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for(timeout=WAIT_MS)
    expect(page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current")).to_contain_text(NAME)
    expect(page.locator(".jp-Launcher")).to_have_count(0)

    # Before anything runs, the saved chat views show as their static HTML.
    nb = json.loads(tracked)
    send = next(i for i, c in enumerate(nb["cells"]) if "await chat.send(" in "".join(c["source"]))
    cell = page.locator(".jp-Notebook .jp-Cell").nth(send)
    saved = cell.locator(".jp-OutputArea .agui-static")
    expect(saved).to_contain_text("Decision: approved by policy: approve-all", timeout=WAIT_MS)
    expect(cell.locator(".agui-chat")).to_have_count(0)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    saved.first.screenshot(path=str(ARTIFACTS / "lab-saved-static.png"))

    server.run_all(page, NAME)
    card = cell.locator('.agui-card[data-card-id="card-1"]')
    expect(card).to_have_attribute("data-status", "pending", timeout=WAIT_MS)
    expect(cell.locator(".agui-static")).to_have_count(0)  # the live widget replaced it
    card.locator('button[data-action="approve"]').click()
    output = cell.locator(".jp-OutputArea")
    expect(output).to_contain_text("(by you) => success", timeout=WAIT_MS)  # the cell's result

    # The turn's end updated the display in place: still the live widget, not the static HTML,
    # and the card kept its state.
    expect(output.locator(".agui-chat")).to_have_count(1)
    expect(output.locator(".agui-static")).to_have_count(0)
    expect(card).to_have_attribute("data-status", "done")
    expect(card.locator(".agui-decision")).to_contain_text("approved by you")
    expect(output.locator(".agui-status").first).to_have_text("finished")

    # Autosave writes the copy, with the final transcript (proof the update reached the output
    # JupyterLab saves); the tracked notebook and the rest of the repository stay as they were.
    deadline = time.monotonic() + 120
    saved_text = ""
    while time.monotonic() < deadline and "Decision: approved by you" not in saved_text:
        time.sleep(0.5)
        saved_text = copy.read_text(encoding="utf-8")
    dialogs = page.locator(".jp-Dialog").all_inner_texts()
    assert dialogs == [], f"JupyterLab shows a dialog: {dialogs}"
    if "Decision: approved by you" not in saved_text:
        outputs = [o for c in json.loads(saved_text)["cells"] for o in c.get("outputs", [])]
        pytest.fail(f"autosave did not write the final card into the copy: {outputs}"[:4000])
    time.sleep(AUTOSAVE_SECONDS + 2)  # and one more autosave round
    assert QUICKSTART.read_bytes() == tracked
    assert git_state() == before
