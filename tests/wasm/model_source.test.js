// The model flags of measure, lab, bench and info, and the Embind calls' source: "loaded", on stories15M
// (build/models/stories15M, extracted by scripts/extract-models): the lab's Part A writes words, natively
// and with --wasm the same tokens, and a preset beside a model file is refused naming the field.
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { root, kvlabScript, loadModule, thrown } = require('./helpers');

const modelDir = path.join(root, 'build/models/stories15M');
const skip = fs.existsSync(path.join(modelDir, 'model.bin')) ? false : 'no build/models/stories15M: run scripts/build';

// Grids small enough for a quick run, within stories15M's 256 positions.
const smallMeasure = {
  runs: 1,
  answer_tokens: 8,
  decode_rows: [1, 2],
  decode_contexts: [8, 16],
  prefill_tokens: [1, 8],
  mixed_chunk_tokens: [4],
  mixed_rows: [1],
  mixed_contexts: [8],
  min_sample_ms: 0.1,
  samples: 1,
};
const smallFlags = Object.entries(smallMeasure).flatMap(([field, value]) => [
  '--' + field.replace(/_/g, '-'),
  String(value),
]);
const labArgs = ['lab', '--model', 'stories15M', ...smallFlags, '--requests', '20'];

function kvlab(args) {
  return spawnSync(kvlabScript, args, { encoding: 'utf8' });
}

test('lab --model stories15M: Part A in words, the same tokens natively and with --wasm', { skip }, () => {
  const native = JSON.parse(execFileSync(kvlabScript, [...labArgs, '--json'], { encoding: 'utf8' }));
  const wasm = JSON.parse(execFileSync(kvlabScript, ['--wasm', ...labArgs, '--json'], { encoding: 'utf8' }));
  for (const result of [native, wasm]) {
    assert.equal(result.steps.model.name, 'stories15M');
    assert.equal(result.steps.model.source, 'file');
    assert.equal(result.steps.model.preset, undefined);
    assert.equal(result.answer.identical_tokens, true);
    assert.equal(result.answer.pieces.length, 8);
    assert.deepEqual(Object.keys(result.policies).length, 4);
  }
  assert.equal(native.answer.prompt_text, wasm.answer.prompt_text);
  assert.deepEqual(wasm.answer.prompt, native.answer.prompt);
  assert.deepEqual(wasm.answer.tokens_cache, native.answer.tokens_cache);
  assert.deepEqual(wasm.answer.pieces, native.answer.pieces);

  // The answer is what generate writes from the same prompt.
  const alone = JSON.parse(
    execFileSync(
      kvlabScript,
      ['generate', '--model', 'stories15M', '--prompt', native.answer.prompt_text, '--tokens', '8', '--json'],
      { encoding: 'utf8' }
    )
  );
  assert.deepEqual(alone.prompt_tokens, native.answer.prompt);
  assert.deepEqual(alone.tokens, native.answer.tokens_cache);
  assert.equal(native.answer.pieces.join(''), alone.text);

  const text = kvlab(['--wasm', ...labArgs]);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /^model stories15M, read from files: /m);
  assert.ok(text.stdout.includes('prompt: ' + native.answer.prompt_text + '\n'), text.stdout);
  assert.ok(text.stdout.includes('answer: ' + alone.text), text.stdout);
  assert.match(text.stdout, /^continuous:16 /m);
});

test('measure, lab, bench and info refuse a preset or model sizes beside --model, naming the flag', { skip }, () => {
  for (const wasm of [[], ['--wasm']]) {
    for (const [args, message] of [
      [
        ['lab', '--preset', 'tiny', '--model', 'stories15M'],
        /^kvlab: --preset is not taken with a model read from files \(stories15M\)/,
      ],
      [
        ['measure', '--model', 'stories15M', '--d-model', '64'],
        /^kvlab: --d-model is not taken with a model read from files/,
      ],
      [['bench', '--preset', 'lab', '--model', 'stories15M'], /^kvlab: --preset is not taken/],
      [
        ['info', '--model', 'stories15M', '--prompt-tokens', '5'],
        /^kvlab: --prompt-tokens is not taken with a model that has a tokenizer/,
      ],
      [
        ['measure', '--model', 'stories15M', '--decode-contexts', '8,300'],
        /^kvlab: --decode-contexts must be an integer from 1 to 256 \(got 300\)/,
      ],
      [
        ['measure', '--preset', 'tiny', '--prompt-text', 'Once'],
        /^kvlab: --prompt-text needs a model with a tokenizer/,
      ],
    ]) {
      const run = kvlab([...wasm, ...args]);
      assert.equal(run.status, 2, `${wasm} ${args.join(' ')}: ${run.stdout}`);
      assert.match(run.stderr, message);
    }
  }
  const info = JSON.parse(
    execFileSync(kvlabScript, ['info', '--model', 'stories15M', '--weights', 'bf16'], { encoding: 'utf8' })
  );
  assert.equal(info.name, 'stories15M');
  assert.equal(info.source, 'file');
  assert.equal(info.weights, 'bf16');
  assert.equal(info.max_seq, 256);
});

