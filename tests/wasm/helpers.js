// Shared by the wasm tests: paths of the builds and a loader for the Embind module.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const wasmDir = path.join(root, 'build/wasm/src/wasm');
const threadsDir = path.join(root, 'build/wasm-threads/src/wasm');
const nativeCli = path.join(root, 'build/native/src/cli/kvlab');
const kvlabScript = path.join(root, 'scripts/kvlab');

// Emscripten 3.1.6 glue would fetch() the .wasm under Node 20, which fails for a file path: hand it the bytes.
function loadModule() {
  const createKvlab = require(path.join(wasmDir, 'kvlab.js'));
  return createKvlab({ wasmBinary: fs.readFileSync(path.join(wasmDir, 'kvlab.wasm')) });
}

// The threaded module (build/wasm-threads): its workers start as it loads, `threadWorkers` of them (the
// tests run up to 4 threads, more than a 2-core machine's own pool holds: src/wasm/thread_workers.js).
function loadThreadsModule(threadWorkers = 3) {
  const createKvlabThreads = require(path.join(threadsDir, 'kvlab-threads.js'));
  return createKvlabThreads({
    wasmBinary: fs.readFileSync(path.join(threadsDir, 'kvlab-threads.wasm')),
    threadWorkers,
  });
}

// Small options that still exercise every phase.
const smallMeasure = {
  preset: 'tiny',
  runs: 2,
  answer_tokens: 12,
  decode_rows: [1, 3],
  decode_contexts: [4, 20],
  prefill_tokens: [1, 5, 20],
  min_sample_ms: 0.2,
  samples: 2,
};

// A step table of two rows by two contexts and a five-request workload: enough for the simulator, and
// small enough that a test's figures can be read by hand.
const smallSteps = {
  decode: {
    rows: [1, 4],
    contexts: [8, 64],
    ms: [
      [1, 1.5],
      [2, 3],
    ],
  },
  prefill: { tokens: [1, 64], ms: [1, 8] },
};
const smallWorkload = { count: 5, prompt: [8, 16], answer: [4, 8], seed: 1 };

// The error `call` throws, which must be one.
function thrown(call) {
  try {
    call();
  } catch (error) {
    return error;
  }
  assert.fail('no error');
}

module.exports = {
  root,
  wasmDir,
  threadsDir,
  nativeCli,
  kvlabScript,
  loadModule,
  loadThreadsModule,
  smallMeasure,
  smallSteps,
  smallWorkload,
  thrown,
};
