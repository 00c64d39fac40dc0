// Fields at their documented limits together, taken from the module's own catalog (src/wasm/catalog.h):
// every call either returns figures that are all finite and non-negative, or throws an Error that names
// the field and its range; never a WebAssembly.Exception, a heap past the one-call bound, or a long run
// where the docs say the work is refused up front. The combinations are a fixed enumeration, so every
// run tries the same ones. Accepted calls too long for a test (a workload of 10^8 answer tokens, a
// measurement's largest grid) are checked by what the module says before it runs them: modelInfo reads
// measure's options as measure does, so it accepts or refuses them without measuring.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadModule, smallSteps, smallMeasure, thrown } = require('./helpers');

let kvlab;
let catalog;
let L;
let baseHeapBytes;
test.before(async () => {
  kvlab = await loadModule();
  catalog = kvlab.catalog();
  L = catalog.limits;
  baseHeapBytes = kvlab.memory().heap_bytes;
});

const ARGUMENTS = /^(steps|workload|policies|options)\b/;
// Replay's relative errors of the simulator against the engine, and its drift, are signed.
const SIGNED = new Set(['error', 'drift']);

// Every number in a result, with where it is; subtrees named in SIGNED may be negative.
function assertFigures(value, where, signed = false) {
  if (typeof value === 'number') {
    assert.ok(Number.isFinite(value), `${where} = ${value}`);
    if (!signed) assert.ok(value >= 0, `${where} = ${value}`);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => assertFigures(item, `${where}[${i}]`, signed));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) assertFigures(item, `${where}.${key}`, signed || SIGNED.has(key));
  }
}

// A refusal as data: an Error (not a WebAssembly.Exception, which is no Error) naming a field of one of
// the call's arguments, with a short message that gives the range or the bound as a number.
function assertFieldError(error, where) {
  assert.ok(error instanceof Error, `${where}: threw ${String(error)}`);
  assert.doesNotMatch(error.message, /WebAssembly|memory access|Aborted|Cannot pass/, where);
  assert.equal(typeof error.path, 'string', `${where}: ${error.message}`);
  assert.match(error.path, ARGUMENTS, `${where}: ${error.message}`);
  assert.ok(error.message.length < 1000, `${where}: a message of ${error.message.length} characters`);
  assert.match(error.message, /\d/, `${where}: no range in "${error.message}"`);
}

// Runs one call and checks its outcome and the heap; returns 'ok' or the error.
function attempt(where, call) {
  const before = kvlab.memory();
  let result;
  let error;
  try {
    result = call();
  } catch (e) {
    error = e;
  }
  const after = kvlab.memory();
  assert.ok(
    after.heap_bytes - baseHeapBytes <= L.call_bytes.max,
    `${where}: heap ${after.heap_bytes} bytes, past the one-call bound`
  );
  assert.ok(
    after.in_use_bytes - before.in_use_bytes < 64 * 1024,
    `${where}: ${after.in_use_bytes - before.in_use_bytes} bytes still held after the call`
  );
  if (error === undefined) {
    assertFigures(result, where);
    return 'ok';
  }
  assertFieldError(error, where);
  return error;
}

// A call the docs say is refused for its work: refused naming `path`, before any progress is reported.
function assertRefusedUpFront(where, call, path) {
  const progress = [];
  const error = attempt(where, () => call((fraction) => progress.push(fraction)));
  assert.notEqual(error, 'ok', `${where}: accepted`);
  assert.equal(error.path, path, `${where}: ${error.message}`);
  assert.deepEqual(progress, [], `${where}: started before it was refused`);
  return error;
}

const range = (count, last) =>
  Array.from({ length: count }, (_, i) => Math.max(1, Math.round(((i + 1) * last) / count)));

// Each family at its largest parameters, and at its smallest.
const largestPolicies = () =>
  catalog.policy_forms.map((form) =>
    form.replace('B,T', `${L.batch_rows.max},${L.step_tokens.max}`).replace('B', String(L.batch_rows.max))
  );
