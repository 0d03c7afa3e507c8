"""The public face: exactly these names, cheap to import, a command that explains itself."""

from __future__ import annotations

import subprocess
import sys

import agui_notebook
import agui_notebook.policies
import agui_notebook.record

PUBLIC = {
    "AGUIError",
    "Agent",
    "ConnectError",
    "Decision",
    "ExpiredInterrupt",
    "HTTPStatusError",
    "InvalidDecision",
    "NobodyCanClick",
    "NothingPending",
    "PendingInterrupt",
    "ProtocolError",
    "ResumeRefused",
    "RunAborted",
    "RunError",
    "RunRecord",
    "RunResult",
    "RunStream",
    "StreamTimeout",
    "SurfaceAction",
    "Thread",
    "ThreadBusy",
    "ToolCallInfo",
    "TransportError",
    "TruncatedRunError",
    "UnansweredInterrupts",
    "UnknownInterrupt",
    "__version__",
    "act",
    "answer",
    "approve",
    "cancel",
    "edit",
    "register_activity_renderer",
    "reject",
}


def test_all_lists_exactly_the_public_names() -> None:
    assert set(agui_notebook.__all__) == PUBLIC
    for name in PUBLIC:
        assert hasattr(agui_notebook, name), name
    public_modules = {n for n in dir(agui_notebook) if not n.startswith("_")} - PUBLIC
    # Submodules imported as a side effect are the only other public-looking attributes.
    assert public_modules <= {"policies", "record", "demo"}, public_modules


def test_policies_and_record_modules_list_their_names() -> None:
    for module in (agui_notebook.policies, agui_notebook.record):
        for name in module.__all__:
            assert hasattr(module, name), (module.__name__, name)


def test_errors_form_one_tree() -> None:
    for name in PUBLIC:
        value = getattr(agui_notebook, name)
        if isinstance(value, type) and issubclass(value, Exception):
            assert issubclass(value, agui_notebook.AGUIError), name


def test_import_does_not_load_servers_or_jupyter() -> None:
    code = (
        "import sys, agui_notebook\n"
        "banned = ['uvicorn', 'starlette', 'fastapi', 'jupyter_server', 'jupyterlab',\n"
        "          'agui_notebook.demo', 'nbclient', 'anywidget']\n"
        "print([m for m in banned if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_command_prints_version_and_subcommands() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "agui_notebook"], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith(f"agui-notebook {agui_notebook.__version__}")
    for command in ("demo-server", "notebooks"):
        assert command in out.stdout
        sub = subprocess.run(
            [sys.executable, "-m", "agui_notebook", command, "--help"],
            capture_output=True,
            text=True,
            check=True,
        )
        assert "usage: agui-notebook " + command in sub.stdout
