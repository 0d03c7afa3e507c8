// @ts-check
/**
 * A list a view's model holds in pages: child models its `pagesKey` trait refers to
 * ("IPY_MODEL_<id>", ipywidgets' widget serialization), each with an `items` list. A model
 * without that trait (a notebook saved before pages) carries the whole list in `wholeKey`.
 */

/** @typedef {import("./types.js").Model} Model */

/**
 * @param {Model} model
 * @param {{pagesKey: string, wholeKey: string, what: string, onChange: () => void}} options
 */
export function pagedList(model, { pagesKey, wholeKey, what, onChange }) {
  /** @type {Map<string, Model | null>} */
  const pages = new Map();
  let alive = true;

  const refs = () => {
    const raw = model.get(pagesKey);
    return Array.isArray(raw) ? raw.filter((r) => typeof r === "string") : null;
  };

  /** @returns {any[]} the whole list, page after page */
  const current = () => {
    const wanted = refs();
    if (wanted === null) {
      const raw = model.get(wholeKey);
      return Array.isArray(raw) ? raw : [];
    }
    /** @type {any[]} */
    const out = [];
    for (const ref of wanted) {
      const raw = pages.get(ref)?.get("items");
      if (Array.isArray(raw)) out.push(...raw);
    }
    return out;
  };

  /** Follows the pages the trait lists now (a page read for the first time draws when it arrives). */
  const sync = () => {
    const wanted = refs() ?? [];
    const manager = model.widget_manager;
    for (const ref of wanted) {
      if (pages.has(ref) || !manager) continue;
      pages.set(ref, null);
      manager
        .get_model(ref.startsWith("IPY_MODEL_") ? ref.slice("IPY_MODEL_".length) : ref)
        .then((page) => {
          if (!alive || !pages.has(ref)) return;
          pages.set(ref, page);
          page.on("change:items", onChange);
          onChange();
        })
        .catch((e) => console.error(`agui-chat: could not read a page of ${what}`, e));
    }
    const keep = new Set(wanted);
    for (const [ref, page] of pages) {
      if (keep.has(ref)) continue;
      page?.off("change:items", onChange);
      pages.delete(ref);
    }
    onChange();
  };

  const dispose = () => {
    for (const page of pages.values()) page?.off("change:items", onChange);
    pages.clear();
    alive = false;
  };

  return { current, sync, dispose };
}