const smallestPolicies = () => catalog.policy_forms.map((form) => form.replace('B,T', '1,1').replace('B', '1'));
// As many policies as a call takes, every family, its parameters spread up to their limits.
function mostPolicies() {
  const names = new Set(['serial-nocache', 'serial-cache']);
  const batched = catalog.policy_forms.filter((form) => form.includes(':'));
  for (let i = 0; names.size < L.policies.max; i += 1) {
    const rows = Math.max(1, Math.round((L.batch_rows.max * (i + 1)) / L.policies.max));
    names.add(batched[i % batched.length].replace('B,T', `${rows},${L.step_tokens.max - i}`).replace('B', rows));
  }
  return [...names];
}

test('simulate: short queues with every field at an edge together', () => {
  const T = L.tokens.max;
  const workloads = [];
  for (const count of [1, 7])
    for (const prompt of [
      [1, 1],
      [T, T],
      [1, T],
    ])
      for (const answer of [
        [1, 1],
        [1, 64],
      ])
        for (const arrival of [
          { kind: 'all-at-zero' },
          { kind: 'poisson', rate_per_s: L.rate_per_s.max },
          { kind: 'poisson', rate_per_s: L.rate_per_s.min },
        ])
          if (count === 1 || prompt[1] < T) workloads.push({ count, prompt, answer, arrival, seed: L.seed.max });
  // A 10^6-token prompt costs chunked:1,1 10^6 steps and a KV policy 10^6 one-token blocks: those
  // queues hold one request, and the 64 policies take the short prompts (64 KV policies over the long
  // prompt have a test of their own below).
  const policySets = (workload) =>
    workload.prompt[1] === T
      ? [largestPolicies(), smallestPolicies()]
      : [largestPolicies(), smallestPolicies(), mostPolicies()];
  const optionSets = [
    {},
    { block_tokens: 1 },
    { block_tokens: L.block_tokens.max },
    { kv_tokens: L.kv_tokens.min },
    { kv_tokens: L.kv_tokens.max, block_tokens: 1 },
  ];
  const outcomes = { ok: 0, refused: 0 };
  for (const workload of workloads)
    for (const policies of policySets(workload))
      for (const options of optionSets) {
        const where = `simulate(${JSON.stringify(workload)}, ${policies.length} policies, ${JSON.stringify(options)})`;
        const outcome = attempt(where, () => kvlab.simulate(smallSteps, workload, policies, options));
        outcomes[outcome === 'ok' ? 'ok' : 'refused'] += 1;
      }
  console.log(`# ${outcomes.ok} accepted, ${outcomes.refused} refused`);
  assert.ok(outcomes.ok > 0 && outcomes.refused > 0);
});

test("simulate: the queue's caps together, refused up front naming what drives them", () => {
  const T = L.tokens.max;
  // Every request and every token at its limit under the lab's policies: far past the answer tokens.
  assertFieldError(
    thrown(() =>
      kvlab.simulate(smallSteps, { count: L.requests.max, prompt: [T, T], answer: [T, T] }, catalog.lab.policies)
    ),
    'requests x prompt x answer'
  );
  // One request past the answer-token cap; the cap itself is accepted (10^8 row-steps: not run here).
  const atCap = L.total_answer_tokens.max / T;
  const past = thrown(() =>
    kvlab.simulate(smallSteps, { count: atCap + 1, prompt: [1, 1], answer: [T, T] }, ['serial-cache'])
  );
  assertFieldError(past, 'answer tokens past the cap');
  assert.equal(past.path, 'workload');
  // Requests x policies: the most policies, and one request more than they may share.
  const share = Math.floor(L.request_results.max / L.policies.max);
  const policies = mostPolicies();
  assert.equal(
    attempt('requests x policies at the cap', () =>
      kvlab.simulate(smallSteps, { count: share, prompt: [1, 1], answer: [1, 1] }, policies)
    ),
    'ok'
  );
  const tooMany = attempt('requests x policies past the cap', () =>
    kvlab.simulate(smallSteps, { count: share + 1, prompt: [1, 1], answer: [1, 1] }, policies)
  );
  assert.equal(tooMany.path, 'workload');
  const extra = attempt('one policy past the limit', () =>
    kvlab.simulate(smallSteps, { count: 1, prompt: [1, 1], answer: [1, 1] }, [...policies, 'static:4095'])
  );
  assert.equal(extra.path, 'policies');
  // The KV bookkeeping of the largest paged server in one-token blocks over the longest prompts.
  const blocks = attempt('paged, one-token blocks, longest prompts', () =>
    kvlab.simulate(smallSteps, { count: 4096, prompt: [T, T], answer: [1, 1] }, [`paged:${L.batch_rows.max}`], {
      block_tokens: 1,
      kv_tokens: L.kv_tokens.max,
    })
  );
  assert.equal(blocks.path, 'options.block_tokens');
  const chunked = attempt('chunked at its largest, one-token blocks', () =>
    kvlab.simulate(smallSteps, { count: 1000, prompt: [1, T], answer: [1, 10] }, [largestPolicies().at(-1)], {
      block_tokens: 1,
    })
  );
  assert.equal(chunked.path, 'options.block_tokens');
});

