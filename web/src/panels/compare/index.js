// The "SIMD vs scalar vs JavaScript" panel: the same decode step (one row at context 64, the model of
// the settings form) timed in this browser three ways, in a worker of its own (worker.js in its
// 'kvlab-compare' role) that is started when the panel runs and ended when it finishes or is
// cancelled:
//   - WebAssembly SIMD: the lab's module, bench() (what `kvlab bench --json` prints);
//   - WebAssembly scalar: the same C++ built with KVLAB_SIMD=OFF, kvlab-scalar.js + .wasm, fetched
//     only now (inlined in the standalone file);
//   - plain JavaScript: web/reference/model.js over the same weights (exportWeights()).
// The result goes out as a `kvlab:simd-result` event on document and stays in window.kvlabSimdResult.

import { $, h, replace } from './dom.js';
import { standalone } from './lab.js';
import { JobRunner } from './jobs.js';
import { jobPanel } from './panel.js';
import { COMPARE_WORKER_NAME } from './roles.js';
import { int, ms, ratio, sig } from './format.js';

export const COMPARE_CONTEXT = 64;
const MIN_SAMPLE_MS = 10;
const SAMPLES = 5;

const IMPLEMENTATIONS = [
  { key: 'simd', label: 'WebAssembly SIMD', note: 'kvlab.wasm: C++ with 128-bit SIMD, what the lab uses' },
  { key: 'scalar', label: 'WebAssembly scalar', note: 'kvlab-scalar.wasm: the same C++, built without SIMD' },
  { key: 'js', label: 'Plain JavaScript', note: 'Float32Array loops, as the published lab was written' },
];

// ---- the figures ------------------------------------------------------------------------------

const speedOver = (slow, fast) => (slow && fast ? slow.median_ms / fast.median_ms : null);

// The worker's result plus what the panel shows: one row per implementation and the ratios.
export function summarize(raw) {
  const simd = raw.simd_at_context ? raw.simd_at_context.rows1 : null;
  const scalar = raw.scalar_at_context ? raw.scalar_at_context.rows1 : null;
  const bench = raw.simd || raw.scalar;
  return {
    ...raw,
    model: bench ? bench.model : null,
    read_gb_per_s: bench ? bench.read_gb_per_s : null,
    read_gb_per_s_from: raw.simd ? 'simd' : 'scalar',
    rows: { simd, scalar, js: raw.js },
    rows16: {
      simd: raw.simd_at_context ? raw.simd_at_context.rows16 : null,
      scalar: raw.scalar_at_context ? raw.scalar_at_context.rows16 : null,
    },
    ratios: {
      simd_vs_scalar: speedOver(scalar, simd),
      simd_vs_js: speedOver(raw.js, simd),
      scalar_vs_js: speedOver(raw.js, scalar),
      rows16_vs_rows1_simd: raw.simd_at_context ? raw.simd_at_context.tokens_per_s_ratio : null,
      rows16_vs_rows1_scalar: raw.scalar_at_context ? raw.scalar_at_context.tokens_per_s_ratio : null,
    },
  };
}

const mb = (bytes) => `${sig(bytes / 1e6, 3)} MB`;
const gbs = (value) => `${sig(value, 3)} GB/s`;

// What the table shows, in a few sentences, following the figures (the share of the read bandwidth
// decides whether the step was bound by memory on this device).
export function finding(s) {
  const { rows, ratios, model } = s;
  const read = s.read_gb_per_s;
  const parts = [];
  if (model && Number.isFinite(read) && read > 0) {
    const floorMs = model.weight_bytes / (read * 1e6);
    parts.push(`A one-row decode step reads every weight once (${mb(model.weight_bytes)}) for just two floating-point operations each, so its floor is memory bandwidth: reading that much at the ${gbs(read)} measured here takes ${ms(floorMs)}.`);
    if (rows.simd) {
      const share = rows.simd.gb_per_s / read;
      const gain = `SIMD’s gain at one row (${ratio(ratios.simd_vs_scalar)} over scalar code, ${ratio(ratios.simd_vs_js)} over JavaScript)`;
      if (share >= 1) {
        parts.push(`The SIMD step took ${ms(rows.simd.median_ms)}, streaming its weights at ${gbs(rows.simd.gb_per_s)}, as fast as memory reads go here (part of the weights stay in the processor’s caches), so ${gain} is capped by how fast the weights stream in, not by its arithmetic.`);
      } else if (share >= 0.5) {
        parts.push(`The SIMD step took ${ms(rows.simd.median_ms)}, streaming its weights at ${gbs(rows.simd.gb_per_s)} (${int(share * 100)}% of that bandwidth), so ${gain} is capped by how fast the weights stream from memory, not by its arithmetic.`);
      } else {
        parts.push(`The SIMD step took ${ms(rows.simd.median_ms)}, streaming its weights at ${gbs(rows.simd.gb_per_s)}, only ${int(share * 100)}% of that bandwidth: here more than memory holds it back (attention over the context, small matrices, the calls between them), and ${gain} is what is left.`);
      }
    } else {
      parts.push(`The scalar build read its weights at ${gbs(rows.scalar.gb_per_s)}: its arithmetic, not memory, is the limit.`);
    }
    if (model.weight_bytes < 4 * 1024 * 1024) {
      parts.push(`This model’s weights (${mb(model.weight_bytes)}) fit in the processor’s caches, so the memory limit shows only with a larger model such as the default (small).`);
    }
  }
  if (Number.isFinite(ratios.scalar_vs_js) && ratios.scalar_vs_js < 1.3) {
    const how = ratios.scalar_vs_js < 0.8 ? 'slower than' : 'about as fast as';
    parts.push(`Without SIMD, WebAssembly is ${how} JavaScript here (${ratio(ratios.scalar_vs_js)}): the gain comes from the vector instructions, not from leaving JavaScript.`);
  }
  if (Number.isFinite(ratios.rows16_vs_rows1_simd)) {
    parts.push(`With 16 rows each weight read serves 16 rows: the SIMD build then makes ${ratio(ratios.rows16_vs_rows1_simd)} the tokens per second of one row${Number.isFinite(ratios.rows16_vs_rows1_scalar) ? `, the scalar build ${ratio(ratios.rows16_vs_rows1_scalar)}, since its arithmetic was the limit already` : ''}.`);
  }
  return parts.join(' ');
}

