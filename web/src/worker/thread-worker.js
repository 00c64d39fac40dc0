// A thread worker of the threaded module (dist/kvlab-thread-worker.js), started by the page
// (runs/worker-client.js): the glue's own worker script, which talks to the lab worker instead of to
// its parent, through the MessagePort the page sends first (worker/modules.js, threadWorkersFromPage).
/* global importScripts */
self.onmessage = ({ data: { port } }) => {
  self.postMessage = (message, transfer) => port.postMessage(message, transfer);
  importScripts('kvlab-threads.worker.js');
  port.onmessage = self.onmessage;
  self.onmessage = null;
};
