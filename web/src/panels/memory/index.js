// The Memory section: the lab's queue under a KV memory budget, on the step table the lab
// already measured (the store's labResult.steps; nothing is measured again). A job worker simulates
// reserve:B, paged:B, chunked:B,T and continuous:B (the reference, no memory model); the section plots
// KV blocks held over time, p95 TTFT against the arrival rate (a load curve with the target) and the
// waste, and tabulates the memory figures. Its parts: form.js (the settings), run.js (the job),
// render.js (the charts and table), words.js (what it says), config.js (settings and devices),
// plan.js (the simulations the job runs, in the worker).

import { $, fromTemplate } from '../../shared/dom.js';
import { kvBytesPerToken, kvFormatBytes } from '../kv-calculator/index.js';
import { MEM_DEFAULTS } from './config.js';
import { memoryForm } from './form.js';
import { labQueue } from '../../plans/lab-queue.js';
import { MARKUP } from './markup.js';
import { memoryRun } from './run.js';

export const name = 'memory';

// ctx: the lab bench's (panels/bench.js): the run store (the lab's last result, the settings, the module), its
// runs (one at a time; this one yields to the lab's), memoryAfterLab, and the settings panel.
export function mount(root, { store, runs, memoryAfterLab, panels }) {
  root.append(fromTemplate(MARKUP));
  const { labSettings, toyModel, rewriteHash } = panels.settings;

  // The toy model's KV bytes per token in the form's KV cache format (the memory numbers before a run).
  const toyKvBytes = () => {
    const info = toyModel();
    if (!info || !info.n_layers) return null;
    const format = labSettings().kv_format;
    return {
      preset: info.preset,
      kv: format,
      bytes: kvBytesPerToken({
        layers: info.n_layers,
        kv_heads: info.n_kv_heads,
        head_dim: info.head_dim,
        bytes_per_number: kvFormatBytes(format),
      }),
    };
  };
  const memory = setupMemory($('#memory', root), {
    lab: () => {
      const { labResult } = store.get();
      return labResult ? { result: labResult, settings: labResult.settings } : null;
    },
    labSettings,
    // The last run's table (what the section simulates on), else the form's model and format.
    kvBytesPerToken: () => {
      const { labResult } = store.get();
      const model = labResult && labResult.steps && labResult.steps.model;
      if (model && model.kv_bytes_per_token)
        return { preset: model.preset || model.name, kv: model.kv, bytes: model.kv_bytes_per_token };
      return toyKvBytes();
    },
    onSettingsChange: rewriteHash,
    store,
    runs,
  });
  store.subscribe((state, changes) => {
    if (changes.module || changes.settings) memory.labChanged();
    if (changes.labResult && memoryAfterLab) memory.labDone();
  });
  return memory;
}

// section: the section's element; hooks: lab() -> {result, settings} of the lab's last completed run,
//        or null; labSettings() -> the lab form's valid settings (for checking before any run);
//        kvBytesPerToken() -> {preset, kv, bytes} or null; onSettingsChange() (rewrite the hash);
//        store: the run store, where its run and result go; runs: the page's one-at-a-time rule.
function setupMemory(section, hooks) {
  // The queue the settings are checked against: the lab's last run's (on a real model its story
  // prompts' lengths, and the model's context), else the lab form's.
  const queue = () => {
    const lab = hooks.lab();
    return lab ? labQueue(lab) : hooks.labSettings();
  };
  const form = memoryForm(section, {
    queue,
    kvBytesPerToken: hooks.kvBytesPerToken,
    onValidChange: () => hooks.onSettingsChange?.(),
  });
  const { run, start } = memoryRun(section, form, hooks);
  form.element.addEventListener('submit', (event) => {
    event.preventDefault();
    start();
  });

  form.fill({ ...MEM_DEFAULTS });

  return {
    start,
    applyRaw: form.applyRaw,
    hash: form.hash,
    // The lab finished a run: its step table and queue are ready, so the section runs on them.
    labDone() {
      run.enter('ready');
      form.describeBudget();
      const { ok, errors } = form.check();
      if (ok) start();
      else {
        form.errors.showAll(errors);
        run.say('Not run: fix the highlighted memory settings, then press “Run the memory policies”.');
      }
    },
    // The lab's form changed (the queue the budget is checked against).
    labChanged: form.describeBudget,
    // A new lab run replaces the step table this run was using: stop it.
    cancel() {
      run.cancel('Stopped: the lab is running again; this section runs on its new step times when it is done.');
    },
  };
}