test("simulate: many KV policies in one call take one policy's bookkeeping at a time", async () => {
  // Each policy's block manager is checked against the one-call bound alone; it used to live until the
  // call returned, so 64 paged policies in one-token blocks over a 10^6-token prompt grew the heap 1.1 GB.
  const growth = async (policies) => {
    const fresh = await loadModule();
    const before = fresh.memory().heap_bytes;
    fresh.simulate(smallSteps, { count: 1, prompt: [L.tokens.max, L.tokens.max], answer: [1, 1] }, policies, {
      block_tokens: 1,
    });
    return fresh.memory().heap_bytes - before;
  };
  const one = await growth(['paged:1']);
  const many = await growth(Array.from({ length: L.policies.max }, (_, i) => `paged:${i + 1}`));
  assert.ok(one > 0, 'one policy needs its bookkeeping');
  assert.ok(many < 3 * one, `heap grew ${many} bytes for ${L.policies.max} policies, ${one} for one`);
});

test("simulate: requests at the step table's max_seq and one position past it", () => {
  for (const maxSeq of [2, 160, L.tokens.max]) {
    const steps = { ...smallSteps, model: { max_seq: maxSeq } };
    const prompt = Math.min(L.tokens.max, maxSeq - 1);
    const answer = maxSeq - prompt + 1; // prompt + answer - 1 = max_seq
    const generated = { count: 3, prompt: [prompt, prompt], answer: [answer, answer], seed: L.seed.max };
    const fits = answer <= L.tokens.max;
    if (fits)
      assert.equal(
        attempt(`max_seq ${maxSeq}`, () => kvlab.simulate(steps, generated, ['serial-cache'])),
        'ok'
      );
    const over = attempt(`max_seq ${maxSeq} + 1`, () =>
      kvlab.simulate(steps, { ...generated, answer: [answer + 1, answer + 1] }, ['serial-cache'])
    );
    assert.match(over.path, /^workload\.answer\[1\]$/, over.message);
    const explicit = attempt(`max_seq ${maxSeq} + 1, explicit`, () =>
      kvlab.simulate(steps, { requests: [{ arrival_ms: 0, prompt, answer: answer + 1 }] }, ['paged:1'], {
        block_tokens: 1,
      })
    );
    assert.match(explicit.path, /^workload\.requests\[0\]\.(answer|prompt)$/, explicit.message);
  }
});

test('workload: the largest queues at the extreme rates give finite arrivals or a named refusal', () => {
  const T = L.tokens.max;
  for (const arrival of [
    { kind: 'poisson', rate_per_s: L.rate_per_s.min },
    { kind: 'poisson', rate_per_s: L.rate_per_s.max },
  ])
    for (const count of [1, L.requests.max])
      for (const tokens of [1, T]) {
        const where = `workload(${count} requests, ${tokens} tokens, ${arrival.rate_per_s}/s)`;
        attempt(where, () =>
          kvlab.workload({ count, prompt: [1, tokens], answer: [1, tokens], arrival, seed: L.seed.max })
        );
      }
});

// The largest grids measure takes: every list at its longest, up to its largest value.
function largestGrid(maxSeq) {
  return {
    decode_rows: range(16, 256),
    decode_contexts: range(32, maxSeq),
    prefill_tokens: range(32, maxSeq),
    mixed_chunk_tokens: range(8, maxSeq),
    mixed_rows: range(8, 256),
    mixed_contexts: range(8, maxSeq),
  };
}

