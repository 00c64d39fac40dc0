// The "Simulated vs real" panel: replay() in a job worker of its own measures the step table,
// serves a queue for real with the engine (src/serve: real forward passes, real clock) under each
// policy the form chooses (the lab's four, and reserve, paged and chunked prefill within a KV budget),
// simulates the same queue on the measured table, and reports the simulator's relative error.
// The panel shows the real and the simulated table side by side with the errors, and the slot
// timeline (Gantt) of the real run beside the simulated one for a chosen policy.
//
// The result goes into the run store as `replay` (runs/publish.js hands it on).
// Its parts: this file (the panel mounted, its run started: runs/job-run.js), config.js and form.js (the settings) and render.js (the tables and
// timelines).

import { $, fromTemplate } from '../../shared/dom.js';
import { jobRun } from '../../runs/job-run.js';
import { jobPanel } from '../job-panel.js';
import { policyLabel } from '../../shared/policies.js';
import { duration } from '../../shared/format.js';
import { standalone } from '../../runs/worker-client.js';
import { replayFieldOfModuleError, replayOptions } from './config.js';
import { IDS, replayForm } from './form.js';
import { orderPolicies, renderReplay, renderTimelines } from './render.js';
import { MARKUP } from './markup.js';

export const name = 'replay';

// ctx: the lab bench's (panels/bench.js): its runs (one at a time), env, and the settings panel's model
// preset and backend (where the lab's settings run the model, where the replay's passes run too).
export function mount(root, { store, runs, env, panels }) {
  root.append(fromTemplate(MARKUP));
  const section = $('#replay', root);
  const policySelect = $('#replay-policy', section);
  const form = replayForm(section);

  const run = jobRun(name, {
    store,
    runs,
    job: { type: 'replay' },
    describePhase,
    finish({ policies, device }, elapsedMs, options) {
      const order = orderPolicies(Object.keys(policies));
      const result = {
        policies,
        device,
        policy_order: order,
        options,
        elapsed_ms: elapsedMs,
        environment: env,
        page: { standalone },
      };
      return { result, phase: `Done in ${duration(elapsedMs)}.` };
    },
    fieldOf: (error) => replayFieldOfModuleError(error.path),
    retryHint: 'Press the button to try again (a fresh worker starts).',
  });
  const panel = jobPanel(name, {
    root: section,
    name,
    run,
    store,
    render: (result) => renderReplay(result, policySelect, section),
    showField(field, detail) {
      form.errors.showField(field, detail);
      $(`#${IDS[field]}`, section).focus();
    },
    downloadName: 'kvlab-replay.json',
    cancelledPhase: 'Cancelled: the worker was stopped; the next run starts a fresh one.',
  });

  function start() {
    if (run.running || run.blocked) return;
    const { settings, errors, ok } = form.check();
    form.errors.showAll(errors);
    if (!ok) {
      const first = $('[aria-invalid="true"]', form.element);
      if (first) (first.tagName === 'FIELDSET' ? $('input', first) : first).focus();
      run.say('Not run: fix the highlighted settings.');
      return;
    }
    run.run(replayOptions(settings, panels.settings.formPreset(), panels.settings.labSettings().backend));
  }

  form.element.addEventListener('submit', (event) => {
    event.preventDefault();
    start();
  });
  policySelect.addEventListener(
    'change',
    () => panel.result && renderTimelines(panel.result, policySelect.value, section)
  );
  return { start };
}

// The worker's phases in the panel's words.
function describePhase(phase) {
  return phase
    .replace(/^measuring again: /, 'Measuring the step table again (to see how far the machine drifted): ')
    .replace(/^measuring: /, 'Measuring the step table: ')
    .replace(/^serving (.+)$/, (_, name) => `Serving the queue for real: ${policyLabel(name)}`);
}
