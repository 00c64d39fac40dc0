// `kvlab bench --thread-scaling` in the threaded wasm module under Node (build/wasm-threads): the bench
// object of the module's bench(), with as many threads as the machine has cores (up to the module's
// limit). Called by tools/bench_table.js; prints JSON. An argument names another build's folder of
// kvlab-threads.js (to compare two builds side by side).
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const dir = path.resolve(process.argv[2] || path.join(__dirname, '../build/wasm-threads/src/wasm'));
const createKvlabThreads = require(path.join(dir, 'kvlab-threads.js'));

createKvlabThreads({ wasmBinary: fs.readFileSync(path.join(dir, 'kvlab-threads.wasm')) }).then((kvlab) => {
  const threads = Math.min(os.cpus().length, kvlab.catalog().limits.threads.max);
  const result = kvlab.bench({ measure: { threads }, answer_runs: 0, simulator: false, thread_scaling: true });
  process.stdout.write(JSON.stringify(result) + '\n');
});
