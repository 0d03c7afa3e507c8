// @ts-check
/**
 * Content parts of a tool result (`resultParts`, docs/widget-protocol.md): text as text, an
 * image drawn only from inline data (image.js), and everything else (files, documents, audio,
 * video, an image by URL or handle, an image that failed a check) as one labelled line. A URL or
 * a provider's file handle is only ever text: never a link, never an `src`, never fetched.
 * Metadata goes in a collapsed value tree.
 */
import { h } from "./dom.js";
import { imageProblem, inlineImage } from "./image.js";
import { longText, renderTree } from "./tree.js";
import { asText, fmtInt, isObj, safeJson } from "./util.js";

/** @typedef {import("./types.js").TreeState} TreeState */

const KINDS = ["text", "image", "audio", "video", "document", "file"];
const WHERE = /** @type {Record<string, string>} */ ({ data: "sent inline, not shown", url: "at", file: "file" });

/** @param {unknown} n */
export function fmtBytes(n) {
  if (typeof n !== "number" || !Number.isFinite(n) || n < 0) return "";
  if (n < 1024) return `${fmtInt(n)} ${n === 1 ? "byte" : "bytes"}`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** @param {string} s */
const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The one line a part not drawn inline is shown as, e.g.
 * "Document: Statement · text/csv · 1.2 KB · sent inline, not shown".
 * @param {Record<string, any>} part
 * @param {string | null} [problem] why an image part is not drawn (overrides its note)
 */
export function fileLine(part, problem = null) {
  const kind = asText(part.kind ?? part.type) || "file";
  const label = asText(part.label);
  const head = label && label !== kind ? `${capital(kind)}: ${label}` : capital(kind);
  /** @type {string[]} */
  const bits = [];
  if (typeof part.mimeType === "string" && part.mimeType) bits.push(part.mimeType);
  const size = fmtBytes(part.bytes);
  if (size) bits.push(size);
  const source = typeof part.source === "string" ? part.source : part.type === "image" ? "data" : null;
  const location = typeof part.location === "string" ? part.location : "";
  if (source === "url") bits.push(`at ${location} (not loaded)`);
  else if (source === "file")
    bits.push(`file ${location}${typeof part.provider === "string" && part.provider ? ` (${part.provider})` : ""}`);
  else if (source === "data") bits.push(problem === null ? WHERE.data : "sent inline");
  else if (source) bits.push(`from ${source}`);
  const note = problem ?? (typeof part.note === "string" ? part.note : "");
  if (note) bits.push(note);
  return [head, ...bits].join(" · ");
}

/** @param {unknown} metadata */
function metadataTree(metadata) {
  if (!isObj(metadata) || Object.keys(metadata).length === 0) return null;
  /** @type {TreeState} */
  const tree = { expanded: new Set() };
  return h("details", { cls: "agui-part-meta" }, [h("summary", { text: "Metadata" }), renderTree(metadata, tree)]);
}

/**
 * One part's node.
 * @param {unknown} part
 * @param {number} index
 */
export function renderPart(part, index) {
  /** @type {TreeState} */
  const tree = { expanded: new Set() };
  if (!isObj(part))
    return h("div", { cls: "agui-part agui-part-unknown agui-pre", data: { type: "unknown" } }, [
      longText(safeJson(part), tree, `p${index}`),
    ]);
  const type = asText(part.type);
  if (type === "text") {
    return h("div", { cls: "agui-part agui-part-text agui-pre", data: { type } }, [
      longText(asText(part.text), tree, `p${index}`),
    ]);
  }
  if (type === "image") {
    const label = asText(part.label) || "image";
    const img = inlineImage(part.mimeType, part.data, label);
    if (img) {
      const caption = h("figcaption", { cls: "agui-part-caption" }, [longText(label, tree, `p${index}`)]);
      const size = fmtBytes(part.bytes);
      if (size) caption.append(h("span", { cls: "agui-hint", text: ` · ${size}` }));
      return h("figure", { cls: "agui-part agui-part-image", data: { type } }, [
        img,
        caption,
        metadataTree(part.metadata),
      ]);
    }
    const problem = imageProblem(part.mimeType, part.data) ?? "not drawn";
    return h("div", { cls: "agui-part agui-part-file", data: { type: "file", kind: "image" } }, [
      h("div", { cls: "agui-pre" }, [longText(fileLine(part, problem), tree, `p${index}`)]),
      metadataTree(part.metadata),
    ]);
  }
  if (type === "file") {
    const kind = KINDS.includes(asText(part.kind)) ? asText(part.kind) : "other";
    return h("div", { cls: "agui-part agui-part-file", data: { type, kind } }, [
      h("div", { cls: "agui-pre" }, [longText(fileLine(part), tree, `p${index}`)]),
      metadataTree(part.metadata),
    ]);
  }
  return h("div", { cls: "agui-part agui-part-unknown", data: { type: "unknown" } }, [
    h("div", { cls: "agui-hint", text: `A part of unknown type "${type}":` }),
    h("div", { cls: "agui-pre" }, [longText(safeJson(part, 2), tree, `p${index}`)]),
  ]);
}

/**
 * All parts, in order.
 * @param {unknown[]} parts
 */
export function renderParts(parts) {
  const box = h("div", { cls: "agui-parts" });
  parts.forEach((part, i) => {
    box.append(renderPart(part, i));
  });
  if (parts.length === 0) box.append(h("span", { cls: "agui-hint", text: "(an empty list of parts)" }));
  return box;
}
