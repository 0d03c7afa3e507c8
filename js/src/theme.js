// @ts-check
/**
 * Whether the page around the view is dark, and whether it asks for more contrast, so the CSS can
 * pick colours that keep 4.5:1 there. Every host marks it differently: JupyterLab
 * (`body[data-jp-theme-light]`), VS Code (`body.vscode-dark`, `vscode-high-contrast`), marimo
 * (`body.dark`, and it may put the widget in a shadow root, where `body ...` selectors cannot
 * reach). So the view reads the marks in JS, falls back to the luminance of the first opaque
 * background behind it, then to the system preference, and writes the answer on its root as
 * `data-agui-theme="light|dark"` and `data-agui-contrast="more"`.
 */

/** @typedef {{theme: "light" | "dark", contrast: "more" | "normal"}} PageLook */

/**
 * @param {Element} el where the view is mounted
 * @returns {PageLook}
 */
export function pageLook(el) {
  const body = el.ownerDocument?.body;
  const cls = body?.classList;
  const more = Boolean(
    cls?.contains("vscode-high-contrast") ||
      cls?.contains("vscode-high-contrast-light") ||
      media("(prefers-contrast: more)"),
  );
  const contrast = more ? "more" : "normal";
  if (cls?.contains("vscode-light") || cls?.contains("vscode-high-contrast-light")) return { theme: "light", contrast };
  if (cls?.contains("vscode-dark") || cls?.contains("vscode-high-contrast")) return { theme: "dark", contrast };
  const jp = body?.dataset.jpThemeLight;
  if (jp === "false" || jp === "true") return { theme: jp === "false" ? "dark" : "light", contrast };
  if (cls?.contains("dark") || cls?.contains("dark-mode") || body?.dataset.theme === "dark")
    return { theme: "dark", contrast };
  const bg = opaqueBackground(el);
  if (bg) return { theme: luminance(bg) < 0.3 ? "dark" : "light", contrast };
  return { theme: media("(prefers-color-scheme: dark)") ? "dark" : "light", contrast };
}

/**
 * Keep `root`'s data-agui-theme / data-agui-contrast in step with the page (a theme switch
 * changes body attributes or the system preference).
 * @param {HTMLElement} root
 * @returns {() => void} stop
 */
export function followPageLook(root) {
  const apply = () => {
    const look = pageLook(root);
    if (root.dataset.aguiTheme !== look.theme) root.dataset.aguiTheme = look.theme;
    if (root.dataset.aguiContrast !== look.contrast) root.dataset.aguiContrast = look.contrast;
  };
  apply();
  const doc = root.ownerDocument;
  /** @type {MutationObserver | null} */
  let observer = null;
  if (typeof MutationObserver !== "undefined" && doc?.body) {
    observer = new MutationObserver(apply);
    for (const target of [doc.body, doc.documentElement]) {
      observer.observe(target, {
        attributes: true,
        attributeFilter: ["class", "data-jp-theme-light", "data-theme", "style"],
      });
    }
  }
  /** @type {MediaQueryList[]} */
  const queries = [];
  if (typeof matchMedia === "function") {
    for (const q of ["(prefers-color-scheme: dark)", "(prefers-contrast: more)"]) {
      const mq = matchMedia(q);
      mq.addEventListener?.("change", apply);
      queries.push(mq);
    }
  }
  // A view is often built before it is attached, when no background can be read yet: look
  // again once it is on the page.
  const frame = !root.isConnected && typeof requestAnimationFrame === "function" ? requestAnimationFrame(apply) : null;
  return () => {
    observer?.disconnect();
    for (const mq of queries) mq.removeEventListener?.("change", apply);
    if (frame !== null) cancelAnimationFrame(frame);
  };
}

/** @param {string} query */
function media(query) {
  return typeof matchMedia === "function" && matchMedia(query).matches;
}

/**
 * The first background behind `el` that is mostly opaque, as [r, g, b] (0-255), crossing shadow
 * roots; null when everything up to the document is transparent.
 * @param {Element} el
 * @returns {number[] | null}
 */
export function opaqueBackground(el) {
  const view = el.ownerDocument?.defaultView;
  if (!view) return null;
  /** @type {Element | null} */
  let node = el;
  while (node) {
    const rgba = parseColor(view.getComputedStyle(node).backgroundColor);
    if (rgba && rgba[3] > 0.5) return rgba.slice(0, 3);
    const root = node.getRootNode();
    node = node.parentElement ?? (root instanceof ShadowRoot ? root.host : null);
  }
  return null;
}

/**
 * "rgb(1, 2, 3)" / "rgba(1, 2, 3, 0.5)" / "#rrggbb" -> [r, g, b, a]; null for anything else.
 * @param {string | null | undefined} text
 * @returns {number[] | null}
 */
export function parseColor(text) {
  const s = (text ?? "").trim();
  const hex = /^#([0-9a-f]{6})$/i.exec(s);
  if (hex) return [0, 2, 4].map((i) => parseInt(hex[1].slice(i, i + 2), 16)).concat(1);
  const m = /^rgba?\(([^)]+)\)$/i.exec(s);
  if (!m) return null;
  const parts = m[1]
    .split(/[\s,/]+/)
    .filter(Boolean)
    .map(Number);
  if (parts.length < 3 || parts.some((p) => Number.isNaN(p))) return null;
  return [parts[0], parts[1], parts[2], parts.length > 3 ? parts[3] : 1];
}

/**
 * WCAG relative luminance of an sRGB colour, 0 (black) to 1 (white).
 * @param {number[]} rgb
 */
export function luminance(rgb) {
  const [r, g, b] = rgb.map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
