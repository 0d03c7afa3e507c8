// parts.js and the tool entry: content parts drawn as text, an inline image, or a labelled line;
// nothing from data becomes a link, an src other than checked inline data, markup or a style.
import { describe, expect, it } from "vitest";
import { toolEntry } from "../src/items.js";
import { fileLine, fmtBytes, renderParts } from "../src/parts.js";
import { mount, PNG } from "./helpers.js";

const IMAGE = {
  type: "image",
  mimeType: "image/png",
  data: PNG,
  label: "Balances by account",
  bytes: 70,
  metadata: { title: "Balances by account", alt: "A bar per account" },
};
const CSV = {
  type: "file",
  kind: "document",
  label: "Statement",
  mimeType: "text/csv",
  source: "data",
  location: null,
  provider: null,
  bytes: 1234,
  note: null,
  metadata: { filename: "statement-1.csv" },
};

/** No active element, no URL, no style: the only src allowed is a checked inline raster image. */
function assertInert(/** @type {Element} */ el) {
  expect(
    el.querySelectorAll("script,iframe,a,object,embed,link,meta,svg,math,base,form,video,audio,source,picture").length,
  ).toBe(0);
  for (const node of el.querySelectorAll("*")) {
    for (const attr of node.attributes) {
      expect(attr.name.startsWith("on")).toBe(false);
      expect([
        "href",
        "style",
        "srcdoc",
        "srcset",
        "action",
        "formaction",
        "xlink:href",
        "poster",
        "background",
      ]).not.toContain(attr.name);
      if (attr.name === "src") {
        expect(node.tagName).toBe("IMG");
        expect(attr.value).toMatch(/^data:image\/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$/);
      }
    }
  }
}

describe("content parts", () => {
  it("text is text, the image is drawn from its data with its label, the document is one line", () => {
    const box = renderParts([{ type: "text", text: "Statement for 1234: 1,200.00 USD." }, IMAGE, CSV]);
    const parts = [...box.children].map((n) => /** @type {HTMLElement} */ (n).dataset.type);
    expect(parts).toEqual(["text", "image", "file"]);
    expect(box.children[0].textContent).toBe("Statement for 1234: 1,200.00 USD.");
    const img = /** @type {HTMLImageElement} */ (box.querySelector("figure.agui-part-image img"));
    expect(img.getAttribute("src")).toBe(`data:image/png;base64,${PNG}`);
    expect(img.alt).toBe("Balances by account");
    expect(box.querySelector("figcaption")?.textContent).toBe("Balances by account · 70 bytes");
    const meta = /** @type {HTMLDetailsElement} */ (box.querySelector("figure details.agui-part-meta"));
    expect(meta.open).toBe(false);
    expect(meta.textContent).toContain("A bar per account");
    const doc = /** @type {HTMLElement} */ (box.querySelector('.agui-part-file[data-kind="document"]'));
    expect(doc.querySelector(".agui-pre")?.textContent).toBe(
      "Document: Statement · text/csv · 1.2 KB · sent inline, not shown",
    );
    expect(doc.querySelector("details")?.textContent).toContain("statement-1.csv");
    assertInert(box);
  });

  it("a URL or a file handle is text, never a link or a source", () => {
    const box = renderParts([
      {
        type: "file",
        kind: "image",
        label: "chart",
        mimeType: "image/png",
        source: "url",
        location: "https://example.com/chart.png",
        provider: null,
        bytes: null,
        note: null,
        metadata: null,
      },
      {
        type: "file",
        kind: "document",
        label: "report.pdf",
        mimeType: "application/pdf",
        source: "file",
        location: "file-abc123",
        provider: "openai",
        bytes: null,
        note: null,
        metadata: null,
      },
      {
        type: "file",
        kind: "audio",
        label: "audio",
        mimeType: null,
        source: "url",
        location: "javascript:alert(1)",
        provider: null,
        bytes: null,
        note: null,
        metadata: null,
      },
    ]);
    const lines = [...box.querySelectorAll(".agui-part-file > .agui-pre")].map((n) => n.textContent);
    expect(lines).toEqual([
      "Image: chart · image/png · at https://example.com/chart.png (not loaded)",
      "Document: report.pdf · application/pdf · file file-abc123 (openai)",
      "Audio · at javascript:alert(1) (not loaded)",
    ]);
    expect(box.querySelectorAll("img").length).toBe(0);
    assertInert(box);
  });

  it("an image part that fails the front end's own check is a line saying why (SVG, HTML, not base64)", () => {
    const box = renderParts([
      { ...IMAGE, mimeType: "image/svg+xml", data: btoa('<svg onload="alert(1)"/>'), label: "svg" },
      { ...IMAGE, mimeType: "text/html", data: btoa("<script>alert(1)</script>"), label: "html" },
      { ...IMAGE, data: "not base64!", label: "broken" },
      { ...IMAGE, data: btoa("GIF89a......"), label: "liar" },
    ]);
    expect(box.querySelectorAll("img").length).toBe(0);
    const lines = [...box.querySelectorAll('.agui-part-file[data-kind="image"] > .agui-pre')].map((n) => n.textContent);
    expect(lines[0]).toContain(
      "Image: svg · image/svg+xml · 70 bytes · sent inline · image/svg+xml is not drawn inline",
    );
    expect(lines[1]).toContain("text/html is not drawn inline");
    expect(lines[2]).toContain("its data is not base64");
    expect(lines[3]).toContain("its bytes are not image/png");
    assertInert(box);
  });

  it("a 5000-character label is alt text in full and a caption that says what it hides", () => {
    const label = `${"<b>x</b>".repeat(624)}TAIL!!!!`;
    expect(label.length).toBe(5000);
    const box = renderParts([
      { ...IMAGE, label },
      { ...CSV, label },
    ]);
    expect(/** @type {HTMLImageElement} */ (box.querySelector("img")).alt).toBe(label);
    const caption = /** @type {HTMLElement} */ (box.querySelector("figcaption"));
    expect(caption.textContent).toContain("4,600 more characters hidden");
    /** @type {HTMLButtonElement} */ (caption.querySelector("button.agui-more")).click();
    expect(caption.querySelector(".agui-text")?.textContent).toBe(label);
    const line = /** @type {HTMLElement} */ (box.querySelector(".agui-part-file"));
    /** @type {HTMLButtonElement} */ (line.querySelector("button.agui-more")).click();
    expect(line.textContent).toContain(`Document: ${label} · text/csv`);
    assertInert(box);
  });

  it("unknown and malformed parts are shown as JSON, and an empty list says so", () => {
    const box = renderParts([{ type: "hologram", value: "<i>x</i>" }, null, "just a string"]);
    expect(box.children[0].textContent).toContain('A part of unknown type "hologram"');
    expect(box.children[0].textContent).toContain("<i>x</i>");
    expect(box.children[1].textContent).toBe("null");
    expect(box.children[2].textContent).toBe('"just a string"');
    expect(renderParts([]).textContent).toBe("(an empty list of parts)");
    assertInert(box);
  });

  it("sizes and lines", () => {
    expect([
      fmtBytes(1),
      fmtBytes(1023),
      fmtBytes(2048),
      fmtBytes(5 * 1024 * 1024),
      fmtBytes(null),
      fmtBytes(-1),
    ]).toEqual(["1 byte", "1,023 bytes", "2.0 KB", "5.0 MB", "", ""]);
    expect(fileLine({ type: "file", kind: "video", label: "video", source: null })).toBe("Video");
    expect(fileLine({ type: "file", kind: "document", label: "x", source: "data", note: "not valid base64" })).toBe(
      "Document: x · sent inline, not shown · not valid base64",
    );
  });
});

