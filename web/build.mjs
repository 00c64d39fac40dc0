// Builds the page into dist/ (run through web/build; scripts/build calls it after the wasm build).
//
//   dist/index.html              the page: app.js + app.css (esbuild, minified, source maps), worker.js,
//                                kvlab.js + kvlab.wasm; relative paths only, so any sub-path of any host works
//   dist/embed.html              the same page in its compact view, for an <iframe> (as is index.html?embed)
//   dist/models/stories15M/      the real model's files (web/src/models/shipped.js), fetched by the worker only
//                                when the reader chooses the model
//   dist/kvlab-threads.js, .wasm, .worker.js   the threaded module (build/wasm-threads, factory
//                                createKvlabThreads), which the lab worker loads instead of kvlab.js when
//                                the page is cross-origin isolated (web/src/threads.js)
//   dist/kvlab-thread-worker.js  starts one thread worker of the threaded module (web/src/worker/thread-worker.js)
//   dist/isolation-worker.js     the service worker that adds the COOP/COEP headers where the host cannot
//                                (web/src/isolation/), so that the page is cross-origin isolated there too
//   dist/kvlab-scalar.js, .wasm  the KVLAB_SIMD=OFF build (factory createKvlabScalar), which the worker
//                                fetches only when the SIMD vs scalar vs JavaScript panel runs
//   dist/docs/                   the docs the page's words cite (web/src/docs/shipped.js), rendered from Markdown
//                                (web/render-docs.mjs)
//   dist/kvlab-standalone.html   one file with everything inlined: the single-file glue (wasm as base64)
//                                runs in a Blob-URL worker, so it works from file:// with no server; the
//                                scalar build is inlined too (its wasm as base64, compiled only when the
//                                panel runs); it runs on one thread (no threaded module inside)
//
// First it asks the wasm module for its catalog (presets, defaults, policy lists and limits: what the
// forms offer), and the threaded module for its limits (the threads a run may ask for), and writes them
// to web/src/generated/catalog.js, which the page's modules import.
//
// Every page carries a Content-Security-Policy meta tag without 'unsafe-eval' or 'unsafe-inline'; the
// standalone file allows its one inline script and one inline style by their SHA-256 hashes.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { SHIPPED_MODELS } from './src/models/shipped.js';
import { ISOLATION_WORKER_FILE } from './src/isolation/register.js';
import { THREAD_WORKER_START } from './src/worker/thread-files.js';
import { renderDocs } from './render-docs.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'web', 'src');
const dist = path.join(root, 'dist');
const wasmDir = path.join(root, 'build', 'wasm', 'src', 'wasm');
const scalarDir = path.join(root, 'build', 'wasm-scalar', 'src', 'wasm');
const threadsDir = path.join(root, 'build', 'wasm-threads', 'src', 'wasm');
const THREADED_FILES = ['kvlab-threads.js', 'kvlab-threads.wasm', 'kvlab-threads.worker.js'];

function die(message) {
  console.error(`web/build: ${message}`);
  process.exit(1);
}

let esbuild;
try {
  esbuild = await import('esbuild');
} catch (error) {
  die('esbuild is not installed: run scripts/setup (npm ci) first.');
}

for (const file of ['kvlab.js', 'kvlab.wasm', 'kvlab-single.js']) {
  if (!fs.existsSync(path.join(wasmDir, file)))
    die(`${path.relative(root, path.join(wasmDir, file))} is missing: run scripts/build (the wasm build) first.`);
}
for (const file of ['kvlab.js', 'kvlab.wasm']) {
  if (!fs.existsSync(path.join(scalarDir, file)))
    die(
      `${path.relative(root, path.join(scalarDir, file))} is missing: run scripts/build (the wasm-scalar build) first.`
    );
}
for (const file of THREADED_FILES) {
  if (!fs.existsSync(path.join(threadsDir, file)))
    die(
      `${path.relative(root, path.join(threadsDir, file))} is missing: run scripts/build (the wasm-threads build) first.`
    );
}
const scalarGlue = fs.readFileSync(path.join(scalarDir, 'kvlab.js'), 'utf8');
if (!/\bvar createKvlabScalar\b/.test(scalarGlue)) {
  die(
    `${path.relative(root, path.join(scalarDir, 'kvlab.js'))} does not define createKvlabScalar (an older build?): run scripts/build.`
  );
}

