// The Memory section's run: a job worker (runs/jobs.js, plans/memory.js) simulates the lab's queue (on a
// real model its story requests, plans/lab-queue.js) under the memory policies on the lab's step table;
// the result goes into the run store as `memory` (its chapter draws it from there; runs/publish.js hands
// it on).

import { $ } from '../../shared/dom.js';
import { jobRun } from '../../runs/job-run.js';
import { jobPanel } from '../job-panel.js';
import { duration, int } from '../../shared/format.js';
import { kvTokens, memFieldOfModuleError } from './config.js';
import { IDS } from './form.js';
import { labQueue, storyRequests } from '../../plans/lab-queue.js';
import { renderMemory } from './render.js';

// section: the section's element; form: form.js's memoryForm; hooks: see index.js.
export function memoryRun(section, form, hooks) {
  // Its Run button is enabled before the lab has run too: pressing it checks the settings and says
  // what is missing.
  const run = jobRun('memory', {
    store: hooks.store,
    runs: hooks.runs,
    job: { type: 'memory' },
    yieldsTo: ['lab'],
    state: 'waiting',
    finish(raw, elapsedMs, { settings, lab, kv_tokens: kvTokensUsed }) {
      const result = {
        ...raw,
        settings,
        lab_settings: lab,
        kv_tokens: kvTokensUsed,
        block_tokens: settings.block,
        ttft_target_ms: settings.ttft_target,
        elapsed_ms: elapsedMs,
      };
      const simulations = `${raw.load.rates.length + 3} simulations of ${int(lab.requests)} requests`;
      return { result, phase: `Done in ${duration(elapsedMs)} (${simulations}).` };
    },
    fieldOf: (error) => memFieldOfModuleError(error.path),
    retryHint: 'Press “Run the memory policies” to try again.',
  });
  jobPanel('mem', {
    root: section,
    name: 'memory',
    run,
    store: hooks.store,
    render: (result) => renderMemory(result, section),
    showField(field, detail) {
      form.errors.showField(field, detail);
      $(`#${IDS[field]}`, section).focus();
    },
    downloadName: 'kvlab-memory.json',
  });

  // Checks the settings and starts the job; false when nothing started (the reason is on the phase line).
  function start() {
    const lab = hooks.lab();
    const { settings, errors, ok } = form.check();
    form.errors.showAll(errors);
    if (!ok) {
      const first = $('[aria-invalid="true"]', form.element);
      if (first) first.focus();
      run.say('Not run: fix the highlighted settings.');
      return false;
    }
    if (!lab) {
      run.say('Run the lab first: this section replays its queue on the step times it measured.');
      return false;
    }
    if (run.running || run.blocked) {
      run.say('Not run: another run is using the processor; wait for it or cancel it.');
      return false;
    }
    form.remember(settings);
    const s = labQueue(lab);
    const workload = {
      count: s.requests,
      prompt: [s.prompt_lo, s.prompt_hi],
      answer: [s.answer_lo, s.answer_hi],
      seed: s.seed,
    };
    if (settings.system_prompt > 0) workload.system_prompt = settings.system_prompt;
    const kv = kvTokens(settings, s);
    run.run(
      {
        steps: lab.result.steps,
        workload,
        stories: storyRequests(lab),
        slots: s.slots,
        chunk: settings.chunk,
        kv_tokens: kv,
        block_tokens: settings.block,
        rate: settings.mem_rate,
        ttft_target_ms: settings.ttft_target,
      },
      { settings, lab: s, kv_tokens: kv }
    );
    return true;
  }

  return { run, start };
}
