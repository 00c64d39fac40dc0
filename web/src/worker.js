// The Web Worker that owns the wasm module: every measurement and simulation runs here, so the page
// stays responsive. The page cancels a run by terminating this worker and starting a new one.
//
// Messages in:  {type: 'run', id, options}
// Messages out: {type: 'ready', version, presets, instruction_set}
//               {type: 'progress', id, fraction, phase}
//               {type: 'result', id, result, elapsed_ms}
//               {type: 'error', id, stage: 'load' | 'run', name, message, fatal}
//
// Served: the glue kvlab.js sits next to this file and is loaded with importScripts; it finds
// kvlab.wasm next to itself. Standalone: the single-file glue (wasm inlined) is prepended to this
// code in one Blob, so `createKvlab` already exists.
/* global createKvlab */

const PRESET_NAMES = ['small', 'lab', 'medium', 'tiny'];

function post(message) {
  self.postMessage(message);
}

function describe(error) {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

let modulePromise;
try {
  let standalone = true;
  if (typeof createKvlab !== 'function') {
    standalone = false;
    importScripts('kvlab.js');
  }
  const moduleArgs = {
    // The glue prints aborts with console.warn; keep them, but the page reports the error itself.
    printErr: (text) => console.warn('kvlab:', text),
  };
  if (!standalone) moduleArgs.locateFile = (path) => new URL(path, self.location.href).href;
  modulePromise = createKvlab(moduleArgs);
} catch (error) {
  modulePromise = Promise.reject(error);
}

modulePromise.then(
  (m) => {
    const presets = {};
    for (const name of PRESET_NAMES) {
      try {
        presets[name] = m.modelInfo({ preset: name });
      } catch (error) {
        // A preset this build does not know: leave it out.
      }
    }
    const first = presets.small || Object.values(presets)[0] || {};
    post({ type: 'ready', version: m.version(), presets, instruction_set: first.instruction_set || '' });
  },
  (error) => post({ type: 'error', id: null, stage: 'load', fatal: true, ...describe(error) }),
);

self.onmessage = (event) => {
  const message = event.data || {};
  if (message.type !== 'run') return;
  const { id, options } = message;
  modulePromise.then(
    (m) => {
      const start = performance.now();
      let lastFraction = -1;
      let lastPhase = '';
      try {
        const result = m.run(options, (fraction, phase) => {
          // Progress comes often in the step grids; pass on changes only.
          if (phase === lastPhase && fraction - lastFraction < 0.005 && fraction < 1) return;
          lastFraction = fraction;
          lastPhase = phase;
          post({ type: 'progress', id, fraction, phase });
        });
        post({ type: 'result', id, result, elapsed_ms: performance.now() - start });
      } catch (error) {
        // RangeError/TypeError: bad options, the module is fine. Anything else (a wasm trap, an abort)
        // may have left the module unusable: the page starts a fresh worker.
        const fatal = !(error instanceof RangeError || error instanceof TypeError);
        post({ type: 'error', id, stage: 'run', fatal, ...describe(error) });
      }
    },
    (error) => post({ type: 'error', id, stage: 'load', fatal: true, ...describe(error) }),
  );
};
