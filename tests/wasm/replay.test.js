// replay() over Embind: the engine serves a small workload for real in wasm, and the result has the
// documented shape (a key per policy, each with real, sim and error) with finite numbers.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadModule, smallMeasure } = require('./helpers');

const policies = ['serial-nocache', 'serial-cache', 'static:3', 'continuous:3'];
const options = {
  measure: smallMeasure,
  workload: { count: 10, prompt: [2, 12], answer: [1, 10], seed: 4 },
  policies,
  nocache_requests: 4,
  timeline_requests: 5,
};

function assertFinite(value, where) {
  assert.equal(typeof value, 'number', where);
  assert.ok(Number.isFinite(value), `${where}: ${value}`);
}

test('replay returns real, sim and error for every policy, with finite numbers', async () => {
  const kvlab = await loadModule();
  const fractions = [];
  const result = kvlab.replay(options, (fraction) => fractions.push(fraction));
  assert.deepEqual(Object.keys(result).sort(), [...policies].sort());
  for (const policy of policies) {
    const entry = result[policy];
    const count = policy === 'serial-nocache' ? 4 : 10;
    assert.equal(entry.request_count, count, policy);
    for (const side of ['real', 'sim']) {
      for (const key of ['median_ttft_ms', 'p95_ttft_ms', 'makespan_ms'])
        assertFinite(entry[side][key], `${policy}.${side}.${key}`);
      assert.equal(entry[side].requests.length, count, `${policy}.${side}.requests`);
      for (const request of entry[side].requests)
        for (const key of ['arrival_ms', 'first_token_ms', 'finish_ms'])
          assertFinite(request[key], `${policy}.${side}.requests[].${key}`);
      assert.ok(entry[side].timeline.length > 0, `${policy}.${side}.timeline`);
      for (const span of entry[side].timeline) assert.ok(span.end_ms >= span.start_ms, `${policy}.${side}.timeline`);
    }
    for (const key of ['median_ttft', 'p95_ttft', 'makespan']) {
      assertFinite(entry.error[key], `${policy}.error.${key}`);
      assertFinite(entry.drift[key], `${policy}.drift.${key}`);
    }
    assert.ok(entry.step_check.kinds.length > 0, `${policy}.step_check.kinds`);
    // Every prompt pass (prefill, no-cache pass) again, grouped by the pass that ran before it.
    const steps = (list) => list.reduce((sum, group) => sum + group.steps, 0);
    assert.equal(
      steps(entry.step_check.prompt_by_pass_before),
      steps(entry.step_check.kinds.filter((kind) => kind.kind === 'prefill' || kind.kind === 'nocache')),
      `${policy}.step_check.prompt_by_pass_before`
    );
    assert.ok(
      Array.isArray(entry.step_check.decode_by_passes_since_prompt),
      `${policy}.step_check.decode_by_passes_since_prompt`
    );
  }
  assert.ok(fractions.length > 0);
  assert.equal(fractions[fractions.length - 1], 1);
  for (let i = 1; i < fractions.length; i += 1) assert.ok(fractions[i] >= fractions[i - 1], 'progress never goes back');
});

test('replay reports bad options as RangeError or TypeError naming the field', async () => {
  const kvlab = await loadModule();
  assert.throws(() => kvlab.replay({ measure: smallMeasure, nocache_requests: 0 }), {
    name: 'RangeError',
    message: /options\.nocache_requests/,
  });
  assert.throws(() => kvlab.replay({ measure: smallMeasure, policies: ['static:0'] }), {
    name: 'RangeError',
    message: /options\.policies\[0\]/,
  });
  assert.throws(() => kvlab.replay({ measure: smallMeasure, after_prompt_rounds: 201 }), {
    name: 'RangeError',
    message: /options\.after_prompt_rounds/,
  });
  assert.throws(() => kvlab.replay({ measure: smallMeasure, policies: 'static:4' }), {
    name: 'TypeError',
    message: /options\.policies/,
  });
  assert.throws(
    () => kvlab.replay({ measure: smallMeasure, workload: { requests: [{ arrival_ms: 0, prompt: 150, answer: 20 }] } }),
    { name: 'RangeError', message: /options\.workload: the longest prompt/ }
  );
  assert.throws(() => kvlab.replay({ measure: smallMeasure, nocache_requests: NaN }), {
    name: 'RangeError',
    message: /options\.nocache_requests/,
  });
});

