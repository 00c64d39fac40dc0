// Draws the SIMD vs scalar vs JavaScript panel's result: the cards, the table of the three
// implementations, the finding and the 16-row table.

import { $, h, replace } from '../../shared/dom.js';
import { numCell as num } from '../../shared/cells.js';
import { duration, int, ratio, sig } from '../../shared/format.js';
import { finding, gbs, mb } from './words.js';

const IMPLEMENTATIONS = [
  { key: 'simd', label: 'WebAssembly SIMD', note: 'kvlab.wasm: C++ with 128-bit SIMD, what the lab uses' },
  { key: 'scalar', label: 'WebAssembly scalar', note: 'kvlab-scalar.wasm: the same C++, built without SIMD' },
  { key: 'js', label: 'Plain JavaScript', note: 'Float32Array loops, as the published lab was written' },
];

function card(id, label, value, note, dataValue) {
  return h(
    'div',
    { class: 'card', id, dataset: { value: Number.isFinite(dataValue) ? String(dataValue) : '' } },
    h('div', { class: 'card-label' }, label),
    h('div', { class: 'card-value' }, Number.isFinite(value) ? ratio(value) : '–'),
    note ? h('div', { class: 'card-note' }, note) : null
  );
}

// A fraction of a limit, shown as a percentage.
function share(id, label, fraction, note) {
  return h(
    'div',
    { class: 'card', id, dataset: { value: Number.isFinite(fraction) ? String(fraction) : '' } },
    h('div', { class: 'card-label' }, label),
    h('div', { class: 'card-value' }, Number.isFinite(fraction) ? `${int(100 * fraction)}%` : '–'),
    h('div', { class: 'card-note' }, note)
  );
}

