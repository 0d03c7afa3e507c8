// @ts-check
/**
 * A section's checks, computed in the notebook: each check's result, and what a failure means for
 * the buttons. While a check runs, Approve waits; when one failed, Approve is off and "Approve
 * anyway" asks for a reason first (it travels with the decision as `override`, and the audit keeps
 * it). Python refuses the same decisions, whatever this module draws (_chat/informed.py).
 */
import { button, h, nextId } from "./dom.js";
import { asText, isObj } from "./util.js";

/**
 * What the checks allow now: `running` (Approve waits), `failed` (Approve is off, "anyway" with a
 * reason), else `ok` (also when there are none).
 * @param {unknown} checks the section's `checks` field
 * @returns {"ok" | "running" | "failed"}
 */
export function checksState(checks) {
  if (!isObj(checks)) return "ok";
  if (checks.passed === false) return "failed";
  if (checks.status === "running") return "running";
  return "ok";
}

/**
 * The checks part of a section: the results, the reason box and the "Approve anyway" button.
 * @param {(reason: string) => void} approveAnyway
 */
export function buildChecks(approveAnyway) {
  const node = h("div", { cls: "agui-checks" });
  node.hidden = true;
  const list = h("ul", { cls: "agui-check-list" });
  const summary = h("div", { cls: "agui-checks-summary", attrs: { role: "status" } });
  const rid = nextId("agui-override");
  const reason = h("textarea", {
    cls: "agui-input agui-override",
    attrs: { id: rid, rows: "2", placeholder: "Why send it although a check failed?" },
  });
  const anyway = button("Approve anyway", "approve-anyway", "Approve anyway (a reason is required)", "agui-danger");
  const problem = h("div", { cls: "agui-error agui-field-error", attrs: { "aria-live": "polite" } });
  problem.hidden = true;
  const override = h("div", { cls: "agui-field agui-override-field" }, [
    h("label", { attrs: { for: rid }, text: "Reason to send anyway (required; kept in the audit)" }),
    reason,
    problem,
    h("div", { cls: "agui-buttons" }, [anyway]),
  ]);
  override.hidden = true;
  node.append(list, summary, override);
  anyway.addEventListener("click", () => {
    const why = reason.value.trim();
    if (!why) {
      problem.textContent = "Give a reason first: it goes into the audit with the approval.";
      problem.hidden = false;
      reason.focus();
      return;
    }
    problem.hidden = true;
    approveAnyway(why);
  });
  /** @type {"ok" | "running" | "failed"} */
  let state = "ok";
  // Approve sends the proposed arguments: their checks hold it back, whatever an edit's say.
  /** @type {"ok" | "running" | "failed"} */
  let proposed = "ok";

  return {
    node,
    lockables: /** @type {Array<HTMLButtonElement | HTMLTextAreaElement>} */ ([reason, anyway]),
    /** @param {unknown} checks */
    show(checks) {
      state = checksState(checks);
      if (!isObj(checks) || checks.of !== "edited") proposed = state;
      node.hidden = !isObj(checks);
      if (!isObj(checks)) return;
      node.dataset.passed = state === "failed" ? "false" : state === "running" ? "running" : "true";
      node.dataset.of = asText(checks.of) || "proposed";
      list.replaceChildren();
      for (const c of Array.isArray(checks.results) ? checks.results : []) {
        if (!isObj(c)) continue;
        const passed = c.passed === true ? "true" : c.passed === false ? "false" : "running";
        const mark = passed === "true" ? "✓" : passed === "false" ? "✗" : "…";
        list.append(
          h("li", { cls: "agui-check", data: { passed } }, [
            h("span", { cls: "agui-check-mark", attrs: { "aria-hidden": "true" }, text: mark }),
            h("strong", { text: `${asText(c.name)}: ` }),
            h("span", { cls: "agui-pre", text: asText(c.text) }),
          ]),
        );
      }
      summary.textContent = state === "running" ? "Checking… Approve waits for the checks." : asText(checks.text) || "";
      summary.hidden = !summary.textContent;
      override.hidden = state !== "failed" && proposed !== "failed";
    },
    /** The reason typed for sending anyway (undefined: none, or no check failed). */
    override() {
      const why = reason.value.trim();
      return (state === "failed" || proposed === "failed") && why ? why : undefined;
    },
    /** What the checks of the proposed arguments allow Approve now. @returns {"ok" | "running" | "failed"} */
    proposed: () => proposed,
  };
}
