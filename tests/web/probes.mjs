// Probes for the hardening test and the soak (tests/web/hardening.test.mjs, tests/web/soak.mjs): they
// watch the page from outside without changing what it ships.
//
//   installProbes(page)   before the page loads: records every Worker the page starts (with its name),
//                         counts kvlab:result events, and times the main thread (the longest gap of a
//                         50 ms interval timer, the longest long task), through window.__kvlabProbe
//   wasmHeap(page)        the lab worker's wasm heap, {heap_bytes, in_use_bytes}, through the worker's
//                         diagnostic message {type: 'heap'} (web/src/worker.js)
//   mainThread(page)      {max_gap_ms, long_task_ms, long_tasks} since the last reset (reset: true resets)
//   CdpProbe              a Chrome DevTools Protocol session on the page that also attaches to its
//                         workers: JS heap of the page and of the current lab worker, after a GC, and
//                         the page's heap split into compiled code and the rest (a heap snapshot)

export const INTERVAL_MS = 50;

export async function installProbes(page) {
  await page.addInitScript((intervalMs) => {
    // Every worker the page starts, in order; lab.js gives the lab's worker the name 'kvlab-lab'.
    const workers = [];
    const Native = window.Worker;
    if (Native) {
      window.Worker = class extends Native {
        constructor(url, options) {
          super(url, options);
          workers.push({ worker: this, name: (options && options.name) || '' });
        }
      };
    }
    // The main thread: a timer that should fire every intervalMs; a longer gap means the page was busy.
    let last = performance.now();
    let maxGap = 0;
    let longTask = 0;
    let longTasks = 0;
    setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, intervalMs);
    try {
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          longTask = Math.max(longTask, entry.duration);
          longTasks += 1;
        }
      }).observe({ type: 'longtask', buffered: false });
    } catch (error) {
      // No long-task timing in this browser: the interval timer still measures.
    }
    // Results announced (kvlab:result events), counted without keeping them.
    let results = 0;
    document.addEventListener('kvlab:result', () => {
      results += 1;
    });
    window.__kvlabProbe = {
      workers,
      results: () => results,
      labWorker() {
        const lab = workers.filter((w) => w.name !== 'kvlab-compare' && w.name !== 'kvlab-job');
        return lab.length ? lab[lab.length - 1].worker : null;
      },
      mainThread(reset) {
        // The gap still open counts too (a page frozen right now).
        const open = performance.now() - last;
        const out = { max_gap_ms: Math.max(maxGap, open), long_task_ms: longTask, long_tasks: longTasks };
        if (reset) {
          maxGap = 0;
          longTask = 0;
          longTasks = 0;
        }
        return out;
      },
    };
  }, INTERVAL_MS);
}

// The lab worker's wasm heap. Rejects when the worker does not answer within timeoutMs (it answers
// between runs only: a run holds the worker's thread).
export function wasmHeap(page, timeoutMs = 15000) {
  return page.evaluate(
    (timeout) =>
      new Promise((resolve, reject) => {
        const worker = window.__kvlabProbe && window.__kvlabProbe.labWorker();
        if (!worker) {
          reject(new Error('the page has started no lab worker'));
          return;
        }
        const id = `heap-${Math.random()}`;
        const timer = setTimeout(() => {
          worker.removeEventListener('message', onMessage);
          reject(new Error(`the lab worker did not report its heap within ${timeout} ms`));
        }, timeout);
        function onMessage(event) {
          const message = event.data;
          if (!message || message.type !== 'heap' || message.id !== id) return;
          clearTimeout(timer);
          worker.removeEventListener('message', onMessage);
          resolve(message.heap);
        }
        worker.addEventListener('message', onMessage);
        worker.postMessage({ type: 'heap', id });
      }),
    timeoutMs
  );
}

export function mainThread(page, { reset = false } = {}) {
  return page.evaluate((r) => window.__kvlabProbe.mainThread(r), reset);
}