test("replay serves the memory policies for real in one KV budget, making the simulator's decisions", async () => {
  // All at t = 0, so memory alone decides: the real run preempts and recomputes exactly as simulated.
  const kvlab = await loadModule();
  const memoryPolicies = ['reserve:4', 'paged:4', 'chunked:4,6'];
  const result = kvlab.replay({
    measure: smallMeasure,
    workload: { count: 10, prompt: [2, 10], answer: [4, 12], seed: 3 },
    policies: memoryPolicies,
    kv_tokens: 48,
    block_tokens: 4,
    timeline_requests: 4,
  });
  for (const policy of memoryPolicies) {
    const { real, sim } = result[policy];
    for (const key of ['steps', 'preemptions', 'recomputed_tokens'])
      assert.equal(real[key], sim[key], `${policy}.${key}`);
    assertFinite(result[policy].error.makespan, `${policy}.error.makespan`);
  }
  assert.ok(result['paged:4'].real.preemptions > 0, 'the budget binds: paged preempts for real');
  assert.ok(
    result['chunked:4,6'].step_check.kinds.some((kind) => kind.kind === 'mixed'),
    'chunked runs mixed passes'
  );
  assert.throws(() => kvlab.replay({ measure: smallMeasure, policies: ['paged:4'], kv_tokens: 4, block_tokens: 4 }), {
    name: 'RangeError',
    message: /options\.kv_tokens = 4 holds/,
  });
});

// Each policy's real run makes the simulator's steps, preemptions, recomputed tokens, prefix hits and peak
// blocks, and preempts and finds prefixes cached.
function assertMemoryAsSimulated(result, policies) {
  for (const policy of policies) {
    const { real, sim } = result[policy];
    for (const key of ['steps', 'preemptions', 'recomputed_tokens', 'prefix_hit_rate', 'peak_kv_blocks'])
      assert.equal(real[key], sim[key], `${policy}.${key}`);
    assert.ok(real.prefix_hit_rate > 0, `${policy}: prefixes found cached`);
    assert.ok(real.preemptions > 0, `${policy}: preempts`);
  }
}

test("replay shares a system prompt's KV blocks for real, making the simulator's prefix hits", async () => {
  const kvlab = await loadModule();
  const policies = ['paged:4', 'chunked:4,8'];
  const result = kvlab.replay({
    measure: smallMeasure,
    workload: { count: 10, prompt: [2, 10], answer: [4, 12], seed: 3, system_prompt: 12 },
    policies,
    kv_tokens: 40,
    block_tokens: 4,
    timeline_requests: 4,
  });
  assertMemoryAsSimulated(result, policies);
});

test("replay serves a chat for real: each turn shares its conversation's earlier blocks, as simulated", async () => {
  const kvlab = await loadModule();
  const policies = ['paged:4', 'chunked:4,8'];
  const result = kvlab.replay({
    measure: smallMeasure,
    workload: { count: 12, prompt: [2, 6], answer: [2, 8], seed: 4, system_prompt: 4, chat: { conversations: 4 } },
    policies: [...policies, 'continuous:4'],
    kv_tokens: 48,
    block_tokens: 4,
    timeline_requests: 4,
  });
  assertMemoryAsSimulated(result, policies);
  assert.equal(result['continuous:4'].real.steps, result['continuous:4'].sim.steps);
  const turns = [
    { arrival_ms: 0, prompt: 4, answer: 3, conversation: 0 },
    { arrival_ms: 0, prompt: 5, answer: 3, conversation: 0 },
  ];
  assert.throws(() => kvlab.replay({ measure: smallMeasure, policies: ['paged:4'], workload: { requests: turns } }), {
    name: 'RangeError',
    message: /options\.workload\.requests\[1\]\.prompt must be at least 7 tokens/,
  });
});
