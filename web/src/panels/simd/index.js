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
import { jobRun } from '../../runs/job-run.js';
import { jobPanel } from '../job-panel.js';
import { COMPARE_WORKER_NAME } from '../../runs/roles.js';
import { duration } from '../../shared/format.js';
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
  const section = $('#simd', root);
  const run = jobRun(name, {
    store,
    runs,
    job: { type: 'compare', workerName: COMPARE_WORKER_NAME },
    finish(raw, elapsedMs, options) {
      const result = { ...summarize(raw), options, elapsed_ms: elapsedMs, environment: env, page: { standalone } };
      return { result, phase: `Done in ${duration(elapsedMs)}.` };
    },
    retryHint: 'Press the button to try again.',
  });
  jobPanel(name, {
    root: section,
    name,
    run,
    store,
    render: (result) => render(result, section),
    downloadName: 'kvlab-simd-vs-scalar-vs-js.json',
    cancelledPhase: 'Cancelled: the work was stopped.',
  });

  function start() {
    if (run.running || run.blocked) return;
    const simd = Boolean(env && env.wasm_simd);
    $('#simd-no-simd', section).hidden = simd;
    const options = {
      preset: panels.settings.formPreset(),
      simd,
      context: COMPARE_CONTEXT,
      min_sample_ms: MIN_SAMPLE_MS,
      samples: SAMPLES,
    };
    run.run(options, options, simd ? 'Starting…' : 'Starting (scalar and JavaScript only)…');
  }

  $('#simd-run', section).addEventListener('click', start);
  $('#simd-no-simd', section).hidden = !env || env.wasm_simd;
  return { start };
}
