"""First paint of an approval card: the interrupt's last byte in the kernel -> the card on screen.

Uses the browser tests' harness (tests/browser: JupyterLab, Debian's Chromium driven by
Playwright). One notebook, one kernel, one page; the in-kernel demo agent
(``Agent.demo(text_delay=0)``, its store a file in the server's temporary directory) keeps it
free of any LLM. Two phases, each ``--rounds`` cards a person approves by clicking:

- short: a fresh chat in its own cell; each turn is a transfer whose card waits for the click;
- long: another fresh chat in the next cell first runs ``--turns`` turns (default 1,000) in the
  same view with a policy approving every card (plain questions, every fifth turn a transfer, as
  bench/turns.py does), then drops the policy and raises the measured cards below them.

Each figure runs from the moment the kernel's parser takes the RUN_FINISHED that ends the run on
its interrupt (``time.time()`` in the kernel, recorded by a bench-only subclass of the parser the
setup cell installs) to the first animation frame in which the card's element is in the page
with a layout box (a MutationObserver sees it inserted; ``performance.timeOrigin +
performance.now()`` in the page). Both are the same machine's wall clock. The insertion time is
printed too, so the frame's share shows. Prints median and p95 of each phase and the ratio of
the medians; exits 1 when the short median is over ``--target-ms`` (100) or long/short is over
``--max-ratio`` (1.5), the targets of issue 28.

    .venv/bin/python bench/first_paint.py [--rounds 15] [--turns 1000]
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
TARGET_MS = 100.0
MAX_RATIO = 1.5
TRANSFER = "Transfer ${n} from 1234567890 to 0987654321"

# Every card element the page gains: when it was inserted, and the first animation frame in
# which it has a layout box (the frame that paints it). Same clock as the kernel's time.time().
PAINT_RECORDER = """
(() => {
  const now = () => performance.timeOrigin + performance.now();
  const records = (window.__aguiPaint = []);
  const seen = new WeakSet();
  const watch = (node) => {
    if (seen.has(node)) return;
    seen.add(node);
    const record = { id: node.dataset.cardId, inserted: now(), visible: null };
    records.push(record);
    const frame = () => {
      const box = node.getBoundingClientRect();
      if (node.isConnected && node.checkVisibility() && box.height > 0) record.visible = now();
      else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  };
  // When a kernel message that carries a pending card reaches the page (before any widget code).
  const arrivals = (window.__aguiArrivals = []);
  const decoder = new TextDecoder();
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        const t = now();
        const data = event.data;
        const text = typeof data === "string" ? data : data instanceof ArrayBuffer ? decoder.decode(data) : "";
        if (/"kind": ?"card"/.test(text) && /"status": ?"pending"/.test(text)) arrivals.push(t);
      });
    }
  };
  new MutationObserver((mutations) => {
    for (const m of mutations) {
      for (const added of m.addedNodes) {
        if (!(added instanceof Element)) continue;
        if (added.matches(".agui-card")) watch(added);
        for (const card of added.querySelectorAll(".agui-card")) watch(card);
      }
    }
  }).observe(document, { childList: true, subtree: true });
})();
"""


def setup_cell(store: Path, marks: Path) -> str:
    """Installs the bench's parser in the kernel: it notes when a run's closing RUN_FINISHED
    (outcome: interrupt) is taken, while the bench is measuring."""
    return f"""\
import json, time
import agui_notebook._thread as _thread
from agui_notebook._chat.cards import CardDeck
from agui_notebook import Agent
from agui_notebook.policies import approve_all

MEASURING = {{"on": False}}
_MARKS = open({str(marks)!r}, "a", buffering=1)

class _TimedParser(_thread.EventParser):
    def parse(self, data):
        arrived = time.time()
        events = super().parse(data)
        if MEASURING["on"] and '"RUN_FINISHED"' in data and '"interrupt"' in data:
            _MARKS.write(json.dumps({{"finished": arrived * 1000}}) + "\\n")
        return events

_new_card = CardDeck.new_card

def _timed_new_card(self, view, interrupts):
    card = _new_card(self, view, interrupts)
    if MEASURING["on"]:  # its item is pushed to the comm by now
        _MARKS.write(json.dumps({{"pushed": time.time() * 1000, "card": card.id}}) + "\\n")
    return card

