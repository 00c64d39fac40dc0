// Inputs hostile in their structure (docs/RELIABILITY.md, "Structural limits"): the Embind module
// refuses them with an error that names the limit and stays usable; both command lines exit 2 with a
// message on a deep file, a file with bytes after its value, and a file that never ends.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { loadModule, kvlabScript, smallSteps, smallWorkload } = require('./helpers');

const steps = smallSteps;
const workload = smallWorkload;

let kvlab;
test.before(async () => {
  kvlab = await loadModule();
});

// A list nested `depth` levels deep, as a JS value and as JSON text.
function nestedValue(depth) {
  let value = [];
  for (let i = 1; i < depth; i += 1) value = [value];
  return value;
}
const nestedText = (depth) => '['.repeat(depth) + ']'.repeat(depth);

test('the module reports the limits it enforces', () => {
  assert.deepEqual(kvlab.inputLimits(), {
    max_bytes: 268435456,
    max_values: 8000000,
    max_depth: 32,
    max_members: 1024,
    max_string_bytes: 4096,
    size_limit_text: 'more than 268,435,456 bytes (256 MiB), the limit on input size',
  });
});

test('nesting depth: 32 levels are read, 33 and 100,000 are refused by name', () => {
  const deepModel = (depth) => ({ ...steps, model: { note: nestedValue(depth - 2) } }); // the top object and model are 2 levels
  assert.ok(kvlab.simulate(deepModel(32), workload, ['serial-cache'])['serial-cache']);
  assert.throws(
    () => kvlab.simulate(deepModel(33), workload, ['serial-cache']),
    (e) =>
      e instanceof RangeError &&
      /^steps at model\.note(\[0\]){30}: nests deeper than 32 levels, the limit on nesting depth$/.test(e.message)
  );
  // The text a JS caller cannot build as an object: straight to the Embind function, as a string.
  for (const text of [nestedText(100000), '['.repeat(100000), '{"a":'.repeat(100000)]) {
    const reply = JSON.parse(kvlab.simulate_json(text, JSON.stringify(workload), 'null', 'null'));
    assert.equal(reply.error.type, 'RangeError');
    assert.match(reply.error.message, /^steps at .*: nests deeper than 32 levels, the limit on nesting depth$/);
  }
  // Too deep for JSON.stringify itself: still an error with a message, never a crash.
  assert.throws(
    () => kvlab.simulate(nestedValue(1000000), workload),
    (e) => e instanceof Error && e.message.length > 0
  );
});

test('values, members and string length are refused by name in every argument', () => {
  assert.throws(
    () => kvlab.simulate(steps, { requests: new Array(8000000).fill(0) }),
    /^RangeError: workload at requests\[7999998\]: more than 8,000,000 values \(numbers, strings, lists, objects\), the limit on values$/
  );
  const wide = Object.fromEntries(Array.from({ length: 1025 }, (_, i) => [`k${i}`, i]));
  assert.throws(
    () => kvlab.measure({ model: wide }),
    /^RangeError: options at model\.k1024: more than 1,024 members in one object, the limit on object members$/
  );
  assert.throws(
    () => kvlab.simulate(steps, workload, ['x'.repeat(4097)]),
    /^RangeError: policies at \[0\]: a string of 4,097 bytes, more than 4,096, the limit on string length$/
  );
  assert.throws(
    () => kvlab.modelInfo({ ['k'.repeat(5000)]: 1 }),
    /^RangeError: options at k{40}\.\.\.: a key of 5,000 bytes, more than 4,096/
  );
  assert.throws(
    () => kvlab.run({ workload: { requests: [{ arrival_ms: 0, prompt: 4, answer: 4, note: nestedValue(40) }] } }),
    /^RangeError: options at workload\.requests\[0\]\.note(\[0\]){28}: nests deeper than 32 levels/
  );
});

test('a text over the size limit is refused before it reaches the module', () => {
  const before = kvlab.memory().heap_bytes;
  assert.throws(
    () => kvlab.simulate(steps, workload, undefined, { note: 'x'.repeat(268435456) }),
    /^RangeError: options is 268,435,4\d\d bytes as JSON: more than 268,435,456 bytes \(256 MiB\), the limit on input size$/
  );
  assert.equal(kvlab.memory().heap_bytes, before, 'the text was not copied into the wasm heap');
});

test('bytes after the JSON value are refused', () => {
  const reply = JSON.parse(
    kvlab.simulate_json(JSON.stringify(steps) + ' {}', JSON.stringify(workload), 'null', 'null')
  );
  assert.deepEqual(reply.error, {
    type: 'TypeError',
    message: `steps has bytes after its JSON value, from line 1, column ${JSON.stringify(steps).length + 2}`,
  });
});

test('after every refusal the module still simulates', () => {
  const before = kvlab.simulate(steps, workload, ['continuous:2']);
  assert.equal(before['continuous:2'].requests.length, 5);
  for (let i = 0; i < 2000; i += 1)
    assert.throws(() => kvlab.simulate(nestedValue(40), workload), /the limit on nesting depth/);
  assert.deepEqual(kvlab.simulate(steps, workload, ['continuous:2']), before);
});

// ---- the command lines ---------------------------------------------------------------------------

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kvlab-limits-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = (name, text) => {
  const where = path.join(dir, name);
  fs.writeFileSync(where, text);
  return where;
};

const builds = [
  ['native', []],
  ['wasm', ['--wasm']],
];
const simulate = (prefix, stepsFile, workloadFile) =>
  spawnSync(
    kvlabScript,
    [...prefix, 'simulate', '--steps', stepsFile, '--workload', workloadFile, '--policy', 'serial-cache'],
    { encoding: 'utf8' }
  );

test('a deep file exits 2 with a message in both builds (it crashed them: SIGSEGV, stack overflow)', () => {
  const good = file('workload.json', JSON.stringify(workload));
  const cases = [
    [
      file('deep.json', nestedText(100000)),
      /^kvlab: --steps \S*deep\.json at (\[0\]){32}: nests deeper than 32 levels, the limit on nesting depth\n$/,
    ],
    [
      file('open.json', '['.repeat(100000)),
      /^kvlab: --steps \S*open\.json at (\[0\]){32}: nests deeper than 32 levels/,
    ],
    [
      file('trailing.json', `${JSON.stringify(steps)}\n{"more": 1}\n`),
      /^kvlab: --steps \S*trailing\.json has bytes after its JSON value, from line 2, column 1\n$/,
    ],
    [
      '/dev/zero',
      /^kvlab: --steps: file "\/dev\/zero" has more than 268,435,456 bytes \(256 MiB\), the limit on input size\n$/,
    ],
  ];
  for (const [name, prefix] of builds) {
    for (const [stepsFile, message] of cases) {
      const run = simulate(prefix, stepsFile, good);
      assert.equal(
        run.status,
        2,
        `${name} ${stepsFile}: status ${run.status}, signal ${run.signal}, ${run.stderr.slice(0, 300)}`
      );
      assert.match(run.stderr, message, `${name} ${stepsFile}`);
    }
    const ok = simulate(prefix, file('steps.json', JSON.stringify(steps)), good);
    assert.equal(ok.status, 0, `${name}: ${ok.stderr}`);
  }
});
