// surface.js + a2ui-components.js: A2UI surfaces drawn from their messages, bound inputs, the
// person's action sent once, and hostile surfaces drawn inert.
import { describe, expect, it } from "vitest";
import { inlineImage, plainMarkdown } from "../src/a2ui-components.js";
import { mount, type } from "./helpers.js";

const V = "v0.9";
const create = (sid = "transfer-form", extra = {}) => ({
  version: V,
  createSurface: {
    surfaceId: sid,
    catalogId: "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json",
    ...extra,
  },
});
const components = (list, sid = "transfer-form") => ({
  version: V,
  updateComponents: { surfaceId: sid, components: list },
});
const dataModel = (path, value, sid = "transfer-form") => ({
  version: V,
  updateDataModel: { surfaceId: sid, path, value },
});

const FORM = [
  { id: "root", component: "Card", child: "col" },
  {
    id: "col",
    component: "Column",
    children: ["title", "from", "amount", "currency", "when", "confirm", "summary", "buttons"],
  },
  { id: "title", component: "Text", text: "## New transfer", variant: "h2" },
  {
    id: "from",
    component: "TextField",
    label: "From account",
    value: { path: "/transfer/from" },
    checks: [
      {
        condition: { call: "regex", args: { value: { path: "/transfer/from" }, pattern: "^[0-9]{10}$" } },
        message: "10 digits",
      },
    ],
  },
  { id: "amount", component: "TextField", label: "Amount", variant: "number", value: { path: "/transfer/amount" } },
  {
    id: "currency",
    component: "ChoicePicker",
    label: "Currency",
    options: [
      { label: "US dollar", value: "USD" },
      { label: "Euro", value: "EUR" },
    ],
    value: { path: "/transfer/currency" },
  },
  { id: "when", component: "DateTimeInput", label: "Date", enableDate: true, value: { path: "/transfer/date" } },
  { id: "confirm", component: "CheckBox", label: "I checked the details", value: { path: "/transfer/confirmed" } },
  {
    id: "summary",
    component: "Text",
    text: { call: "formatString", args: { value: "Sending ${/transfer/amount} ${/transfer/currency/0}" } },
  },
  { id: "buttons", component: "Row", children: ["submit", "cancel"] },
  { id: "submit-label", component: "Text", text: "Send" },
  {
    id: "submit",
    component: "Button",
    child: "submit-label",
    variant: "primary",
    checks: [{ condition: { path: "/transfer/confirmed" }, message: "Tick the box first" }],
    action: {
      event: {
        name: "submit_transfer",
        context: {
          from: { path: "/transfer/from" },
          amount: { path: "/transfer/amount" },
          currency: { path: "/transfer/currency" },
          date: { path: "/transfer/date" },
          form: "transfer-form",
        },
      },
    },
  },
  { id: "cancel-label", component: "Text", text: "Cancel" },
  { id: "cancel", component: "Button", child: "cancel-label", action: { event: { name: "cancel_transfer" } } },
];

const OPS = [
  create(),
  components(FORM),
  dataModel("/transfer", { from: "1234567890", amount: "100", currency: ["USD"], date: "", confirmed: false }),
];
const item = (ops = OPS, action = { status: "idle", seq: 0 }, extra = {}) => ({
  kind: "a2ui",
  id: "activity:m1",
  activityType: "a2ui-surface",
  status: null,
  error: null,
  problems: [],
  updatesElsewhere: false,
  surfaces: [{ surfaceId: "transfer-form", operations: ops, action }],
  ...extra,
});
/** @param {ParentNode} el @param {string} id */
const input = (el, id) =>
  /** @type {HTMLInputElement} */ (el.querySelector(`[data-component-id="${id}"] .agui-a2-input`));
/** @param {ParentNode} el @param {string} name */
const press = (el, name) => /** @type {HTMLButtonElement} */ (el.querySelector(`button[data-action="${name}"]`));

