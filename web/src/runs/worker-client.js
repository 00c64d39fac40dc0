// The page's side of the worker: start it, run the lab in it, cancel by terminating it, and turn
// every way it can fail (the module does not load, the worker dies, a run throws) into one
// readable error with a way to retry. Nothing waits forever: loading has a time limit.

import { workerSource } from 'kvlab:worker-source';
import { serviceWorkerStatus } from '../isolation/register.js';
import { THREAD_WORKER_START } from '../worker/thread-files.js';

const LOAD_TIMEOUT_MS = 30000;

let blobUrl = null;

// One worker script, two roles told apart by the worker's name (see worker.js): the lab, and the
// SIMD vs scalar vs JavaScript panel (COMPARE_WORKER_NAME).
export function newWorker(name = 'kvlab-lab') {
  if (workerSource) {
    // Standalone page: a Blob-URL worker works from file://, where new Worker('worker.js') is refused.
    if (!blobUrl) blobUrl = URL.createObjectURL(new Blob([workerSource], { type: 'text/javascript' }));
    return new Worker(blobUrl, { name });
  }
  return new Worker(new URL('worker.js', document.baseURI), { name });
}

export const standalone = Boolean(workerSource);
// The page is inside another page's frame (an embed): it can be cross-origin isolated only if that page is.
export const framed = window.top !== window;
// What the words on threads (threads.js) need to know about this page.
export const threadsSituation = () => ({ standalone, embedded: framed, service_worker: serviceWorkerStatus() });

// Ends the worker of a Lab or a JobRunner (owner.worker) mid-computation, the thread workers the page
// started for it (a Lab's owner.threadWorkers) and its load time limit (owner.loadTimer). The worker's
// handlers go first, so that nothing it had already sent reaches the page afterwards.
export function endWorker(owner) {
  clearTimeout(owner.loadTimer);
  for (const threadWorker of owner.threadWorkers ?? []) threadWorker.terminate();
  owner.threadWorkers = [];
  if (!owner.worker) return;
  owner.worker.onmessage = null;
  owner.worker.onerror = null;
  owner.worker.terminate();
  owner.worker = null;
}

export class Lab {
  // handlers: onReady(info), onProgress(fraction, phase), onPart(name, value) (a part of the result as
  //           soon as it is measured: 'answer', then 'steps'), onResult(result, elapsedMs),
  //           onError({kind, message, detail, field}), onState(state)
  constructor(handlers) {
    this.handlers = handlers;
    this.worker = null;
    this.ready = false;
    this.info = null;
    this.runId = 0;
    this.pending = null; // a run asked for before the worker was ready
    this.current = null; // id of the run in progress
    this.loadTimer = null;
    this.threadWorkers = []; // the threaded module's, for this.worker (startThreadWorkers)
  }

  // quiet: no 'loading' state (a restart after a crash, while the page still shows the error).
  start({ quiet = false } = {}) {
    this.stopWorker();
    this.ready = false;
    let worker;
    try {
      worker = newWorker();
    } catch (error) {
      this.fail({
        kind: 'load',
        message: 'The browser refused to start the lab’s worker.',
        detail: String((error && error.message) || error),
      });
      return;
    }
    this.worker = worker;
    worker.onmessage = (event) => this.onMessage(worker, event.data);
    worker.onerror = (event) => {
      if (worker !== this.worker) return;
      event.preventDefault();
      const text = event.message || 'the worker stopped without a message';
      this.fail({
        kind: this.ready ? 'crash' : 'load',
        message: this.ready ? 'The lab’s worker crashed.' : 'The lab’s worker could not start.',
        detail: text,
      });
    };
    worker.onmessageerror = () => {
      if (worker !== this.worker) return;
      this.fail({ kind: 'crash', message: 'The lab’s worker sent a message the page could not read.', detail: '' });
    };
    this.loadTimer = setTimeout(() => {
      if (worker !== this.worker || this.ready) return;
      this.fail({
        kind: 'load',
        message: `The WebAssembly module did not load within ${LOAD_TIMEOUT_MS / 1000} s.`,
        detail: 'The network may be slow, or the files kvlab.js / kvlab.wasm are missing.',
      });
    }, LOAD_TIMEOUT_MS);
    if (!quiet) this.handlers.onState?.('loading');
  }

