// @ts-check
/**
 * The execution verdict on a decided tool call, after the resumed run: whether what ran is what
 * was decided (executed, not reported, unexpected, verified, a mismatch). Python writes the words
 * (_decisions/verdict.py); a verdict that warns is drawn as a warning, never left silent.
 */
import { h } from "./dom.js";
import { asText, isObj } from "./util.js";

/**
 * The verdict line of a section, or null when there is none yet.
 * @param {unknown} verdict the section's `verdict` field
 * @returns {HTMLElement | null}
 */
export function renderVerdict(verdict) {
  if (!isObj(verdict) || !asText(verdict.text)) return null;
  const warning = verdict.warning === true;
  const node = h("div", {
    cls: `agui-verdict${warning ? " agui-verdict-warning" : ""}`,
    data: { verdict: asText(verdict.verdict) || "unknown" },
    attrs: warning ? { role: "alert" } : {},
  });
  node.append(h("span", { cls: "agui-label", text: "Execution: " }), h("span", { text: asText(verdict.text) }));
  const detail = asText(verdict.detail);
  if (detail) node.append(h("div", { cls: "agui-verdict-detail agui-pre", text: detail }));
  return node;
}