// s: the panel's result; section: the panel's element, whose parts it fills.
export function render(s, section) {
  const { rows, ratios, model } = s;
  const simdMissing = !rows.simd;
  const simdWhy = s.simd_error ? 'could not be loaded in this browser' : 'not supported by this browser';

  replace(
    $('#simd-cards', section),
    card(
      'simd-ratio-scalar',
      'SIMD over scalar',
      ratios.simd_vs_scalar,
      simdMissing ? `SIMD ${simdWhy}` : 'same C++, same browser: times faster',
      ratios.simd_vs_scalar
    ),
    card(
      'simd-ratio-js',
      'SIMD over JavaScript',
      ratios.simd_vs_js,
      simdMissing ? `SIMD ${simdWhy}` : 'times faster than Float32Array loops',
      ratios.simd_vs_js
    ),
    simdMissing
      ? card(
          'simd-ratio-scalar-js',
          'Scalar over JavaScript',
          ratios.scalar_vs_js,
          'times faster than Float32Array loops',
          ratios.scalar_vs_js
        )
      : card(
          'simd-rows16',
          '16 rows vs 1, SIMD',
          ratios.rows16_vs_rows1_simd,
          `tokens/s at context ${s.context}`,
          ratios.rows16_vs_rows1_simd
        ),
    h(
      'div',
      { class: 'card', id: 'simd-bandwidth', dataset: { value: String(s.read_gb_per_s) } },
      h('div', { class: 'card-label' }, 'Memory read bandwidth'),
      h('div', { class: 'card-value' }, Number.isFinite(s.read_gb_per_s) ? gbs(s.read_gb_per_s) : '–'),
      h(
        'div',
        { class: 'card-note' },
        `measured in the ${s.read_gb_per_s_from === 'simd' ? 'SIMD' : 'scalar'} build, over the weights’ size`
      )
    ),
    simdMissing
      ? null
      : share(
          'simd-bandwidth-share',
          'SIMD step / bandwidth',
          ratios.decode_fraction_of_bandwidth,
          '1 row at context 64: weights streamed over the read bandwidth above'
        ),
    simdMissing
      ? null
      : share(
          'simd-peak-share',
          '16 rows / peak',
          ratios.rows16_fraction_of_peak,
          '16-row step at context 64 over the measured multiply-add peak'
        )
  );

  const samples = (rows.simd || rows.scalar || rows.js).samples;
  replace(
    $('#simd-model', section),
    model
      ? `The ${model.preset} model: ${model.parameters >= 1e6 ? `${sig(model.parameters / 1e6, 3)} M` : int(model.parameters)} parameters, ${mb(model.weight_bytes)} of weights (${model.weights === 'bf16' ? 'bfloat16 matrices' : 'float32'}). Median, min and max of ${samples} samples; the 16-row step below.`
      : ''
  );
  const caption = `One decode step: 1 row at context ${s.context}`;
  const body = IMPLEMENTATIONS.map(({ key, label, note }) => {
    const r = rows[key];
    const head = h('th', { scope: 'row' }, label, h('span', { class: 'impl-note' }, note));
    if (!r) {
      return h(
        'tr',
        { dataset: { impl: key, available: 'false' } },
        head,
        h(
          'td',
          { colspan: '6', class: 'unavailable' },
          `Not measured: WebAssembly SIMD is ${simdWhy}${s.simd_error ? ` (${s.simd_error.message})` : ''}.`
        )
      );
    }
    const speedup = rows.simd ? rows[key].median_ms / rows.simd.median_ms : null;
    return h(
      'tr',
      { dataset: { impl: key, available: 'true' } },
      head,
      num(r.median_ms, duration(r.median_ms), 'median_ms'),
      num(r.min_ms, duration(r.min_ms), 'min_ms'),
      num(r.max_ms, duration(r.max_ms), 'max_ms'),
      num(r.gflops, sig(r.gflops, 3), 'gflops'),
      num(r.gb_per_s, sig(r.gb_per_s, 3), 'gb_per_s'),
      key === 'simd'
        ? h('td', { class: 'num', dataset: { key: 'simd_speedup', value: '1' } }, '–')
        : num(speedup, ratio(speedup), 'simd_speedup')
    );
  });
  replace(
    $('#simd-table-box', section),
    h(
      'table',
      { id: 'simd-table' },
      h('caption', null, caption),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, 'Implementation'),
          h('th', { scope: 'col', class: 'num' }, 'Median'),
          h('th', { scope: 'col', class: 'num' }, 'Min'),
          h('th', { scope: 'col', class: 'num' }, 'Max'),
          h('th', { scope: 'col', class: 'num' }, 'GFLOP/s'),
          h('th', { scope: 'col', class: 'num' }, 'Weights GB/s'),
          h('th', { scope: 'col', class: 'num' }, 'SIMD is faster by')
        )
      ),
      h('tbody', null, body)
    )
  );

  replace($('#simd-finding', section), finding(s));

  const rows16 = ['simd', 'scalar']
    .filter((key) => s.rows16[key])
    .map((key) => {
      const one = rows[key];
      const many = s.rows16[key];
      const gain = key === 'simd' ? ratios.rows16_vs_rows1_simd : ratios.rows16_vs_rows1_scalar;
      return h(
        'tr',
        { dataset: { impl: key } },
        h('th', { scope: 'row' }, IMPLEMENTATIONS.find((i) => i.key === key).label),
        num(one.median_ms, duration(one.median_ms), 'rows1_ms'),
        num(many.median_ms, duration(many.median_ms), 'rows16_ms'),
        num(many.gflops, sig(many.gflops, 3), 'rows16_gflops'),
        num(gain, ratio(gain), 'tokens_per_s_ratio')
      );
    });
  replace(
    $('#simd-rows-box', section),
    rows16.length
      ? h(
          'table',
          { id: 'simd-rows-table' },
          h('caption', null, `16 rows in one step, context ${s.context}`),
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              h('th', { scope: 'col' }, 'Implementation'),
              h('th', { scope: 'col', class: 'num' }, '1 row'),
              h('th', { scope: 'col', class: 'num' }, '16 rows'),
              h('th', { scope: 'col', class: 'num' }, 'GFLOP/s at 16'),
              h('th', { scope: 'col', class: 'num' }, 'Tokens/s, 16 over 1')
            )
          ),
          h('tbody', null, rows16)
        )
      : ''
  );
  $('#simd-results', section).hidden = false;
}

// ---- the panel ----------------------------------------------------------------------------------