describe("a tool result made of parts", () => {
  const tool = (/** @type {any} */ over = {}) => ({
    kind: "tool",
    id: "tool:t1",
    name: "get_statement",
    args: { account: "1234" },
    argsText: "",
    status: "done",
    result: "Statement for 1234.",
    resultValue: null,
    resultParts: [{ type: "text", text: "Statement for 1234." }, IMAGE, CSV],
    subagent: null,
    encrypted: false,
    ...over,
  });

  it("replaces the text result, and is drawn again only when the parts change", () => {
    const t = toolEntry(tool());
    const result = /** @type {HTMLElement} */ (t.node.querySelector(".agui-result"));
    expect(result.hidden).toBe(false);
    expect(result.querySelectorAll(".agui-part").length).toBe(3);
    const img = result.querySelector("img");
    t.update(tool({ status: "done" })); // an equal copy, as each sync brings
    expect(result.querySelector("img")).toBe(img);
    t.update(tool({ resultParts: [CSV] }));
    expect(result.querySelector("img")).toBeNull();
    expect(result.textContent).toContain("Document: Statement");
    t.update(tool({ resultParts: null, result: "plain again" }));
    expect(result.textContent).toBe("Resultplain again");
    t.update(tool());
    expect(result.querySelector("img")).not.toBeNull();
  });

  it("an encrypted value on the call is a muted note, never the value", () => {
    const t = toolEntry(tool({ encrypted: false }));
    const note = /** @type {HTMLElement} */ (t.node.querySelector(".agui-encrypted"));
    expect(note.hidden).toBe(true);
    t.update(tool({ encrypted: true }));
    expect(note.hidden).toBe(false);
    expect(note.textContent).toBe("An encrypted value came with this call: it is kept for the agent and not shown.");
  });

  it("in the view: hostile parts, locations and labels stay inert, and nothing but the chart is drawn", () => {
    const hostile = [
      { type: "text", text: '<img src=x onerror="alert(1)">' },
      IMAGE,
      { ...IMAGE, mimeType: "image/svg+xml", data: btoa("<svg/>"), label: "<script>alert(2)</script>" },
      { ...IMAGE, mimeType: 'image/png" onerror="alert(3)', label: "quote" },
      { ...IMAGE, data: `${PNG}"><script>`, label: "breakout" },
      {
        ...CSV,
        source: "url",
        location: "javascript:alert(4)",
        label: "x".repeat(5000),
        metadata: { link: "https://evil.example/", "<b>": "<i>" },
      },
      { ...CSV, source: "url", location: "https://evil.example/track.png", kind: "image", mimeType: "image/png" },
    ];
    const { el } = mount({ items: [tool({ resultParts: hostile, encrypted: true })] });
    for (const d of el.querySelectorAll("details")) /** @type {HTMLDetailsElement} */ (d).open = true;
    for (const b of el.querySelectorAll("button.agui-more")) /** @type {HTMLButtonElement} */ (b).click();
    expect(el.querySelectorAll("img").length).toBe(1);
    expect(el.querySelector("img")?.getAttribute("src")).toBe(`data:image/png;base64,${PNG}`);
    const text = el.textContent ?? "";
    for (const s of [
      '<img src=x onerror="alert(1)">',
      "<script>alert(2)</script>",
      "javascript:alert(4)",
      "https://evil.example/track.png",
      "<b>",
    ])
      expect(text).toContain(s);
    assertInert(el);
  });
});
