// The Memory section (issue 6): the lab's queue under a KV memory budget, on the step table the lab
// already measured (window.kvlabResult.steps; nothing is measured again). A job worker simulates
// reserve:B, paged:B, chunked:B,T and continuous:B (the reference, no memory model); the section plots
// KV blocks held over time, p95 TTFT against the arrival rate (a load curve with the target) and the
// waste, and tabulates the memory figures. Its parts: form.js (the settings), run.js (the job),
// render.js (the charts and table), words.js (what it says), config.js (settings and devices),
// plan.js (the simulations the job runs, in the worker).

import { MEM_DEFAULTS } from './config.js';
import { memoryForm } from './form.js';
import { memoryRun } from './run.js';

// hooks: lab() -> {result, settings} of the lab's last completed run, or null; labSettings() -> the lab
//        form's valid settings (for checking before any run); kvBytesPerToken() -> {preset, kv, bytes} or
//        null; busy() -> another run holds the processor; onRunningChange(); onSettingsChange()
//        (rewrite the hash); store: the run store, where its result goes.
export function setupMemory(hooks) {
  const queue = () => {
    const lab = hooks.lab();
    return lab ? lab.settings : hooks.labSettings();
  };
  const form = memoryForm({ queue, kvBytesPerToken: hooks.kvBytesPerToken, onValidChange: () => hooks.onSettingsChange?.() });
  const { panel, start } = memoryRun(form, hooks);
  form.element.addEventListener('submit', (event) => {
    event.preventDefault();
    start();
  });

  panel.setState('waiting');
  form.fill({ ...MEM_DEFAULTS });

  return {
    get running() { return panel.running; },
    sync: panel.sync,
    start,
    applyRaw: form.applyRaw,
    hash: form.hash,
    // The lab finished a run: its step table and queue are ready, so the section runs on them.
    labDone() {
      panel.setState('ready');
      form.describeBudget();
      const { ok, errors } = form.check();
      if (ok) start();
      else {
        form.errors.showAll(errors);
        panel.setPhase('Not run: fix the highlighted memory settings, then press “Run the memory policies”.');
      }
    },
    // The lab's form changed (the queue the budget is checked against).
    labChanged: form.describeBudget,
    // A new lab run replaces the step table this run was using: stop it.
    cancel() {
      panel.cancel('Stopped: the lab is running again; this section runs on its new step times when it is done.');
    },
  };
}
