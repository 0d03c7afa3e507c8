// @ts-check
/**
 * Value trees and long text. Nothing is clipped silently: a clip says how much is hidden and
 * "show more" shows it all; the open/closed state lives in a TreeState so re-rendering keeps it.
 */
import { button, h } from "./dom.js";
import { fmtInt, MAX_DEPTH, safeJson } from "./util.js";

/** @typedef {import("./types.js").TreeState} TreeState */

/** Characters of a string shown before "show more". */
export const CLIP_CHARS = 400;
/** Lines of a string shown before "show more". */
export const CLIP_LINES = 12;
/** Entries of an object/array shown before "show N more". */
export const CLIP_ENTRIES = 50;

/**
 * Where to clip a long text, or -1 when it is short enough.
 * @param {string} text
 */
export function clipPoint(text) {
  let cut = text.length > CLIP_CHARS ? CLIP_CHARS : -1;
  const scan = cut < 0 ? text.length : cut;
  let lines = 0;
  for (let i = 0; i < scan; i++) {
    if (text.charCodeAt(i) === 10) {
      lines += 1;
      if (lines >= CLIP_LINES) {
        cut = i;
        break;
      }
    }
  }
  if (cut <= 0 || cut >= text.length) return -1;
  const c = text.charCodeAt(cut - 1);
  if (c >= 0xd800 && c <= 0xdbff) cut -= 1; // do not split a surrogate pair
  return cut;
}

/**
 * Pre-wrapped text with a "show more" toggle when long. The toggle state lives in `state`
 * under `path`, so re-rendering keeps it.
 * @param {string} text
 * @param {TreeState} state
 * @param {string} path
 * @param {string} [cls]
 */
export function longText(text, state, path, cls) {
  const wrap = h("span", { cls: `agui-longtext${cls ? ` ${cls}` : ""}` });
  const shown = h("span", { cls: "agui-text" });
  wrap.append(shown);
  const cut = clipPoint(text);
  if (cut < 0) {
    shown.textContent = text;
    return wrap;
  }
  const hiddenChars = text.length - cut;
  let hiddenLines = 0;
  for (let i = cut; i < text.length; i++) if (text.charCodeAt(i) === 10) hiddenLines += 1;
  const hiddenText = `${fmtInt(hiddenChars)} more characters${hiddenLines > 0 ? ` (${fmtInt(hiddenLines)} more lines)` : ""}`;
  const note = h("span", { cls: "agui-clip-note" });
  const more = button("", null, undefined, "agui-more agui-link");
  wrap.append(note, " ", more);
  const apply = () => {
    const open = state.expanded.has(path);
    shown.textContent = open ? text : text.slice(0, cut);
    note.textContent = open ? "" : `… ${hiddenText} hidden`;
    more.textContent = open ? "show less" : "show more";
    more.setAttribute("aria-label", open ? "Show less" : `Show ${hiddenText}`);
    more.setAttribute("aria-expanded", String(open));
  };
  more.addEventListener("click", () => {
    if (state.expanded.has(path)) state.expanded.delete(path);
    else state.expanded.add(path);
    apply();
  });
  apply();
  return wrap;
}

/**
 * @param {unknown} value
 * @param {TreeState} state
 * @param {string} [cls]
 */
export function renderTree(value, state, cls) {
  const root = h("div", { cls: `agui-tree${cls ? ` ${cls}` : ""}` });
  root.append(renderValue(value, state, "$", 0));
  return root;
}

/**
 * @param {unknown} value
 * @param {TreeState} state
 * @param {string} path
 * @param {number} depth
 * @returns {HTMLElement}
 */
export function renderValue(value, state, path, depth) {
  if (value === null) return h("span", { cls: "agui-v agui-v-null", text: "null" });
  switch (typeof value) {
    case "string":
      return longText(value, state, path, "agui-v agui-v-string");
    case "number":
    case "bigint":
      return h("span", { cls: "agui-v agui-v-number", text: String(value) });
    case "boolean":
      return h("span", { cls: "agui-v agui-v-boolean", text: String(value) });
    case "undefined":
      return h("span", { cls: "agui-v agui-v-null", text: "(none)" });
    case "object":
      break;
    default:
      return longText(String(value), state, path, "agui-v");
  }
  const obj = /** @type {object} */ (value);
  if (depth >= MAX_DEPTH) {
    return h("span", { cls: "agui-v agui-v-deep" }, [
      h("span", { cls: "agui-clip-note", text: `(nested deeper than ${MAX_DEPTH} levels, shown as JSON) ` }),
      longText(safeJson(obj), state, path, "agui-v-json"),
    ]);
  }
  const isArray = Array.isArray(obj);
  /** @type {Array<[string, unknown]>} */
  const entries = isArray
    ? /** @type {unknown[]} */ (obj).map((v, i) => /** @type {[string, unknown]} */ ([String(i), v]))
    : Object.entries(obj);
  if (entries.length === 0) return h("span", { cls: "agui-v agui-v-empty", text: isArray ? "[ ]" : "{ }" });
  const body = h("tbody");
  const table = h("table", { cls: `agui-kv${isArray ? " agui-kv-array" : ""}` }, [body]);
  /** @param {number} from @param {number} to */
  const addRows = (from, to) => {
    for (let i = from; i < to; i++) {
      const [k, v] = entries[i];
      const th = h("th", { attrs: { scope: "row" }, cls: isArray ? "agui-index" : "agui-key", text: k });
      body.append(h("tr", {}, [th, h("td", {}, [renderValue(v, state, `${path}/${JSON.stringify(k)}`, depth + 1)])]));
    }
  };
  const moreKey = `${path}#more`;
  if (entries.length <= CLIP_ENTRIES || state.expanded.has(moreKey)) {
    addRows(0, entries.length);
  } else {
    addRows(0, CLIP_ENTRIES);
    const rest = entries.length - CLIP_ENTRIES;
    const what = isArray ? "items" : "keys";
    const more = button(`show ${fmtInt(rest)} more ${what}`, null, undefined, "agui-more agui-link");
    const row = h("tr", { cls: "agui-more-row" }, [
      h("td", { attrs: { colspan: "2" } }, [
        h("span", { cls: "agui-clip-note", text: `… ${fmtInt(rest)} more ${what} hidden ` }),
        more,
      ]),
    ]);
    more.addEventListener("click", () => {
      state.expanded.add(moreKey);
      row.remove();
      addRows(CLIP_ENTRIES, entries.length);
    });
    body.append(row);
  }
  return table;
}
