// `kvlab lab --workload FILE`: a file that is not a workload object is an error naming it (it aborted
// natively with an uncaught nlohmann type_error 305 when --requests was given too), and --requests does
// not change a file's queue: the combination is refused rather than silently rewriting the file's count.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { kvlabScript, wasmDir } = require('./helpers');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kvlab-lab-workload-'));
const file = (name, text) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};

const prefixes = [[]];
if (fs.existsSync(path.join(path.dirname(wasmDir), 'cli/kvlab-cli.js'))) prefixes.push(['--wasm']);

const refused =
  'kvlab: --requests sets the size of the published lab\'s queue, not of a --workload file\'s (set "count" in the file)\n';

test('lab --workload FILE --requests N is refused, whatever the file holds, with exit 2', () => {
  const files = [
    file('list.json', '[]'),
    file('number.json', '5'),
    file('string.json', '"x"'),
    file('generated.json', JSON.stringify({ count: 40, prompt: [8, 32], answer: [4, 16] })),
  ];
  for (const prefix of prefixes) {
    for (const workload of files) {
      const run = spawnSync(
        kvlabScript,
        [...prefix, 'lab', '--preset', 'tiny', '--workload', workload, '--requests', '5'],
        { encoding: 'utf8' }
      );
      assert.equal(run.status, 2, `${prefix} ${workload}: status ${run.status}, ${run.stderr}`);
      assert.equal(run.stderr, refused, `${prefix} ${workload}`);
    }
  }
});

test('lab --workload FILE holding no workload object names the file and the field, with exit 2', () => {
  for (const prefix of prefixes) {
    for (const [name, text] of [
      ['list.json', '[]'],
      ['number.json', '5'],
      ['string.json', '"x"'],
    ]) {
      const workload = file(name, text);
      const run = spawnSync(kvlabScript, [...prefix, 'lab', '--preset', 'tiny', '--workload', workload], {
        encoding: 'utf8',
      });
      assert.equal(run.status, 2, `${prefix} ${name}: status ${run.status}, ${run.stderr}`);
      assert.equal(run.stderr, `kvlab: --workload ${workload}: options.workload must be an object (got ${text})\n`);
    }
  }
});