describe("an A2UI surface", () => {
  it("draws the form from its messages with bound values", () => {
    const { el } = mount({ items: [item()] });
    const surface = /** @type {HTMLElement} */ (el.querySelector(".agui-a2ui-surface"));
    expect(surface.dataset.surfaceId).toBe("transfer-form");
    expect(el.querySelector('[data-component-id="title"]')?.textContent).toBe("New transfer");
    expect(input(el, "from").value).toBe("1234567890");
    expect(input(el, "amount").type).toBe("number");
    expect(input(el, "when").type).toBe("date");
    const radios = /** @type {HTMLInputElement[]} */ ([...el.querySelectorAll('[data-component-id="currency"] input')]);
    expect(radios.map((r) => [r.type, r.checked])).toEqual([
      ["radio", true],
      ["radio", false],
    ]);
    expect(el.querySelector('[data-component-id="summary"]')?.textContent).toBe("Sending 100 USD");
    expect(press(el, "submit_transfer").disabled).toBe(true); // its check: the box is not ticked
    expect(el.querySelector('[data-component-id="submit"] .agui-a2-checks')?.textContent).toBe("Tick the box first");
  });

  it("typing updates the data model and everything bound to it; the click sends the resolved action once", () => {
    const { el, model } = mount({ items: [item()] });
    type(input(el, "amount"), "250");
    expect(el.querySelector('[data-component-id="summary"]')?.textContent).toBe("Sending 250 USD");
    const euro = /** @type {HTMLInputElement[]} */ ([
      ...el.querySelectorAll('[data-component-id="currency"] input'),
    ])[1];
    euro.checked = true;
    euro.dispatchEvent(new Event("change", { bubbles: true }));
    type(input(el, "when"), "2030-03-01");
    const box = input(el, "confirm");
    box.checked = true;
    box.dispatchEvent(new Event("change", { bubbles: true }));
    const send = press(el, "submit_transfer");
    expect(send.disabled).toBe(false);
    send.click();
    send.click(); // a double click: the surface is locked after the first
    expect(model.sent).toHaveLength(1);
    const msg = model.sent[0];
    expect(msg).toMatchObject({ type: "a2ui-action", surfaceId: "transfer-form", seq: 0 });
    expect(msg.action).toMatchObject({
      name: "submit_transfer",
      surfaceId: "transfer-form",
      sourceComponentId: "submit",
      context: { from: "1234567890", amount: "250", currency: ["EUR"], date: "2030-03-01", form: "transfer-form" },
    });
    expect(Number.isNaN(Date.parse(msg.action.timestamp))).toBe(false);
    expect(/** @type {HTMLElement} */ (el.querySelector(".agui-a2ui-surface")).dataset.actionStatus).toBe("sending");
    expect(input(el, "amount").disabled).toBe(true);
  });

  it("follows Python's action state, keeps the person's typing across updates, and shows a refusal", () => {
    const { el, model } = mount({ items: [item()] });
    type(input(el, "amount"), "75");
    // More messages arrive (the list only grew): the typed value stays.
    model.set("items", [item([...OPS, dataModel("/note", "hi")])]);
    expect(input(el, "amount").value).toBe("75");
    // The list is restated differently: the model is rebuilt, the person's edit put back on top.
    model.set("items", [
      item([
        create(),
        components(FORM),
        dataModel("/transfer", { from: "1111222233", amount: "1", currency: ["USD"], confirmed: true }),
      ]),
    ]);
    expect(input(el, "amount").value).toBe("75");
    expect(input(el, "from").value).toBe("1111222233");
    // The agent sets the amount itself: that wins over what was typed.
    model.set("items", [
      item([
        create(),
        components(FORM),
        dataModel("/transfer", { from: "1111222233", amount: "1", currency: ["USD"], confirmed: true }),
        dataModel("/transfer/amount", "5"),
      ]),
    ]);
    expect(input(el, "amount").value).toBe("5");
    press(el, "cancel_transfer").click();
    const sent = model.sent[0];
    model.emitCustom({
      type: "ack",
      requestId: sent.requestId,
      accepted: false,
      error: "already sent from another view",
    });
    expect(el.querySelector(".agui-a2ui-surface .agui-ack-error")?.textContent).toBe("already sent from another view");
    expect(press(el, "cancel_transfer").disabled).toBe(false);
    model.set("items", [
      item(OPS, { status: "done", seq: 1, name: "submit_transfer", decidedBy: "you", outcome: "success" }),
    ]);
    expect(el.querySelector(".agui-a2ui-action")?.textContent).toBe("Sent submit_transfer (by you) → success");
    model.set("items", [
      item(OPS, { status: "failed", seq: 1, name: "submit_transfer", decidedBy: "you", error: "ConnectError" }),
    ]);
    const retry = press(el, "a2ui-retry");
    expect(retry.hidden).toBe(false);
    retry.click();
    expect(model.sent.at(-1)).toMatchObject({ type: "a2ui-retry", surfaceId: "transfer-form", seq: 1 });
  });

  it("lists from templates, tabs, modals, dividers, media as text, inline images only", () => {
    const PNG = "data:image/png;base64,iVBORw0KGgo=";
    const ops = [
      create("s2"),
      components(
        [
          {
            id: "root",
            component: "Column",
            children: ["people", "tabs", "modal", "div", "pic", "remote", "video", "link", "bogus"],
          },
          { id: "people", component: "List", children: { path: "/people", componentId: "person" } },
          { id: "person", component: "Text", text: { path: "name" } },
          {
            id: "tabs",
            component: "Tabs",
            tabs: [
              { title: "One", child: "t1" },
              { title: { path: "/tab2" }, child: "t2" },
            ],
          },
          { id: "t1", component: "Text", text: "first" },
          { id: "t2", component: "Text", text: "second" },
          { id: "modal", component: "Modal", trigger: "open", content: "inside" },
          { id: "open", component: "Text", text: "Details" },
          { id: "inside", component: "Text", text: "more" },
          { id: "div", component: "Divider" },
          { id: "pic", component: "Image", url: PNG, description: "logo" },
          { id: "remote", component: "Image", url: "https://tracker.example/pixel.png", description: "pixel" },
          { id: "video", component: "Video", url: "https://example.com/v.mp4" },
          { id: "link-label", component: "Text", text: "Open" },
          {
            id: "link",
            component: "Button",
            child: "link-label",
            action: { functionCall: { call: "openUrl", args: { url: "https://example.com" } } },
          },
          { id: "bogus", component: "Marquee" },
        ],
        "s2",
      ),
      dataModel("/", { people: [{ name: "Ada" }, { name: "Grace" }], tab2: "Two" }, "s2"),
    ];
    const { el, model } = mount({
      items: [
        item(ops, undefined, { surfaces: [{ surfaceId: "s2", operations: ops, action: { status: "idle", seq: 0 } }] }),
      ],
    });
    expect([...el.querySelectorAll('[data-component-id="person"]')].map((n) => n.textContent)).toEqual([
      "Ada",
      "Grace",
    ]);
    const tabs = /** @type {HTMLButtonElement[]} */ ([...el.querySelectorAll(".agui-a2-tab")]);
    expect(tabs.map((t) => t.textContent)).toEqual(["One", "Two"]);
    expect(el.querySelector(".agui-a2-tabpanel")?.textContent).toBe("first");
    tabs[1].click();
    expect(el.querySelector(".agui-a2-tabpanel")?.textContent).toBe("second");
    const content = /** @type {HTMLElement} */ (el.querySelector(".agui-a2-modal-content"));
    expect(content.hidden).toBe(true);
    /** @type {HTMLElement} */ (el.querySelector('[data-component-id="open"]')).click();
    expect(content.hidden).toBe(false);
    const imgs = el.querySelectorAll("img");
    expect(imgs).toHaveLength(1);
    expect(imgs[0].getAttribute("src")).toBe(PNG);
    expect(el.querySelector('[data-component-id="remote"]')?.textContent).toContain("not loaded");
    expect(el.querySelector('[data-component-id="video"]')?.textContent).toContain("https://example.com/v.mp4");
    press(el, "a2ui-retry"); // (hidden, not clicked)
    /** @type {HTMLButtonElement} */ (el.querySelector('[data-component-id="link"] button')).click();
    expect(el.querySelector(".agui-a2ui-note")?.textContent).toContain("not opened");
    expect(model.sent).toHaveLength(0);
    expect(el.querySelector('[data-component-id="bogus"]')?.textContent).toContain("not in the basic catalog");
    // The data model changes: the list redraws in place.
    model.set("items", [
      item([...ops, dataModel("/people/2", { name: "Linus" }, "s2")], undefined, {
        surfaces: [
          {
            surfaceId: "s2",
            operations: [...ops, dataModel("/people/2", { name: "Linus" }, "s2")],
            action: { status: "idle", seq: 0 },
          },
        ],
      }),
    ]);
    expect([...el.querySelectorAll('[data-component-id="person"]')].map((n) => n.textContent)).toEqual([
      "Ada",
      "Grace",
      "Linus",
    ]);
  });

  it("shows the generation lifecycle, a missing root, cycles and a deleted surface", () => {
    const { el, model } = mount({ items: [item([], undefined, { status: "building", surfaces: [] })] });
    expect(el.querySelector(".agui-a2ui-lifecycle")?.textContent).toBe("Building the interface…");
    const ops = [create("c"), components([{ id: "a", component: "Text", text: "x" }], "c")];
    model.set("items", [item([], undefined, { surfaces: [{ surfaceId: "c", operations: ops, action: {} }] })]);
    expect(el.querySelector(".agui-a2ui-body")?.textContent).toContain("waiting for the surface's root");
    const loop = [...ops, components([{ id: "root", component: "Card", child: "root" }], "c")];
    model.set("items", [item([], undefined, { surfaces: [{ surfaceId: "c", operations: loop, action: {} }] })]);
    expect(el.querySelector(".agui-a2ui-body")?.textContent).toContain("refers to itself");
    model.set("items", [
      item([], undefined, {
        surfaces: [
          { surfaceId: "c", operations: [...loop, { version: V, deleteSurface: { surfaceId: "c" } }], action: {} },
        ],
      }),
    ]);
    expect(el.querySelector(".agui-a2ui-body")?.textContent).toContain("closed this interface");
    model.set("items", [item([], undefined, { status: "failed", error: "bad JSON", surfaces: [] })]);
    expect(el.querySelector(".agui-a2ui-lifecycle")?.textContent).toContain("bad JSON");
  });

  it("helpers: only allow-listed inline raster images; Markdown as plain text", () => {
    expect(inlineImage("data:image/png;base64,AAAA")).toBe("data:image/png;base64,AAAA");
    expect(inlineImage("data:image/svg+xml;base64,AAAA")).toBe(null);
    expect(inlineImage("data:image/png;base64,AA AA")).toBe(null);
    expect(inlineImage("javascript:alert(1)")).toBe(null);
    expect(inlineImage("https://x/y.png")).toBe(null);
    expect(plainMarkdown("# Title\n**bold** and `code`")).toBe("Title\nbold and code");
    expect(plainMarkdown("window.__pwned=1 __init__")).toBe("window.__pwned=1 __init__");
  });
});