// What the page's forms offer (presets, defaults, policy lists, limits) comes from the module itself
// (src/wasm/catalog.h), written where the page's modules and the Node tests import it; with it the
// hardware switch's GPU presets (rooflinePresets()), which a link's hw keys are checked against.
async function writeCatalog() {
  const require = createRequire(import.meta.url);
  const createKvlab = require(path.join(wasmDir, 'kvlab.js'));
  const kvlab = await createKvlab({ wasmBinary: fs.readFileSync(path.join(wasmDir, 'kvlab.wasm')) });
  const catalog = { ...kvlab.catalog(), roofline_presets: kvlab.rooflinePresets() };
  const createKvlabThreads = require(path.join(threadsDir, 'kvlab-threads.js'));
  const threaded = await createKvlabThreads({
    wasmBinary: fs.readFileSync(path.join(threadsDir, 'kvlab-threads.wasm')),
  });
  const threadedLimits = { threads: threaded.catalog().limits.threads };
  fs.mkdirSync(path.join(src, 'generated'), { recursive: true });
  fs.writeFileSync(
    path.join(src, 'generated', 'catalog.js'),
    `// Written by web/build.mjs from the module's catalog() (src/wasm/catalog.h) and rooflinePresets(): do not edit.\nexport const CATALOG = ${JSON.stringify(catalog, null, 2)};\n` +
      `// The threaded module's (kvlab-threads.js) own limits.\nexport const THREADED_LIMITS = ${JSON.stringify(threadedLimits, null, 2)};\n`
  );
}
await writeCatalog();

const TARGET = ['es2020', 'chrome91', 'firefox89', 'safari16'];

// `import { workerSource } from 'kvlab:worker-source'`: null for the served page (it starts worker.js
// by URL), the whole worker's code for the standalone page.
function workerSourcePlugin(source) {
  return {
    name: 'kvlab-worker-source',
    setup(build) {
      build.onResolve({ filter: /^kvlab:worker-source$/ }, () => ({ path: 'worker-source', namespace: 'kvlab' }));
      build.onLoad({ filter: /.*/, namespace: 'kvlab' }, () => ({
        contents: `export const workerSource = ${source === null ? 'null' : JSON.stringify(source)};`,
        loader: 'js',
      }));
    },
  };
}

async function bundle({ entry, outfile, write, source = null, sourcemap = true }) {
  const result = await esbuild.build({
    entryPoints: [path.join(src, entry)],
    outfile,
    bundle: true,
    minify: true,
    sourcemap: sourcemap ? 'linked' : false,
    format: 'iife',
    target: TARGET,
    legalComments: 'eof',
    write,
    logLevel: 'warning',
    plugins: [workerSourcePlugin(source)],
    metafile: false,
  });
  return result;
}

