"""Fixtures for real-browser tests: JupyterLab / Notebook 7 servers and a Playwright page.

    def test_x(jupyterlab, page):            # or notebook7, or jupyter_server (parametrized)
        jupyterlab.write_notebook("x.ipynb", ["print(1)"])
        jupyterlab.open_notebook(page, "x.ipynb")
        jupyterlab.run_all(page, "x.ipynb")

Servers serve a temporary copy of `jupyter_notebooks_dir` (the repo's notebooks/ by default;
override the fixture in a test module to serve another directory, or return None for an empty
root). Nothing here skips: if Chromium or the server cannot start, the test fails.

Chromium is Debian's /usr/bin/chromium (scripts/test installs it); Playwright never downloads a
browser. On failure a screenshot, the console log and the server log go to artifacts/browser/.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# _jupyter sits beside this file; make it importable whatever pytest's import mode.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _jupyter import REPO_ROOT, JupyterServer, Kind, PageLog, start_server

CHROMIUM = os.environ.get("AGUI_NOTEBOOK_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
ARTIFACTS = REPO_ROOT / "artifacts" / "browser"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


def _failed(request: pytest.FixtureRequest) -> bool:
    node = request.node
    return any(
        getattr(getattr(node, f"rep_{when}", None), "failed", False) for when in ("setup", "call")
    )


def _artifact_stem(request: pytest.FixtureRequest) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.nodeid)


# ------------------------------------------------------------------------------------ servers


@pytest.fixture
def jupyter_notebooks_dir() -> Path | None:
    """The directory copied into each server's root dir; override per module."""
    return REPO_ROOT / "notebooks"


@pytest.fixture
def start_jupyter(
    tmp_path_factory: pytest.TempPathFactory,
    jupyter_notebooks_dir: Path | None,
    request: pytest.FixtureRequest,
) -> Iterator[Callable[..., JupyterServer]]:
    """Factory: `start_jupyter("lab" | "notebook", notebooks_dir=...)` -> JupyterServer."""
    servers: list[JupyterServer] = []

    def start(kind: Kind, notebooks_dir: Path | None = jupyter_notebooks_dir) -> JupyterServer:
        server = start_server(kind, tmp_path_factory.mktemp(f"jupyter-{kind}"), notebooks_dir)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        if _failed(request):
            shutil.copyfile(server.log_path, f"{_artifact_stem(request)}.{server.kind}-server.log")


@pytest.fixture
def jupyterlab(start_jupyter: Callable[..., JupyterServer]) -> JupyterServer:
    return start_jupyter("lab")


@pytest.fixture
def notebook7(start_jupyter: Callable[..., JupyterServer]) -> JupyterServer:
    return start_jupyter("notebook")


@pytest.fixture(params=["lab", "notebook"], ids=["jupyterlab", "notebook7"])
def jupyter_server(
    request: pytest.FixtureRequest, start_jupyter: Callable[..., JupyterServer]
) -> JupyterServer:
    """Both front ends: a test using it runs once in JupyterLab and once in Notebook 7."""
    return start_jupyter(request.param)


# ------------------------------------------------------------------------------------ browser


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium (scripts/test does); "
            "never `playwright install`"
        )
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page_log() -> PageLog:
    return PageLog()


@pytest.fixture
def page(browser: Any, page_log: PageLog, request: pytest.FixtureRequest) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.on("console", page_log.console)
    page.on("pageerror", page_log.pageerror)
    yield page
    if _failed(request):
        stem = _artifact_stem(request)
        try:
            page.screenshot(path=f"{stem}.png", full_page=True)
        except Exception as exc:  # the page may be gone; the log still matters
            page_log.lines.append(f"[harness] screenshot failed: {exc}")
        Path(f"{stem}.console.log").write_text("\n".join(page_log.lines) + "\n", encoding="utf-8")
    context.close()
