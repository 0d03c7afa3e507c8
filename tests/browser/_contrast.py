"""WCAG contrast of an element's text against the first mostly opaque background behind it.

``locator.evaluate(CONTRAST_JS)`` returns ``{ratio, fg, bg, bgLuminance}``. The walk up crosses
shadow roots (marimo mounts widgets in one); colours are normalised by a canvas, so any CSS colour
(system colours under forced-colors included) reads as sRGB; translucent text is blended first.
"""

CONTRAST_JS = """el => {
      const parse = (c) => {
        const ctx = document.createElement('canvas').getContext('2d');
        ctx.fillStyle = '#000'; ctx.fillStyle = c;   // normalises to #rrggbb or rgba(...)
        const v = ctx.fillStyle;
        if (v.startsWith('#')) return [parseInt(v.slice(1, 3), 16), parseInt(v.slice(3, 5), 16), parseInt(v.slice(5, 7), 16), 1];
        const srgb = v.match(/^color\\(srgb ([^)]+)\\)/);  // what color-mix() computes to
        if (srgb) {
          const [rgb, alpha] = srgb[1].split('/');
          const p = rgb.trim().split(/\\s+/).map((x) => Number(x) * 255);
          return [p[0], p[1], p[2], alpha === undefined ? 1 : Number(alpha)];
        }
        const m = v.match(/rgba?\\(([^)]+)\\)/);
        const p = m[1].split(',').map(Number);
        return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
      };
      let bgEl = el, bg = [0, 0, 0, 0];
      while (bgEl) {
        bg = parse(getComputedStyle(bgEl).backgroundColor);
        if (bg[3] > 0.5) break;
        const r = bgEl.getRootNode();
        bgEl = bgEl.parentElement || (r instanceof ShadowRoot ? r.host : null);
      }
      if (!bgEl) bg = [255, 255, 255, 1];
      const raw = parse(getComputedStyle(el).color);
      // A translucent text colour (JupyterLab's greys are black or white at 54-87 %) is seen
      // blended with what is behind it.
      const fg = [0, 1, 2].map((i) => raw[i] * raw[3] + bg[i] * (1 - raw[3]));
      const lum = ([r, g, b]) => {
        const f = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
      };
      const a = lum(fg), b = lum(bg);
      return {ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05),
              fg: getComputedStyle(el).color, bg: getComputedStyle(bgEl || document.body).backgroundColor,
              bgLuminance: b};
    }"""
