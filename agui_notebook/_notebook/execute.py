"""Re-execute the tutorial notebooks and save their outputs in place (what nbval compares against).

The notebooks in ``notebooks/`` keep their outputs so they read well on a code host, and CI runs
them with strict ``pytest --nbval`` (outputs compared). After changing a notebook, or anything
that changes what it prints, re-save the outputs with the same environment the test uses::

    agui-notebook notebooks --reexecute                  # every notebooks/*.ipynb
    python -m agui_notebook._notebook.execute notebooks/02_decisions.ipynb

Each notebook runs in a fresh ``python3`` kernel of this interpreter (jupyter_client starts a
kernelspec whose command is ``python`` with ``sys.executable``), in the notebook's own directory,
with ``AGUI_NOTEBOOK_POLICY`` set (default ``approve``: the test command's value), so a card's
decision comes from the policy instead of a click, and ``AGUI_NOTEBOOK_STORE`` points at a
temporary file unless it is set (the tutorials' threads stay out of your own store). Cell ids,
sources and metadata are kept (but execution timings, which would change every diff); only
outputs and execution counts change. A cell that fails stops the notebook and nothing is written.

What is saved for a chat view: by default its static forms only, the transcript (``text/plain``)
and the inert HTML (``text/html``) as they were when its turn ended. Every viewer shows those
without a kernel and without JavaScript: JupyterLab, Notebook 7, VS Code, a code host,
``jupyter nbconvert --to html``. With ``store_widget_state=True`` (``--widget-state``) the widget
reference and the widgets' state are saved as well: JupyterLab then restores the live card
(inert, until the cell runs again), but nbconvert's HTML shows a widget only where JavaScript runs
and can fetch the widget manager from a CDN; its pages no longer carry the static forms.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["default_notebooks", "reexecute"]

ENV_VAR = "AGUI_NOTEBOOK_POLICY"
STORE_ENV = "AGUI_NOTEBOOK_STORE"


def default_notebooks(root: Path | None = None) -> list[Path]:
    """``notebooks/*.ipynb`` of the checkout (or of ``root``), in name order."""
    base = root if root is not None else Path.cwd()
    return sorted((base / "notebooks").glob("*.ipynb"))


@contextmanager
def _environment(name: str, value: str) -> Iterator[None]:
    """Set one environment variable for the kernels started inside (kernels inherit it)."""
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


def reexecute(
    paths: Sequence[Path | str],
    *,
    policy: str = "approve",
    timeout: int = 120,
    store_widget_state: bool = False,
) -> None:
    """Run each notebook top to bottom and save it in place with the new outputs.

    ``policy`` is the ``AGUI_NOTEBOOK_POLICY`` the kernels see; ``timeout`` bounds each cell
    (seconds). ``store_widget_state`` keeps the widget references and saves the widgets' state
    in the notebook's metadata (see the module docstring for what that costs).
    """
    import nbformat
    from nbclient import NotebookClient

    with contextlib.ExitStack() as stack:
        stack.enter_context(_environment(ENV_VAR, policy))
        if not os.environ.get(STORE_ENV):
            scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="agui-notebooks-"))
            stack.enter_context(_environment(STORE_ENV, str(Path(scratch) / "store.sqlite3")))
        for raw in paths:
            path = Path(raw)
            nb = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
            client = NotebookClient(
                nb,
                timeout=timeout,
                kernel_name="python3",
                store_widget_state=store_widget_state,
                record_timing=False,  # timestamps would change every re-save's diff
                resources={"metadata": {"path": str(path.parent.resolve())}},
            )
            client.execute()  # raises CellExecutionError on the first failing cell
            for cell in nb.cells:
                cell.metadata.pop("execution", None)  # timings an earlier save recorded
            if not store_widget_state:
                nb.metadata.pop("widgets", None)
                for cell in nb.cells:
                    for output in cell.get("outputs", []):
                        _keep_static_forms(output)
            nbformat.validate(nb)
            text = nbformat.writes(nb)  # type: ignore[no-untyped-call]
            path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _keep_static_forms(output: dict[str, Any]) -> None:
    """A widget output that has a static HTML form is saved as that form alone.

    Without the widgets' state the reference would show as "model not found" in JupyterLab,
    where the HTML reads as the card did.
    """
    data = output.get("data")
    if isinstance(data, dict) and WIDGET_VIEW in data and "text/html" in data:
        del data[WIDGET_VIEW]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agui_notebook._notebook.execute",
        description="Re-execute notebooks and save their outputs in place (for strict nbval).",
    )
    parser.add_argument(
        "paths", nargs="*", type=Path, help="notebooks (default: notebooks/*.ipynb)"
    )
    parser.add_argument(
        "--policy", default="approve", help=f"{ENV_VAR} for the kernels (default: approve)"
    )
    parser.add_argument("--timeout", type=int, default=120, help="seconds per cell (default: 120)")
    parser.add_argument(
        "--widget-state",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="also save the widget references and the widgets' state (default: the chat "
        "views' static text and HTML only, which every viewer shows without a kernel)",
    )
    args = parser.parse_args(argv)
    paths = args.paths or default_notebooks()
    if not paths:
        parser.error("no notebooks given and none in ./notebooks/")
    for path in paths:
        print(f"executing {path}", file=sys.stderr)
        reexecute(
            [path],
            policy=args.policy,
            timeout=args.timeout,
            store_widget_state=args.widget_state,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
