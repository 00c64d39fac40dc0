// The page's modules keep their layers, as layering.test.js states the C++'s. What runs in a worker (the
// worker itself, the lab on the GPU, and the plans a job computes) reaches no view, not even through
// another module, and touches no DOM; the runs (runs/: the lab's run, the store, the workers' clients,
// what goes out of the page) reach no view either, since the views draw them; no view imports the worker. The views are the folders that draw:
// the walkthrough and its chapters, the bench's panels (the hardware switch among them), playback, docs and
// main.js.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const src = path.resolve(__dirname, '../../web/src');
const VIEWS = ['chapters', 'panels', 'walkthrough', 'playback', 'docs', 'main.js'];
const HEADLESS = ['worker', 'webgpu', 'plans'];
const BELOW_VIEWS = [...HEADLESS, 'runs'];

function modules(dir) {
  return fs.readdirSync(path.join(src, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return modules(file);
    return entry.name.endsWith('.js') ? [file] : [];
  });
}

// The modules `file` imports (or re-exports) from web/src, as paths relative to it.
function imports(file) {
  const code = fs.readFileSync(path.join(src, file), 'utf8');
  return [...code.matchAll(/^\s*(?:import|export)\s+(?:[^'"]*?\s+from\s+)?['"](\.[^'"]+)['"]/gm)]
    .map((m) => path.normalize(path.join(path.dirname(file), m[1])))
    .filter((target) => !target.startsWith('..') && target.endsWith('.js'));
}

const layerOf = (file) => file.split(path.sep)[0];
const isView = (file) => VIEWS.includes(layerOf(file));

// Every module `start` reaches through its imports, with the chain that reaches it.
function reached(start) {
  const chains = new Map([[start, [start]]]);
  const queue = [start];
  while (queue.length) {
    const file = queue.shift();
    for (const next of imports(file)) {
      if (chains.has(next)) continue;
      chains.set(next, [...chains.get(file), next]);
      queue.push(next);
    }
  }
  return chains;
}

test('the folders the layers name exist', () => {
  for (const name of [...VIEWS, ...BELOW_VIEWS]) assert.ok(fs.existsSync(path.join(src, name)), name);
});

for (const layer of BELOW_VIEWS) {
  const headless = HEADLESS.includes(layer);
  test(`web/src/${layer} reaches no view${headless ? ', and uses no DOM' : ''}`, () => {
    for (const file of modules(layer)) {
      const views = [...reached(file)].filter(([target]) => isView(target)).map(([, chain]) => chain.join(' -> '));
      assert.deepEqual(views, [], file);
      if (!headless) continue;
      const code = fs.readFileSync(path.join(src, file), 'utf8');
      assert.doesNotMatch(code, /\bdocument\s*\.|\bshared\/dom\.js/, file);
    }
  });
}

test('no view imports the worker', () => {
  const views = VIEWS.flatMap((name) => (name.endsWith('.js') ? [name] : modules(name)));
  assert.ok(views.length > 50, `${views.length} view modules`);
  for (const file of views)
    assert.deepEqual(
      imports(file).filter((target) => layerOf(target) === 'worker'),
      [],
      file
    );
});

// A view finds its elements within its own root: an id looked up over the whole document could be another
// view's. main.js alone, which gives each view its root, reads the document.
test('no id is looked up over the whole document, but in main.js', () => {
  const wholeDocument = /\$\(\s*(['"`])#[^'"`]*\1\s*\)|document\.(getElementById|querySelector(All)?)\(/g;
  const found = modules('.')
    .filter((file) => file !== 'main.js' && !file.startsWith('generated'))
    .flatMap((file) => {
      const code = fs.readFileSync(path.join(src, file), 'utf8');
      return [...code.matchAll(wholeDocument)].map((m) => `${file}: ${m[0]}`);
    });
  assert.deepEqual(found, []);
});

// The check reads imports the way the modules write them: a chain it finds is a real one.
test('a view reached through a chain is found', () => {
  const chains = reached('worker/index.js');
  assert.ok(chains.has('worker/job.js'));
  assert.ok(chains.has(path.join('plans', 'memory.js')));
  assert.deepEqual(chains.get(path.join('plans', 'hardware.js')).slice(0, 1), ['worker/index.js']);
});
