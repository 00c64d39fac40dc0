// workload(): the requests the workload generator draws, as simulate() serves them. The Memory section
// takes a story queue's arrivals from it, so they must be simulate()'s to the bit.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadModule, smallSteps, thrown } = require('./helpers');

const workloads = {
  poisson: { count: 200, prompt: [8, 32], answer: [16, 96], seed: 3, arrival: { kind: 'poisson', rate_per_s: 40 } },
  gamma: {
    count: 150,
    prompt: { kind: 'pareto', range: [4, 120], alpha: 1.2 },
    answer: [1, 40],
    seed: 11,
    arrival: { kind: 'gamma', rate_per_s: 5, cv: 3 },
  },
  'system prompt and chat': {
    count: 90,
    prompt: [2, 9],
    answer: [3, 12],
    system_prompt: 16,
    chat: { conversations: 7 },
    arrival: { kind: 'poisson', rate_per_s: 0.5 },
  },
  'all at zero': { count: 40, prompt: [1, 5], answer: [1, 5] },
  explicit: {
    requests: [
      { arrival_ms: 5, prompt: 12, answer: 3 },
      { arrival_ms: 0.25, prompt: 9, answer: 7 },
    ],
    system_prompt: 8,
  },
};

// The requests columns of simulate()'s queue playback of `workload`.
function servedRequests(kvlab, workload) {
  const result = kvlab.simulate(smallSteps, workload, ['continuous:4'], { timeline_requests: 0, queue_timeline: true });
  const { arrival_ms, prompt_tokens, answer_tokens } = result['continuous:4'].queue_timeline.requests;
  return { arrival_ms, prompt_tokens, answer_tokens };
}

test('workload() gives the very requests simulate() serves, in workload order', async () => {
  const kvlab = await loadModule();
  for (const [name, workload] of Object.entries(workloads)) {
    const columns = kvlab.workload(workload);
    assert.deepEqual(Object.keys(columns).sort(), ['answer_tokens', 'arrival_ms', 'prompt_tokens'], name);
    assert.deepEqual(columns, servedRequests(kvlab, workload), name);
  }
  const poisson = kvlab.workload(workloads.poisson);
  assert.equal(poisson.arrival_ms.length, 200);
  assert.ok(
    poisson.arrival_ms.every((t, i) => i === 0 || t > poisson.arrival_ms[i - 1]),
    'Poisson arrivals rise'
  );
  assert.deepEqual(kvlab.workload(workloads.explicit), {
    arrival_ms: [5, 0.25],
    prompt_tokens: [12, 9],
    answer_tokens: [3, 7],
  });
});

test('workload() is fixed by the seed: the same seed draws the same queue, another seed another', async () => {
  const kvlab = await loadModule();
  const again = await loadModule();
  assert.deepEqual(kvlab.workload(workloads.poisson), again.workload(workloads.poisson));
  const other = kvlab.workload({ ...workloads.poisson, seed: 4 });
  assert.notDeepEqual(other.arrival_ms, kvlab.workload(workloads.poisson).arrival_ms);
});

test('bad workloads throw errors naming the field and its range', async () => {
  const kvlab = await loadModule();
  const count = thrown(() => kvlab.workload({ ...workloads.poisson, count: 0 }));
  assert.ok(count instanceof RangeError);
  assert.equal(count.path, 'workload.count');
  assert.equal(count.message, 'workload.count must be an integer from 1 to 1000000 (got 0)');
  // The generator's cap on requests bounds the reply.
  const many = thrown(() => kvlab.workload({ ...workloads.poisson, count: 1000001 }));
  assert.equal(many.path, 'workload.count');
  assert.deepEqual(many.allowed, { min: 1, max: 1000000, integer: true });

  const rate = thrown(() => kvlab.workload({ ...workloads.poisson, arrival: { kind: 'poisson', rate_per_s: -1 } }));
  assert.equal(rate.path, 'workload.arrival.rate_per_s');
  assert.match(rate.message, /^workload\.arrival\.rate_per_s must be .*from 1e-06 to 1e\+09/);

  const kind = thrown(() => kvlab.workload({ ...workloads.poisson, arrival: { kind: 'burst' } }));
  assert.equal(kind.path, 'workload.arrival.kind');
  assert.deepEqual(kind.allowed, { choices: ['all-at-zero', 'poisson', 'gamma'] });

  assert.equal(thrown(() => kvlab.workload({ ...workloads.poisson, prompts: 'stories' })).path, 'workload.prompts');
  assert.equal(thrown(() => kvlab.workload([1, 2])).path, 'workload');
  assert.equal(thrown(() => kvlab.workload(Symbol('s'))).path, 'workload');
  // A good call still works after the refusals.
  assert.equal(kvlab.workload(workloads['all at zero']).arrival_ms.length, 40);
});
