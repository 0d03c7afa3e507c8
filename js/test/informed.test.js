// Deciding with your data on a card: the preview (text, inline image, HTML only in a sandboxed
// frame), the checks that hold Approve back, "Approve anyway" with a reason, the edit's preview
// asked for, and the execution verdict; redrawn in place, never rebuilding the section.
import { describe, expect, it, vi } from "vitest";
import { checksState } from "../src/checks.js";
import { EDIT_PREVIEW_DELAY_MS, sectionKey } from "../src/informed.js";
import { PREVIEW_CSP, previewDocument, renderPreview } from "../src/preview.js";
import { renderVerdict } from "../src/verdict.js";
import { btn, card, mount, PNG, toolInterrupt, type } from "./helpers.js";

const failing = {
  status: "done",
  of: "proposed",
  results: [{ name: "no_overdraft", passed: false, text: "overdraft: 3,000.00 from 2,500.00" }],
  passed: false,
  text: "A check failed: Approve is off. Reject, Edit (the edit is checked again), Cancel, or Approve anyway with a reason.",
};
const passing = {
  status: "done",
  of: "proposed",
  results: [{ name: "no_overdraft", passed: true, text: "passed" }],
  passed: true,
  text: null,
};
const htmlPreview = {
  status: "shown",
  label: "Preview (computed in this notebook)",
  of: "proposed",
  kind: "html",
  html: "<table><tr><td>2000.0</td></tr></table>",
  text: "2000.0",
  note: null,
  sha256: "a".repeat(64),
};

/** @param {Record<string, unknown>} fields */
const informedCard = (fields) => card({ interrupts: [toolInterrupt(fields)] });

describe("the preview", () => {
  it("draws HTML only in a sandboxed frame whose CSP loads nothing", () => {
    const node = /** @type {HTMLElement} */ (renderPreview(htmlPreview));
    expect(node.dataset).toMatchObject({ status: "shown", kind: "html", of: "proposed" });
    const frame = /** @type {HTMLIFrameElement} */ (node.querySelector("iframe.agui-preview-frame"));
    expect(frame.getAttribute("sandbox")).toBe("allow-same-origin");
    expect(frame.getAttribute("src")).toBeNull();
    expect(frame.srcdoc.startsWith('<!doctype html><html><head><meta charset="utf-8">')).toBe(true);
    expect(frame.srcdoc).toContain(`<meta http-equiv="Content-Security-Policy" content="${PREVIEW_CSP}">`);
    expect(frame.srcdoc).toContain("<td>2000.0</td>");
    expect(node.querySelector("table")).toBeNull(); // the table is in the frame, not the card
  });

  it("disarms a preview's own http-equiv (a refresh would navigate the frame)", () => {
    const doc = previewDocument('<meta HTTP-EQUIV="refresh" content="0;url=http://evil.invalid/">x');
    expect(doc.match(/http-equiv/gi)).toHaveLength(1); // ours only
    expect(doc).toContain('<meta data-agui-disarmed="refresh"');
  });

  it("draws an image only from checked inline raster data, else its text form", () => {
    const image = renderPreview({ ...htmlPreview, kind: "image", image: { mimeType: "image/png", data: PNG } });
    const img = /** @type {HTMLImageElement} */ (image?.querySelector("img.agui-preview-img"));
    expect(img.src).toBe(`data:image/png;base64,${PNG}`);
    const remote = renderPreview({
      ...htmlPreview,
      kind: "image",
      html: null,
      image: { mimeType: "image/png", data: "http://evil.invalid/x.png" },
      text: "<Figure>",
    });
    expect(remote?.querySelector("img")).toBeNull();
    expect(remote?.querySelector("pre.agui-preview-text")?.textContent).toBe("<Figure>");
  });

  it("says computing, and shows a failure's note as text", () => {
    expect(renderPreview({ status: "computing", label: "Preview" })?.textContent).toContain("computing…");
    const failed = renderPreview({
      status: "failed",
      label: "Preview",
      note: "The preview x raised ValueError: <b>no</b>",
    });
    expect(failed?.querySelector(".agui-preview-note")?.textContent).toBe("The preview x raised ValueError: <b>no</b>");
    expect(failed?.querySelector("b")).toBeNull();
    expect(renderPreview(null)).toBeNull();
  });
});

describe("the checks", () => {
  it("hold Approve back while running or failed, and say why", () => {
    expect(checksState(null)).toBe("ok");
    expect(checksState({ status: "running", passed: null })).toBe("running");
    expect(checksState(failing)).toBe("failed");
    expect(checksState(passing)).toBe("ok");
    const { el } = mount({ items: [informedCard({ checks: failing })] });
    expect(btn(el, "approve").disabled).toBe(true);
    expect(btn(el, "reject").disabled).toBe(false);
    expect(btn(el, "edit").disabled).toBe(false);
    const checks = /** @type {HTMLElement} */ (el.querySelector(".agui-checks"));
    expect(checks.dataset.passed).toBe("false");
    expect(checks.querySelector(".agui-check[data-passed=false]")?.textContent).toContain("no_overdraft: overdraft");
    expect(checks.querySelector(".agui-checks-summary")?.textContent).toContain("Approve is off");
  });

  it("Approve anyway needs a reason, and sends it as override", () => {
    const { el, model } = mount({ items: [informedCard({ checks: failing })] });
    btn(el, "approve").click(); // disabled: nothing
    btn(el, "approve-anyway").click(); // no reason yet
    expect(model.sent).toHaveLength(0);
    expect(el.querySelector(".agui-override-field .agui-field-error")?.textContent).toContain("Give a reason first");
    type(/** @type {HTMLTextAreaElement} */ (el.querySelector("textarea.agui-override")), "  arranged with the bank ");
    btn(el, "approve-anyway").click();
    expect(model.sent).toHaveLength(1);
    expect(model.sent[0].decisions).toEqual({ "int-1": { action: "approve", override: "arranged with the bank" } });
  });

  it("a passing check leaves Approve on and asks for no reason", () => {
    const { el } = mount({ items: [informedCard({ checks: passing })] });
    expect(btn(el, "approve").disabled).toBe(false);
    expect(/** @type {HTMLElement} */ (el.querySelector(".agui-override-field")).hidden).toBe(true);
  });
});