function sha256(text) {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

function page(template, { csp, title, head, bodyAttrs = '', scripts }) {
  return (
    template
      // Functions, so that "$&" and the like in the inlined code are not replacement patterns.
      .replace('{{CSP}}', () => csp)
      .replace('{{TITLE}}', () => title)
      .replace('{{HEAD}}', () => head)
      .replace('{{BODY_ATTRS}}', () => bodyAttrs)
      .replace('{{SCRIPTS}}', () => scripts)
  );
}

// Inline text must not end its own element early: refuse rather than ship a broken page.
function checkInline(text, tag) {
  const closing = new RegExp(`</${tag}`, 'i');
  if (closing.test(text) || /<!--/.test(text)) die(`inline ${tag} would contain "</${tag}" or "<!--"`);
  return text;
}

const started = Date.now();
fs.rmSync(dist, { recursive: true, force: true });
fs.mkdirSync(dist, { recursive: true });

// ---- served page ------------------------------------------------------------------------------
await bundle({ entry: 'main.js', outfile: path.join(dist, 'app.js'), write: true });
await bundle({ entry: 'worker/index.js', outfile: path.join(dist, 'worker.js'), write: true });
await bundle({ entry: 'isolation/service-worker.js', outfile: path.join(dist, ISOLATION_WORKER_FILE), write: true });
await bundle({ entry: 'worker/thread-worker.js', outfile: path.join(dist, THREAD_WORKER_START), write: true });
for (const file of ['kvlab.js', 'kvlab.wasm']) fs.copyFileSync(path.join(wasmDir, file), path.join(dist, file));
for (const file of THREADED_FILES) fs.copyFileSync(path.join(threadsDir, file), path.join(dist, file));
fs.copyFileSync(path.join(scalarDir, 'kvlab.js'), path.join(dist, 'kvlab-scalar.js'));
fs.copyFileSync(path.join(scalarDir, 'kvlab.wasm'), path.join(dist, 'kvlab-scalar.wasm'));

// The real models beside the served page (web/src/models/shipped.js), fetched only when chosen; the
// standalone file carries none.
for (const model of SHIPPED_MODELS) {
  const from = path.join(root, 'build', model.directory);
  fs.mkdirSync(path.join(dist, model.directory), { recursive: true });
  for (const file of Object.values(model.files)) {
    if (!fs.existsSync(path.join(from, file)))
      die(`${path.relative(root, path.join(from, file))} is missing: run scripts/extract-models first.`);
    fs.copyFileSync(path.join(from, file), path.join(dist, model.directory, file));
  }
}

const template = fs.readFileSync(path.join(src, 'index.html'), 'utf8');
const servedCsp = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "connect-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join('; ');
const servedHead = '<link rel="stylesheet" href="app.css">';
const servedScripts = '<script src="app.js"></script>';
const title = 'kvlab: the KV cache and continuous batching, measured in your browser';
fs.writeFileSync(
  path.join(dist, 'index.html'),
  page(template, { csp: servedCsp, title, head: servedHead, scripts: servedScripts })
);
fs.writeFileSync(
  path.join(dist, 'embed.html'),
  page(template, {
    csp: servedCsp,
    title: 'kvlab (compact view)',
    head: servedHead,
    bodyAttrs: ' data-embed',
    scripts: servedScripts,
  })
);

// ---- standalone page --------------------------------------------------------------------------
const workerBundle = await bundle({
  entry: 'worker/index.js',
  outfile: path.join(dist, 'standalone-worker.js'),
  write: false,
  sourcemap: false,
});
const workerJs = workerBundle.outputFiles.find((f) => f.path.endsWith('.js')).text;
const glue = fs.readFileSync(path.join(wasmDir, 'kvlab-single.js'), 'utf8');
const standaloneApp = await bundle({
  entry: 'main.js',
  outfile: path.join(dist, 'standalone-app.js'),
  write: false,
  sourcemap: false,
  // The SIMD glue, the scalar glue and its wasm (decoded by the worker only when the panel runs), then
  // the worker's own code.
  source: [
    glue,
    scalarGlue,
    `var kvlabScalarWasmBase64 = ${JSON.stringify(fs.readFileSync(path.join(scalarDir, 'kvlab.wasm')).toString('base64'))};`,
    workerJs,
  ].join('\n;\n'),
});
const appJs = checkInline(standaloneApp.outputFiles.find((f) => f.path.endsWith('.js')).text, 'script');
const appCss = checkInline(standaloneApp.outputFiles.find((f) => f.path.endsWith('.css')).text, 'style');
const standaloneCsp = [
  "default-src 'none'",
  `script-src ${sha256(appJs)} 'wasm-unsafe-eval'`,
  'worker-src blob:',
  // The single-file glue first tries fetch() on its data: URL (then decodes it itself).
  'connect-src data:',
  `style-src ${sha256(appCss)}`,
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join('; ');
fs.writeFileSync(
  path.join(dist, 'kvlab-standalone.html'),
  page(template, {
    csp: standaloneCsp,
    title,
    head: `<style>${appCss}</style>`,
    scripts: `<script>${appJs}</script>`,
  })
);

const docs = renderDocs(root, dist, path.join(src, 'docs', 'doc.css'));

const size = (file) => `${(fs.statSync(path.join(dist, file)).size / 1024).toFixed(0)} KiB`;
console.log(
  `web/build: dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s: index.html, embed.html, app.js ${size('app.js')}, app.css ${size('app.css')}, worker.js ${size('worker.js')}, kvlab.js, kvlab.wasm ${size('kvlab.wasm')}, kvlab-threads.js, .worker.js, kvlab-threads.wasm ${size('kvlab-threads.wasm')}, ${ISOLATION_WORKER_FILE}, kvlab-scalar.js, kvlab-scalar.wasm ${size('kvlab-scalar.wasm')}, ${docs.join(', ')}; kvlab-standalone.html ${size('kvlab-standalone.html')}`
);
