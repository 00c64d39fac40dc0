// `kvlab generate` refuses bad model files and flags, natively and with --wasm alike: exit status 2 and
// a message naming the flag, the file and the field in it.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { kvlabScript } = require('./helpers');

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'kvlab-generate-'));
const header = Buffer.alloc(28);
[288, 768, 6, 6, 6, 32000, 256].forEach((value, i) => header.writeInt32LE(value, 4 * i));
const truncated = path.join(folder, 'truncated.bin');
fs.writeFileSync(truncated, header);
const notGguf = path.join(folder, 'model.gguf');
fs.writeFileSync(notGguf, 'GGML and more');

const cases = [
  [
    ['--checkpoint', truncated, '--tokenizer', truncated],
    /--checkpoint .*truncated\.bin: field size must be 60816028 bytes/,
  ],
  [['--gguf', notGguf], /--gguf .*model\.gguf: field magic must be the bytes "GGUF"/],
  [['--model', 'stories99M'], /--model must be one of stories15M \(got "stories99M"\)/],
  [['--checkpoint', truncated], /give one model/],
  [['--gguf', notGguf, '--tokens', '0'], /--tokens must be an integer from 1 to 8192/],
];

test('generate: bad files and flags exit with status 2, naming flag, file and field, in both builds', () => {
  for (const prefix of [[], ['--wasm']]) {
    for (const [args, message] of cases) {
      const run = spawnSync(kvlabScript, [...prefix, 'generate', ...args], { encoding: 'utf8' });
      assert.equal(run.status, 2, `${prefix} ${args}: ${run.stderr}`);
      assert.match(run.stderr, message, `${prefix} ${args}`);
    }
  }
});
