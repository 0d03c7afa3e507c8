// @ts-check
/**
 * Countdowns: one setInterval per view, running only while something counts down, and the time
 * formats the cards show (remaining time, local clock time).
 */

/** @param {number} n */
export function pad2(n) {
  return String(n).padStart(2, "0");
}

/** @param {number} ms */
export function fmtRemaining(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  return hours > 0 ? `${hours}:${pad2(minutes)}:${pad2(seconds)}` : `${minutes}:${pad2(seconds)}`;
}

/** @param {number} ms  epoch ms, shown as local HH:MM:SS */
export function fmtClock(ms) {
  const d = new Date(ms);
  return `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
}

/** @param {unknown} iso */
export function parseTime(iso) {
  if (typeof iso !== "string" || !iso) return null;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : null;
}

export function createTicker() {
  /** @type {Set<() => void>} */
  const fns = new Set();
  /** @type {ReturnType<typeof setInterval> | null} */
  let timer = null;
  const tick = () => {
    for (const fn of [...fns]) {
      try {
        fn();
      } catch (e) {
        console.error("agui-chat: countdown failed", e);
      }
    }
  };
  return {
    /** @param {() => void} fn */
    add(fn) {
      fns.add(fn);
      if (timer === null) timer = setInterval(tick, 1000);
    },
    /** @param {() => void} fn */
    remove(fn) {
      fns.delete(fn);
      if (fns.size === 0 && timer !== null) {
        clearInterval(timer);
        timer = null;
      }
    },
    stop() {
      fns.clear();
      if (timer !== null) clearInterval(timer);
      timer = null;
    },
  };
}
