"""How much `import agui_notebook` costs over importing its direct dependencies.

    python bench/import_time.py [-n 15] [--python PATH] [--target 1.3]

Each sample is a fresh interpreter (`python -c "import ..."`), timed wall-clock from the parent;
both commands pay the same interpreter start-up, so the ratio is fair. Prints the medians, the
ratio (target <= 1.3x) and any heavy module that `import agui_notebook` drags in although only
the demo server or a Jupyter front end needs it, or that waits until it is first used
(jsonschema, so not among the dependencies timed). Exits 1 if the ratio misses the target or an
offender is imported, 2 if agui_notebook cannot be imported at all.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

PACKAGE = "agui_notebook"
DIRECT_DEPS = [
    "httpx",
    "httpx_sse",
    "pydantic",
    "ag_ui.core",
    "jsonpatch",
    "msgspec",
    "anywidget",
    "ipywidgets",
]
# Importing the package must not import these (the demo server and the Jupyter front ends load
# them only when asked for).
FORBIDDEN = [
    "uvicorn",
    "starlette",
    "fastapi",
    "jupyter_server",
    "jupyterlab",
    f"{PACKAGE}.demo",
    # A dependency, imported when a decision is first validated: importing it compiles the IRI
    # grammar of rfc3987-syntax (which every Jupyter server install brings), about a second.
    "jsonschema",
]


def time_import(python: str, modules: list[str], n: int) -> list[float]:
    code = "import " + ", ".join(modules)
    # One untimed run first, so the samples do not pay for a cold page cache or .pyc writing.
    subprocess.run([python, "-c", code], check=True, capture_output=True)
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        subprocess.run([python, "-c", code], check=True, capture_output=True)
        samples.append(time.perf_counter() - start)
    return samples


def imported_offenders(python: str, package: str, forbidden: list[str]) -> list[str]:
    code = f"import json, sys, {package}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([python, "-c", code], check=True, capture_output=True, text=True).stdout
    loaded = json.loads(out.strip().splitlines()[-1])
    found = []
    for f in forbidden:
        hits = [name for name in loaded if name == f or name.startswith(f + ".")]
        if hits:
            found.append(f"{f} ({len(hits)} modules)" if len(hits) > 1 else f)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=15, help="fresh processes per command")
    parser.add_argument("--python", default=sys.executable, help="interpreter to measure")
    parser.add_argument("--package", default=PACKAGE, help="package to import (for testing)")
    parser.add_argument("--target", type=float, default=1.3, help="maximum ratio")
    args = parser.parse_args(argv)

    try:
        cmd = [args.python, "-c", f"import {args.package}"]
        subprocess.run(cmd, check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError as exc:
        print(f"cannot import {args.package} with {args.python}:\n{exc.stderr}", file=sys.stderr)
        return 2

    forbidden = [f.replace(PACKAGE, args.package, 1) for f in FORBIDDEN]
    pkg = statistics.median(time_import(args.python, [args.package], args.n))
    deps = statistics.median(time_import(args.python, DIRECT_DEPS, args.n))
    ratio = pkg / deps
    offenders = imported_offenders(args.python, args.package, forbidden)

    print(f"python: {args.python}  samples: {args.n} fresh processes each")
    print(f"import {args.package:<40} median {pkg * 1000:8.1f} ms")
    print(f"import {'direct deps':<40} median {deps * 1000:8.1f} ms  ({', '.join(DIRECT_DEPS)})")
    verdict = "ok" if ratio <= args.target else "TOO SLOW"
    print(f"ratio {ratio:.2f}x (target <= {args.target}x): {verdict}")
    if offenders:
        print(f"importing {args.package} also imports: {', '.join(offenders)}")
    else:
        print(f"importing {args.package} imports none of: {', '.join(forbidden)}")
    return 0 if ratio <= args.target and not offenders else 1


if __name__ == "__main__":
    sys.exit(main())
