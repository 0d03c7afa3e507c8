// Bundles the front end's rooms (js/src/, entry index.js) into the ONE ES module anywidget loads:
// agui_notebook/static/chat.js. The bundle is committed, so installing the package never needs
// Node; scripts/test rebuilds it elsewhere and fails when the committed one is stale.
//
//   npm run build                           write agui_notebook/static/chat.js
//   node build.mjs --outfile /tmp/chat.js   write it elsewhere (the staleness check)
//
// The output must be the same bytes on every build: fixed working directory, no timestamps, no
// source maps, a pinned esbuild. It is minified: a notebook saved with widget state (nbclient's
// default, JupyterLab's "save widget state") carries this file once per chat view, and minified
// it is about a third smaller. Read js/src/ for the code; the bundle is only shipped.

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const at = args.indexOf("--outfile");
const outfile = at >= 0 ? resolve(args[at + 1] ?? "") : resolve(here, "../agui_notebook/static/chat.js");

const header =
  `// GENERATED from js/src/*.js (entry js/src/index.js) by \`cd js && npm run build\` ` +
  `(esbuild ${esbuild.version}); do not edit, edit js/src/ and rebuild.`;

const result = await esbuild.build({
  absWorkingDir: here,
  entryPoints: ["src/index.js"],
  outfile,
  write: false,
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  charset: "utf8",
  legalComments: "none",
  minify: true,
  sourcemap: false,
  banner: { js: header },
  logLevel: "warning",
});

// esbuild ends an ES module with `export{x as default};`; write it as the `export default x;`
// that anywidget modules are known by (and tests/packaging looks for).
const tail = /export\{([\w$]+) as default\};\n$/;
const [bundle] = result.outputFiles;
if (result.outputFiles.length !== 1 || !tail.test(bundle.text)) {
  throw new Error("build.mjs: esbuild's output does not end with the expected default export");
}
mkdirSync(dirname(outfile), { recursive: true });
writeFileSync(outfile, bundle.text.replace(tail, "\nexport default $1;\n"));
