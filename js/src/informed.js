// @ts-check
/**
 * Deciding with your data, on one card section: the preview and the checks computed in the
 * notebook (drawn under the arguments, redrawn for a person's edit), and the execution verdict
 * after the decision. Its fields (`preview`, `checks`, `verdict`) change while the section stays:
 * they are left out of the section's identity (`sectionKey`), so an update redraws them without
 * rebuilding the section and losing what the person typed.
 */

import { buildChecks } from "./checks.js";
import { h } from "./dom.js";
import { renderPreview } from "./preview.js";
import { safeJson } from "./util.js";
import { renderVerdict } from "./verdict.js";

/** The section fields this module draws (docs/widget-protocol.md). */
export const INFORMED_FIELDS = ["preview", "checks", "verdict"];
/** Quiet time after a person's last valid edit before its preview is asked for. */
export const EDIT_PREVIEW_DELAY_MS = 300;

/**
 * A section's identity: everything but the fields this module redraws in place.
 * @param {any} it
 */
export function sectionKey(it) {
  if (it === null || typeof it !== "object") return safeJson(it);
  /** @type {Record<string, unknown>} */
  const rest = {};
  for (const [k, v] of Object.entries(it)) if (!INFORMED_FIELDS.includes(k)) rest[k] = v;
  return safeJson(rest);
}

/**
 * @param {any} it the section's interrupt item
 * @param {{approveAnyway(reason: string): void, requestPreview(args: unknown): void}} actions
 */
export function buildInformed(it, actions) {
  const previewSlot = h("div", { cls: "agui-preview-slot" });
  const verdictSlot = h("div", { cls: "agui-verdict-slot" });
  const checks = buildChecks(actions.approveAnyway);
  const wanted = it?.preview != null || it?.checks != null;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  let lastPreview = "";
  let lastVerdict = "";

  /** @param {any} item */
  const update = (item) => {
    const preview = safeJson(item?.preview ?? null);
    if (preview !== lastPreview) {
      lastPreview = preview;
      const drawn = renderPreview(item?.preview);
      previewSlot.replaceChildren(...(drawn ? [drawn] : []));
    }
    checks.show(item?.checks);
    const verdict = safeJson(item?.verdict ?? null);
    if (verdict !== lastVerdict) {
      lastVerdict = verdict;
      const drawn = renderVerdict(item?.verdict);
      verdictSlot.replaceChildren(...(drawn ? [drawn] : []));
    }
  };
  update(it);

  return {
    previewSlot,
    checksNode: checks.node,
    verdictSlot,
    lockables: checks.lockables,
    update,
    /** Whether the proposed arguments' checks hold Approve back now (running, or one failed). */
    holdsApprove: () => checks.proposed() !== "ok",
    override: () => checks.override(),
    /**
     * A valid edit: ask for its preview and checks once the person pauses.
     * @param {unknown} args
     */
    edited(args) {
      if (!wanted) return;
      if (timer !== null) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        actions.requestPreview(args);
      }, EDIT_PREVIEW_DELAY_MS);
    },
    destroy() {
      if (timer !== null) clearTimeout(timer);
    },
  };
}