test('measure, run and replay: grids at the most and longest samples are refused before they start', () => {
  const tiny = catalog.model_presets.find((p) => p.name === 'tiny');
  const longest = { preset: 'tiny', ...largestGrid(tiny.max_seq), samples: 101, min_sample_ms: 1000 };
  // Not one sample of the longest time fits the largest grid: min_sample_ms is named, with the longest that does.
  const refusal = assertRefusedUpFront(
    'measure',
    (onProgress) => kvlab.measure(longest, onProgress),
    'options.min_sample_ms'
  );
  assert.ok(refusal.allowed.max < 1000, refusal.message);
  assert.ok(refusal.allowed.max * 1000 < L.grid_sample_ms.max, refusal.message);
  // The default grid at 101 samples of 1,000 ms (an hour): samples is named, with the most that fit.
  const hour = { preset: 'tiny', samples: 101, min_sample_ms: 1000 };
  const samples = assertRefusedUpFront(
    'measure, default grid',
    (onProgress) => kvlab.measure(hour, onProgress),
    'options.samples'
  );
  assert.ok(samples.allowed.max >= 1 && samples.allowed.max < 101, samples.message);
  assert.equal(
    attempt('the most samples that fit', () => kvlab.modelInfo({ ...hour, samples: samples.allowed.max })),
    'ok'
  );
  assertRefusedUpFront('run', (onProgress) => kvlab.run({ measure: hour }, onProgress), 'options.measure.samples');
  assertRefusedUpFront(
    'replay',
    (onProgress) =>
      kvlab.replay({ measure: longest, workload: { count: 1, prompt: [1, 1], answer: [1, 1] } }, onProgress),
    'options.measure.min_sample_ms'
  );
  // The same grid with the shortest samples is accepted (modelInfo reads the options as measure does).
  assert.equal(
    attempt('the largest grid, shortest samples', () =>
      kvlab.modelInfo({ ...longest, samples: 1, min_sample_ms: 0.1 })
    ),
    'ok'
  );
  // Every preset's largest grid and Part A at its edge, as modelInfo reads them.
  for (const p of catalog.model_presets)
    for (const weights of catalog.weight_formats)
      for (const kv of catalog.kv_formats)
        attempt(`modelInfo(${p.name}, ${weights.name}, ${kv.name})`, () =>
          kvlab.modelInfo({
            preset: p.name,
            weights: weights.name,
            kv: kv.name,
            ...largestGrid(p.max_seq),
            prompt_tokens: p.max_seq - 1,
            answer_tokens: 2,
            runs: L.runs.max,
            samples: 1,
            min_sample_ms: 0.1,
          })
        );
});

test('measure: a small grid with Part A at the edge of the context runs and gives finite figures', () => {
  const tiny = catalog.model_presets.find((p) => p.name === 'tiny');
  const options = { ...smallMeasure, prompt_tokens: tiny.max_seq - 1, answer_tokens: 2, runs: 1, samples: 1 };
  assert.equal(
    attempt('measure at max_seq', () => kvlab.measure(options)),
    'ok'
  );
  const over = attempt('measure past max_seq', () => kvlab.measure({ ...options, answer_tokens: 3 }));
  assert.equal(over.path, 'options.answer_tokens');
});

test('roofline: every GPU, model and format at the edges of tensor parallelism and efficiency', () => {
  const presets = kvlab.rooflinePresets();
  let accepted = 0;
  for (const gpu of presets.gpus)
    for (const model of presets.models)
      for (const kv of presets.kv)
        for (const tp of [1, presets.max_tp])
          for (const [bw, compute] of [
            [0.01, 0.01],
            [1, 1],
          ]) {
            const options = {
              gpu: gpu.name,
              model: model.name,
              kv,
              tp,
              bw_efficiency: bw,
              compute_efficiency: compute,
            };
            if (attempt(`roofline(${JSON.stringify(options)})`, () => kvlab.roofline(options)) === 'ok') accepted += 1;
          }
  assert.ok(accepted > 0);
});
