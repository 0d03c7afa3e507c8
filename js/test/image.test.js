// image.js: an <img> only from strict base64 of an allow-listed raster type that starts like one.
import { describe, expect, it } from "vitest";
import { IMAGE_TYPES, imageProblem, inlineImage, isStrictBase64, MAX_IMAGE_CHARS } from "../src/image.js";
import { PNG } from "./helpers.js";

const GIF = "R0lGODlhAQABAAAAACw=";
const JPEG = "/9j/4AAQSkZJRgABAQ==";
const WEBP = "UklGRiQAAABXRUJQVlA4IBgAAAAw";
const SVG = btoa('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>');

describe("strict base64", () => {
  it("accepts the padded standard alphabet only", () => {
    for (const ok of ["AAAA", "AA==", "AAA=", PNG, "+/+/"]) expect(isStrictBase64(ok)).toBe(true);
    for (const bad of [
      "",
      "AAA",
      "AA AA",
      "AAAA\n",
      "A===",
      "=AAA",
      "-_-_",
      "AA=A",
      "data:image/png;base64,AAAA",
      null,
      42,
      ["AAAA"],
    ]) {
      expect(isStrictBase64(bad)).toBe(false);
    }
  });
});

describe("inline images", () => {
  it("draws each allowed type from its own bytes, building the data: URL itself", () => {
    const samples = /** @type {Record<string, string>} */ ({
      "image/png": PNG,
      "image/gif": GIF,
      "image/jpeg": JPEG,
      "image/webp": WEBP,
    });
    expect(Object.keys(samples).sort()).toEqual([...IMAGE_TYPES].sort());
    for (const [mime, data] of Object.entries(samples)) {
      expect(imageProblem(mime, data)).toBeNull();
      const img = /** @type {HTMLImageElement} */ (inlineImage(mime, data, "a chart"));
      expect(img.getAttribute("src")).toBe(`data:${mime};base64,${data}`);
      expect(img.alt).toBe("a chart");
    }
  });

  it("refuses other types, URLs, bytes that are not what they claim, non-base64 and oversize data", () => {
    const cases = [
      ["image/svg+xml", SVG, "image/svg+xml is not drawn inline"],
      ["text/html", btoa("<script>alert(1)</script>"), "text/html is not drawn inline"],
      ["IMAGE/PNG", PNG, "IMAGE/PNG is not drawn inline"],
      [null, PNG, "an image of unknown type is not drawn inline"],
      ["image/png", "https://example.com/x.png", "its data is not base64"],
      ["image/png", "javascript:alert(1)", "its data is not base64"],
      ["image/png", `${PNG.slice(0, 8)} ${PNG.slice(8)}`, "its data is not base64"],
      ["image/png", SVG, "its bytes are not image/png"],
      ["image/png", GIF, "its bytes are not image/png"],
      ["image/webp", btoa("RIFF\0\0\0\0WAVEfmt "), "its bytes are not image/webp"],
      ["image/png", PNG.slice(0, 8) + "A".repeat(MAX_IMAGE_CHARS), "larger than 2 MB"],
    ];
    for (const [mime, data, why] of cases) {
      expect(imageProblem(mime, data)).toContain(why);
      expect(inlineImage(mime, data, "x")).toBeNull();
    }
  });
});
