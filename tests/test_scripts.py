"""scripts/test cannot go green by accident (issue 18).

A run narrowed by ``AGUI_TEST_ONLY`` or by pytest arguments, or one in which a step did not run,
prints PARTIAL (naming what did not run) and exits non-zero, whatever ``CI`` says; only a full,
unnarrowed run of passing steps prints SUCCESS. The verdict is ``summarize`` in
scripts/_summary.sh, run here on stub steps; the real script is run in its dry-run mode (no set-up,
no step) to check its selection, refusals and wiring.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "test"
SUMMARY = ROOT / "scripts" / "_summary.sh"
CHECKS = [
    "vitest", "tsc", "biome", "bundle", "ruff", "mypy", "build", "docs", "core-agui1", "pytest",
    "browser",
]  # fmt: skip
#: CI gives a run 90 minutes, set-up included; the checks' limits must leave room for set-up.
CI_SECONDS = 90 * 60
SUITE_BUDGET = 80 * 60


def clean_env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CI", "AGUI_TEST_ONLY", "AGUI_TEST_DRY_RUN", "NO_COLOR")
    }
    env.update(extra)
    return env


def summarize(
    steps: list[tuple[str, str]], notes: tuple[str, ...] | list[str] = ()
) -> tuple[int, str]:
    def array(values: list[str]) -> str:
        return "(" + " ".join(shlex.quote(v) for v in values) + ")"

    code = (
        f"source {shlex.quote(str(SUMMARY))}\n"
        f"STEP_NAMES={array([n for n, _ in steps])}\n"
        f"STEP_STATUS={array([s for _, s in steps])}\n"
        f"STEP_SECS={array(['1'] * len(steps))}\n"
        f"STEP_LIMIT={array(['60'] * len(steps))}\n"
        f"SUBSET_NOTES={array(list(notes))}\n"
        "summarize 42\n"
    )
    done = subprocess.run(
        ["bash", "-c", code], capture_output=True, text=True, timeout=30, env=clean_env()
    )
    return done.returncode, done.stdout + done.stderr


def run_script(*args: str, **env: str) -> tuple[int, str]:
    """scripts/test in its own process group. Its venv interpreter is made unusable, so a script
    that ignored the dry run would fail at once instead of installing anything."""
    process = subprocess.Popen(
        ["bash", str(SCRIPT), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
        env=clean_env(PYTHON_FOR_VENV="/nonexistent/python3", **env),
        start_new_session=True,
    )
    try:
        out, _ = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # the script and whatever it started
        process.communicate()
        raise
    return process.returncode, out


def verdict(output: str) -> str:
    found = re.findall(r"scripts/test: (SUCCESS|PARTIAL|FAILED)", output)
    assert len(found) == 1, output
    return found[0]


# -- the verdict on stub steps ------------------------------------------------------------------

ALL_OK = [(name, "ok") for name in [*CHECKS, "nbval"]]


def test_every_step_ok_and_nothing_narrowed_is_a_success() -> None:
    rc, out = summarize(ALL_OK)
    assert (rc, verdict(out)) == (0, "SUCCESS")


def test_a_narrowed_run_is_partial_even_when_every_step_that_ran_passed() -> None:
    steps = [(n, "ok" if n in ("ruff", "mypy") else "not selected") for n, _ in ALL_OK]
    rc, out = summarize(steps, ["AGUI_TEST_ONLY=ruff,mypy"])
    assert (rc, verdict(out)) == (2, "PARTIAL")
    assert "did not run: vitest (not selected), tsc (not selected)" in out
    assert "AGUI_TEST_ONLY=ruff,mypy" in out and "SUCCESS" not in out


def test_pytest_arguments_make_a_run_partial() -> None:
    rc, out = summarize(ALL_OK, ["pytest arguments '-k browser'"])
    assert (rc, verdict(out)) == (2, "PARTIAL")
    assert "-k browser" in out


def test_a_step_that_skipped_itself_makes_a_run_partial() -> None:
    steps = [*ALL_OK[:-1], ("nbval", "skipped")]
    rc, out = summarize(steps)
    assert (rc, verdict(out)) == (2, "PARTIAL")
    assert "nbval (skipped)" in out


def test_a_failed_step_is_a_failure_whatever_else() -> None:
    steps = [("ruff", "FAILED (exit 1)"), ("mypy", "ok"), ("pytest", "not selected")]
    rc, out = summarize(steps, ["AGUI_TEST_ONLY=ruff,mypy"])
    assert (rc, verdict(out)) == (1, "FAILED")


# -- the real script, dry ------------------------------------------------------------------------


def test_every_check_the_script_runs_can_be_selected() -> None:
    text = SCRIPT.read_text(encoding="utf-8")
    steps = re.findall(r"^check_step ([\w-]+) ", text, re.MULTILINE)
    listed = re.search(r"^CHECKS=\(([^)]*)\)", text, re.MULTILINE)
    assert listed is not None and steps == listed.group(1).split()
    assert set(CHECKS) <= set(steps)


@pytest.mark.parametrize("ci", ["", "false"])
def test_the_script_narrowed_by_agui_test_only_says_partial(ci: str) -> None:
    rc, out = run_script(AGUI_TEST_DRY_RUN="1", AGUI_TEST_ONLY="ruff,mypy", CI=ci)
    assert (rc, verdict(out)) == (2, "PARTIAL")
    assert "vitest (not selected)" in out and "nbval (not selected)" in out
    assert "ruff (not run (dry run))" in out


def test_the_script_with_pytest_arguments_says_partial() -> None:
    rc, out = run_script("-k", "browser", AGUI_TEST_DRY_RUN="1")
    assert (rc, verdict(out)) == (2, "PARTIAL")
    assert "pytest arguments '-k browser'" in out


def test_a_dry_run_of_everything_is_still_not_a_success() -> None:
    rc, out = run_script(AGUI_TEST_DRY_RUN="1")
    assert (rc, verdict(out)) == (2, "PARTIAL")


@pytest.mark.parametrize("ci", ["true", "1", "yes", "TRUE"])
def test_ci_refuses_a_narrowed_run_whatever_its_spelling(ci: str) -> None:
    rc, out = run_script(AGUI_TEST_DRY_RUN="1", AGUI_TEST_ONLY="ruff", CI=ci)
    assert rc != 0 and "CI runs every check" in out.replace(f"(CI={ci}) ", "")
    assert "SUCCESS" not in out


def step_limits() -> dict[str, int]:
    text = SCRIPT.read_text(encoding="utf-8")
    table = re.search(r"^declare -A STEP_LIMITS=\((.*?)^\)", text, re.MULTILINE | re.DOTALL)
    assert table is not None, "scripts/test has no STEP_LIMITS table"
    return {k: int(v) for k, v in re.findall(r"\[([\w-]+)\]=(\d+)", table.group(1))}


def test_every_check_has_a_limit_and_the_limits_fit_in_ci() -> None:
    """The limits once added up to more than CI's whole run (three pytest steps of 45 minutes and
    nbval's 20): a slow suite was cut off by CI with no summary instead of failing its step."""
    text = SCRIPT.read_text(encoding="utf-8")
    limits = step_limits()
    listed = re.search(r"^CHECKS=\(([^)]*)\)", text, re.MULTILINE)
    assert listed is not None and sorted(limits) == sorted(listed.group(1).split())
    budget = re.search(r"^SUITE_BUDGET=(\d+)$", text, re.MULTILINE)
    assert budget is not None and int(budget.group(1)) == SUITE_BUDGET < CI_SECONDS
    assert sum(limits.values()) <= SUITE_BUDGET, limits
    assert all(v > 0 for v in limits.values())
    # Every command a check runs goes through the limit: no bare timeout or unlimited pytest.
    assert "PYTEST_STEP_TIMEOUT" not in text and text.count("timeout --signal") == 1


