// The hardware switch's one modeled server, shared by every chapter that shows a switch (queue, memory):
// which hardware is chosen, the job that models it (a job worker: runs/jobs.js, plans/hardware.js) and
// its result. Choosing in one chapter's switch sets the others. "This device (measured)" is the default
// and stops any modeling. The result goes into the run store as `hardware` (runs/publish.js hands it on).

import { JobRunner } from '../../runs/jobs.js';
import { CATALOG } from '../../generated/catalog.js';
import { policyNames } from '../../config.js';
import { sig } from '../../shared/format.js';
import { choiceText, gpuText } from './form.js';
import { describeProgress } from './words.js';

const sameServer = (a, b) => ['gpu', 'model', 'weights', 'kv', 'tp', 'slots'].every((key) => a[key] === b[key]);

// store: the run store.
export function hardwareModel(store) {
  // The module's presets as the build wrote them (a link's GPU shows at once); the worker's replace them.
  let presets = CATALOG.roofline_presets;
  let choice = { measured: true };
  let result = null;
  let modeling = null; // the choice the job in progress models
  let waiting = false; // a preset was chosen while another run held the processor
  let hooks = {
    busy: () => false,
    onRunningChange: () => {},
    labQueue: () => null,
    setBackend: () => {},
    onChoiceChange: () => {},
  };
  const views = new Set(); // {presets(p), choice(c), status(text), result(r), error(e)}
  const tell = (what, ...args) => views.forEach((view) => view[what](...args));

  const job = new JobRunner('hardware', {
    onState: () => hooks.onRunningChange(),
    onProgress: (fraction, phase) => tell('status', describeProgress(fraction, phase)),
    onResult(raw, elapsedMs) {
      result = {
        ...raw,
        choice: modeling,
        label: choiceText(modeling, presets),
        gpu_label: gpuText(modeling, presets),
        elapsed_ms: elapsedMs,
      };
      tell('status', `Modeled in ${sig(elapsedMs / 1000, 3)} s: step times from the roofline, not measured.`);
      tell('result', result);
      store.set({ hardware: result });
    },
    onError(error) {
      tell('status', 'Not modeled.');
      // A server the model does not fit: the worker's advice in words (plans/fits.js) is the message.
      tell('error', /\.tp$/.test(error.path || '') ? { message: error.raw, detail: '' } : error);
    },
  });

  function start() {
    const queue = hooks.labQueue();
    if (hooks.busy() || !queue) {
      waiting = true;
      tell('status', 'Waiting for the run on this device to finish…');
      return;
    }
    waiting = false;
    tell('error', null);
    tell('status', 'Modeling the step table…');
    modeling = choice;
    job.run({
      roofline: { gpu: choice.gpu, model: choice.model, weights: choice.weights, kv: choice.kv, tp: choice.tp },
      slots: choice.slots,
      workload: queue,
      policies: policyNames({ slots: choice.slots }),
    });
  }

  // fromLink: a link's choice is modeled a tick later, so that a run the link starts itself (autorun)
  // goes first and the modeling waits for it, as for a choice made while the lab runs.
  function choose(next, { fromLink = false } = {}) {
    choice = next;
    tell('choice', choice);
    tell('error', null);
    hooks.onChoiceChange();
    if (choice.measured) {
      hooks.setBackend(choice.backend || 'cpu');
      waiting = false;
      if (job.running) job.cancel();
      tell('status', '');
      return;
    }
    if (result && sameServer(result.choice, choice) && !job.running) {
      tell('status', 'Modeled: step times from the roofline, not measured.');
      tell('result', result);
      return;
    }
    if (fromLink) {
      waiting = true;
      setTimeout(() => {
        if (waiting && !job.running) start();
      }, 0);
      return;
    }
    start();
  }

  return {
    // busy() -> another run holds the processor; onRunningChange(); labQueue() -> the lab's workload;
    // setBackend(backend): this device's CPU or GPU, for the lab's next run; onChoiceChange(): the link
    // follows the choice.
    connect(given) {
      hooks = { ...hooks, ...given };
    },
    setPresets(given) {
      presets = given;
      tell('presets', presets);
    },
    // A chapter's view; returns a function that removes it.
    add(view) {
      views.add(view);
      if (presets) view.presets(presets);
      view.choice(choice);
      if (!choice.measured && result && sameServer(result.choice, choice)) view.result(result);
      return () => views.delete(view);
    },
    choose,
    get choice() {
      return choice;
    },
    get running() {
      return job.running;
    },
    // After any run starts or stops: a choice that was waiting starts, a tick later, so that what the
    // finished run starts itself (the Memory section's run after the lab's) goes first.
    sync() {
      if (!waiting) return;
      setTimeout(() => {
        if (waiting && !job.running && !hooks.busy()) start();
      }, 0);
    },
  };
}
