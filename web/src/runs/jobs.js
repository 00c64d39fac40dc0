// One job in a worker of its own: the Memory section's simulations, the "Simulated vs real" replay and
// the hardware switch's modeled GPU server (worker.js in its 'kvlab-job' role), and the SIMD vs scalar
// vs JavaScript panel (its 'kvlab-compare' role). The worker is started when the job starts and ended
// when it finishes, fails or is cancelled (cancel = terminate mid-computation), so the memory its module
// took is given back and the lab's own worker is never touched.
//
// Messages in the worker:  {type: 'memory' | 'replay' | 'hardware' | 'compare', id, options}
// Messages back:           {type: 'progress', id, fraction, phase, loading}   (loading: a module is
//                                                                              being loaded now)
//                          {type: 'result', id, result, elapsed_ms}
//                          {type: 'error', id, stage: 'load' | 'run', name, message, fatal}

import { endWorker, newWorker } from './worker-client.js';
import { JOB_WORKER_NAME } from './roles.js';

const LOAD_TIMEOUT_MS = 30000;

export class JobRunner {
  // handlers: onProgress(fraction, phase), onResult(result, elapsedMs),
  //           onError({kind: 'load' | 'input' | 'crash' | 'memory', message, detail}), onState(state)
  constructor(type, handlers, { workerName = JOB_WORKER_NAME } = {}) {
    this.type = type;
    this.handlers = handlers;
    this.workerName = workerName;
    this.worker = null;
    this.id = 0;
    this.loadTimer = null;
  }

  get running() {
    return this.worker !== null;
  }

  run(options) {
    this.stop();
    let worker;
    try {
      worker = newWorker(this.workerName);
    } catch (error) {
      this.fail({
        kind: 'load',
        message: 'The browser refused to start a worker.',
        detail: String((error && error.message) || error),
      });
      return;
    }
    this.id += 1;
    const id = this.id;
    this.worker = worker;
    worker.onmessage = (event) => this.onMessage(worker, id, event.data);
    worker.onerror = (event) => {
      if (worker !== this.worker) return;
      event.preventDefault();
      this.fail({
        kind: 'crash',
        message: 'The worker crashed.',
        detail: event.message || 'the worker stopped without a message',
      });
    };
    worker.onmessageerror = () => {
      if (worker === this.worker)
        this.fail({ kind: 'crash', message: 'The worker sent a message the page could not read.', detail: '' });
    };
    this.armLoadTimer(worker, 'kvlab.js or kvlab.wasm may be missing.');
    this.handlers.onState?.('running');
    worker.postMessage({ type: this.type, id, options });
  }

  onMessage(worker, id, message) {
    if (worker !== this.worker || !message || message.id !== id) return;
    if (message.type === 'progress') {
      clearTimeout(this.loadTimer);
      if (message.loading) this.armLoadTimer(worker, message.phase);
      this.handlers.onProgress?.(message.fraction, message.phase);
    } else if (message.type === 'result') {
      this.stop();
      this.handlers.onState?.('done');
      this.handlers.onResult?.(message.result, message.elapsed_ms);
    } else if (message.type === 'error') {
      const oom = /out of memory|OOM|allocation/i.test(message.message);
      const kind = message.stage === 'load' ? 'load' : oom ? 'memory' : message.fatal ? 'crash' : 'input';
      const text = {
        load: 'The WebAssembly module could not be loaded.',
        memory: 'The worker ran out of memory.',
        crash: 'The run stopped with an internal error.',
        input: 'The module refused these settings.',
      }[kind];
      this.fail({
        kind,
        message: text,
        detail: `${message.name}: ${message.message}`,
        raw: message.message,
        path: message.path,
      });
    }
  }

  // A module must load (and the next progress arrive) in time: nothing spins forever.
  armLoadTimer(worker, detail) {
    this.loadTimer = setTimeout(() => {
      if (worker === this.worker) {
        this.fail({
          kind: 'load',
          message: `The WebAssembly module did not load within ${LOAD_TIMEOUT_MS / 1000} s.`,
          detail,
        });
      }
    }, LOAD_TIMEOUT_MS);
  }

  stop() {
    endWorker(this);
  }

  fail(error) {
    this.stop();
    this.handlers.onState?.('error');
    this.handlers.onError?.(error);
  }

  // Really stops the work: the job's worker is terminated mid-computation.
  cancel() {
    this.stop();
    this.handlers.onState?.('cancelled');
  }
}
