// Model files as hostile as the web (issue 55), through the CLI natively and with --wasm, and through
// the module: /dev/zero and pipes refused before a byte is read, a prompt past the text limit refused
// naming --prompt, hostile GGUF files refused naming the field with the module still working after.
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { root, kvlabScript, loadModule, thrown } = require('./helpers');

const modelDir = path.join(root, 'build/models/stories15M');
const converter = path.join(root, 'build/native/tests/model_files/kvlab_quantize_checkpoint');
const skip =
  fs.existsSync(path.join(modelDir, 'model.bin')) && fs.existsSync(converter)
    ? false
    : 'no build/models/stories15M or converter: run scripts/build';

function kvlab(args) {
  return spawnSync(kvlabScript, args, { encoding: 'utf8' });
}

// One line on stderr, exit status 2.
function assertRefused(out, pattern) {
  assert.equal(out.status, 2, out.stderr);
  assert.equal(out.stderr.trim().split('\n').length, 1, out.stderr);
  assert.match(out.stderr, pattern);
}

test('/dev/zero and a pipe are refused as model files before they are read, natively and with --wasm', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kvlab-pipe-'));
  const fifo = path.join(dir, 'model.gguf');
  try {
    execFileSync('mkfifo', [fifo]);
    for (const prefix of [[], ['--wasm']]) {
      for (const [args, flag, file] of [
        [['generate', '--gguf', '/dev/zero'], '--gguf', '/dev/zero'],
        [['generate', '--gguf', fifo], '--gguf', fifo],
        [['info', '--checkpoint', '/dev/zero', '--tokenizer', '/dev/zero'], '--checkpoint', '/dev/zero'],
        [['generate', '--gguf', dir], '--gguf', dir],
      ]) {
        const out = kvlab([...prefix, ...args]);
        assertRefused(out, new RegExp(`kvlab: ${flag}: "${file}" is not a regular file`));
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a prompt past the text limit is refused naming --prompt, natively and with --wasm', { skip }, async () => {
  const limit = (await loadModule()).catalog().limits.text_bytes.max;
  const prompt = 'a'.repeat(limit + 1);
  for (const prefix of [[], ['--wasm']]) {
    const out = kvlab([...prefix, 'generate', '--model', 'stories15M', '--prompt', prompt]);
    assertRefused(out, new RegExp(`kvlab: --prompt is ${limit + 1} bytes long, more than the ${limit}`));
  }
});

// A GGUF v3 file of the given metadata key count and tensor infos, and nothing else.
function rawGguf(keyCount, tensorInfos = new Uint8Array(0), tensorCount = 0) {
  const header = Buffer.alloc(24);
  header.write('GGUF', 0, 'latin1');
  header.writeUInt32LE(3, 4);
  header.writeBigUInt64LE(BigInt(tensorCount), 8);
  header.writeBigUInt64LE(BigInt(keyCount), 16);
  return new Uint8Array(Buffer.concat([header, tensorInfos]));
}

test(
  'hostile GGUF files are refused by the module naming the field, and a good file loads after',
  { skip },
  async () => {
    const kvlab = await loadModule();
    const limits = kvlab.catalog().limits;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kvlab-hostile-'));
    try {
      const file = path.join(dir, 'stories15M-q8_0.gguf');
      execFileSync(converter, [path.join(modelDir, 'model.bin'), path.join(modelDir, 'tokenizer.bin'), 'Q8_0', file]);
      const good = fs.readFileSync(file);
      // attn_k's offset set to attn_q's: the two overlap, which llama.cpp refuses.
      const overlap = Buffer.from(good);
      const offsetField = (name) => good.indexOf(name) + name.length + 4 + 16 + 4;
      good.copy(
        overlap,
        offsetField('blk.0.attn_k.weight'),
        offsetField('blk.0.attn_q.weight'),
        offsetField('blk.0.attn_q.weight') + 8
      );
      // A megabyte tensor name.
      const name = Buffer.alloc(8 + (1 << 20), 'n');
      name.writeBigUInt64LE(BigInt(1 << 20), 0);
      for (const [bytes, pathName, message] of [
        [
          rawGguf(limits.gguf_metadata_keys.max + 1),
          'gguf.metadata_kv_count',
          /must be an integer from 0 to 4096, .*\(got 4097\)/,
        ],
        [rawGguf(0, name, 1), 'gguf.tensors[0].name.length', /at most 63 bytes/],
        [new Uint8Array(overlap), 'gguf.tensors[blk.0.attn_k.weight].offset', /as llama\.cpp requires/],
      ]) {
        for (let i = 0; i < 3; ++i) {
          const error = thrown(() => kvlab.loadModel({ gguf: bytes }));
          assert.ok(error instanceof RangeError, String(error));
          assert.equal(error.path, pathName);
          assert.match(error.message, message);
          assert.ok(error.message.length < 1000, error.message.length);
        }
      }
      assert.equal(kvlab.loadModel({ gguf: new Uint8Array(good) }, { name: 'stories15M' }).name, 'stories15M');
      const out = kvlab.generate({ prompt: 'Once upon a time', tokens: 8 });
      assert.equal(out.tokens.length, 8);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
);