test('run({source: "loaded"}) runs the lab on the model loadModel loaded, with its words', { skip }, async () => {
  const kvlab = await loadModule();
  const checkpoint = fs.readFileSync(path.join(modelDir, 'model.bin'));
  const tokenizer = fs.readFileSync(path.join(modelDir, 'tokenizer.bin'));
  assert.equal(kvlab.loadModel({ checkpoint, tokenizer }, { name: 'stories15M' }).name, 'stories15M');
  const parts = {};
  const result = kvlab.run(
    {
      source: 'loaded',
      measure: { ...smallMeasure, prompt_text: 'Tom had a blue kite.' },
      workload: { count: 20, prompt: [8, 16], answer: [8, 16] },
    },
    undefined,
    (name, value) => (parts[name] = value)
  );
  assert.equal(result.steps.model.name, 'stories15M');
  assert.equal(result.steps.model.source, 'file');
  assert.equal(result.answer.prompt_text, 'Tom had a blue kite.');
  assert.deepEqual(parts.first_answer.pieces, result.answer.pieces);
  const alone = kvlab.generate({ prompt: 'Tom had a blue kite.', tokens: 8 });
  assert.deepEqual(result.answer.prompt, alone.prompt_tokens);
  assert.deepEqual(result.answer.tokens_nocache, alone.tokens);
  assert.equal(result.answer.pieces.join(''), alone.text);

  const info = kvlab.modelInfo({ source: 'loaded' });
  assert.equal(info.name, 'stories15M');
  assert.equal(info.max_seq, 256);
  // Without a name, the loaded model is "model file".
  kvlab.loadModel({ checkpoint, tokenizer }, { weights: 'bf16' });
  assert.equal(kvlab.modelInfo({ source: 'loaded', weights: 'bf16' }).name, 'model file');

  for (const [call, path, message] of [
    [
      () => kvlab.run({ source: 'loaded', measure: { preset: 'tiny' } }),
      'options.measure.preset',
      /is not taken with a model read from files/,
    ],
    [
      () => kvlab.measure({ source: 'loaded', model: { d_model: 64 } }),
      'options.model.d_model',
      /its sizes are the file's/,
    ],
    [
      () => kvlab.modelInfo({ source: 'loaded', weights: 'f32' }),
      'options.weights',
      /must be bf16, the format model file was loaded with/,
    ],
    [
      () => kvlab.bench({ source: 'loaded', measure: { prompt_tokens: 4 } }),
      'options.measure.prompt_tokens',
      /the prompt is text/,
    ],
    [() => kvlab.run({ source: 'file' }), 'options.source', /must be "loaded"/],
    [
      () => kvlab.measure({ source: 'loaded', decode_contexts: [8, 512] }),
      'options.decode_contexts[1]',
      /from 1 to 256/,
    ],
    [() => kvlab.loadModel({ checkpoint, tokenizer }, { name: '' }), 'options.name', /must not be empty/],
  ]) {
    const error = thrown(call);
    assert.ok(error instanceof RangeError, `${path}: ${error}`);
    assert.equal(error.path, path);
    assert.match(error.message, message);
  }
});

// A File is read a piece at a time by FileReaderSync, which only a worker has (the page's worker: the
// Chromium test of a picked file); elsewhere a Blob is refused, as is anything but bytes.
test('loadModel takes a file as a Uint8Array, or as a Blob in a worker, naming the field otherwise', async () => {
  const kvlab = await loadModule();
  for (const [files, message] of [
    [{ gguf: new Blob([new Uint8Array(8)]) }, /files\.gguf is a Blob, which the module reads only in a worker/],
    [{ checkpoint: 'model.bin', tokenizer: new Uint8Array(8) }, /files\.checkpoint must be a Uint8Array or a Blob/],
  ]) {
    const error = thrown(() => kvlab.loadModel(files));
    assert.ok(error instanceof TypeError, String(error));
    assert.match(error.message, message);
  }
});

test('source: "loaded" before any model is loaded is refused naming options.source', async () => {
  const kvlab = await loadModule();
  for (const call of [
    () => kvlab.measure({ source: 'loaded' }),
    () => kvlab.run({ source: 'loaded' }),
    () => kvlab.bench({ source: 'loaded' }),
    () => kvlab.modelInfo({ source: 'loaded' }),
  ]) {
    const error = thrown(call);
    assert.ok(error instanceof RangeError);
    assert.equal(error.path, 'options.source');
    assert.match(error.message, /no model is loaded \(loadModel first\)/);
  }
});

// A model file larger than kvlab loads is refused by its size, naming it and the limit (the catalog's
// limits.model_file_bytes), before it is read: a sparse file of 700 MiB takes no disk and no time.
test('a model file past the limit is refused by its size, natively and with --wasm', () => {
  const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'kvlab-big-'));
  const file = path.join(dir, 'big.gguf');
  try {
    fs.closeSync(fs.openSync(file, 'w'));
    fs.truncateSync(file, 700 * 2 ** 20);
    for (const prefix of [[], ['--wasm']]) {
      const out = kvlab([...prefix, 'generate', '--gguf', file]);
      assert.equal(out.status, 2, out.stderr);
      assert.match(out.stderr, /--gguf: file ".*big\.gguf" has 700 MiB, more than 576 MiB \(the most kvlab loads\)/);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