// ---- rendering ----------------------------------------------------------------------------------

function num(value, text, key) {
  const ok = Number.isFinite(value);
  return h('td', { class: 'num', dataset: { key, value: ok ? String(value) : '' } }, ok ? text : '–');
}

function card(id, label, value, note, dataValue) {
  return h('div', { class: 'card', id, dataset: { value: Number.isFinite(dataValue) ? String(dataValue) : '' } },
    h('div', { class: 'card-label' }, label),
    h('div', { class: 'card-value' }, Number.isFinite(value) ? ratio(value) : '–'),
    note ? h('div', { class: 'card-note' }, note) : null);
}

function render(s) {
  const { rows, ratios, model } = s;
  const simdMissing = !rows.simd;
  const simdWhy = s.simd_error ? 'could not be loaded in this browser' : 'not supported by this browser';

  replace($('#simd-cards'),
    card('simd-ratio-scalar', 'SIMD over scalar', ratios.simd_vs_scalar, simdMissing ? `SIMD ${simdWhy}` : 'same C++, same browser: times faster', ratios.simd_vs_scalar),
    card('simd-ratio-js', 'SIMD over JavaScript', ratios.simd_vs_js, simdMissing ? `SIMD ${simdWhy}` : 'times faster than Float32Array loops', ratios.simd_vs_js),
    simdMissing
      ? card('simd-ratio-scalar-js', 'Scalar over JavaScript', ratios.scalar_vs_js, 'times faster than Float32Array loops', ratios.scalar_vs_js)
      : card('simd-rows16', '16 rows vs 1, SIMD', ratios.rows16_vs_rows1_simd, `tokens/s at context ${s.context}`, ratios.rows16_vs_rows1_simd),
    h('div', { class: 'card', id: 'simd-bandwidth', dataset: { value: String(s.read_gb_per_s) } },
      h('div', { class: 'card-label' }, 'Memory read bandwidth'),
      h('div', { class: 'card-value' }, Number.isFinite(s.read_gb_per_s) ? gbs(s.read_gb_per_s) : '–'),
      h('div', { class: 'card-note' }, `measured in the ${s.read_gb_per_s_from === 'simd' ? 'SIMD' : 'scalar'} build, over the weights’ size`)));

  const samples = (rows.simd || rows.scalar || rows.js).samples;
  replace($('#simd-model'), model
    ? `The ${model.preset} model: ${model.parameters >= 1e6 ? `${sig(model.parameters / 1e6, 3)} M` : int(model.parameters)} parameters, ${mb(model.weight_bytes)} of weights (float32). Median, min and max of ${samples} samples; the 16-row step below.`
    : '');
  const caption = `One decode step: 1 row at context ${s.context}`;
  const body = IMPLEMENTATIONS.map(({ key, label, note }) => {
    const r = rows[key];
    const head = h('th', { scope: 'row' }, label, h('span', { class: 'impl-note' }, note));
    if (!r) {
      return h('tr', { dataset: { impl: key, available: 'false' } }, head,
        h('td', { colspan: '6', class: 'unavailable' }, `Not measured: WebAssembly SIMD is ${simdWhy}${s.simd_error ? ` (${s.simd_error.message})` : ''}.`));
    }
    const speedup = rows.simd ? rows[key].median_ms / rows.simd.median_ms : null;
    return h('tr', { dataset: { impl: key, available: 'true' } }, head,
      num(r.median_ms, ms(r.median_ms), 'median_ms'),
      num(r.min_ms, ms(r.min_ms), 'min_ms'),
      num(r.max_ms, ms(r.max_ms), 'max_ms'),
      num(r.gflops, sig(r.gflops, 3), 'gflops'),
      num(r.gb_per_s, sig(r.gb_per_s, 3), 'gb_per_s'),
      key === 'simd' ? h('td', { class: 'num', dataset: { key: 'simd_speedup', value: '1' } }, '–') : num(speedup, ratio(speedup), 'simd_speedup'));
  });
  replace($('#simd-table-box'), h('table', { id: 'simd-table' },
    h('caption', null, caption),
    h('thead', null, h('tr', null,
      h('th', { scope: 'col' }, 'Implementation'),
      h('th', { scope: 'col', class: 'num' }, 'Median'),
      h('th', { scope: 'col', class: 'num' }, 'Min'),
      h('th', { scope: 'col', class: 'num' }, 'Max'),
      h('th', { scope: 'col', class: 'num' }, 'GFLOP/s'),
      h('th', { scope: 'col', class: 'num' }, 'Weights GB/s'),
      h('th', { scope: 'col', class: 'num' }, 'SIMD is faster by'))),
    h('tbody', null, body)));

  replace($('#simd-finding'), finding(s));

  const rows16 = ['simd', 'scalar'].filter((key) => s.rows16[key]).map((key) => {
    const one = rows[key];
    const many = s.rows16[key];
    const gain = key === 'simd' ? ratios.rows16_vs_rows1_simd : ratios.rows16_vs_rows1_scalar;
    return h('tr', { dataset: { impl: key } },
      h('th', { scope: 'row' }, IMPLEMENTATIONS.find((i) => i.key === key).label),
      num(one.median_ms, ms(one.median_ms), 'rows1_ms'),
      num(many.median_ms, ms(many.median_ms), 'rows16_ms'),
      num(many.gflops, sig(many.gflops, 3), 'rows16_gflops'),
      num(gain, ratio(gain), 'tokens_per_s_ratio'));
  });
  replace($('#simd-rows-box'), rows16.length ? h('table', { id: 'simd-rows-table' },
    h('caption', null, `16 rows in one step, context ${s.context}`),
    h('thead', null, h('tr', null,
      h('th', { scope: 'col' }, 'Implementation'),
      h('th', { scope: 'col', class: 'num' }, '1 row'),
      h('th', { scope: 'col', class: 'num' }, '16 rows'),
      h('th', { scope: 'col', class: 'num' }, 'GFLOP/s at 16'),
      h('th', { scope: 'col', class: 'num' }, 'Tokens/s, 16 over 1'))),
    h('tbody', null, rows16)) : '');
  $('#simd-results').hidden = false;
}

