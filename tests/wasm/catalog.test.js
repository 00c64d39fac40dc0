// The catalog the page is built with (src/wasm/catalog.h) says what the module itself accepts: its
// presets are the module's, its defaults are what a call without options uses, and each limit is the
// edge where the module starts to refuse, naming the field.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadModule, smallMeasure, thrown, smallSteps, smallWorkload } = require('./helpers');

const steps = smallSteps;
const workload = smallWorkload;

let kvlab;
let catalog;
test.before(async () => {
  kvlab = await loadModule();
  catalog = kvlab.catalog();
});

test("the presets are the module's, and the default is measure()'s", () => {
  const names = catalog.model_presets.map((p) => p.name);
  assert.deepEqual(
    names,
    kvlab.presets().map((p) => p.preset)
  );
  assert.equal(catalog.lab.defaults.preset, names[0]);
  for (const p of catalog.model_presets) {
    assert.equal(p.max_seq, kvlab.modelInfo({ preset: p.name }).max_seq, p.name);
    assert.ok(p.label.length > 0 && p.label.length < 40, p.name);
  }
});

test('the weight formats are the ones the model takes, the default being f32', () => {
  assert.deepEqual(
    catalog.weight_formats.map((f) => f.name),
    ['f32', 'bf16']
  );
  assert.equal(catalog.lab.defaults.weights, kvlab.modelInfo({ preset: 'tiny' }).weights);
  for (const f of catalog.weight_formats)
    assert.equal(kvlab.modelInfo({ preset: 'tiny', weights: f.name }).weights, f.name);
  assert.throws(
    () => kvlab.modelInfo({ preset: 'tiny', weights: 'fp16' }),
    (e) => e.path === 'options.weights'
  );
});

test('the KV cache formats are the ones the model takes, the default being f32', () => {
  assert.deepEqual(catalog.kv_formats, [
    { name: 'f32', bytes_per_number: 4 },
    { name: 'bf16', bytes_per_number: 2 },
    { name: 'f16', bytes_per_number: 2 },
  ]);
  assert.equal(catalog.lab.defaults.kv, kvlab.modelInfo({ preset: 'tiny' }).kv);
  for (const f of catalog.kv_formats) assert.equal(kvlab.modelInfo({ preset: 'tiny', kv: f.name }).kv, f.name);
  assert.throws(
    () => kvlab.modelInfo({ preset: 'tiny', kv: 'fp8' }),
    (e) => e.path === 'options.kv'
  );
});

test('the defaults are what the module uses when a field is left out', () => {
  const d = catalog.lab.defaults;
  assert.deepEqual(Object.keys(kvlab.simulate(steps, workload)).sort(), [...catalog.lab.policies].sort());
  assert.ok(catalog.lab.policies.includes(`continuous:${d.slots}`));
  // The replay panel's slots are those its default policies batch with.
  const batched = catalog.replay.policies.filter((name) => name.includes(':'));
  assert.ok(batched.length > 0 && batched.every((name) => name.endsWith(`:${catalog.replay.slots}`)), batched.join());
  const r = kvlab.measure({ ...smallMeasure, runs: undefined, answer_tokens: undefined, prompt_tokens: undefined });
  assert.equal(r.answer.runs, d.runs);
  assert.equal(r.answer.prompt_tokens, d.prompt_tokens);
  assert.equal(r.answer.answer_tokens, d.answer_tokens);
  // The published lab's queue (the page compares its table with the published one only for this queue).
  assert.deepEqual([d.requests, d.prompt, d.answer, d.arrival], [1000, [8, 32], [16, 96], 'all-at-zero']);
  assert.deepEqual(
    catalog.policy_forms.map((f) => f.split(':')[0]),
    ['serial-nocache', 'serial-cache', 'static', 'continuous', 'reserve', 'paged', 'chunked']
  );
});

test("the policies carry each family's traits, in the registry's order, and the module serves them so", () => {
  assert.deepEqual(
    catalog.policies.map((p) => p.form),
    catalog.policy_forms
  );
  for (const p of catalog.policies) {
    assert.equal(p.form, p.parameters ? `${p.family}:${p.parameters}` : p.family);
    assert.ok(p.label.length > 0 && p.short_label.length > 0 && p.help.length > 0, p.family);
    assert.match(p.colour, /^#[0-9a-f]{6}$/, p.family);
    const name = p.form.replace('B,T', '2,4').replace('B', '2');
    const r = kvlab.simulate(steps, workload, [name], { kv_tokens: 256 })[name];
    assert.equal('kv_blocks_budget' in r, p.takes_kv_budget, name);
  }
  const traits = (family) => catalog.policies.find((p) => p.family === family);
  assert.deepEqual(
    catalog.policies.filter((p) => p.keeps_kv_in_blocks).map((p) => p.family),
    ['paged', 'chunked']
  );
  assert.deepEqual(
    catalog.policies.filter((p) => !p.caches_kv).map((p) => p.family),
    ['serial-nocache']
  );
  assert.equal(traits('paged').label, 'Paged, {B} slots');
});

test('each limit is where the module starts to refuse, naming the field', () => {
  const L = catalog.limits;
  const refused = (call, path) => {
    const e = thrown(call);
    assert.ok(e instanceof RangeError, `${path}: ${e}`);
    assert.equal(e.path, path);
    return e;
  };
  // Batch rows.
  assert.ok(kvlab.simulate(steps, workload, [`continuous:${L.batch_rows.max}`])[`continuous:${L.batch_rows.max}`]);
  refused(() => kvlab.simulate(steps, workload, [`continuous:${L.batch_rows.max + 1}`]), 'policies[0]');
  // Tokens per prompt and answer.
  assert.ok(
    kvlab.simulate(steps, { count: 1, prompt: [L.tokens.max, L.tokens.max], answer: [1, 1] }, ['serial-cache'])
  );
  refused(
    () => kvlab.simulate(steps, { ...workload, prompt: [8, L.tokens.max + 1] }, ['serial-cache']),
    'workload.prompt[1]'
  );
  // Requests: the lab simulates each default policy on the whole queue.
  const e = thrown(() => kvlab.simulate(steps, { ...workload, count: L.requests.max + 1 }, catalog.lab.policies));
  assert.ok(e instanceof RangeError && /policies/.test(e.message), String(e));
  // Seed, rate, KV budget, block size, chunked's step budget, Part A runs.
  refused(() => kvlab.simulate(steps, { ...workload, seed: L.seed.max + 1 }), 'workload.seed');
  refused(
    () => kvlab.simulate(steps, { ...workload, arrival: { kind: 'poisson', rate_per_s: L.rate_per_s.max * 2 } }),
    'workload.arrival.rate_per_s'
  );
  refused(() => kvlab.simulate(steps, workload, ['paged:2'], { kv_tokens: L.kv_tokens.max + 1 }), 'options.kv_tokens');
  refused(
    () => kvlab.simulate(steps, workload, ['paged:2'], { block_tokens: L.block_tokens.max + 1 }),
    'options.block_tokens'
  );
  refused(() => kvlab.simulate(steps, workload, [`chunked:1,${L.step_tokens.max + 1}`]), 'policies[0]');
  refused(() => kvlab.measure({ ...smallMeasure, runs: L.runs.max + 1 }), 'options.runs');
  // A modeled GPU's table ends at the hardware switch's largest slot count.
  const table = kvlab.roofline({ gpu: 'h100-sxm', model: 'llama-3.1-8b' });
  assert.equal(table.decode.rows.at(-1), L.modeled_batch_rows.max);
  assert.ok(L.page_answer_work.max > 0 && L.page_answer_work.max <= 1e8);
});
