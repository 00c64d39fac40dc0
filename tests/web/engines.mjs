// Which test files the second engine runs. scripts/test runs every file of tests/web in Chromium, then
// in Firefox the files whose outcome can depend on the engine: workers and wasm, the clock, layout and
// text widths, file:// pages, the CSP, URL limits, iframes and postMessage, isolation and service
// workers, WebGPU's absence. The files below test code that is the same in every engine (or no browser
// at all), so Firefox leaves them to Chromium; a new file runs in both until it is named here.
//   node tests/web/engines.mjs firefox     prints the paths of the files the Firefox pass runs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const NO_BROWSER = 'no browser: Node runs the page’s modules';
const SAME_SCRIPT =
  'the page’s own script on the same wasm module; Firefox runs the lab, the walkthrough and the panels that read its result';

export const FIREFOX_SKIPS = {
  'catalog.test.mjs': 'the menus filled from the module’s catalog: the page’s own script',
  'contradiction_cells.test.mjs': NO_BROWSER,
  'contradictions.test.mjs': `the chapters’ words on injected tables: ${SAME_SCRIPT}`,
  'error_fields.test.mjs':
    'which field a module error marks: the page’s own script (and it changes the worker from inside, which Firefox’s WebDriver BiDi cannot)',
  'format.test.mjs': NO_BROWSER,
  'hardware.test.mjs': `GPU servers modeled on paper: ${SAME_SCRIPT}`,
  'memory.test.mjs': `the Memory section and the replay panel: ${SAME_SCRIPT}`,
  'real_model.test.mjs': `the model choice and a file read from the disk: ${SAME_SCRIPT}`,
  'remeasure.test.mjs': NO_BROWSER,
  'replay_words.test.mjs': NO_BROWSER,
  'share.test.mjs': `a result’s link in the hash: ${SAME_SCRIPT}`,
  'webgpu_precision.test.mjs': NO_BROWSER,
  'webgpu_rows_limit.test.mjs': NO_BROWSER,
  'webgpu_self_check.test.mjs': NO_BROWSER,
  'webgpu_steps.test.mjs': NO_BROWSER,
};

const here = path.dirname(fileURLToPath(import.meta.url));

// The test files of tests/web, as paths.
export function testFiles() {
  return fs
    .readdirSync(here)
    .filter((name) => /\.test\.m?js$/.test(name))
    .sort();
}

export function firefoxFiles() {
  return testFiles().filter((name) => !Object.hasOwn(FIREFOX_SKIPS, name));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] !== 'firefox') {
    console.error('engines: usage: node tests/web/engines.mjs firefox');
    process.exit(2);
  }
  for (const [name, why] of Object.entries(FIREFOX_SKIPS)) console.error(`firefox skips ${name}: ${why}`);
  for (const name of firefoxFiles()) console.log(path.join(path.relative(process.cwd(), here), name));
}
