// Bad input names its field as data, not only in words: the module's errors carry path, given and
// allowed through Embind, and both command lines name the file and the field inside it for a JSON
// file, and the flag for a flag.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { loadModule, kvlabScript, smallMeasure, thrown, smallSteps, smallWorkload } = require('./helpers');

const steps = smallSteps;
const workload = smallWorkload;

let kvlab;
test.before(async () => {
  kvlab = await loadModule();
});

test('an error names its field by path, with what was given and the allowed range, as data', () => {
  const explicit = { requests: [0, 1, 2, 3].map((i) => ({ arrival_ms: 0, prompt: i === 3 ? 0 : 4, answer: 2 })) };
  const e = thrown(() => kvlab.simulate(steps, explicit, ['continuous:2']));
  assert.ok(e instanceof RangeError);
  assert.equal(e.message, 'workload.requests[3].prompt must be an integer from 1 to 1000000 (got 0)');
  assert.equal(e.path, 'workload.requests[3].prompt');
  assert.equal(e.given, '0');
  assert.deepEqual(e.allowed, { min: 1, max: 1000000, integer: true });

  const grid = thrown(() =>
    kvlab.simulate(
      {
        ...steps,
        decode: {
          ...steps.decode,
          ms: [
            [1, -1],
            [2, 3],
          ],
        },
      },
      workload
    )
  );
  assert.equal(grid.path, 'steps.decode.ms[0][1]');
  assert.deepEqual(grid.allowed, { min: 0, max: 1e12 });

  const preset = thrown(() => kvlab.measure({ preset: 'gpt-5' }));
  assert.equal(preset.path, 'options.preset');
  assert.equal(preset.given, '"gpt-5"');
  assert.deepEqual(preset.allowed, { choices: ['small', 'lab', 'medium', 'tiny'] });

  const typed = thrown(() => kvlab.measure({ runs: '3' }));
  assert.ok(typed instanceof TypeError);
  assert.equal(typed.path, 'options.runs');
});

test('run() names the lab options by their place in its options object', () => {
  const run = (options) => thrown(() => kvlab.run({ measure: smallMeasure, workload, ...options }));
  assert.equal(run({ workload: { ...workload, count: 0 } }).path, 'options.workload.count');
  assert.equal(run({ workload: { ...workload, prompt: [8, 0] } }).path, 'options.workload.prompt[1]');
  assert.equal(
    run({ workload: { ...workload, arrival: { kind: 'poisson', rate_per_s: 0 } } }).path,
    'options.workload.arrival.rate_per_s'
  );
  const policy = run({ policies: ['serial-cache', 'continuous:0'] });
  assert.equal(policy.path, 'options.policies[1]');
  assert.equal(policy.given, '"continuous:0"');
  assert.equal(run({ measure: { ...smallMeasure, runs: 0 } }).path, 'options.measure.runs');
});

test("an error about no one field carries no path; a policy's error keeps its field", () => {
  const e = thrown(() => kvlab.simulate(nestedValue(40), workload));
  assert.equal(e.path, undefined);
  const budget = thrown(() => kvlab.simulate(steps, workload, ['paged:2'], { kv_tokens: 16 }));
  assert.match(budget.message, /^policy paged:2: options\.kv_tokens = 16 holds 1 blocks of 16 tokens/);
  assert.equal(budget.path, 'options.kv_tokens');
  assert.equal(budget.given, '16');
});

function nestedValue(depth) {
  let value = [];
  for (let i = 1; i < depth; i += 1) value = [value];
  return value;
}

// ---- the command lines ---------------------------------------------------------------------------

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kvlab-fields-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = (name, value) => {
  const where = path.join(dir, name);
  fs.writeFileSync(where, JSON.stringify(value));
  return where;
};

test('both command lines name the file and the field for a JSON field, and the flag for a flag', () => {
  const good = file('steps.json', steps);
  const goodWorkload = file('workload.json', workload);
  const badSteps = file('bad-steps.json', {
    ...steps,
    decode: {
      ...steps.decode,
      ms: [
        [1, 1.5],
        [2, -3],
      ],
    },
  });
  const measureResult = file('measured.json', { steps: { ...steps, prefill: { tokens: [1, 64], ms: [1] } } });
  const badWorkload = file('bad-workload.json', { requests: [{ arrival_ms: 0, prompt: 4, answer: 0 }] });
  const cases = [
    [
      ['simulate', '--steps', badSteps, '--workload', goodWorkload],
      `kvlab: --steps ${badSteps}: field decode.ms[1][1] must be a number from 0 to 1e+12 (got -3)\n`,
    ],
    [
      ['simulate', '--steps', measureResult, '--workload', goodWorkload],
      `kvlab: --steps ${measureResult}: field steps.prefill.ms must be a list of 2 entries, one per steps.prefill.tokens entry (got 1 entries)\n`,
    ],
    [
      ['simulate', '--steps', good, '--workload', badWorkload],
      `kvlab: --workload ${badWorkload}: field requests[0].answer must be an integer from 1 to 1000000 (got 0)\n`,
    ],
    [
      ['simulate', '--steps', good, '--workload', goodWorkload, '--policy', 'static:0'],
      'kvlab: --policy "static:0": B must be an integer from 1 to 4096 (got 0)\n',
    ],
    [
      ['simulate', '--steps', good, '--workload', goodWorkload, '--block-tokens', '0'],
      'kvlab: --block-tokens must be an integer from 1 to 65536 (got 0)\n',
    ],
    [['measure', '--decode-rows', '1,0'], 'kvlab: --decode-rows must be an integer from 1 to 256 (got 0)\n'],
    [
      ['lab', '--preset', 'tiny', '--workload', badWorkload],
      `kvlab: --workload ${badWorkload}: field requests[0].answer must be an integer from 1 to 1000000 (got 0)\n`,
    ],
  ];
  for (const prefix of [[], ['--wasm']]) {
    for (const [args, expected] of cases) {
      const run = spawnSync(kvlabScript, [...prefix, ...args], { encoding: 'utf8' });
      assert.equal(run.status, 2, `${prefix} ${args.join(' ')}: status ${run.status}`);
      assert.equal(run.stderr, expected, `${prefix} ${args.join(' ')}`);
    }
  }
});
