// Bad arguments of every JavaScript type, many times over, through every binding: each call throws a
// plain Error whose message names the argument or field (never a bare WebAssembly.Exception or Embind's
// "Cannot pass non-string to std::string"), and afterwards a good call works and the heap has not grown.
// The bug: an error describing "a" and thirty "é" cut a character and then threw across Embind; each such
// call leaked wasm stack, and after about 164,000 of them every call failed.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadModule } = require('./helpers');

const ITERATIONS = 10000;

// Values no argument or field accepts. Symbols and functions have no JSON text: they are argument-level only.
const jsonValues = ['a' + 'é'.repeat(30), 'x\ud800y', null, 1e308, -1e308, { nested: 'é'.repeat(300) }, [1, 'é', null]];
const argumentValues = [...jsonValues, Symbol('s'), function bad() {}, 12n];

// Each binding with the argument it takes and a field inside it to put bad values in.
const bindings = [
  { name: 'measure', call: (k, v) => k.measure(v), field: (v) => ({ runs: v }) },
  { name: 'modelInfo', call: (k, v) => k.modelInfo(v), field: (v) => ({ d_model: v }) },
  { name: 'bench', call: (k, v) => k.bench(v), field: (v) => ({ answer_runs: v }) },
  { name: 'simulate', call: (k, v) => k.simulate(v, v, v, v), field: (v) => ({ decode: v }) },
  { name: 'workload', call: (k, v) => k.workload(v), field: (v) => ({ count: v }) },
  { name: 'roofline', call: (k, v) => k.roofline(v), field: (v) => ({ tp: v }) },
  { name: 'rooflineChecks', call: (k, v) => k.rooflineChecks(v), field: (v) => ({ bw_efficiency: v }) },
  { name: 'run', call: (k, v) => k.run(v), field: (v) => ({ measure: { runs: v } }) },
  { name: 'replay', call: (k, v) => k.replay(v), field: (v) => ({ measure: { runs: v } }) },
  { name: 'exportWeights', call: (k, v) => k.exportWeights(v), field: (v) => ({ n_layers: v }) },
];

function assertDataError(binding, call) {
  let error;
  try {
    call();
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof Error, `${binding}: threw ${String(error)} rather than an Error`);
  assert.ok(
    error.message.length > 0 && error.message.length < 1000,
    `${binding}: message of ${error.message.length} characters`
  );
  assert.doesNotMatch(error.message, /Cannot pass|WebAssembly|memory access/, binding);
  return error;
}

test(`${ITERATIONS} failing calls of each binding with bad values of every type leave the module working and the heap flat`, async () => {
  const kvlab = await loadModule();
  const round = (count) => {
    for (const b of bindings) {
      for (let i = 0; i < count; i += 1) {
        const value = argumentValues[i % argumentValues.length];
        const asArgument = assertDataError(b.name, () => b.call(kvlab, value));
        if (typeof value === 'symbol' || typeof value === 'function' || typeof value === 'bigint') {
          assert.match(asArgument.message, /^(options|steps|workload) /, `${b.name}: ${asArgument.message}`);
          assert.equal(asArgument.given, typeof value);
        }
        const fieldValue = jsonValues[i % jsonValues.length];
        assertDataError(b.name, () => b.call(kvlab, b.field(fieldValue)));
      }
    }
  };
  round(50); // warm-up: first-use allocations settle
  const before = kvlab.memory();
  round(ITERATIONS);
  const after = kvlab.memory();
  assert.equal(after.heap_bytes, before.heap_bytes, 'the heap did not grow');
  assert.ok(
    after.in_use_bytes - before.in_use_bytes < 64 * 1024,
    `bytes in use: ${before.in_use_bytes} before, ${after.in_use_bytes} after`
  );
  assert.equal(kvlab.modelInfo({ preset: 'tiny' }).preset, 'tiny');
  console.log(
    `# heap ${before.heap_bytes} bytes before, ${after.heap_bytes} after; in use ${before.in_use_bytes} before, ${after.in_use_bytes} after`
  );
});

test('a value cut in the middle of a two-byte character is echoed whole characters and the error carries its field', async () => {
  const kvlab = await loadModule();
  const long = 'a' + 'é'.repeat(300);
  const error = assertDataError('modelInfo', () => kvlab.modelInfo({ runs: long }));
  assert.equal(error.path, 'options.runs');
  assert.ok(error.given.startsWith('"aé'), error.given);
  assert.ok(error.given.endsWith('"… (301 characters)'), error.given);
  assert.ok(!error.given.includes('\ufffd'), 'no character was cut');
});

test('a 7,000,000-element list in a field gives a short message with its size', async () => {
  const kvlab = await loadModule();
  const steps = kvlab.roofline({ gpu: 'h100-sxm', model: 'llama-3.1-8b' });
  const workload = { count: 4, prompt: new Array(7000000).fill(1), answer: [4, 8] };
  const error = assertDataError('simulate', () => kvlab.simulate(steps, workload));
  assert.equal(error.path, 'workload.prompt');
  assert.ok(error.given.length < 260, `given of ${error.given.length} characters`);
  assert.ok(error.given.endsWith('… (7,000,000 elements)'), error.given.slice(-60));
});
