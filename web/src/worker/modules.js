// What every role of the worker shares: posting, describing errors, and loading the builds of the
// wasm module (see index.js for how the served and the standalone page provide them).
/* global createKvlab, createKvlabScalar, createKvlabThreads, kvlabScalarWasmBase64 */

import { minSampleMs, timerResolutionMs } from '../env.js';
import { THREADED_LIMITS } from '../generated/catalog.js';

import { THREAD_WORKER_FILE } from './thread-files.js';
import { threadWorkersFor } from '../threads.js';

// This worker's clock, which every measurement here reads (a browser may tick it more coarsely than
// the page's), and the shortest sample the step timer may take on it (env.js): no sample asked for
// is shorter.
export const CLOCK = { timer_resolution_ms: timerResolutionMs() };
CLOCK.min_sample_ms = minSampleMs(CLOCK.timer_resolution_ms);
export const withSampleFloor = (ms) => Math.max(Number.isFinite(ms) ? ms : 0, CLOCK.min_sample_ms);
// `extra`: further measure options the worker decides (the lab's thread count). (Options that are not an
// object are left for the module to refuse.)
export const measureOnClock = (measure = {}, extra = {}) =>
  measure && typeof measure === 'object' && !Array.isArray(measure)
    ? { ...measure, ...extra, min_sample_ms: withSampleFloor(measure.min_sample_ms) }
    : measure;

export function post(message) {
  self.postMessage(message);
}

// An error as a message can carry it: name and message, and for bad input the field as data (path,
// given, allowed; src/wasm/api.js), by which the page finds the form field it is about.
export function describe(error) {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const described = { name: error.name, message: error.message };
  for (const key of ['path', 'given', 'allowed']) if (error[key] !== undefined) described[key] = error[key];
  return described;
}

const moduleArgs = () => ({
  // The glue prints aborts with console.warn; keep them, but the page reports the error itself.
  printErr: (text) => console.warn('kvlab:', text),
});

// The SIMD module (a promise); importScripts('kvlab.js') when served.
export function loadSimd() {
  try {
    const args = moduleArgs();
    if (typeof createKvlab !== 'function') {
      importScripts('kvlab.js');
      args.locateFile = (path) => new URL(path, self.location.href).href;
    }
    return createKvlab(args);
  } catch (error) {
    return Promise.reject(error);
  }
}

// Whether this worker can run the threaded module (kvlab-threads.js + .wasm + .worker.js): the page is
// served (the single file carries only the single-threaded module) and cross-origin isolated, so that
// SharedArrayBuffer, which the module's threads share their memory through, exists.
export function canRunThreads() {
  return (
    typeof createKvlab !== 'function' && self.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function'
  );
}

// The glue's use of a Worker (postMessage, onmessage, onerror, terminate) on a MessagePort to a thread
// worker the page started. terminate closes the port only: the page ends its thread workers with this one.
function portAsWorker(port) {
  return {
    postMessage: (message, transfer) => port.postMessage(message, transfer),
    get onmessage() {
      return port.onmessage;
    },
    set onmessage(handler) {
      port.onmessage = handler;
    },
    onerror: null,
    terminate: () => port.close(),
  };
}

// The thread workers of the threaded module, started by the page (runs/worker-client.js): in Firefox a
// worker that starts workers can stop for good inside `new Worker`, even one at a time (docs/threads.md,
// "Firefox"); the page's own thread cannot. The page answers with a MessagePort to each and, later,
// with the errors they throw, which go to the glue's onerror as a worker's would.
function threadWorkersFromPage(count) {
  return new Promise((resolve) => {
    const workers = [];
    self.addEventListener('message', ({ data }) => {
      if (data?.type === 'thread-workers') {
        workers.push(...data.ports.map(portAsWorker));
        // A copy: the glue takes them out of it one by one (loadThreads).
        resolve(workers.slice());
      } else if (data?.type === 'thread-worker-error') {
        workers[data.index].onerror?.(new ErrorEvent('error', data.error));
      }
    });
    post({ type: 'thread-workers', count });
  });
}

// The threaded module (a promise), served next to this file. Its thread workers load the glue by URL
// (mainScriptUrlOrBlob): left to itself, the glue would give them this worker's own script. The glue
// gets the page's thread workers (threadWorkersFromPage) when it asks for its pool.
export async function loadThreads() {
  const args = moduleArgs();
  const glue = new URL('kvlab-threads.js', self.location.href).href;
  if (typeof createKvlabThreads !== 'function') importScripts(glue);
  args.locateFile = (path) => new URL(path, self.location.href).href;
  args.mainScriptUrlOrBlob = glue;
  const threadScript = args.locateFile(THREAD_WORKER_FILE);
  // As many thread workers as this device's cores allow a run to use (the glue's pool size, passed on).
  args.threadWorkers = threadWorkersFor(navigator.hardwareConcurrency, THREADED_LIMITS.threads.max);
  const started = await threadWorkersFromPage(args.threadWorkers);
  const NewWorker = self.Worker;
  self.Worker = function StartedWorker(url, options) {
    return String(url) === threadScript && started.length ? started.shift() : new NewWorker(url, options);
  };
  try {
    return createKvlabThreads(args);
  } finally {
    self.Worker = NewWorker;
  }
}

// The scalar build (KVLAB_SIMD=OFF) of the same C++: served as kvlab-scalar.js + kvlab-scalar.wasm,
// fetched only now; in the standalone file its wasm is inlined as base64.
export function loadScalar() {
  try {
    const args = moduleArgs();
    if (typeof kvlabScalarWasmBase64 === 'string') {
      const text = atob(kvlabScalarWasmBase64);
      const bytes = new Uint8Array(text.length);
      for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
      args.wasmBinary = bytes;
    } else {
      if (typeof createKvlabScalar !== 'function') importScripts('kvlab-scalar.js');
      // The glue asks for the name it was built as (kvlab.wasm); the page ships it as kvlab-scalar.wasm.
      args.locateFile = (path) => new URL(path.replace(/^kvlab\.wasm$/, 'kvlab-scalar.wasm'), self.location.href).href;
    }
    return createKvlabScalar(args);
  } catch (error) {
    return Promise.reject(error);
  }
}

// A progress callback for the module that passes on changes only (progress comes often in the step grids).
export function throttledProgress(id) {
  let lastFraction = -1;
  let lastPhase = '';
  return (fraction, phase) => {
    if (phase === lastPhase && fraction - lastFraction < 0.005 && fraction < 1) return;
    lastFraction = fraction;
    lastPhase = phase;
    post({ type: 'progress', id, fraction, phase });
  };
}

// RangeError/TypeError: bad options, the module is fine. Anything else (a wasm trap, an abort) may have
// left the module unusable: the page starts a fresh worker.
export function postRunError(id, error, stage = 'run') {
  const fatal = !(error instanceof RangeError || error instanceof TypeError);
  post({ type: 'error', id, stage, fatal, ...describe(error) });
}
