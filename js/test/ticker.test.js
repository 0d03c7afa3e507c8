// Countdowns: expiry and timeout clocks on cards, and the interval that drives them.
import { describe, expect, it, vi } from "vitest";
import { createTicker, fmtClock, fmtRemaining, parseTime } from "../src/ticker.js";
import { btn, card, mount, toolInterrupt } from "./helpers.js";

describe("countdowns", () => {
  it("counts down to expiresAt, then disables everything but Cancel and says expired", () => {
    vi.useFakeTimers();
    const t0 = new Date("2025-06-01T12:00:00Z").getTime();
    vi.setSystemTime(t0);
    const { el, model } = mount({
      items: [card({ interrupts: [toolInterrupt({ expiresAt: new Date(t0 + 3000).toISOString() })] })],
    });
    const clock = /** @type {HTMLElement} */ (el.querySelector(".agui-countdown.agui-expiry"));
    expect(clock.textContent).toBe("Expires in 0:03");
    vi.advanceTimersByTime(1000);
    expect(clock.textContent).toBe("Expires in 0:02");
    expect(btn(el, "approve").disabled).toBe(false);
    vi.advanceTimersByTime(2000);
    expect(clock.textContent).toContain("Expired");
    expect(el.querySelector(".agui-interrupt")?.classList.contains("agui-expired")).toBe(true);
    for (const a of ["approve", "reject", "edit"]) expect(btn(el, a).disabled).toBe(true);
    expect(/** @type {HTMLTextAreaElement} */ (el.querySelector(".agui-reason")).disabled).toBe(true);
    expect(/** @type {HTMLInputElement} */ (el.querySelector(".agui-always-allow")).disabled).toBe(true);
    expect(btn(el, "cancel").disabled).toBe(false);
    btn(el, "approve").click();
    expect(model.sent).toHaveLength(0);
    btn(el, "cancel").click();
    expect(model.sent).toHaveLength(1);
    expect(model.sent[0].decisions).toEqual({ "int-1": { action: "cancel" } });
  });

  it("a multi card with an expired interrupt can only send Cancel for it", () => {
    vi.useFakeTimers();
    const t0 = Date.now();
    const { el, model } = mount({
      items: [
        card({
          interrupts: [
            toolInterrupt({ id: "a", expiresAt: new Date(t0 + 1000).toISOString() }),
            toolInterrupt({ id: "b" }),
          ],
        }),
      ],
    });
    const [a, b] = [...el.querySelectorAll(".agui-interrupt")];
    btn(a, "approve").click();
    btn(b, "approve").click();
    vi.advanceTimersByTime(1500);
    expect(btn(el, "send").disabled).toBe(true);
    btn(el, "send").click();
    expect(model.sent).toHaveLength(0);
    btn(a, "cancel").click();
    expect(btn(el, "send").disabled).toBe(false);
    btn(el, "send").click();
    expect(model.sent[0].decisions).toEqual({ a: { action: "cancel" }, b: { action: "approve" } });
  });

  it("shows 'No answer by HH:MM:SS → default' for timeoutAt", () => {
    vi.useFakeTimers();
    const t0 = new Date(2025, 5, 1, 9, 5, 0).getTime(); // local time
    vi.setSystemTime(t0);
    const { el } = mount({
      items: [card({ timeoutAt: new Date(t0 + 65_000).toISOString(), timeoutDefault: "cancel" })],
    });
    const line = /** @type {HTMLElement} */ (el.querySelector(".agui-countdown.agui-timeout"));
    expect(line.textContent).toBe("No answer by 09:06:05 → cancel (in 1:05)");
    vi.advanceTimersByTime(5000);
    expect(line.textContent).toBe("No answer by 09:06:05 → cancel (in 1:00)");
    vi.advanceTimersByTime(60_000);
    expect(line.textContent).toBe("No answer by 09:06:05 → cancel (time is up)");
    expect(btn(el, "approve").disabled).toBe(false); // the default is Python's job
  });

  it("cleanup clears the interval and removes listeners", () => {
    vi.useFakeTimers();
    const { model, cleanup, el } = mount({
      items: [card({ interrupts: [toolInterrupt({ expiresAt: new Date(Date.now() + 60_000).toISOString() })] })],
    });
    expect(vi.getTimerCount()).toBe(1);
    expect(model.listenerCount()).toBeGreaterThan(0);
    cleanup();
    expect(vi.getTimerCount()).toBe(0);
    expect(model.listenerCount()).toBe(0);
    expect(el.querySelector(".agui-chat")).toBeNull();
  });

  it("the interval stops once the card is no longer pending", () => {
    vi.useFakeTimers();
    const c = card({ interrupts: [toolInterrupt({ expiresAt: new Date(Date.now() + 60_000).toISOString() })] });
    const { model } = mount({ items: [c] });
    expect(vi.getTimerCount()).toBe(1);
    model.set("items", [{ ...c, status: "done", decisions: { "int-1": { action: "approve" } }, decidedBy: "you" }]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("the ticker and its formats", () => {
  it("runs one interval only while something counts down, and one failure does not stop the rest", () => {
    vi.useFakeTimers();
    const ticker = createTicker();
    expect(vi.getTimerCount()).toBe(0);
    let a = 0;
    let b = 0;
    const fa = () => {
      a += 1;
    };
    const bad = () => {
      throw new Error("boom");
    };
    const fb = () => {
      b += 1;
    };
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    ticker.add(fa);
    ticker.add(bad);
    ticker.add(fb);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(2000);
    expect([a, b]).toEqual([2, 2]);
    expect(errors).toHaveBeenCalledTimes(2);
    ticker.remove(fa);
    ticker.remove(bad);
    expect(vi.getTimerCount()).toBe(1);
    ticker.remove(fb);
    expect(vi.getTimerCount()).toBe(0);
    ticker.add(fa);
    ticker.stop();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5000);
    expect(a).toBe(2);
    errors.mockRestore();
  });

  it("formats remaining time, clock time and parses ISO times", () => {
    expect(fmtRemaining(0)).toBe("0:00");
    expect(fmtRemaining(-5000)).toBe("0:00");
    expect(fmtRemaining(1)).toBe("0:01"); // rounds up: "0:00" only once the time is up
    expect(fmtRemaining(61_000)).toBe("1:01");
    expect(fmtRemaining(3_605_000)).toBe("1:00:05");
    const t = new Date(2025, 0, 2, 3, 4, 5).getTime();
    expect(fmtClock(t)).toBe("03:04:05");
    expect(parseTime("2025-06-01T12:00:00Z")).toBe(Date.UTC(2025, 5, 1, 12));
    expect(parseTime("not a time")).toBeNull();
    expect(parseTime("")).toBeNull();
    expect(parseTime(42)).toBeNull();
  });
});
