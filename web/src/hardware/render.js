// Drawing a modeled server's result: every table and caption says "modeled" and names the GPU, so that it is
// never read as a measurement of this device.

import { $, h, replace } from '../dom.js';
import { blocksChart } from '../charts.js';
import { policyLabel, policyStyle } from '../policies.js';
import { duration, int, ms, ratio, sig } from '../format.js';
import { describeGain, describeMemory } from './words.js';

function num(value, text, key) {
  const ok = Number.isFinite(value);
  return h('td', { class: 'num', dataset: { key, value: ok ? String(value) : '' } }, ok ? text : '–');
}

const pct = (v) => (Number.isFinite(v) ? `${sig(v, 3)}%` : '–');
const row = (name, cells) => h('tr', { dataset: { policy: name } }, h('th', { scope: 'row', title: name }, policyLabel(name)), cells);
const head = (labels) => h('thead', null, h('tr', null, labels.map((l, i) => h('th', { scope: 'col', class: i ? 'num' : undefined }, l))));

function queueTable(r, label) {
  const columns = [
    ['median_ttft_ms', 'Median TTFT', duration], ['p95_ttft_ms', 'p95 TTFT', duration], ['makespan_ms', 'All done', duration],
    ['tokens_per_s', 'Tokens/s', int], ['tpot_ms', 'TPOT', (v) => ms(v)],
  ];
  const w = r.queue.workload;
  return h('table', { id: 'gpu-queue-table', class: 'policy' },
    h('caption', null, `Modeled: ${label} — the lab’s queue (${int(w.count)} requests, prompts ${w.prompt[0]}–${w.prompt[1]}, answers ${w.answer[0]}–${w.answer[1]})`),
    head(['Policy', ...columns.map(([, l]) => l)]),
    h('tbody', null, r.queue.policies.map((name) => {
      const p = r.queue.results[name];
      return row(name, columns.map(([key, , fmt]) => num(p[key], fmt(p[key]), key)));
    })));
}

function gainTable(r, label) {
  const one = r.gain.rows[0];
  return h('table', { id: 'gpu-gain-table' },
    h('caption', null, `Modeled: ${label} — one decode step at context ${int(r.gain.context)}`),
    head(['Rows', 'Step', 'Tokens/s', 'Gain over 1 row']),
    h('tbody', null, r.gain.rows.map((g) => h('tr', { dataset: { rows: String(g.rows) } },
      h('th', { scope: 'row' }, int(g.rows)), num(g.step_ms, ms(g.step_ms), 'step_ms'),
      num(g.tokens_per_s, int(g.tokens_per_s), 'tokens_per_s'), num(g.tokens_per_s / one.tokens_per_s, ratio(g.tokens_per_s / one.tokens_per_s), 'gain')))));
}

function memoryTable(r, label) {
  const m = r.memory;
  return h('table', { id: 'gpu-memory-table', class: 'policy' },
    h('caption', null, `Modeled: ${label} — KV budget ${int(r.steps.model.kv_budget_tokens)} tokens`),
    head(['Policy', 'Peak KV blocks', 'KV waste', 'Preemptions', 'Median TTFT', 'p95 TTFT', 'All done', 'Tokens/s']),
    h('tbody', null, m.policies.map((name) => {
      const p = m.results[name];
      const peak = Number.isFinite(p.peak_kv_blocks) ? `${int(p.peak_kv_blocks)} / ${int(p.kv_blocks_budget)}` : '–';
      return row(name, [
        num(p.peak_kv_blocks, peak, 'peak_kv_blocks'), num(p.waste_pct, pct(p.waste_pct), 'waste_pct'),
        num(p.preemptions, int(p.preemptions), 'preemptions'), num(p.median_ttft_ms, duration(p.median_ttft_ms), 'median_ttft_ms'),
        num(p.p95_ttft_ms, duration(p.p95_ttft_ms), 'p95_ttft_ms'), num(p.makespan_ms, duration(p.makespan_ms), 'makespan_ms'),
        num(p.tokens_per_s, int(p.tokens_per_s), 'tokens_per_s'),
      ]);
    })));
}

function checksTable(r) {
  const { figures, efficiencies } = r.checks;
  if (!figures.length) {
    return h('p', { id: 'gpu-checks-none' }, 'No published measurement for this GPU was found to check the model against (docs/gpu.md): its table rests on the factors fitted on the other GPUs.');
  }
  return h('table', { id: 'gpu-checks-table' },
    h('caption', null, `The model against published measurements on this GPU (bandwidth efficiency ${efficiencies.bandwidth}, compute efficiency ${efficiencies.compute}, fitted on ${efficiencies.fitted_on.length} figures)`),
    head(['Figure', 'Conditions', 'Published', 'Modeled', 'Error']),
    h('tbody', null, figures.map((f) => h('tr', { dataset: { figure: f.id } },
      h('th', { scope: 'row', title: f.source }, `${f.id}${f.fit ? ' (fit)' : ''}`), h('td', null, `${f.model} ${f.weights}, TP ${f.tp}: ${f.conditions}`),
      num(f.published, `${sig(f.published, 4)} ${f.unit}`, 'published'), num(f.modeled, `${sig(f.modeled, 4)} ${f.unit}`, 'modeled'),
      num(f.error_pct, `${f.error_pct > 0 ? '+' : ''}${sig(f.error_pct, 2)}%`, 'error_pct')))));
}

export function renderHardware(r) {
  const label = r.steps.model.label.replace(/^modeled: /, '');
  $('#gpu-results').hidden = false;
  replace($('#gpu-label'), h('strong', null, 'Modeled, not measured: '), `${label}. Weights ${sig(r.steps.model.weight_bytes / 1e9, 3)} GB; KV cache ${int(r.steps.model.kv_bytes_per_token)} bytes a token.`);
  replace($('#gpu-queue-box'), queueTable(r, label));
  replace($('#gpu-gain-box'), gainTable(r, label));
  replace($('#gpu-gain-words'), describeGain(r));
  replace($('#gpu-memory-words'), describeMemory(r));
  replace($('#gpu-memory-box'), memoryTable(r, label));
  const m = r.memory;
  const budget = m.results[m.policies.find((n) => n.startsWith('paged:'))].kv_blocks_budget;
  replace($('#gpu-blocks-caption'), `Modeled: ${label} — KV blocks held over time, budget ${int(budget)} blocks`);
  blocksChart($('#gpu-chart-blocks'), {
    budget,
    series: m.policies.filter((n) => !n.startsWith('continuous:'))
      .map((name) => ({ label: name, color: policyStyle(name).color, dash: policyStyle(name).dash, ...m.results[name].kv_blocks_in_use }))
      .filter((s) => Array.isArray(s.t_ms) && s.t_ms.length),
  });
  replace($('#gpu-checks-box'), checksTable(r));
}
