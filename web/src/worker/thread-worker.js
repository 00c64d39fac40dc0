// A thread worker of the threaded module (dist/kvlab-thread-worker.js): the glue's own worker script,
// and first a word to the lab worker that it is up, so that the lab worker starts the next one only
// then (modules.js, startThreadWorkers).
/* global importScripts */
importScripts('kvlab-threads.worker.js');
self.postMessage({ type: 'thread-worker-up' });
