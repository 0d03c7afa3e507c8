"""A preview drawn on its card: the card on screen -> its 1,000-row DataFrame preview drawn.

Uses the browser tests' harness (tests/browser: JupyterLab, Debian's Chromium driven by
Playwright), as ``first_paint.py`` does. One notebook, one kernel, one page, the in-kernel demo
agent (``Agent.demo(text_delay=0)``). A chat with a preview for ``transfer_money`` whose function
returns the accounts after the transfer, a pandas DataFrame of 1,000 rows (the card draws its
HTML, as IPython formats it, in a sandboxed frame); ``--rounds`` cards a person approves by
clicking, after ``--warmup`` not counted.

Each figure runs from the first animation frame in which the card is in the page with a layout
box (the card appears, its preview still computing) to the first frame in which the preview's
frame has loaded its document and has been sized to it (the preview drawn). Both are the page's
clock (``performance.now()``). The kernel's share (the preview function and IPython's formatting,
in their thread) is printed beside it, from the section's ``preview.seconds``. Needs pandas (the
``test`` extra). Prints median and p95; no target (issue 43 asks for the figures).

    .venv/bin/python bench/preview_paint.py [--rounds 20] [--rows 1000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "browser"))

from _jupyter import JupyterServer, start_server  # noqa: E402
from playwright.sync_api import Locator, Page, expect, sync_playwright  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
TRANSFER = "Transfer ${n} from 1234567890 to 0987654321"

# For every card the page gains: the first frame it is visible, and the first frame its preview's
# frame is loaded and sized (its height set from its content).
PREVIEW_RECORDER = """
(() => {
  const records = (window.__aguiPreview = []);
  const seen = new WeakSet();
  const watch = (card) => {
    if (seen.has(card)) return;
    seen.add(card);
    const record = { id: card.dataset.cardId, visible: null, drawn: null };
    records.push(record);
    const frame = () => {
      const now = performance.now();
      if (record.visible === null && card.isConnected && card.getBoundingClientRect().height > 0)
        record.visible = now;
      const iframe = card.querySelector('.agui-preview[data-status="shown"] iframe.agui-preview-frame');
      const doc = iframe?.contentDocument;
      if (record.visible !== null && doc && doc.readyState === "complete" && iframe.style.height) {
        record.drawn = now;
        return;
      }
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  };
  new MutationObserver((mutations) => {
    for (const m of mutations)
      for (const added of m.addedNodes) {
        if (!(added instanceof Element)) continue;
        if (added.matches(".agui-card")) watch(added);
        for (const card of added.querySelectorAll(".agui-card")) watch(card);
      }
  }).observe(document, { childList: true, subtree: true });
})();
"""


def setup_cell(rows: int) -> str:
    return f"""\
import pandas as pd
from agui_notebook import Agent

agent = Agent.demo(text_delay=0, store=None)
accounts = pd.DataFrame({{
    "account": [f"{{n:010d}}" for n in range({rows} - 2)] + ["1234567890", "0987654321"],
    "balance": [float(n % 997) for n in range({rows})],
}})

def balances_after(args, context):
    after = accounts.copy()
    after.loc[after.account == args["from_account"], "balance"] -= args["amount"]
    after.loc[after.account == args["to_account"], "balance"] += args["amount"]
    return after

chat = agent.chat(timeout=300, previews={{"transfer_money": balances_after}})
"""


def turns_cell(rounds: int) -> str:
    return f"for n in range({rounds}):\n    await chat.send(f{TRANSFER!r})\nprint('PHASE-DONE')\n"


def wait_for(check: Any, what: str, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.02)
    raise TimeoutError(f"no {what} after {timeout:.0f} s")


def measure(page: Page, cell: Locator, rounds: int) -> list[dict[str, float]]:
    out: list[dict[str, float]] = []
    for n in range(1, rounds + 1):
        card_id = f"card-{n}"
        record = wait_for(
            lambda card_id=card_id: page.evaluate(
                "(id) => window.__aguiPreview.find((r) => r.id === id && r.drawn !== null) ?? null",
                card_id,
            ),
            f"preview of {card_id}",
            60,
        )
        card = cell.locator(f'.agui-card[data-card-id="{card_id}"]')
        out.append({"drawn": record["drawn"] - record["visible"]})
        card.locator('button[data-action="approve"]').click()
        expect(card).not_to_have_attribute("data-status", "pending", timeout=60_000)
    expect(cell.locator(".jp-OutputArea-output").last).to_contain_text("PHASE-DONE", timeout=60_000)
    return out


def summary(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(values), p95


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--rows", type=int, default=1_000)
    options = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-preview-"))
    lab: JupyterServer = start_server("lab", base)
    total = options.warmup + options.rounds
    kernel_cell = (
        "import json\n"
        "print(json.dumps([s['preview'].get('seconds') for i in chat.view.items"
        " if i['kind'] == 'card' for s in i['interrupts']]))\n"
    )
    lab.write_notebook("preview.ipynb", [setup_cell(options.rows), turns_cell(total), kernel_cell])
    started = time.perf_counter()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            context.set_default_timeout(30_000)
            page = context.new_page()
            page.add_init_script(PREVIEW_RECORDER)
            lab.open_notebook(page, "preview.ipynb")
            lab.run_all(page, "preview.ipynb")
            cells = page.locator(".jp-Notebook .jp-Cell")
            measured = measure(page, cells.nth(1), total)
            out = cells.nth(2).locator(".jp-OutputArea-output").last
            expect(out).to_contain_text("[", timeout=60_000)
            kernel = [float(s) * 1000 for s in json.loads(out.inner_text()) if s]
            browser.close()
    finally:
        lab.shutdown()
    wall = time.perf_counter() - started
    warm, counted = measured[: options.warmup], measured[options.warmup :]
    kernel = kernel[options.warmup :]
    drawn = summary([m["drawn"] for m in counted])
    in_kernel = summary(kernel) if kernel else (float("nan"), float("nan"))
    print(
        f"card on screen -> its preview drawn, a {options.rows:,}-row DataFrame, "
        f"{len(counted)} cards (JupyterLab, headless Chromium; {wall:.0f} s in all)"
    )
    print("  warm-up, not counted: " + ", ".join(f"{m['drawn']:.0f}" for m in warm) + " ms")
    print(f"  preview drawn: median {drawn[0]:6.1f} ms  p95 {drawn[1]:6.1f} ms")
    print(
        f"  of which in the kernel (the function and IPython's formatting, in their thread):"
        f" median {in_kernel[0]:5.1f} ms  p95 {in_kernel[1]:5.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