describe("updates in place", () => {
  it("a preview or checks update redraws them without rebuilding the section (an edit in progress stays)", () => {
    const running = {
      status: "running",
      of: "proposed",
      results: [{ name: "c", passed: null, text: "checking…" }],
      passed: null,
      text: null,
    };
    const { el, model } = mount({
      items: [informedCard({ preview: { status: "computing", label: "Preview" }, checks: running })],
    });
    const section = el.querySelector(".agui-interrupt");
    expect(btn(el, "approve").disabled).toBe(true); // checks running
    btn(el, "edit").click();
    const json = /** @type {HTMLTextAreaElement} */ (el.querySelector(".agui-edit textarea.agui-json"));
    json.value = '{"amount": 5}';
    model.set("items", [informedCard({ preview: htmlPreview, checks: passing })]);
    expect(el.querySelector(".agui-interrupt")).toBe(section);
    expect(/** @type {HTMLTextAreaElement} */ (el.querySelector(".agui-edit textarea.agui-json")).value).toBe(
      '{"amount": 5}',
    );
    expect(el.querySelector(".agui-preview")?.getAttribute("data-status")).toBe("shown");
    expect(btn(el, "approve").disabled).toBe(false);
    expect(sectionKey(toolInterrupt({ preview: htmlPreview }))).toBe(sectionKey(toolInterrupt({ checks: failing })));
    expect(sectionKey(toolInterrupt({ args: { a: 1 } }))).not.toBe(sectionKey(toolInterrupt({ args: { a: 2 } })));
  });

  it("a valid edit asks for its preview once the person pauses; the edit carries the reason when a check failed", () => {
    vi.useFakeTimers();
    const { el, model } = mount({ items: [informedCard({ checks: failing, preview: htmlPreview })] });
    btn(el, "edit").click();
    const json = /** @type {HTMLTextAreaElement} */ (el.querySelector(".agui-edit textarea.agui-json"));
    type(json, '{"amount": 1}');
    type(json, '{"amount": 2}');
    type(json, "{not json");
    expect(model.sent).toHaveLength(0);
    vi.advanceTimersByTime(EDIT_PREVIEW_DELAY_MS);
    expect(model.sent).toEqual([
      { type: "preview", requestId: expect.any(String), card: "card-1", interrupt: "int-1", args: { amount: 2 } },
    ]);
    type(json, '{"amount": 3}');
    type(/** @type {HTMLTextAreaElement} */ (el.querySelector("textarea.agui-override")), "small enough");
    btn(el, "edit-send").click();
    const decide = model.sent.find((m) => m.type === "decide");
    expect(decide.decisions).toEqual({ "int-1": { action: "edit", args: { amount: 3 }, override: "small enough" } });
  });

  it("an edit whose checks pass lets the edit through, not Approve of the proposed arguments", () => {
    const { el, model } = mount({ items: [informedCard({ checks: failing })] });
    model.set("items", [informedCard({ checks: { ...passing, of: "edited" } })]);
    expect(el.querySelector(".agui-checks")?.getAttribute("data-of")).toBe("edited");
    expect(btn(el, "approve").disabled).toBe(true);
    expect(/** @type {HTMLElement} */ (el.querySelector(".agui-override-field")).hidden).toBe(false);
  });

  it("nothing is asked for a section with neither preview nor checks", () => {
    vi.useFakeTimers();
    const { el, model } = mount({ items: [card()] });
    btn(el, "edit").click();
    type(/** @type {HTMLTextAreaElement} */ (el.querySelector(".agui-edit textarea.agui-json")), '{"amount": 2}');
    vi.advanceTimersByTime(EDIT_PREVIEW_DELAY_MS * 2);
    expect(model.sent).toHaveLength(0);
    expect(el.querySelector(".agui-preview")).toBeNull();
    expect(/** @type {HTMLElement} */ (el.querySelector(".agui-checks")).hidden).toBe(true);
  });
});

describe("the verdict", () => {
  it("is drawn after the decision, a warning as an alert", () => {
    const verdict = {
      verdict: "not_reported",
      text: "Approved, but the agent reported no execution of transfer_money",
      detail: null,
      warning: true,
    };
    const node = /** @type {HTMLElement} */ (renderVerdict(verdict));
    expect(node.dataset.verdict).toBe("not_reported");
    expect(node.getAttribute("role")).toBe("alert");
    expect(node.classList.contains("agui-verdict-warning")).toBe(true);
    expect(renderVerdict({ verdict: "executed", text: "Executed", warning: false })?.getAttribute("role")).toBeNull();
    expect(renderVerdict(null)).toBeNull();
    const { el } = mount({
      items: [
        card({
          status: "done",
          decisions: { "int-1": { action: "approve" } },
          decidedBy: "you",
          interrupts: [toolInterrupt({ verdict })],
        }),
      ],
    });
    const section = /** @type {HTMLElement} */ (el.querySelector(".agui-interrupt"));
    const order = [...section.children].map((c) => c.className);
    expect(order.indexOf("agui-verdict-slot")).toBeGreaterThan(order.indexOf("agui-decision"));
    expect(section.querySelector(".agui-verdict")?.textContent).toContain("reported no execution of transfer_money");
  });
});
