// The modeled GPU step tables: Embind's roofline() returns what `kvlab roofline --json` prints, the wasm
// simulator takes it as it is, and bad options come out as errors naming the field, in both builds.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const { loadModule, nativeCli, kvlabScript } = require('./helpers');

const cases = [
  { flags: ['--gpu', 'h100-sxm', '--model', 'llama-3.1-8b'], options: { gpu: 'h100-sxm', model: 'llama-3.1-8b' } },
  {
    flags: ['--gpu', 'a100-sxm', '--model', 'llama-3.1-70b', '--weights', 'fp8', '--kv', 'fp8', '--tp', '4'],
    options: { gpu: 'a100-sxm', model: 'llama-3.1-70b', weights: 'fp8', kv: 'fp8', tp: 4 },
  },
  {
    flags: ['--gpu', 'rtx-4090', '--model', 'llama-2-7b', '--weights', 'int4', '--bw-efficiency', '0.5'],
    options: { gpu: 'rtx-4090', model: 'llama-2-7b', weights: 'int4', bw_efficiency: 0.5 },
  },
];

test('Embind roofline() equals kvlab roofline --json, for the native and the wasm CLI', async () => {
  const kvlab = await loadModule();
  for (const { flags, options } of cases) {
    const embind = kvlab.roofline(options);
    const native = JSON.parse(execFileSync(nativeCli, ['roofline', '--json', ...flags], { encoding: 'utf8' }));
    const wasmCli = JSON.parse(
      execFileSync(kvlabScript, ['--wasm', 'roofline', '--json', ...flags], { encoding: 'utf8' })
    );
    assert.deepEqual(embind, native, flags.join(' '));
    assert.deepEqual(wasmCli, native, flags.join(' '));
    assert.equal(embind.model.modeled, true);
    assert.equal(embind.decode.rows.at(-1), 256);
    assert.ok(embind.decode.contexts.at(-1) >= 8192);
  }
  assert.deepEqual(
    kvlab.rooflineChecks(),
    JSON.parse(execFileSync(nativeCli, ['roofline', '--checks', '--json'], { encoding: 'utf8' }))
  );
});

test('the wasm simulator and the CLI simulate take the modeled table unchanged, at its own KV budget', async () => {
  const kvlab = await loadModule();
  const steps = kvlab.roofline({ gpu: 'h100-sxm', model: 'llama-3.1-8b' });
  const workload = { count: 300, prompt: [8, 32], answer: [16, 96], seed: 1 };
  const policies = [
    'serial-nocache',
    'serial-cache',
    'static:16',
    'continuous:256',
    'reserve:256',
    'paged:256',
    'chunked:256,512',
  ];
  const options = { kv_tokens: steps.model.kv_budget_tokens, timeline_requests: 10 };
  const result = kvlab.simulate(steps, workload, policies, options);
  for (const p of policies) assert.ok(result[p].tokens_per_s > 0, p);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kvlab-roofline-'));
  fs.writeFileSync(
    path.join(dir, 'steps.json'),
    execFileSync(nativeCli, ['roofline', '--json', '--gpu', 'h100-sxm', '--model', 'llama-3.1-8b'])
  );
  fs.writeFileSync(path.join(dir, 'workload.json'), JSON.stringify(workload));
  const cli = JSON.parse(
    execFileSync(
      nativeCli,
      [
        'simulate',
        '--json',
        '--steps',
        path.join(dir, 'steps.json'),
        '--workload',
        path.join(dir, 'workload.json'),
        ...policies.flatMap((p) => ['--policy', p]),
        '--kv-tokens',
        String(steps.model.kv_budget_tokens),
        '--timeline',
        '10',
      ],
      { encoding: 'utf8' }
    )
  );
  fs.rmSync(dir, { recursive: true });
  assert.deepEqual(cli, result);
});

test('bad options are errors naming the field, from Embind and from both CLIs (status 2)', async () => {
  const kvlab = await loadModule();
  assert.throws(() => kvlab.roofline({ gpu: 'b200', model: 'llama-3.1-8b' }), {
    name: 'RangeError',
    message: /^options\.gpu must be one of a100-sxm, .* \(got "b200"\)$/,
  });
  assert.throws(() => kvlab.roofline({ gpu: 'h100-sxm' }), {
    name: 'RangeError',
    message: 'options.model is missing (a required field)',
  });
  assert.throws(() => kvlab.roofline({ gpu: 'h100-sxm', model: 'llama-3.1-8b', tp: NaN }), {
    name: 'RangeError',
    message: /options\.tp must be an integer/,
  });
  assert.throws(() => kvlab.roofline({ gpu: 'rtx-4090', model: 'llama-3.1-70b' }), {
    name: 'RangeError',
    message:
      /^options\.tp = 1: .*What fits on rtx-4090: bf16 weights at tp = 8, fp8 weights at tp = 4, int4 weights at tp = 2$/,
  });
  assert.throws(() => kvlab.roofline('h100'), { name: 'TypeError', message: /options must be an object/ });
  for (const prefix of [[], ['--wasm']]) {
    const run = spawnSync(kvlabScript, [...prefix, 'roofline', '--gpu', 'rtx-4090', '--model', 'llama-3.1-70b'], {
      encoding: 'utf8',
    });
    assert.equal(run.status, 2);
    // --tp was not given: the message says its default is what does not fit.
    assert.match(
      run.stderr,
      /^kvlab: --tp \(not given, so its default\) = 1: llama-3\.1-70b with bf16 weights needs 141\.1 GB/
    );
    const bad = spawnSync(
      kvlabScript,
      [...prefix, 'roofline', '--gpu', 'h100-sxm', '--model', 'llama-3.1-8b', '--weights', 'int8'],
      { encoding: 'utf8' }
    );
    assert.equal(bad.status, 2);
    assert.equal(bad.stderr, 'kvlab: --weights must be bf16, fp8 or int4 (got "int8")\n');
  }
  // The module still works after the errors.
  assert.equal(kvlab.roofline({ gpu: 'l4', model: 'llama-3.1-8b' }).model.gpu, 'l4');
});

test('rooflinePresets() lists what roofline() takes: the names its errors list, each one accepted', async () => {
  const kvlab = await loadModule();
  const presets = kvlab.rooflinePresets();
  const listed = (options) => {
    try {
      kvlab.roofline(options);
    } catch (error) {
      return error.message.match(/must be (?:one of )?(.*) \(got/)[1].split(/, | or /);
    }
    return assert.fail(`${JSON.stringify(options)} was accepted`);
  };
  assert.deepEqual(
    presets.gpus.map((g) => g.name),
    listed({ gpu: 'none', model: 'llama-3.1-8b' })
  );
  assert.deepEqual(
    presets.models.map((m) => m.name),
    listed({ gpu: 'h100-sxm', model: 'none' })
  );
  assert.deepEqual(presets.weights, listed({ gpu: 'h100-sxm', model: 'llama-3.1-8b', weights: 'none' }));
  assert.deepEqual(presets.kv, listed({ gpu: 'h100-sxm', model: 'llama-3.1-8b', kv: 'none' }));
  for (const gpu of presets.gpus) {
    const table = kvlab.roofline({ gpu: gpu.name, model: 'llama-3.1-8b', weights: 'int4' });
    assert.equal(table.model.device_memory_bytes, gpu.memory_bytes, gpu.name);
    assert.equal(table.model.gpu_description, gpu.description, gpu.name);
  }
  assert.equal(presets.max_tp, 8);
});
