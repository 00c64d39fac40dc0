// A numeric flag of lab and replay is read by the same JSON reader as the option it fills, so a value
// it cannot hold names the flag's range, as every other flag does, rather than CLI11's bare
// "Could not convert: --requests = 1.5".
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const os = require('node:os');
const { kvlabScript, nativeCli, wasmDir } = require('./helpers');

const prefixes = [[]];
if (fs.existsSync(path.join(path.dirname(wasmDir), 'cli/kvlab-cli.js'))) prefixes.push(['--wasm']);

const cases = [
  [['lab', '--requests', '1.5'], 'kvlab: --requests must be an integer from 1 to 1000000 (got 1.5)\n'],
  [['replay', '--requests', '1.5'], 'kvlab: --requests must be an integer from 1 to 1000000 (got 1.5)\n'],
  [
    ['replay', '--nocache-requests', 'many'],
    'kvlab: --nocache-requests must be an integer from 1 to 4096 (got "many")\n',
  ],
  [
    ['replay', '--kv-tokens', '99999999999999999999'],
    'kvlab: --kv-tokens must be an integer from 1 to 1000000000000 (got 99999999999999999999)\n',
  ],
  [['lab', '--requests', '1e7'], 'kvlab: --requests must be an integer from 1 to 1000000 (got 1e7)\n'],
  [
    ['lab', '--requests', '1000000'],
    'kvlab: --requests must be an integer from 1 to 250000 with 4 policies (1000000 per-request results, ' +
      'requests x policies, per call) (got 1000000)\n',
  ],
  [
    ['replay', '--requests', '4097'],
    'kvlab: --requests must be an integer from 1 to 4096 for a replay, which serves each request in real time (got 4097)\n',
  ],
  [
    ['measure', '--d-model', '512'],
    'kvlab: --n-heads (not given, so its default) must divide d_model (512 is not a multiple of 6)\n',
  ],
  [
    ['measure', '--vocab', '65536', '--d-model', '4096', '--n-layers', '64'],
    'kvlab: the model of --vocab 65536 --d-model 4096 --n-layers 64 is too large: 16,426 MiB of weights (at most 512 MiB) ' +
      'for n_layers 64 x (2 d_model^2 + 2 kv_dim d_model + 3 d_model d_ff) + 2 vocab d_model, and norms = ' +
      '4,305,981,440 parameters, with d_model 4096, kv_dim 1364, d_ff 1152 and vocab 65536\n',
  ],
  [['replay', '--block-tokens', 'x'], 'kvlab: --block-tokens must be an integer from 1 to 65536 (got "x")\n'],
  [['replay', '--timeline', '-1'], 'kvlab: --timeline must be an integer from 0 to 1000 (got -1)\n'],
  [['lab', '--slots', '1.5'], 'kvlab: --slots must be an integer from 1 to 4096 (got 1.5)\n'],
  [['replay', '--slots', 'x'], 'kvlab: --slots must be an integer from 1 to 4096 (got "x")\n'],
  [['replay', '--slots', '99999'], 'kvlab: --slots "static:99999": B must be an integer from 1 to 4096 (got 99999)\n'],
  [
    ['replay', '--after-prompt-rounds', '2.5'],
    'kvlab: --after-prompt-rounds must be an integer from 0 to 200 (got 2.5)\n',
  ],
];

// simulate reads its files before its options: give it good ones.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kvlab-flag-ranges-'));
const stepsFile = path.join(dir, 'steps.json');
const workloadFile = path.join(dir, 'workload.json');
fs.writeFileSync(
  stepsFile,
  spawnSync(nativeCli, ['roofline', '--gpu', 'h100-sxm', '--model', 'llama-3.1-8b', '--json'], { encoding: 'utf8' })
    .stdout
);
fs.writeFileSync(workloadFile, JSON.stringify({ count: 4, prompt: [8, 32], answer: [4, 8] }));
cases.push([
  ['simulate', '--steps', stepsFile, '--workload', workloadFile, '--timeline', '1.5'],
  'kvlab: --timeline must be an integer from 0 to 1000000 (got 1.5)\n',
]);

test('a numeric flag holding a value out of its type names the flag and its range, with exit 2', () => {
  for (const prefix of prefixes) {
    for (const [args, expected] of cases) {
      const run = spawnSync(kvlabScript, [...prefix, ...args], { encoding: 'utf8' });
      assert.equal(run.status, 2, `${prefix} ${args.join(' ')}: status ${run.status}, ${run.stderr}`);
      assert.equal(run.stderr, expected, `${prefix} ${args.join(' ')}`);
    }
  }
});
