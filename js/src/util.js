// @ts-check
/**
 * Value helpers: JSON text that never throws, deep equality, own-property access that is safe
 * for untrusted keys ("__proto__"), number and path formatting.
 */

/** Deeper values are shown as JSON text instead of nested tables. */
export const MAX_DEPTH = 64;

/**
 * @param {unknown} v
 * @returns {v is Record<string, any>}
 */
export function isObj(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * JSON text for display; never throws.
 * @param {unknown} v
 * @param {number} [indent]
 */
export function safeJson(v, indent) {
  try {
    const s = JSON.stringify(v, null, indent);
    return s === undefined ? String(v) : s;
  } catch (e) {
    return `(cannot display this value: ${e instanceof Error ? e.message : String(e)})`;
  }
}

/** @param {unknown} v */
export function asText(v) {
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "";
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return safeJson(v);
}

/**
 * @param {unknown} a
 * @param {unknown} b
 * @param {number} [depth]
 * @returns {boolean}
 */
export function deepEqual(a, b, depth = 0) {
  if (a === b) return true;
  if (depth > 200 || typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i], depth + 1));
  }
  const ao = /** @type {Record<string, unknown>} */ (a);
  const bo = /** @type {Record<string, unknown>} */ (b);
  const ak = Object.keys(ao);
  const bk = Object.keys(bo);
  return ak.length === bk.length && ak.every((k) => hasOwn(bo, k) && deepEqual(ao[k], bo[k], depth + 1));
}

/**
 * @param {object} o
 * @param {string} k
 */
export function hasOwn(o, k) {
  return Object.hasOwn(o, k);
}

/**
 * Set an own property even for keys like "__proto__" (data keys are untrusted).
 * @param {Record<string, unknown>} o
 * @param {string} k
 * @param {unknown} v
 */
export function setOwn(o, k, v) {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** @param {number} n */
export function fmtInt(n) {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** @param {string} base @param {string} key */
export function joinPath(base, key) {
  return base ? `${base}.${key}` : key;
}
