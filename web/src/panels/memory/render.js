// Draws a Memory-section result: KV blocks held over time, p95 TTFT against the arrival rate with
// where each policy crosses the target, the waste, the table, and the findings.

import { $, h, replace } from '../../shared/dom.js';
import { numCell as num } from '../../shared/cells.js';
import {
  POLICY_ROLES,
  policyHelp,
  policyIs,
  policyLabel,
  policyStyle,
  shortPolicyLabel,
} from '../../shared/policies.js';
import { barChart, blocksChart, loadCurveChart } from '../../shared/charts.js';
import { duration, int, pct, sig, rate } from '../../shared/format.js';
import { crossingText, findings, summary, tableFoot } from './words.js';

// The first rate at which p95 TTFT goes above the target, interpolated on log TTFT between the two
// rates around it; null when it never does; the first rate itself when it is above already.
export function crossingRate(rates, values, target) {
  for (let i = 0; i < rates.length; i += 1) {
    const v = values[i];
    if (!(Number.isFinite(v) && v > target)) continue;
    if (i === 0) return { rate: rates[0], already: true };
    const lo = values[i - 1];
    if (!(Number.isFinite(lo) && lo > 0)) return { rate: rates[i], already: false };
    const f = (Math.log(target) - Math.log(lo)) / (Math.log(v) - Math.log(lo));
    return { rate: rates[i - 1] + (rates[i] - rates[i - 1]) * Math.min(1, Math.max(0, f)), already: false };
  }
  return null;
}

const COLUMNS = [
  ['median_ttft_ms', 'Median TTFT', duration],
  ['p95_ttft_ms', 'p95 TTFT', duration],
  ['makespan_ms', 'All done', duration],
  ['goodput_pct', 'Within targets', (v) => pct(v)],
  ['peak_kv_blocks', 'Peak blocks', (v, p) => `${int(v)} / ${int(p.kv_blocks_budget)}`],
  ['waste_pct', 'Waste', (v) => pct(v)],
  ['preemptions', 'Preemptions', int],
  ['recomputed_tokens', 'Recomputed tokens', int],
  ['prefix_hit_rate', 'Prefix hits', (v) => pct(v * 100)],
];

function renderBlocks(r, memoryNames, budget, section) {
  const series = [
    { label: 'unlimited memory (paged, no budget)', color: '#6e7781', dash: [2, 3], ...r.unlimited.kv_blocks_in_use },
    ...memoryNames.map((name) => ({
      label: policyLabel(name),
      color: policyStyle(name).color,
      dash: policyStyle(name).dash,
      ...r.results[name].kv_blocks_in_use,
    })),
  ].filter((s) => Array.isArray(s.t_ms) && s.t_ms.length);
  blocksChart($('#chart-mem-blocks', section), { series, budget });
}

// Returns the load curve's lines, with where each crosses the target.
function renderLoadCurve(r, section) {
  const target = r.ttft_target_ms;
  const lines = r.policies.map((name) => {
    const values = r.load.policies[name].p95_ttft_ms;
    const crossing = crossingRate(r.load.rates, values, target);
    return {
      name,
      label: policyLabel(name),
      color: policyStyle(name).color,
      dash: policyStyle(name).dash,
      values,
      crossing: crossing ? crossing.rate : null,
      crossingInfo: crossing,
    };
  });
  loadCurveChart($('#chart-mem-load', section), { rates: r.load.rates, lines, targetMs: target });
  const top = r.load.rates[r.load.rates.length - 1];
  replace(
    $('#mem-crossings', section),
    lines.map((line) =>
      h(
        'li',
        { dataset: { policy: line.name, crossing: line.crossingInfo ? String(line.crossingInfo.rate) : '' } },
        h('strong', null, policyLabel(line.name)),
        `: p95 TTFT ${crossingText(line.crossingInfo, target, top)}.`
      )
    )
  );
  return lines;
}

function renderTable(r, budget, section) {
  replace(
    $('#mem-table-box', section),
    h(
      'table',
      { id: 'memory-table', class: 'policy' },
      h('caption', null, `Under a budget of ${int(budget)} blocks, ${rate(r.rate, 'requests/s')}`),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, 'Policy'),
          COLUMNS.map(([, label]) => h('th', { scope: 'col', class: 'num' }, label))
        )
      ),
      h(
        'tbody',
        null,
        r.policies.map((name) => {
          const p = r.results[name];
          return h(
            'tr',
            { dataset: { policy: name } },
            h(
              'th',
              { scope: 'row', title: name },
              policyLabel(name),
              h('span', { class: 'impl-note' }, policyHelp(name))
            ),
            COLUMNS.map(([key, , fmt]) => num(p[key], Number.isFinite(p[key]) ? fmt(p[key], p) : '–', key))
          );
        })
      ),
      h('tfoot', null, h('tr', null, h('td', { colspan: String(COLUMNS.length + 1) }, tableFoot(r.ttft_target_ms))))
    )
  );
}

// r: the section's result; section: its element, whose parts it fills.
export function renderMemory(r, section) {
  const memoryNames = r.policies.filter((n) => policyIs(n, POLICY_ROLES.memoryBudget));
  const anyMemory = r.results[memoryNames[0]];
  const budget = anyMemory ? anyMemory.kv_blocks_budget : null;
  replace($('#mem-summary', section), ...summary(r, budget));
  renderBlocks(r, memoryNames, budget, section);
  const lines = renderLoadCurve(r, section);
  barChart($('#chart-mem-waste', section), {
    bars: memoryNames.map((name) => ({
      label: shortPolicyLabel(name),
      value: r.results[name].waste_pct,
      color: policyStyle(name).color,
    })),
    yLabel: ['held but never written', 'never written'],
    format: (v) => `${sig(v, 3)}%`,
    yMax: 100,
  });
  renderTable(r, budget, section);
  replace(
    $('#mem-findings', section),
    findings(r, lines).map((text) => h('li', null, text))
  );
  $('#mem-results', section).hidden = false;
}