  stopWorker() {
    endWorker(this);
  }

  fail(error) {
    const wasRunning = this.current !== null || this.pending !== null;
    const wasReady = this.ready;
    this.stopWorker();
    this.ready = false;
    this.current = null;
    this.pending = null;
    // A worker that had loaded and then died is replaced at once, so Run works again; one that never
    // loaded is not (that would retry forever): Try again starts it.
    const restart = wasReady && error.kind !== 'load';
    this.handlers.onError?.({ ...error, wasRunning, restarted: restart });
    if (restart) this.start({ quiet: true });
  }

  onMessage(worker, message) {
    if (worker !== this.worker || !message) return;
    switch (message.type) {
      case 'ready':
        clearTimeout(this.loadTimer);
        this.ready = true;
        this.info = message;
        this.handlers.onReady?.(message);
        if (this.pending) {
          const { options, model } = this.pending;
          this.pending = null;
          this.send(options, model);
        } else {
          this.handlers.onState?.('ready');
        }
        break;
      case 'thread-workers':
        this.startThreadWorkers(worker, message.count);
        break;
      case 'progress':
        if (message.id === this.current) this.handlers.onProgress?.(message.fraction, message.phase);
        break;
      case 'part':
        if (message.id === this.current) this.handlers.onPart?.(message.name, message.value);
        break;
      case 'result':
        if (message.id !== this.current) return;
        this.current = null;
        this.handlers.onState?.('ready');
        this.handlers.onResult?.(message.result, message.elapsed_ms);
        break;
      case 'error':
        if (message.stage === 'load') {
          this.fail({
            kind: 'load',
            message: 'The WebAssembly module could not be loaded.',
            detail: `${message.name}: ${message.message}`,
          });
        } else if (message.fatal) {
          const oom = /memory|OOM|allocation/i.test(message.message);
          this.fail({
            kind: oom ? 'memory' : 'crash',
            message: oom ? 'The lab ran out of memory.' : 'The lab stopped with an internal error.',
            detail: `${message.name}: ${message.message}`,
          });
        } else {
          // Bad options (or out of memory reported cleanly): the worker is fine, nothing to restart.
          this.current = null;
          this.handlers.onState?.('ready');
          const oom = /out of memory/i.test(message.message);
          this.handlers.onError?.({
            kind: oom ? 'memory' : 'input',
            message: oom ? 'The lab ran out of memory.' : 'The lab refused these settings.',
            detail: message.message,
            path: message.path,
            wasRunning: true,
          });
        }
        break;
      default:
        break;
    }
  }

  // The threaded module's thread workers, which the lab's worker asks for as it loads the module: the page
  // starts them, because in Firefox a worker that starts workers can stop for good inside `new Worker`
  // (docs/threads.md, "Firefox"), and hands the lab's worker a MessagePort to each (thread-worker.js),
  // then the errors they throw.
  startThreadWorkers(worker, count) {
    const ports = [];
    for (let index = 0; index < count; index += 1) {
      const threadWorker = new Worker(new URL(THREAD_WORKER_START, document.baseURI));
      const { port1, port2 } = new MessageChannel();
      threadWorker.postMessage({ port: port1 }, [port1]);
      threadWorker.onerror = (event) => {
        event.preventDefault();
        const { message, filename, lineno } = event;
        worker.postMessage({ type: 'thread-worker-error', index, error: { message, filename, lineno } });
      };
      this.threadWorkers.push(threadWorker);
      ports.push(port2);
    }
    worker.postMessage({ type: 'thread-workers', ports }, ports);
  }

  // model: the real model to load first (worker/model-loader.js), or null for the preset's random weights.
  run(options, model = null) {
    if (!this.worker) this.start();
    if (!this.ready) {
      this.pending = { options, model };
      this.handlers.onState?.('running');
      return;
    }
    this.send(options, model);
  }

  send(options, model) {
    this.runId += 1;
    this.current = this.runId;
    this.handlers.onState?.('running');
    this.worker.postMessage({ type: 'run', id: this.current, options, model });
  }

  get running() {
    return this.current !== null || this.pending !== null;
  }

  // Really stops the work: the worker is terminated mid-computation and a fresh one is started.
  cancel() {
    this.current = null;
    this.pending = null;
    this.stopWorker();
    this.start();
  }
}
