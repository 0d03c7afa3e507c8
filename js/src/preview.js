// @ts-check
/**
 * A preview computed in the notebook, drawn on its card section: text as text, an image only as
 * inline raster data (image.js), HTML only inside a sandboxed iframe that runs no script and
 * loads nothing. Python made the preview safe to send (_view/preview.py); this module enforces
 * the rest, whatever it is sent.
 *
 * The iframe: `sandbox="allow-same-origin"` (no `allow-scripts`: nothing runs; same origin so the
 * card can measure its content and size the frame to it), and a document whose first element is
 * a Content-Security-Policy that allows inline styles and `data:` images only, so no image, font,
 * stylesheet, frame or CSS `url()` is fetched. A `<meta http-equiv>` in the preview could ask for
 * a refresh (a navigation the CSP does not govern): every `http-equiv` in the preview is renamed
 * before it is framed, so only ours takes effect.
 */
import { h } from "./dom.js";
import { inlineImage } from "./image.js";
import { asText, isObj } from "./util.js";

/** What a preview's document may load: inline styles and `data:` images, nothing else. */
export const PREVIEW_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";
/** The frame's tallest; a taller preview scrolls inside it. */
export const MAX_FRAME_HEIGHT = 480;
/** Our own look for the framed document (a DataFrame's table reads like the notebook's). */
const FRAME_CSS =
  "body{margin:0;font:12px/1.4 system-ui,sans-serif;color:#1f2328;background:#fff}" +
  "table{border-collapse:collapse}th,td{padding:2px 8px;border-bottom:1px solid #d0d7de;text-align:right}";

/**
 * The framed document for a preview's HTML: our CSP first, the preview's `http-equiv`s disarmed.
 * @param {string} html
 */
export function previewDocument(html) {
  const disarmed = html.replace(/http-equiv/gi, "data-agui-disarmed");
  return (
    '<!doctype html><html><head><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="${PREVIEW_CSP}">` +
    `<style>${FRAME_CSS}</style></head><body>${disarmed}</body></html>`
  );
}

/**
 * The sandboxed frame of an HTML preview, sized to its content once it has loaded.
 * @param {string} html
 * @param {string} title
 */
export function previewFrame(html, title) {
  const frame = h("iframe", { cls: "agui-preview-frame", attrs: { title, sandbox: "allow-same-origin" } });
  frame.setAttribute("referrerpolicy", "no-referrer");
  frame.srcdoc = previewDocument(html); // sandboxed: no script runs, the CSP loads nothing
  frame.addEventListener("load", () => fitFrame(frame));
  return frame;
}

/**
 * Size the frame to its document's content (not to the frame: the root's box, not its scroll
 * area, which is never smaller than the frame).
 * @param {HTMLIFrameElement} frame
 */
export function fitFrame(frame) {
  const root = frame.contentDocument?.documentElement;
  const height = root ? Math.ceil(root.getBoundingClientRect().height) : 0;
  if (height > 0) frame.style.height = `${Math.min(height + 2, MAX_FRAME_HEIGHT)}px`;
}

/**
 * The preview part of a section, or null when the section has none.
 * @param {unknown} preview the section's `preview` field (docs/widget-protocol.md)
 * @returns {HTMLElement | null}
 */
export function renderPreview(preview) {
  if (!isObj(preview)) return null;
  const status = asText(preview.status) || "computing";
  const kind = asText(preview.kind);
  const label = asText(preview.label) || "Preview";
  const node = h("div", {
    cls: "agui-preview",
    data: { status, kind: kind || "none", of: asText(preview.of) || "proposed" },
  });
  node.append(h("div", { cls: "agui-label agui-preview-label", text: label }));
  if (status === "computing") {
    node.append(h("div", { cls: "agui-hint agui-preview-computing", text: "computing…" }));
    return node;
  }
  const body = h("div", { cls: "agui-preview-body" });
  if (status === "shown") {
    const image = isObj(preview.image) ? preview.image : null;
    const drawn = image ? inlineImage(image.mimeType, image.data, label) : null;
    if (drawn) {
      drawn.classList.add("agui-preview-img");
      body.append(drawn);
    } else if (kind === "html" && typeof preview.html === "string") {
      body.append(previewFrame(preview.html, label));
    } else if (typeof preview.text === "string") {
      body.append(h("pre", { cls: "agui-preview-text", text: preview.text }));
    }
  }
  if (body.childNodes.length > 0) node.append(body);
  const note = asText(preview.note);
  if (note) node.append(h("div", { cls: "agui-preview-note", attrs: { role: "note" }, text: note }));
  return node;
}