// CDP on the page, auto-attached (not flattened) to its workers, whose commands go through
// Target.sendMessageToTarget.
export class CdpProbe {
  static async open(page) {
    const probe = new CdpProbe();
    probe.session = await page.context().newCDPSession(page);
    probe.workers = new Map(); // sessionId -> {title, type, alive}
    probe.nextId = 1;
    probe.waiting = new Map();
    probe.session.on('Target.attachedToTarget', (event) => {
      probe.workers.set(event.sessionId, {
        title: event.targetInfo.title,
        type: event.targetInfo.type,
        alive: true,
        order: probe.nextId++,
      });
    });
    probe.session.on('Target.detachedFromTarget', (event) => {
      const w = probe.workers.get(event.sessionId);
      if (w) w.alive = false;
    });
    probe.session.on('Target.receivedMessageFromTarget', (event) => {
      let message;
      try {
        message = JSON.parse(event.message);
      } catch (error) {
        return;
      }
      const done = message.id !== undefined && probe.waiting.get(message.id);
      if (done) {
        probe.waiting.delete(message.id);
        done(message);
      }
    });
    await probe.session.send('Performance.enable');
    await probe.session.send('Target.setAutoAttach', {
      autoAttach: true,
      waitForDebuggerOnStart: false,
      flatten: false,
    });
    return probe;
  }

  // The page's JS heap (bytes), after a garbage collection.
  async pageHeap() {
    await this.session.send('HeapProfiler.collectGarbage');
    const usage = await this.session.send('Runtime.getHeapUsage');
    const metrics = await this.session.send('Performance.getMetrics');
    const metric = (name) => (metrics.metrics.find((m) => m.name === name) || {}).value;
    return {
      used_bytes: usage.usedSize,
      total_bytes: usage.totalSize,
      nodes: metric('Nodes'),
      listeners: metric('JSEventListeners'),
    };
  }

  // The page's JS heap after a garbage collection, split by a heap snapshot into compiled code (what
  // V8's compilers add as functions get hot: machine code, feedback; V8 itself flushes it) and
  // everything else (the page's objects, where a leak would be). About a second for this page.
  async pageHeapByKind() {
    await this.session.send('HeapProfiler.enable');
    await this.session.send('HeapProfiler.collectGarbage');
    const chunks = [];
    const onChunk = (event) => chunks.push(event.chunk);
    this.session.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
    try {
      await this.session.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    } finally {
      this.session.off('HeapProfiler.addHeapSnapshotChunk', onChunk);
    }
    const { snapshot, nodes } = JSON.parse(chunks.join(''));
    const fields = snapshot.meta.node_fields;
    const codeType = snapshot.meta.node_types[0].indexOf('code');
    const typeAt = fields.indexOf('type');
    const sizeAt = fields.indexOf('self_size');
    let code = 0;
    let other = 0;
    for (let i = 0; i < nodes.length; i += fields.length) {
      if (nodes[i + typeAt] === codeType) code += nodes[i + sizeAt];
      else other += nodes[i + sizeAt];
    }
    return { code_bytes: code, other_bytes: other };
  }

  sendToWorker(sessionId, method, params = {}, timeoutMs = 15000) {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`worker did not answer ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(id, (message) => {
        clearTimeout(timer);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result);
      });
      this.session
        .send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) })
        .catch((error) => {
          clearTimeout(timer);
          this.waiting.delete(id);
          reject(error);
        });
    });
  }

  // The JS heap of the newest live lab worker (bytes), after a garbage collection; null if none.
  async labWorkerHeap() {
    const live = [...this.workers.entries()]
      .filter(([, w]) => w.alive && w.type === 'worker' && w.title !== 'kvlab-compare' && w.title !== 'kvlab-job')
      .sort((a, b) => b[1].order - a[1].order);
    if (!live.length) return null;
    const [sessionId] = live[0];
    await this.sendToWorker(sessionId, 'HeapProfiler.collectGarbage');
    const usage = await this.sendToWorker(sessionId, 'Runtime.getHeapUsage');
    return { used_bytes: usage.usedSize, total_bytes: usage.totalSize };
  }

  async close() {
    try {
      await this.session.detach();
    } catch (error) {
      /* the page is gone */
    }
  }
}
