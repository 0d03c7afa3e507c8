// @ts-check
/**
 * Inline images, the one place a content part becomes an `<img>`: only from base64 the server
 * sent inline, only as an allow-listed raster type whose bytes start like one, never from a URL
 * (nothing is fetched). The `data:` URL is built here from the MIME type and the data, both
 * checked again although Python checked them (docs/widget-protocol.md, "A part").
 */
import { h } from "./dom.js";

/** Raster types an inline image may have (no SVG: it is a document, not a picture). */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];
/** Largest inline image drawn, in decoded bytes (Python lists larger ones as files). */
export const MAX_IMAGE_BYTES = 2 * 1024 * 1024;
/** The same limit in characters of base64. */
export const MAX_IMAGE_CHARS = Math.ceil(MAX_IMAGE_BYTES / 3) * 4;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The first bytes of each type (WebP: "RIFF", 4 bytes of size, "WEBP"). */
const MAGIC = /** @type {Record<string, Array<Array<number | null>>>} */ ({
  "image/png": [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  "image/jpeg": [[0xff, 0xd8, 0xff]],
  "image/gif": [
    [0x47, 0x49, 0x46, 0x38, 0x37, 0x61],
    [0x47, 0x49, 0x46, 0x38, 0x39, 0x61],
  ],
  "image/webp": [[0x52, 0x49, 0x46, 0x46, null, null, null, null, 0x57, 0x45, 0x42, 0x50]],
});

/**
 * Strict base64: the standard alphabet, padded, no whitespace, not empty.
 * @param {unknown} data
 * @returns {data is string}
 */
export function isStrictBase64(data) {
  return typeof data === "string" && data.length > 0 && data.length % 4 === 0 && BASE64.test(data);
}

/**
 * Why `data` of type `mimeType` is not drawn inline, or null when it may be.
 * @param {unknown} mimeType
 * @param {unknown} data
 * @returns {string | null}
 */
export function imageProblem(mimeType, data) {
  if (typeof mimeType !== "string" || !IMAGE_TYPES.includes(mimeType)) {
    return `${typeof mimeType === "string" && mimeType ? mimeType : "an image of unknown type"} is not drawn inline (PNG, JPEG, GIF and WebP are)`;
  }
  if (!isStrictBase64(data)) return "its data is not base64";
  if (data.length > MAX_IMAGE_CHARS) return `larger than ${MAX_IMAGE_BYTES / (1024 * 1024)} MB, not drawn inline`;
  if (!startsLike(mimeType, data)) return `its bytes are not ${mimeType}`;
  return null;
}

/**
 * @param {string} mimeType an allow-listed type
 * @param {string} data strict base64
 */
function startsLike(mimeType, data) {
  let head;
  try {
    head = atob(data.slice(0, 16)); // 12 bytes: enough for every signature above
  } catch {
    return false;
  }
  return MAGIC[mimeType].some(
    (sig) => sig.length <= head.length && sig.every((b, i) => b === null || head.charCodeAt(i) === b),
  );
}

/**
 * An `<img>` drawn from inline data, or null when `imageProblem` finds a reason not to.
 * @param {unknown} mimeType
 * @param {unknown} data
 * @param {string} alt
 * @returns {HTMLImageElement | null}
 */
export function inlineImage(mimeType, data, alt) {
  if (imageProblem(mimeType, data) !== null) return null;
  const img = h("img", { cls: "agui-part-img", attrs: { alt } });
  img.src = `data:${mimeType};base64,${data}`; // checked above: inline raster bytes, nothing fetched
  return img;
}
