// The simulator gives the same numbers natively (CLI) and in wasm (Embind and the Node CLI).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { loadModule, nativeCli, kvlabScript } = require('./helpers');

// A step table with uneven numbers, so that interpolation and extrapolation both matter.
const steps = {
  model: { note: 'made up for the test' },
  decode: {
    rows: [1, 4, 16],
    contexts: [8, 32, 128],
    ms: [
      [0.71, 0.83, 1.27],
      [0.93, 1.19, 2.31],
      [1.87, 2.71, 6.13],
    ],
  },
  prefill: { tokens: [1, 8, 32, 128], ms: [0.69, 1.91, 5.37, 21.3] },
};
const requests = [];
for (let i = 0; i < 60; i += 1)
  requests.push({ arrival_ms: (i * 37) % 250, prompt: 1 + ((i * 13) % 40), answer: 1 + ((i * 29) % 70) });
const workload = { requests };
const policies = ['serial-nocache', 'serial-cache', 'static:4', 'static:16', 'continuous:3', 'continuous:16'];

// `simulate` flags reading `stepsTable` and the workload from files in a fresh folder, and the folder.
function simulateArgs(stepsTable, ...more) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kvlab-sim-'));
  fs.writeFileSync(path.join(dir, 'steps.json'), JSON.stringify(stepsTable));
  fs.writeFileSync(path.join(dir, 'workload.json'), JSON.stringify(workload));
  const args = ['simulate', '--steps', path.join(dir, 'steps.json'), '--workload', path.join(dir, 'workload.json')];
  return { dir, args: [...args, '--json', ...more] };
}

function assertClose(a, b, where) {
  if (typeof a === 'number' && typeof b === 'number') {
    assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${where}: ${a} vs ${b}`);
  } else if (a && typeof a === 'object') {
    assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort(), where);
    for (const key of Object.keys(a)) assertClose(a[key], b[key], `${where}.${key}`);
  } else {
    assert.equal(a, b, where);
  }
}

test('explicit workload: wasm numbers equal native numbers to 1e-9', async () => {
  const { dir, args } = simulateArgs(steps);
  for (const p of policies) args.push('--policy', p);

  const native = JSON.parse(execFileSync(nativeCli, args, { encoding: 'utf8' }));
  const nodeCli = JSON.parse(execFileSync(kvlabScript, ['--wasm', ...args], { encoding: 'utf8' }));
  const kvlab = await loadModule();
  const embind = kvlab.simulate(steps, workload, policies);

  assert.deepEqual(Object.keys(native).sort(), [...policies].sort());
  for (const p of policies) {
    assert.equal(native[p].requests.length, 60);
    assertClose(embind[p], native[p], `embind ${p}`);
    assertClose(nodeCli[p], native[p], `node cli ${p}`);
  }
  fs.rmSync(dir, { recursive: true });
});

test('memory policies with a KV budget: wasm numbers equal native numbers to 1e-9', async () => {
  const memorySteps = { ...steps, model: { kv_bytes_per_token: 2048 } };
  const memoryPolicies = ['continuous:8', 'reserve:8', 'paged:8', 'chunked:8,64'];
  const options = { kv_bytes: 2048 * 600, block_tokens: 16, ttft_target_ms: 50, tpot_target_ms: 3 };
  const { dir, args } = simulateArgs(
    memorySteps,
    '--kv-bytes',
    String(options.kv_bytes),
    '--block-tokens',
    '16',
    '--ttft-target-ms',
    '50',
    '--tpot-target-ms',
    '3'
  );
  for (const p of memoryPolicies) args.push('--policy', p);

  const native = JSON.parse(execFileSync(nativeCli, args, { encoding: 'utf8' }));
  const kvlab = await loadModule();
  const embind = kvlab.simulate(memorySteps, workload, memoryPolicies, options);
  assert.ok(native['paged:8'].preemptions > 0, 'the budget binds: paged preempts');
  assert.ok(native['reserve:8'].waste_pct > native['paged:8'].waste_pct, 'reserve wastes more than paged');
  for (const p of memoryPolicies) assertClose(embind[p], native[p], `embind ${p}`);
  assert.throws(() => kvlab.simulate(memorySteps, workload, memoryPolicies, { kv_tokens: 0 }), /kv_tokens/);
  fs.rmSync(dir, { recursive: true });
});

test('the whole-queue playback (queue_timeline, memory_timeline): wasm equals native', async () => {
  const memorySteps = { ...steps, model: { kv_bytes_per_token: 2048 } };
  const played = ['static:4', 'continuous:8', 'reserve:8', 'paged:8', 'chunked:8,64'];
  const { dir, args } = simulateArgs(memorySteps, '--kv-bytes', String(2048 * 600), '--queue-timeline');
  for (const p of played) args.push('--policy', p);

  const native = JSON.parse(execFileSync(nativeCli, args, { encoding: 'utf8' }));
  const kvlab = await loadModule();
  const embind = kvlab.simulate(memorySteps, workload, played, { kv_bytes: 2048 * 600, queue_timeline: true });
  assert.ok(
    native['paged:8'].memory_timeline.preemptions.t_ms.length > 0,
    'paged preempts, so re-admissions are played'
  );
  for (const p of played) {
    assert.equal(native[p].queue_timeline.requests.finish_ms.length, 60, p);
    assert.ok(native[p].queue_timeline.stints.request.length >= 60, p);
    assert.equal('memory_timeline' in native[p], !/^(static|continuous)/.test(p), p);
    assertClose(embind[p], native[p], `embind ${p}`);
  }
  fs.rmSync(dir, { recursive: true });
});

test('run() measures then simulates, and the Node CLI prints the lab table', async () => {
  const kvlab = await loadModule();
  const result = kvlab.run({
    measure: {
      preset: 'tiny',
      runs: 1,
      answer_tokens: 8,
      decode_rows: [1, 4],
      decode_contexts: [8, 64],
      prefill_tokens: [1, 64],
      min_sample_ms: 0.2,
      samples: 1,
    },
    workload: { count: 40, prompt: [8, 32], answer: [16, 40], seed: 2 },
  });
  assert.deepEqual(Object.keys(result.policies).sort(), [
    'continuous:16',
    'serial-cache',
    'serial-nocache',
    'static:16',
  ]);
  const again = kvlab.simulate(result.steps, result.workload);
  assertClose(again, result.policies, 'simulate(run().steps) equals run().policies');

  const text = execFileSync(
    kvlabScript,
    [
      '--wasm',
      'lab',
      '--preset',
      'tiny',
      '--runs',
      '1',
      '--requests',
      '50',
      '--min-sample-ms',
      '0.2',
      '--samples',
      '1',
    ],
    { encoding: 'utf8' }
  );
  for (const p of ['serial-nocache', 'serial-cache', 'static:16', 'continuous:16'])
    assert.match(text, new RegExp(`^${p} `, 'm'));
  assert.match(text, /Apple M2 Pro/);
});