describe("a hostile surface", () => {
  const IMG = '<img src=x onerror="alert(1)">';
  const SCRIPT = "</script><script>alert(2)</script>";
  const JS = "javascript:alert(3)";
  it("is drawn as text: no markup, no URL loaded, no style or handler from data", () => {
    const ops = [
      {
        version: V,
        createSurface: {
          surfaceId: IMG,
          catalogId: JS,
          theme: { primaryColor: "red;background:url(//evil)", agentDisplayName: SCRIPT, iconUrl: JS },
        },
      },
      {
        version: V,
        updateComponents: {
          surfaceId: IMG,
          components: [
            {
              id: "root",
              component: "Column",
              children: ["t", "f", "c", "p", "i", "i2", "b", "__proto__", "x"],
              weight: "1;position:fixed",
              accessibility: { label: IMG },
            },
            { id: "t", component: "Text", text: SCRIPT, variant: "h1" },
            { id: "f", component: "TextField", label: IMG, value: { path: "/v" }, variant: JS },
            { id: "c", component: "CheckBox", label: JS, value: { path: "/__proto__/polluted" } },
            {
              id: "p",
              component: "ChoicePicker",
              label: IMG,
              options: [{ label: SCRIPT, value: IMG }],
              value: { path: "/p" },
            },
            { id: "i", component: "Image", url: JS, description: IMG },
            { id: "i2", component: "Image", url: "data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=", description: "svg" },
            { id: "b-label", component: "Text", text: IMG },
            {
              id: "b",
              component: "Button",
              child: "b-label",
              action: { event: { name: SCRIPT, context: { x: { path: "/v" } } } },
            },
            { id: "__proto__", component: "Text", text: "proto" },
            { id: "x", component: IMG },
          ],
        },
      },
      { version: V, updateDataModel: { surfaceId: IMG, value: { v: SCRIPT, p: [IMG] } } },
    ];
    const { el, model } = mount({
      items: [
        item(
          ops,
          { status: IMG, seq: IMG, name: SCRIPT, error: JS },
          {
            status: IMG,
            problems: [IMG],
            surfaces: [
              {
                surfaceId: IMG,
                operations: ops,
                action: { status: "failed", name: SCRIPT, error: IMG, decidedBy: JS },
              },
            ],
          },
        ),
      ],
    });
    expect(
      el.querySelectorAll("img,script,iframe,a,object,embed,link,meta,svg,math,base,form,video,audio").length,
    ).toBe(0);
    for (const node of el.querySelectorAll("*")) {
      for (const attr of node.attributes) {
        expect(attr.name.startsWith("on")).toBe(false);
        expect(["href", "src", "style", "srcdoc", "action", "formaction", "background", "poster"]).not.toContain(
          attr.name,
        );
      }
    }
    expect(el.querySelectorAll("style")).toHaveLength(1);
    expect(el.textContent).toContain(SCRIPT);
    expect(input(el, "f").value).toBe(SCRIPT);
    expect(/** @type {any} */ ({}).polluted).toBe(undefined);
    const box = input(el, "c");
    box.checked = true;
    box.dispatchEvent(new Event("change", { bubbles: true }));
    expect(/** @type {any} */ ({}).polluted).toBe(undefined);
    /** @type {HTMLButtonElement} */ (el.querySelector('[data-component-id="b"] button')).click();
    expect(model.sent[0].action).toMatchObject({ name: SCRIPT, context: { x: SCRIPT } });
  });
});