// ---- the panel ----------------------------------------------------------------------------------

// hooks: preset() -> the settings form's model preset; environment() -> the environment facts;
//        busy() -> true while the lab runs (the two would compete for the processor);
//        onRunningChange() -> called when the panel starts or stops.
export function setupComparison(hooks) {
  let lastOptions = null;

  const panel = jobPanel('simd', {
    root: $('#simd'),
    createJob: (handlers) => new JobRunner('compare', handlers, { workerName: COMPARE_WORKER_NAME }),
    onResult(raw, elapsedMs) {
      const result = {
        ...summarize(raw),
        options: lastOptions,
        elapsed_ms: elapsedMs,
        environment: hooks.environment(),
        page: { standalone },
      };
      panel.finish(result, `Done in ${sig(elapsedMs / 1000, 3)} s.`, render);
    },
    busy: hooks.busy,
    onRunningChange: hooks.onRunningChange,
    retryHint: 'Press the button to try again.',
    resultEvent: 'kvlab:simd-result',
    resultGlobal: 'kvlabSimdResult',
    downloadName: 'kvlab-simd-vs-scalar-vs-js.json',
    cancelledPhase: 'Cancelled: the work was stopped.',
  });

  function start() {
    if (panel.running || hooks.busy()) return;
    const env = hooks.environment();
    const simd = Boolean(env && env.wasm_simd);
    $('#simd-no-simd').hidden = simd;
    lastOptions = { preset: hooks.preset(), simd, context: COMPARE_CONTEXT, min_sample_ms: MIN_SAMPLE_MS, samples: SAMPLES };
    panel.run(lastOptions, simd ? 'Starting…' : 'Starting (scalar and JavaScript only)…');
  }

  $('#simd-run').addEventListener('click', start);

  const env = hooks.environment();
  $('#simd-no-simd').hidden = !env || env.wasm_simd;
  panel.setState('ready');
  return { get running() { return panel.running; }, sync: panel.sync, start };
}
