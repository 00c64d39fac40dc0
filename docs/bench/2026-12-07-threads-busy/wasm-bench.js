// tools/bench_threads_wasm.js with 3 samples a cell (the A/B of 2026-12-07 had little lock time).
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const dir = process.argv[2];
const createKvlabThreads = require(path.join(dir, 'kvlab-threads.js'));
createKvlabThreads({ wasmBinary: fs.readFileSync(path.join(dir, 'kvlab-threads.wasm')) }).then((kvlab) => {
  const threads = Math.min(os.cpus().length, kvlab.catalog().limits.threads.max);
  const result = kvlab.bench({ measure: { threads, samples: 3 }, answer_runs: 0, simulator: false, thread_scaling: true });
  process.stdout.write(JSON.stringify(result) + '\n');
});
