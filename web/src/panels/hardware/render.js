// Drawing a modeled server: the queue chapter's view (the lab's queue under four policies, the rows gain,
// the published checks) and the memory chapter's (the real KV budget, the memory policies, blocks held
// over time, and the chapter's own playback). Every caption says "Modeled" and names the server, so that
// nothing here is read as a measurement of this device.

import { h, replace } from '../../shared/dom.js';
import { numCell as num } from '../../shared/cells.js';
import { barChart, blocksChart } from '../../shared/charts.js';
import { count, duration, int, rate, ratio, sig } from '../../shared/format.js';
import { POLICY_ROLES, policyIs, policyLabel, policyStyle, shortPolicyLabel } from '../../shared/policies.js';
import { MEMORY_SETTINGS } from '../../plans/hardware-settings.js';
import { docLinked } from '../../docs/links.js';
import { budgetWords, checksSummary, gainWords, memoryWords, modeledLabel, queueWords } from './words.js';

const pct = (v) => (Number.isFinite(v) ? `${sig(v, 3)}%` : '–');
const head = (labels) =>
  h(
    'thead',
    null,
    h(
      'tr',
      null,
      labels.map((l, i) => h('th', { scope: 'col', class: i ? 'num' : undefined }, l))
    )
  );
const policyRow = (name, cells) =>
  h('tr', { dataset: { policy: name } }, h('th', { scope: 'row', title: name }, policyLabel(name)), cells);
const box = (label, table) =>
  h('div', { class: 'table-box scroll-x', tabindex: '0', role: 'region', 'aria-label': label }, table);
const paragraphs = (texts) =>
  h(
    'div',
    { class: 'chapter-words' },
    texts.map((text) => h('p', null, text))
  );

function banner(r) {
  return h(
    'p',
    { class: 'hw-label' },
    h('strong', null, 'Modeled, not measured: '),
    modeledLabel(r),
    ' ',
    docLinked(checksSummary(r))
  );
}

// A chart in a figure with its caption; draw(container) draws it once the figure is in the page.
function chartFigure(id, caption, label, draws, draw) {
  const container = h('div', { id, class: 'chart-box', role: 'img', 'aria-label': label });
  draws.push(() => draw(container));
  return h('figure', { class: 'chart hw-chart' }, h('figcaption', null, caption), container);
}

const QUEUE_COLUMNS = [
  ['median_ttft_ms', 'Median TTFT', duration],
  ['p95_ttft_ms', 'p95 TTFT', duration],
  ['makespan_ms', 'All done', duration],
  ['tokens_per_s', 'Tokens/s', int],
];

function queueTable(r, id) {
  const { policies, results } = r.queue;
  return h(
    'table',
    { id, class: 'policy' },
    h('caption', null, `Modeled: ${r.gpu_label} — the lab’s queue`),
    head(['Policy', ...QUEUE_COLUMNS.map(([, label]) => label)]),
    h(
      'tbody',
      null,
      policies.map((name) =>
        policyRow(
          name,
          QUEUE_COLUMNS.map(([key, , fmt]) => num(results[name][key], fmt(results[name][key]), key))
        )
      )
    )
  );
}

function gainTable(r, id) {
  return h(
    'table',
    { id },
    h('caption', null, `Modeled: ${r.gpu_label} — one decode step at context ${int(r.gain.context)}`),
    head(['Rows', 'Step', 'Tokens/s', 'Gain over 1 row']),
    h(
      'tbody',
      null,
      r.gain.rows.map((g) =>
        h(
          'tr',
          { dataset: { rows: String(g.rows) } },
          h('th', { scope: 'row' }, int(g.rows)),
          num(g.step_ms, duration(g.step_ms), 'step_ms'),
          num(g.tokens_per_s, int(g.tokens_per_s), 'tokens_per_s'),
          num(g.gain, ratio(g.gain), 'gain')
        )
      )
    )
  );
}

function checksTable(r, id) {
  const { figures } = r.checks;
  if (!figures.length)
    return h(
      'p',
      { id },
      docLinked(
        'No published measurement of this GPU was found to check the model against (docs/gpu.md): its figures rest on the factors fitted on the other GPUs.'
      )
    );
  return h(
    'table',
    { id },
    h(
      'caption',
      null,
      'Published measurements of this GPU against the model (“fit”: one of those the efficiency factors were chosen on)'
    ),
    head(['Source', 'Conditions', 'Published', 'Modeled', 'Error']),
    h(
      'tbody',
      null,
      figures.map((f) =>
        h(
          'tr',
          { dataset: { figure: f.id } },
          h(
            'th',
            { scope: 'row' },
            h('a', { href: f.source_url, title: f.source, rel: 'noopener' }, f.source_name),
            f.fit ? ' (fit)' : ''
          ),
          h('td', { class: 'hw-conditions' }, `${f.model}, ${f.weights}, TP ${f.tp}: ${f.conditions}`),
          num(f.published, `${sig(f.published, 4)} ${f.unit}`, 'published'),
          num(f.modeled, `${sig(f.modeled, 4)} ${f.unit}`, 'modeled'),
          num(f.error_pct, `${f.error_pct > 0 ? '+' : ''}${sig(f.error_pct, 2)}%`, 'error_pct')
        )
      )
    )
  );
}

