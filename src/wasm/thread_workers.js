// The threaded module's pool of thread workers (-sPTHREAD_POOL_SIZE=kvlabThreadWorkers(limit),
// src/wasm/CMakeLists.txt), which the glue starts as it loads: a model's threads start at once only on a
// worker started beforehand. Module.threadWorkers when the caller gives it (the page: one fewer than the
// threads this device's cores allow a run, web/src/threads.js), else two models' worth of the threads
// this device's cores allow within `limit` (kvlab bench times two models at once). At least one: the
// glue finishes loading once its pool has.
function kvlabThreadWorkers(limit) {
  var given = Module['threadWorkers'];
  if (typeof given === 'number' && given >= 1) return Math.floor(given);
  var cores = 1;
  if (typeof navigator === 'object' && navigator.hardwareConcurrency) cores = navigator.hardwareConcurrency;
  else if (ENVIRONMENT_IS_NODE) cores = require('os').cpus().length;
  return Math.max(1, 2 * (Math.min(cores, limit) - 1));
}
