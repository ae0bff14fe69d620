// Bundles the corpus pages (src/*.js, src/*.jsx) from the real npm packages
// into OUTDIR, each with an HTML page that loads it. Run at test time by the
// e2e suite (libraries_test.go); the bundles are never committed.
//
//   node build.mjs OUTDIR
import { build } from "esbuild";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";

const out = process.argv[2];
if (!out) {
  console.error("usage: node build.mjs OUTDIR");
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const src = new URL("./src/", import.meta.url).pathname;
const entries = readdirSync(src).filter((f) => /\.(js|jsx)$/.test(f));

await build({
  entryPoints: entries.map((f) => join(src, f)),
  outdir: out,
  bundle: true,
  format: "iife",
  target: "chrome120",
  jsx: "automatic",
  minify: true,
  logLevel: "warning",
  define: {
    "process.env.NODE_ENV": '"production"',
    __VUE_OPTIONS_API__: "true",
    __VUE_PROD_DEVTOOLS__: "false",
    __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: "false",
  },
  // Vue templates are compiled in the page, as with Vue from a CDN.
  alias: { vue: "vue/dist/vue.esm-bundler.js" },
  // A page that imports a library's stylesheet gets OUTDIR/<name>.css, linked below.
  loader: { ".woff": "empty", ".woff2": "empty", ".ttf": "empty", ".svg": "dataurl", ".png": "dataurl" },
});

for (const f of entries) {
  const name = basename(f).replace(/\.(js|jsx)$/, "");
  const title = /@title (.+)/.exec(readFileSync(join(src, f), "utf8"))?.[1] ?? name;
  writeFileSync(
    join(out, `${name}.html`),
    `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>` +
      (existsSync(join(out, `${name}.css`)) ? `<link rel="stylesheet" href="${name}.css">` : "") +
      `<style>body{font-family:sans-serif;margin:20px} li{padding:6px;margin:4px;border:1px solid #999;list-style:none;background:#fff}</style>` +
      `</head><body><div id="root"></div><script src="${name}.js"></script></body></html>\n`,
  );
}
console.log(`built ${entries.length} pages into ${out}`);
