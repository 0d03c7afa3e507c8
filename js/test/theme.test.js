// theme.js: the view reads the page's look (host marks, then the background behind it, then the
// system) and writes it on its root, where the CSS picks colours that keep 4.5:1.
import { afterEach, describe, expect, it } from "vitest";
import { luminance, pageLook, parseColor } from "../src/theme.js";
import { mount } from "./helpers.js";

afterEach(() => {
  document.body.className = "";
  delete document.body.dataset.jpThemeLight;
  delete document.body.dataset.theme;
});

describe("the page's look", () => {
  it("reads each host's mark", () => {
    const el = document.createElement("div");
    document.body.append(el);
    document.body.className = "vscode-dark";
    expect(pageLook(el)).toEqual({ theme: "dark", contrast: "normal" });
    document.body.className = "vscode-light";
    expect(pageLook(el).theme).toBe("light");
    document.body.className = "vscode-high-contrast";
    expect(pageLook(el)).toEqual({ theme: "dark", contrast: "more" });
    document.body.className = "vscode-high-contrast vscode-high-contrast-light";
    expect(pageLook(el)).toEqual({ theme: "light", contrast: "more" });
    document.body.className = "";
    document.body.dataset.jpThemeLight = "false";
    expect(pageLook(el).theme).toBe("dark");
    document.body.dataset.jpThemeLight = "true";
    expect(pageLook(el).theme).toBe("light");
    delete document.body.dataset.jpThemeLight;
    document.body.className = "dark"; // marimo
    expect(pageLook(el).theme).toBe("dark");
  });

  it("falls back to the background behind the view", () => {
    const host = document.createElement("div");
    host.style.backgroundColor = "rgb(30, 30, 30)";
    const el = document.createElement("div");
    host.append(el);
    document.body.append(host);
    expect(pageLook(el).theme).toBe("dark");
    host.style.backgroundColor = "rgb(250, 250, 250)";
    expect(pageLook(el).theme).toBe("light");
  });

  it("parses colours and measures luminance as WCAG does", () => {
    expect(parseColor("rgb(1, 2, 3)")).toEqual([1, 2, 3, 1]);
    expect(parseColor("rgba(1, 2, 3, 0.25)")).toEqual([1, 2, 3, 0.25]);
    expect(parseColor("#ff8000")).toEqual([255, 128, 0, 1]);
    expect(parseColor("transparent")).toBeNull();
    expect(luminance([255, 255, 255])).toBeCloseTo(1);
    expect(luminance([0, 0, 0])).toBe(0);
    expect(luminance([0x21, 0x21, 0x21])).toBeCloseTo(0.0152, 3);
  });
});

describe("the view follows it", () => {
  it("marks its root and follows a theme switch", async () => {
    document.body.dataset.jpThemeLight = "true";
    const { el } = mount();
    const root = /** @type {HTMLElement} */ (el.querySelector(".agui-chat"));
    expect(root.dataset.aguiTheme).toBe("light");
    expect(root.dataset.aguiContrast).toBe("normal");
    document.body.dataset.jpThemeLight = "false";
    await new Promise((r) => setTimeout(r, 0)); // mutation observers report in a microtask
    expect(root.dataset.aguiTheme).toBe("dark");
    document.body.className = "vscode-high-contrast";
    await new Promise((r) => setTimeout(r, 0));
    expect(root.dataset.aguiContrast).toBe("more");
  });
});
