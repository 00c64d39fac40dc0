// The "Simulated vs real" panel: replay() in a job worker of its own measures the step table,
// serves a queue for real with the engine (src/serve: real forward passes, real clock) under each
// policy the form chooses (the lab's four, and reserve, paged and chunked prefill within a KV budget),
// simulates the same queue on the measured table, and reports the simulator's relative error.
// The panel shows the real and the simulated table side by side with the errors, and the slot
// timeline (Gantt) of the real run beside the simulated one for a chosen policy.
//
// The result goes into the run store as `replay` (runs/publish.js hands it on).
// Its parts: this file (the run), config.js and form.js (the settings) and render.js (the tables and
// timelines).

import { $, fromTemplate } from '../../shared/dom.js';
import { JobRunner } from '../../runs/jobs.js';
import { jobPanel } from '../../runs/job-panel.js';
import { policyLabel } from '../../shared/policies.js';
import { sig } from '../../shared/format.js';
import { standalone } from '../../runs/worker-client.js';
import { replayFieldOfModuleError, replayOptions } from './config.js';
import { IDS, replayForm } from './form.js';
import { orderPolicies, renderReplay, renderTimelines } from './render.js';
import { MARKUP } from './markup.js';

export const name = 'replay';

// ctx: the lab bench's (panels/bench.js): its runs (one at a time), env, and the settings panel's model preset.
export function mount(root, { store, runs, env, panels }) {
  root.append(fromTemplate(MARKUP));
  const replay = setupReplay($('#replay', root), {
    preset: panels.settings.formPreset,
    backend: () => panels.settings.labSettings().backend,
    environment: () => env,
    busy: () => runs.busyFor('replay'),
    onRunningChange: runs.sync,
    store,
  });
  runs.add('replay', { running: () => replay.running, sync: replay.sync });
  return replay;
}

// section: the panel's element; hooks: preset() -> the model preset of the settings form; backend() ->
//        where the lab's settings run the model ('cpu' or 'webgpu'), where the replay's passes run too;
//        busy() -> another run holds the processor; environment() -> the environment facts;
//        onRunningChange(); store: the run store.
function setupReplay(section, hooks) {
  const policySelect = $('#replay-policy', section);
  const form = replayForm(section);
  let lastOptions = null;

  const panel = jobPanel('replay', {
    root: section,
    createJob: (handlers) => new JobRunner('replay', handlers),
    onResult({ policies, device }, elapsedMs) {
      const order = orderPolicies(Object.keys(policies));
      const result = {
        policies,
        device,
        policy_order: order,
        options: lastOptions,
        elapsed_ms: elapsedMs,
        environment: hooks.environment(),
        page: { standalone },
      };
      panel.finish(result, `Done in ${sig(elapsedMs / 1000, 3)} s.`, (r) => renderReplay(r, policySelect, section));
    },
    onError(error) {
      const field = error.kind === 'input' ? replayFieldOfModuleError(error.path) : null;
      if (!field) {
        panel.showError(error, 'Press the button to try again (a fresh worker starts).');
        return;
      }
      panel.setProgress(0);
      form.errors.showField(field, error.raw || error.message);
      panel.setPhase('Not run: fix the highlighted setting.');
      $(`#${IDS[field]}`, section).focus();
    },
    busy: hooks.busy,
    onRunningChange: hooks.onRunningChange,
    describePhase,
    store: hooks.store,
    storeKey: 'replay',
    downloadName: 'kvlab-replay.json',
    cancelledPhase: 'Cancelled: the worker was stopped; the next run starts a fresh one.',
  });

  function describePhase(phase) {
    return phase
      .replace(/^measuring again: /, 'Measuring the step table again (to see how far the machine drifted): ')
      .replace(/^measuring: /, 'Measuring the step table: ')
      .replace(/^serving (.+)$/, (_, name) => `Serving the queue for real: ${policyLabel(name)}`);
  }

  function start() {
    if (panel.running || hooks.busy()) return;
    const { settings, errors, ok } = form.check();
    form.errors.showAll(errors);
    if (!ok) {
      const first = $('[aria-invalid="true"]', form.element);
      if (first) (first.tagName === 'FIELDSET' ? $('input', first) : first).focus();
      panel.setPhase('Not run: fix the highlighted settings.');
      return;
    }
    lastOptions = replayOptions(settings, hooks.preset(), hooks.backend());
    panel.run(lastOptions);
  }

  form.element.addEventListener('submit', (event) => {
    event.preventDefault();
    start();
  });
  policySelect.addEventListener(
    'change',
    () => panel.result && renderTimelines(panel.result, policySelect.value, section)
  );

  panel.setState('ready');
  return {
    get running() {
      return panel.running;
    },
    sync: panel.sync,
    start,
  };
}
