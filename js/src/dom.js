// @ts-check
/**
 * Building DOM safely: text goes through textContent / text nodes only, and `h()` refuses the
 * attributes through which data could become a URL, a style or a handler.
 */

/** Attributes never set by this module: data must not become URLs, styles or handlers. */
export const FORBIDDEN_ATTR = /^(?:on|src|href$|style$|action$|formaction$|xlink:href$|background$|poster$)/i;

let uidCounter = 0;
/** @param {string} prefix */
export function nextId(prefix) {
  uidCounter += 1;
  return `${prefix}-${uidCounter}`;
}

/** A unique id for each JS -> Python message. */
export function newRequestId() {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === "function") return c.randomUUID();
  uidCounter += 1;
  return `req-${Date.now().toString(36)}-${uidCounter}-${Math.random().toString(36).slice(2)}`;
}

/**
 * Create an element. Text goes through textContent / text nodes only.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {{cls?: string, text?: string, attrs?: Record<string, string>, data?: Record<string, string>}} [opts]
 * @param {Array<Node | string | null | undefined | false>} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, opts = {}, children = []) {
  const node = document.createElement(tag);
  if (opts.cls) node.className = opts.cls;
  if (opts.text !== undefined) node.textContent = opts.text;
  if (opts.attrs) for (const [k, v] of Object.entries(opts.attrs)) setAttr(node, k, v);
  if (opts.data) for (const [k, v] of Object.entries(opts.data)) node.setAttribute(`data-${k}`, v);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/**
 * @param {Element} node
 * @param {string} name
 * @param {string} value
 */
export function setAttr(node, name, value) {
  if (FORBIDDEN_ATTR.test(name)) throw new Error(`agui-chat: refusing to set the ${name} attribute`);
  node.setAttribute(name, value);
}

/**
 * @param {string} label
 * @param {string | null} action  data-action value
 * @param {string} [aria]         aria-label
 * @param {string} [cls]
 */
export function button(label, action, aria, cls) {
  const b = h("button", { cls: `agui-btn${cls ? ` ${cls}` : ""}`, text: label, attrs: { type: "button" } });
  if (action) b.setAttribute("data-action", action);
  if (aria) b.setAttribute("aria-label", aria);
  return b;
}
