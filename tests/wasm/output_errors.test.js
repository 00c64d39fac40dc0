// Every write to stdout is checked: a full disk is an error with a non-zero exit status and a message,
// not exit 0 with the result lost (the native and wasm CLIs, writing to /dev/full).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const os = require('node:os');
const { kvlabScript, nativeCli, wasmDir } = require('./helpers');

const prefixes = [[]];
if (fs.existsSync(path.join(path.dirname(wasmDir), 'cli/kvlab-cli.js'))) prefixes.push(['--wasm']);

const roofline = ['roofline', '--gpu', 'h100-sxm', '--model', 'llama-3.1-8b'];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kvlab-output-errors-'));
const stepsFile = path.join(dir, 'steps.json');
const workloadFile = path.join(dir, 'workload.json');
fs.writeFileSync(stepsFile, spawnSync(nativeCli, [...roofline, '--json'], { encoding: 'utf8' }).stdout);
fs.writeFileSync(workloadFile, JSON.stringify({ count: 4, prompt: [8, 32], answer: [4, 8] }));
const simulate = ['simulate', '--steps', stepsFile, '--workload', workloadFile];
const commands = [[...roofline, '--json'], roofline, simulate, [...simulate, '--json'], ['--help']];

test('a result that cannot be written to stdout (/dev/full) exits 1 with the reason', () => {
  for (const prefix of prefixes) {
    for (const args of commands) {
      const full = fs.openSync('/dev/full', 'w');
      const run = spawnSync(kvlabScript, [...prefix, ...args], { stdio: ['ignore', full, 'pipe'], encoding: 'utf8' });
      fs.closeSync(full);
      const what = `${prefix} ${args.join(' ')}`;
      assert.equal(run.status, 1, `${what}: status ${run.status}, ${run.stderr}`);
      assert.match(run.stderr, /^kvlab: the output could not be written to stdout/m, what);
    }
  }
});

test('the same commands written to a file exit 0', () => {
  for (const prefix of prefixes) {
    const run = spawnSync(kvlabScript, [...prefix, ...simulate, '--json'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, '');
    assert.equal(JSON.parse(run.stdout)['continuous:16'].requests.length, 4);
  }
});
