// The "SIMD vs scalar vs JavaScript" panel: the same decode step (one row at context 64, the model of
// the settings form) timed in this browser three ways, in a worker of its own (worker.js in its
// 'kvlab-compare' role) that is started when the panel runs and ended when it finishes or is
// cancelled:
//   - WebAssembly SIMD: the lab's module, bench() (what `kvlab bench --json` prints);
//   - WebAssembly scalar: the same C++ built with KVLAB_SIMD=OFF, kvlab-scalar.js + .wasm, fetched
//     only now (inlined in the standalone file);
//   - plain JavaScript: web/reference/model.js over the same weights (exportWeights()).
// The result goes into the run store as `simd` (runs/publish.js hands it on).

import { $, fromTemplate } from '../../shared/dom.js';
import { standalone } from '../../runs/worker-client.js';
import { JobRunner } from '../../runs/jobs.js';
import { jobPanel } from '../../runs/job-panel.js';
import { COMPARE_WORKER_NAME } from '../../runs/roles.js';
import { sig } from '../../shared/format.js';
import { render } from './render.js';
import { summarize } from './words.js';
import { MARKUP } from './markup.js';

export const COMPARE_CONTEXT = 64;
const MIN_SAMPLE_MS = 10;
const SAMPLES = 5;

export const name = 'simd';

// ctx: the lab bench's (panels/bench.js): its runs (one at a time), env, and the settings panel's model preset.
export function mount(root, { store, runs, env, panels }) {
  root.append(fromTemplate(MARKUP));
  const comparison = setupComparison($('#simd', root), {
    preset: panels.settings.formPreset,
    environment: () => env,
    busy: () => runs.busyFor('simd'),
    onRunningChange: runs.sync,
    store,
  });
  runs.add('simd', { running: () => comparison.running, sync: comparison.sync });
  return comparison;
}

// section: the panel's element; hooks: preset() -> the settings form's model preset; environment() ->
//        the environment facts; busy() -> true while the lab runs (the two would compete for the processor);
//        onRunningChange() -> called when the panel starts or stops; store: the run store.
function setupComparison(section, hooks) {
  let lastOptions = null;

  const panel = jobPanel('simd', {
    root: section,
    createJob: (handlers) => new JobRunner('compare', handlers, { workerName: COMPARE_WORKER_NAME }),
    onResult(raw, elapsedMs) {
      const result = {
        ...summarize(raw),
        options: lastOptions,
        elapsed_ms: elapsedMs,
        environment: hooks.environment(),
        page: { standalone },
      };
      panel.finish(result, `Done in ${sig(elapsedMs / 1000, 3)} s.`, (finished) => render(finished, section));
    },
    busy: hooks.busy,
    onRunningChange: hooks.onRunningChange,
    retryHint: 'Press the button to try again.',
    store: hooks.store,
    storeKey: 'simd',
    downloadName: 'kvlab-simd-vs-scalar-vs-js.json',
    cancelledPhase: 'Cancelled: the work was stopped.',
  });

  function start() {
    if (panel.running || hooks.busy()) return;
    const env = hooks.environment();
    const simd = Boolean(env && env.wasm_simd);
    $('#simd-no-simd', section).hidden = simd;
    lastOptions = {
      preset: hooks.preset(),
      simd,
      context: COMPARE_CONTEXT,
      min_sample_ms: MIN_SAMPLE_MS,
      samples: SAMPLES,
    };
    panel.run(lastOptions, simd ? 'Starting…' : 'Starting (scalar and JavaScript only)…');
  }

  $('#simd-run', section).addEventListener('click', start);

  const env = hooks.environment();
  $('#simd-no-simd', section).hidden = !env || env.wasm_simd;
  panel.setState('ready');
  return {
    get running() {
      return panel.running;
    },
    sync: panel.sync,
    start,
  };
}
