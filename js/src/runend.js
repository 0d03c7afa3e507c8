// @ts-check
/**
 * What a run reported at its end (`run-end` items): a footer with its token usage, one row per
 * usage entry when that says more than the totals, and its metadata and result as collapsed
 * value trees. A count the server did not report is left out: unknown is not 0.
 */
import { h } from "./dom.js";
import { itemShell } from "./items.js";
import { renderTree } from "./tree.js";
import { asText, fmtInt, isObj, safeJson } from "./util.js";

/** @typedef {import("./types.js").Entry} Entry */
/** @typedef {import("./types.js").TreeState} TreeState */

export const OUTCOME_TEXT = /** @type {Record<string, string>} */ ({
  success: "Run finished",
  interrupt: "Run paused for a decision",
  cancelled: "Run cancelled by the agent",
  error: "Run failed",
});

/** The counts of a usage entry, in the order shown, with their short names. */
export const COUNTS = /** @type {Array<[string, string]>} */ ([
  ["inputTokens", "in"],
  ["outputTokens", "out"],
  ["totalTokens", "total"],
  ["reasoningTokens", "reasoning"],
  ["cachedInputTokens", "cached in"],
  ["cacheWriteInputTokens", "cache write"],
]);
const TOTALS = new Set(["inputTokens", "outputTokens", "totalTokens"]);

/** @param {unknown} n */
const isCount = (n) => typeof n === "number" && Number.isFinite(n);

/**
 * "in 1,200 · out 300 · total 1,500" from the counts present (null and absent ones left out).
 * @param {unknown} counts
 * @param {Set<string>} [only]
 */
export function countsText(counts, only) {
  if (!isObj(counts)) return "";
  return COUNTS.filter(([key]) => (!only || only.has(key)) && isCount(counts[key]))
    .map(([key, short]) => `${short} ${fmtInt(counts[key])}`)
    .join(" · ");
}

/**
 * One row per usage entry, or none when the totals line already says it all.
 * @param {unknown} usage
 * @returns {string[]}
 */
export function usageRows(usage) {
  const entries = Array.isArray(usage) ? usage.filter(isObj) : [];
  const tellsMore =
    entries.length > 1 ||
    entries.some((e) => e.provider || e.model || COUNTS.some(([k]) => !TOTALS.has(k) && isCount(e[k])));
  if (!tellsMore) return [];
  return entries.map((e) => {
    const who = [e.provider, e.model].filter((x) => typeof x === "string" && x).join(" ");
    const counts = countsText(e);
    return `${who || "(unnamed)"}: ${counts || "no counts"}`;
  });
}

/** @param {string} title @param {unknown} value */
function collapsed(title, value) {
  /** @type {TreeState} */
  const tree = { expanded: new Set() };
  return h("details", { cls: "agui-run-end-value" }, [h("summary", { text: title }), renderTree(value, tree)]);
}

/** @param {any} item @returns {Entry} */
export function runEndEntry(item) {
  const node = itemShell("run-end", item, "agui-run-end");
  node.setAttribute("role", "note");
  let key = "";
  const update = (/** @type {any} */ it) => {
    const k = safeJson(it);
    if (k === key) return;
    key = k;
    const outcome = asText(it?.outcome);
    node.dataset.outcome = outcome;
    const tokens = countsText(it?.totals, TOTALS);
    const head = h("div", { cls: "agui-run-end-head" }, [
      h("span", {
        cls: "agui-label",
        text: OUTCOME_TEXT[outcome] ?? (outcome ? `Run ended (${outcome})` : "Run ended"),
      }),
    ]);
    if (tokens) head.append(h("span", { cls: "agui-usage", text: ` · Tokens: ${tokens}` }));
    const rows = usageRows(it?.usage);
    node.replaceChildren(head);
    if (rows.length)
      node.append(
        h(
          "ul",
          { cls: "agui-usage-entries" },
          rows.map((r) => h("li", { cls: "agui-usage-entry", text: r })),
        ),
      );
    if (it?.metadata !== null && it?.metadata !== undefined) node.append(collapsed("Run metadata", it.metadata));
    if (it?.result !== null && it?.result !== undefined) node.append(collapsed("Run result", it.result));
  };
  update(item);
  return { node, kind: "run-end", update, destroy() {} };
}
