// The threaded module's thread worker scripts in dist/: the glue's own, and ours that starts it
// (thread-worker.js, built by web/build.mjs; modules.js starts the thread workers from it).
export const THREAD_WORKER_FILE = 'kvlab-threads.worker.js';
export const THREAD_WORKER_START = 'kvlab-thread-worker.js';