_thread.EventParser = _TimedParser
CardDeck.new_card = _timed_new_card
agent = Agent.demo(text_delay=0, store={str(store)!r})
"""


def measured_turns(rounds: int) -> str:
    return (
        'MEASURING["on"] = True\n'
        f"for n in range({rounds}):\n"
        f"    await chat.send(f{TRANSFER!r})\n"
        'MEASURING["on"] = False\n'
        'print("PHASE-DONE")\n'
    )


def short_cell(rounds: int) -> str:
    return f"chat = agent.chat(timeout=300)\n{measured_turns(rounds)}"


def long_cell(rounds: int, turns: int) -> str:
    return (
        "chat = agent.chat(timeout=300, policy=approve_all())\n"
        f"for turn in range({turns}):\n"
        "    if turn % 5 == 4:\n"
        '        await chat.send(f"Transfer ${100 + turn} from checking to savings")\n'
        "    else:\n"
        '        await chat.send(f"What can you do for me? (question {turn})")\n'
        "    agent.demo_app.requests.clear()  # the demo's log of requests: a test aid\n"
        "chat.policy = None\n"
        f"{measured_turns(rounds)}"
    )


def read_marks(path: Path, kind: str) -> list[dict[str, Any]]:
    """The kernel's marks of one kind, in order: "finished" (RUN_FINISHED taken) or "pushed"
    (the card's item handed to the comm, with the card's id); times in ms."""
    if not path.exists():
        return []
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [line for line in lines if kind in line]


def wait_for(check: Any, what: str, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.02)
    raise TimeoutError(f"no {what} after {timeout:.0f} s")


def phase(
    page: Page, cell: Locator, marks: Path, rounds: int, timeout: float
) -> list[dict[str, Any]]:
    """Approve ``rounds`` cards in ``cell``; per card its kernel mark and its page record."""
    marks.write_text("")
    measured: list[dict[str, Any]] = []
    for n in range(1, rounds + 1):
        kernel_ms = wait_for(
            lambda n=n: read_marks(marks, "finished")[n - 1 : n], "kernel mark", timeout
        )[0]["finished"]
        push = wait_for(lambda n=n: read_marks(marks, "pushed")[n - 1 : n], "push", timeout)[0]
        card_id = push["card"]
        record = wait_for(
            lambda card_id=card_id, kernel_ms=kernel_ms: page.evaluate(
                "([id, since]) => window.__aguiPaint.find("
                "  (r) => r.id === id && r.inserted >= since && r.visible !== null) ?? null",
                [card_id, kernel_ms],
            ),
            f"paint of {card_id}",
            timeout,
        )
        arrived = page.evaluate(
            "(t) => window.__aguiArrivals.find((a) => a >= t) ?? null", kernel_ms
        )
        measured.append(
            {
                "card": card_id,
                "arrived": None if arrived is None else arrived - kernel_ms,
                "pushed": push["pushed"] - kernel_ms,
                "inserted": record["inserted"] - kernel_ms,
                "visible": record["visible"] - kernel_ms,
            }
        )
        card = cell.locator(f'.agui-card[data-card-id="{card_id}"]')
        card.locator('button[data-action="approve"]').click()
        expect(card).not_to_have_attribute("data-status", "pending", timeout=timeout * 1000)
    expect(cell.locator(".jp-OutputArea-output").last).to_contain_text(
        "PHASE-DONE", timeout=timeout * 1000
    )
    return measured


def summary(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(values), p95


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--turns", type=int, default=1_000)
    parser.add_argument("--target-ms", type=float, default=TARGET_MS)
    parser.add_argument("--max-ratio", type=float, default=MAX_RATIO)
    parser.add_argument("--warmup", type=int, default=3, help="short-phase cards not counted")
    options = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-paint-"))
    lab: JupyterServer = start_server("lab", base)
    marks = base / "marks.jsonl"
    cells = [
        setup_cell(base / "store.sqlite3", marks),
        short_cell(options.warmup + options.rounds),
        long_cell(options.rounds, options.turns),
    ]
    lab.write_notebook("paint.ipynb", cells)
    started = time.perf_counter()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            context.set_default_timeout(30_000)
            page = context.new_page()
            page.add_init_script(PAINT_RECORDER)
            lab.open_notebook(page, "paint.ipynb")
            lab.run_all(page, "paint.ipynb")
            notebook_cells = page.locator(".jp-Notebook .jp-Cell")
            short = phase(page, notebook_cells.nth(1), marks, options.warmup + options.rounds, 60)
            warm, short = short[: options.warmup], short[options.warmup :]
            built = time.perf_counter()
            long = phase(page, notebook_cells.nth(2), marks, options.rounds, 1800)
            long_wait = time.perf_counter() - built
            items = page.evaluate(
                "() => document.querySelectorAll('.jp-Cell')[2]"
                ".querySelectorAll('.agui-item').length"
            )
            browser.close()
    finally:
        lab.shutdown()
    wall = time.perf_counter() - started

    print(
        f"interrupt's RUN_FINISHED in the kernel -> card in the page, {options.rounds} cards each "
        f"(JupyterLab, headless Chromium; {wall:.0f} s in all)"
    )
    if warm:
        first = ", ".join(f"{v['visible']:.0f}" for v in warm)
        print(f"  warm-up, not counted (the widget's first cards): {first} ms")
    medians = {}
    for name, values in (
        ("short chat", short),
        (f"after {options.turns} turns", long),
    ):
        visible = summary([v["visible"] for v in values])
        inserted = summary([v["inserted"] for v in values])
        pushed = summary([v["pushed"] for v in values])
        arrived = summary([v["arrived"] for v in values if v["arrived"] is not None] or [-1])
        medians[name] = visible[0]
        print(
            f"  {name:18} visible: median {visible[0]:6.1f} ms  p95 {visible[1]:6.1f} ms"
            f"   (kernel pushed the card: {pushed[0]:5.1f} / {pushed[1]:5.1f} ms;"
            f" in the page: {arrived[0]:5.1f} / {arrived[1]:5.1f} ms;"
            f" in the DOM: {inserted[0]:5.1f} / {inserted[1]:5.1f} ms)"
        )
    print(f"  long transcript: {items} items in the view, built in {long_wait:.0f} s")
    short_median, long_median = medians.values()
    ratio = long_median / short_median
    print(f"  ratio long / short (medians): {ratio:.2f}x")
    ok_target = short_median <= options.target_ms
    ok_ratio = ratio <= options.max_ratio
    print(
        f"  target: median <= {options.target_ms:.0f} ms -> {'PASS' if ok_target else 'MISS'}; "
        f"long/short <= {options.max_ratio:.1f}x -> {'PASS' if ok_ratio else 'MISS'}"
    )
    return 0 if ok_target and ok_ratio else 1


if __name__ == "__main__":
    sys.exit(main())