def test_the_summary_prints_each_steps_time_and_limit() -> None:
    rc, out = run_script(AGUI_TEST_DRY_RUN="1")
    assert rc == 2  # a dry run is PARTIAL
    limits = step_limits()
    rows = {
        m.group(1): m.group(2)
        for m in re.finditer(r"^([\w-]+)\s+not run \(dry run\)\s+0\s+(\S+)$", out, re.MULTILINE)
    }
    assert {name: rows.get(name) for name in limits} == {k: str(v) for k, v in limits.items()}
    assert rows["venv"] == "-" and rows["venv-docs"] == "-"  # set-up: timed, not limited
    assert f"limits of the checks: {sum(limits.values())}s of a {SUITE_BUDGET}s budget" in out


def test_the_docs_step_builds_the_site_strictly() -> None:
    text = SCRIPT.read_text(encoding="utf-8")
    body = text[text.index("check_docs() {") : text.index("}", text.index("check_docs() {"))]
    assert "scripts/docs" in body and "$BUILD_DIR/site" in body
    assert "AGUI_NOTEBOOK_DOCS_SITE" in text  # the pytest step checks that build
    docs = (ROOT / "scripts" / "docs").read_text(encoding="utf-8")
    assert 'mkdocs" build --strict' in docs


def test_the_biome_step_lints_and_checks_the_format_of_the_front_end() -> None:
    """Biome is the JS side's ruff: pinned exactly (a new release may format differently), run
    read-only over js/ with warnings counted as failures."""
    text = SCRIPT.read_text(encoding="utf-8")
    start = text.index("check_biome() {")
    body = text[start : text.index("\n}\n", start)]
    assert "cd js && limited npx --no-install biome ci --error-on-warnings ." in body
    package = json.loads((ROOT / "js" / "package.json").read_text(encoding="utf-8"))
    assert re.fullmatch(r"\d+\.\d+\.\d+", package["devDependencies"]["@biomejs/biome"])
    config = (ROOT / "js" / "biome.jsonc").read_text(encoding="utf-8")
    assert '"src/**/*.js", "test/**/*.js"' in config


def test_an_unknown_check_name_is_refused_not_silently_run_as_nothing() -> None:
    rc, out = run_script(AGUI_TEST_DRY_RUN="1", AGUI_TEST_ONLY="ruff,myppy")
    assert rc != 0 and "unknown check 'myppy'" in out


# -- prerequisites the README states ------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "enough"),
    [
        ("v18.19.0", False),  # Debian 12's nodejs
        ("v20.18.1", False),
        ("v20.19.0", True),
        ("v20.20.2", True),
        ("v21.7.3", False),
        ("v22.11.0", False),
        ("v22.12.0", True),
        ("v24.1.0", True),
    ],
)
def test_node_that_is_too_old_for_js_tools_is_refused(
    tmp_path: Path, version: str, enough: bool
) -> None:
    fake = tmp_path / "node"
    fake.write_text(f"#!/bin/sh\necho {version}\n", encoding="utf-8")
    fake.chmod(0o755)
    code = f"source {shlex.quote(str(ROOT / 'scripts' / '_bootstrap.sh'))}; node_is_recent_enough"
    env = clean_env(PATH=f"{tmp_path}:{os.environ['PATH']}")
    done = subprocess.run(["bash", "-c", code], env=env, timeout=30, check=False)
    assert (done.returncode == 0) is enough