// The queue chapter's modeled view; prefix: of its element ids.
export function queueView(r, prefix) {
  const draws = [];
  const policies = r.queue.policies;
  const element = h(
    'div',
    { class: 'hw-view' },
    banner(r),
    paragraphs(queueWords(r)),
    box('Policy table, modeled GPU', queueTable(r, `${prefix}-table`)),
    chartFigure(
      `${prefix}-chart-policies`,
      `Modeled: ${r.gpu_label} — tokens per second under each policy`,
      'Tokens per second under each policy on the modeled GPU',
      draws,
      (c) =>
        barChart(c, {
          bars: policies.map((name) => ({
            label: shortPolicyLabel(name),
            value: r.queue.results[name].tokens_per_s,
            color: policyStyle(name).color,
          })),
          yLabel: 'tokens/s (modeled)',
          format: (v) => int(v),
        })
    ),
    paragraphs([gainWords(r)]),
    box('Rows gain, modeled GPU', gainTable(r, `${prefix}-gain-table`)),
    chartFigure(
      `${prefix}-chart-gain`,
      `Modeled: ${r.gpu_label} — tokens per second by rows in one decode step`,
      'Tokens per second by rows on the modeled GPU',
      draws,
      (c) =>
        barChart(c, {
          bars: r.gain.rows.map((g) => ({
            label: count(g.rows, 'row'),
            value: g.tokens_per_s,
            color: '#1d5fa8',
          })),
          yLabel: 'tokens/s (modeled)',
          format: (v) => int(v),
        })
    ),
    box('Published measurements against the model', checksTable(r, `${prefix}-checks-table`))
  );
  return { element, draw: () => draws.forEach((draw) => draw()) };
}

const MEMORY_COLUMNS = [
  ['peak_at_once', 'Most at once', int, (p) => p.requests_at_once && p.requests_at_once.peak],
  ['mean_at_once', 'Mean at once', (v) => sig(v, 3), (p) => p.requests_at_once && p.requests_at_once.mean],
  ['peak_kv_blocks', 'Peak blocks', (v, p) => `${int(v)} / ${int(p.kv_blocks_budget)}`],
  ['waste_pct', 'Waste', pct],
  ['preemptions', 'Preemptions', int],
  ['median_ttft_ms', 'Median TTFT', duration],
  ['p95_ttft_ms', 'p95 TTFT', duration],
  ['makespan_ms', 'All done', duration],
  ['tokens_per_s', 'Tokens/s', int],
];

function memoryTable(r, id) {
  const m = r.memory;
  return h(
    'table',
    { id, class: 'policy' },
    h(
      'caption',
      null,
      `Modeled: ${r.gpu_label} — KV budget ${int(r.steps.model.kv_budget_tokens)} tokens, ${rate(m.rate, 'requests/s')}`
    ),
    head(['Policy', ...MEMORY_COLUMNS.map(([, label]) => label)]),
    h(
      'tbody',
      null,
      m.policies.map((name) => {
        const p = m.results[name];
        return policyRow(
          name,
          MEMORY_COLUMNS.map(([key, , fmt, pick]) => {
            const value = pick ? pick(p) : p[key];
            return num(value, Number.isFinite(value) ? fmt(value, p) : '–', key);
          })
        );
      })
    )
  );
}

// The memory chapter's modeled view (the chapter's own playback of r.memory follows it: modeledView).
export function memoryView(r, prefix) {
  const draws = [];
  const m = r.memory;
  const memoryNames = m.policies.filter((name) => policyIs(name, POLICY_ROLES.memoryBudget));
  const budget = m.results[memoryNames[0]].kv_blocks_budget;
  const element = h(
    'div',
    { class: 'hw-view' },
    banner(r),
    paragraphs([budgetWords(r), ...memoryWords(r, MEMORY_SETTINGS.load)]),
    box('Memory policies, modeled GPU', memoryTable(r, `${prefix}-table`)),
    chartFigure(
      `${prefix}-chart-blocks`,
      `Modeled: ${r.gpu_label} — KV blocks held over time, budget ${int(budget)} blocks`,
      'KV blocks held over time on the modeled GPU',
      draws,
      (c) =>
        blocksChart(c, {
          budget,
          series: memoryNames
            .map((name) => ({
              label: policyLabel(name),
              color: policyStyle(name).color,
              dash: policyStyle(name).dash,
              ...m.results[name].kv_blocks_in_use,
            }))
            .filter((s) => Array.isArray(s.t_ms) && s.t_ms.length),
        })
    ),
    h(
      'p',
      { class: 'hw-label' },
      h('strong', null, 'Modeled: '),
      'the same queue played back on the modeled GPU’s clock.'
    )
  );
  return { element, draw: () => draws.forEach((draw) => draw()) };
}

// A chapter's modeled part in `container`: render(r) -> {element, draw()} for a result; playback (the
// chapter's own, optional): {mount(element) -> {show, clear, destroy}, data(r)}, shown under it.
export function modeledView(container, render, playback = null) {
  const tables = h('div');
  container.append(tables);
  let played = null;
  if (playback) {
    const element = h('div', { class: 'hw-playback' });
    container.append(element);
    played = playback.mount(element);
  }
  return {
    show(r) {
      const view = render(r);
      replace(tables, view.element);
      view.draw();
      if (played) played.show(playback.data(r));
    },
    clear() {
      replace(tables);
      if (played) played.clear();
    },
    destroy() {
      if (played) played.destroy();
      container.replaceChildren();
    },
  };
}
