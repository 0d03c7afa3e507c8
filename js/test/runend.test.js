// runend.js: the footer of a run: tokens (unknown totals left out, not 0), rows per usage entry,
// metadata and result collapsed; everything as text.
import { describe, expect, it } from "vitest";
import { countsText, runEndEntry, usageRows } from "../src/runend.js";
import { mount } from "./helpers.js";

const runEnd = (/** @type {any} */ over = {}) => ({
  kind: "run-end",
  id: "run-end:r1",
  runId: "r1",
  outcome: "success",
  usage: [],
  totals: { inputTokens: null, outputTokens: null, totalTokens: null },
  metadata: null,
  result: null,
  ...over,
});

describe("run end", () => {
  it("says the tokens of the run, leaving out a total nobody reported", () => {
    const e = runEndEntry(
      runEnd({
        usage: [{ inputTokens: 1200, outputTokens: 300, totalTokens: 1500 }],
        totals: { inputTokens: 1200, outputTokens: 300, totalTokens: 1500 },
      }),
    );
    expect(e.node.querySelector(".agui-run-end-head")?.textContent).toBe(
      "Run finished · Tokens: in 1,200 · out 300 · total 1,500",
    );
    expect(e.node.querySelector(".agui-usage-entries")).toBeNull(); // one plain entry: the totals say it all
    e.update(
      runEnd({
        usage: [{ inputTokens: 1200, outputTokens: 300 }],
        totals: { inputTokens: 1200, outputTokens: 300, totalTokens: null },
      }),
    );
    expect(e.node.querySelector(".agui-usage")?.textContent).toBe(" · Tokens: in 1,200 · out 300");
    e.update(runEnd({ outcome: "interrupt", metadata: { trace: "abc" } }));
    expect(e.node.querySelector(".agui-usage")).toBeNull();
    expect(e.node.querySelector(".agui-run-end-head")?.textContent).toBe("Run paused for a decision");
    expect(e.node.dataset.outcome).toBe("interrupt");
  });

  it("a row per entry with provider, model and only the counts present", () => {
    const usage = [
      {
        provider: "openai",
        model: "gpt-4o",
        inputTokens: 1000,
        outputTokens: 200,
        reasoningTokens: 50,
        cachedInputTokens: 300,
      },
      { model: "small", inputTokens: 10 },
    ];
    expect(usageRows(usage)).toEqual([
      "openai gpt-4o: in 1,000 · out 200 · reasoning 50 · cached in 300",
      "small: in 10",
    ]);
    expect(usageRows([{ inputTokens: 1 }])).toEqual([]);
    expect(usageRows([{ inputTokens: 1, cacheWriteInputTokens: 4 }])).toEqual(["(unnamed): in 1 · cache write 4"]);
    expect(usageRows([{}, {}])).toEqual(["(unnamed): no counts", "(unnamed): no counts"]);
    expect(countsText({ inputTokens: 0, outputTokens: null, totalTokens: "7" })).toBe("in 0");
  });

  it("metadata and the run's result are collapsed value trees; hostile text stays text", () => {
    const probe = '<img src=x onerror="alert(1)">';
    const { el } = mount({
      items: [
        runEnd({
          outcome: "error",
          usage: [{ provider: probe, model: "javascript:alert(2)", inputTokens: 5 }],
          totals: { inputTokens: 5, outputTokens: null, totalTokens: null },
          metadata: { [probe]: "https://evil.example/" },
          result: { answer: probe },
        }),
      ],
    });
    const item = /** @type {HTMLElement} */ (el.querySelector('.agui-run-end[data-kind="run-end"]'));
    expect(item.querySelector(".agui-run-end-head")?.textContent).toBe("Run failed · Tokens: in 5");
    expect(item.querySelector(".agui-usage-entry")?.textContent).toBe(`${probe} javascript:alert(2): in 5`);
    const [meta, result] = /** @type {HTMLDetailsElement[]} */ ([...item.querySelectorAll("details")]);
    expect([meta.open, result.open]).toEqual([false, false]);
    expect(meta.querySelector("summary")?.textContent).toBe("Run metadata");
    expect(meta.querySelector("th")?.textContent).toBe(probe);
    expect(result.querySelector("summary")?.textContent).toBe("Run result");
    expect(result.textContent).toContain(probe);
    expect(item.querySelectorAll("img,a,script").length).toBe(0);
  });
});
