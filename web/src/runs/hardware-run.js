// The hardware switch's one modeled server, with no view, shared by every chapter that shows a switch
// (queue, memory): which hardware is chosen, the job that models it (a job worker: jobs.js,
// plans/hardware.js) and its result. Choosing in one chapter's switch sets the others. "This device
// (measured)" is the default and stops any modeling. It writes the store's hardwareRun as it goes and the
// result as `hardware` (runs/publish.js hands it on); the switches draw them (panels/hardware/chapter.js).
//
// store.hardwareRun: { presets (the module's GPUs, models and formats), choice, state ('measured',
// 'waiting' for another run, 'modeling', 'modeled' or 'failed'), progress ({fraction, phase} while
// modeling), elapsed_ms (of a model just made; null when a kept one is shown again), error }

import { JobRunner } from './jobs.js';
import { CATALOG } from '../generated/catalog.js';
import { policyNames } from '../config.js';
import { choiceText, gpuText } from '../plans/hardware-settings.js';

const sameServer = (a, b) => ['gpu', 'model', 'weights', 'kv', 'tp', 'slots'].every((key) => a[key] === b[key]);

// store: the run store.
export function hardwareModel(store) {
  let modeling = null; // the choice the job in progress models
  let hooks = {
    busy: () => false,
    onRunningChange: () => {},
    labQueue: () => null,
    setBackend: () => {},
    onChoiceChange: () => {},
  };
  // The module's presets as the build wrote them (a link's GPU shows at once); the worker's replace them.
  store.set({
    hardwareRun: {
      presets: CATALOG.roofline_presets,
      choice: { measured: true },
      state: 'measured',
      progress: null,
      elapsed_ms: null,
      error: null,
    },
  });
  const current = () => store.get().hardwareRun;
  const update = (change) => store.set({ hardwareRun: { ...current(), ...change } });

  const job = new JobRunner('hardware', {
    onState: () => hooks.onRunningChange(),
    onProgress: (fraction, phase) => update({ progress: { fraction, phase } }),
    onResult(raw, elapsedMs) {
      const { presets } = current();
      const result = {
        ...raw,
        choice: modeling,
        label: choiceText(modeling, presets),
        gpu_label: gpuText(modeling, presets),
        elapsed_ms: elapsedMs,
      };
      store.set({
        hardwareRun: { ...current(), state: 'modeled', progress: null, elapsed_ms: elapsedMs },
        hardware: result,
      });
    },
    onError(error) {
      // A server the model does not fit: the worker's advice in words (plans/fits.js) is the message.
      const shown = /\.tp$/.test(error.path || '') ? { message: error.raw, detail: '' } : error;
      update({ state: 'failed', progress: null, error: { message: shown.message, detail: shown.detail || '' } });
    },
  });

  function start() {
    const queue = hooks.labQueue();
    if (hooks.busy() || !queue) {
      update({ state: 'waiting', error: null });
      return;
    }
    const { choice } = current();
    modeling = choice;
    update({ state: 'modeling', progress: null, error: null });
    job.run({
      roofline: { gpu: choice.gpu, model: choice.model, weights: choice.weights, kv: choice.kv, tp: choice.tp },
      slots: choice.slots,
      workload: queue,
      policies: policyNames({ slots: choice.slots }),
    });
  }

  const waiting = () => current().state === 'waiting';

  // fromLink: a link's choice is modeled a tick later, so that a run the link starts itself (autorun)
  // goes first and the modeling waits for it, as for a choice made while the lab runs.
  function choose(choice, { fromLink = false } = {}) {
    const result = store.get().hardware;
    if (choice.measured) {
      if (job.running) job.cancel();
      update({ choice, state: 'measured', progress: null, error: null });
    } else if (result && sameServer(result.choice, choice) && !job.running) {
      update({ choice, state: 'modeled', progress: null, elapsed_ms: null, error: null });
    } else if (fromLink) {
      update({ choice, state: 'waiting', error: null });
      setTimeout(() => {
        if (waiting() && !job.running) start();
      }, 0);
    } else {
      update({ choice, error: null });
      start();
    }
    hooks.onChoiceChange();
    if (choice.measured) hooks.setBackend(choice.backend || 'cpu');
  }

  return {
    // busy() -> another run holds the processor; onRunningChange(); labQueue() -> the lab's workload;
    // setBackend(backend): this device's CPU or GPU, for the lab's next run; onChoiceChange(): the link
    // follows the choice.
    connect(given) {
      hooks = { ...hooks, ...given };
    },
    setPresets: (presets) => update({ presets }),
    // A switch's view: listener(run, result) now and after every change of either (the store's
    // hardwareRun and hardware); returns the function that unsubscribes it.
    watch(listener) {
      listener(current(), store.get().hardware);
      return store.subscribe((state, changes) => {
        if ('hardwareRun' in changes || 'hardware' in changes) listener(state.hardwareRun, state.hardware);
      });
    },
    choose,
    get choice() {
      return current().choice;
    },
    get running() {
      return job.running;
    },
    // After any run starts or stops: a choice that was waiting starts, a tick later, so that what the
    // finished run starts itself (the Memory section's run after the lab's) goes first.
    sync() {
      if (!waiting()) return;
      setTimeout(() => {
        if (waiting() && !job.running && !hooks.busy()) start();
      }, 0);
    },
  };
}
