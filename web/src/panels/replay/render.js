// Draws a replay: the real engine's table beside the simulator's with its error, the finding, the slot
// timelines of one policy (real and simulated) and the step check.

import { $, h, replace } from '../../shared/dom.js';
import { numCell as num } from '../../shared/cells.js';
import { POLICY_ROLES, findPolicy, policyLabel, policyOrder, policySlots } from '../../shared/policies.js';
import { PHASE_COLORS, gantt, legendSwatches, timelineUnit } from '../../shared/charts.js';
import { duration, int, pct, sig, signedPct } from '../../shared/format.js';
import { afterPromptFinding, deviceSentence, servedWhere } from './words.js';

// The KV-memory columns a memory policy's results carry (null for the lab's four), each shown when some
// policy reports it: the prefix hit rate only where a policy reuses a shared prefix.
const MEMORY_KEYS = [
  { key: 'preemptions', label: 'Preemptions', format: int },
  { key: 'recomputed_tokens', label: 'Recomputed tokens', format: int },
  { key: 'prefix_hit_rate', label: 'Prefix hits', format: (v) => pct(v * 100) },
];
function memoryColumns(order, r, side) {
  const columns = MEMORY_KEYS.filter(({ key }) => order.some((n) => Number.isFinite(r.policies[n][side][key])));
  return {
    labels: columns.map(({ label }) => label),
    cells: (p) =>
      columns.map(({ key, format }) =>
        num(p[side][key], Number.isFinite(p[side][key]) ? format(p[side][key]) : '–', key)
      ),
  };
}
// The agreement target (docs/replay.md): median TTFT and makespan within 5% of the real run.
export const ERROR_TARGET = 0.05;

export function orderPolicies(names) {
  return [...names].sort((a, b) => policyOrder(a) - policyOrder(b) || a.localeCompare(b));
}

function errorCell(value, key) {
  const high = Number.isFinite(value) && Math.abs(value) > ERROR_TARGET;
  return num(value, signedPct(value), key, { class: high ? 'err-high' : 'err-ok' });
}

// What the queue's prompts shared (options.workload is given only with a shared prefix).
function prefixSentence(workload) {
  if (workload?.system_prompt)
    return ` Every prompt began with the same ${int(workload.system_prompt)}-token system prompt.`;
  if (workload?.chat) {
    return ` The ${int(workload.count)} requests were turns of ${int(workload.chat.conversations)} conversations: each turn’s prompt carried the turn before it and that turn’s answer (written by the model before the runs, as the turn answers alone), which paged and chunked find cached.`;
  }
  return '';
}

// Draws the result; policySelect: the control choosing whose slot timelines are shown.
export function renderReplay(r, policySelect, section) {
  const order = r.policy_order;
  const counts = order.map((n) => r.policies[n].request_count);
  const fewest = order[counts.indexOf(Math.min(...counts))];
  const hasDrift = order.some((n) => r.policies[n].drift);
  replace(
    $('#replay-summary', section),
    `The ${r.options.measure.preset} model served the queue for real in this browser (${servedWhere(r.device)}), once per policy, and the simulator replayed the same requests on step times measured on the same model just before and just after each run (their mean).`,
    Math.min(...counts) < Math.max(...counts)
      ? ` ${policyLabel(fewest)} reruns the whole sequence for every token, so it serves only the first ${int(r.policies[fewest].request_count)} requests, real and simulated alike.`
      : '',
    prefixSentence(r.options.workload),
    deviceSentence(r.device)
  );

  const realMemory = memoryColumns(order, r, 'real');
  const simMemory = memoryColumns(order, r, 'sim');
  replace(
    $('#replay-real-box', section),
    h(
      'table',
      { id: 'replay-real-table', class: 'policy' },
      h('caption', null, 'Real engine: times from the clock'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, 'Policy'),
          ['Requests', 'Median TTFT', 'p95 TTFT', 'All done', ...realMemory.labels].map((label) =>
            h('th', { scope: 'col', class: 'num' }, label)
          )
        )
      ),
      h(
        'tbody',
        null,
        order.map((name) => {
          const p = r.policies[name];
          return h(
            'tr',
            { dataset: { policy: name } },
            h('th', { scope: 'row', title: name }, policyLabel(name)),
            num(p.request_count, int(p.request_count), 'request_count'),
            num(p.real.median_ttft_ms, duration(p.real.median_ttft_ms), 'median_ttft_ms'),
            num(p.real.p95_ttft_ms, duration(p.real.p95_ttft_ms), 'p95_ttft_ms'),
            num(p.real.makespan_ms, duration(p.real.makespan_ms), 'makespan_ms'),
            realMemory.cells(p)
          );
        })
      )
    )
  );

  replace(
    $('#replay-sim-box', section),
    h(
      'table',
      { id: 'replay-sim-table', class: 'policy' },
      h('caption', null, 'Simulator on the measured step table, and its error'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, 'Policy'),
          [
            'Median TTFT',
            'error',
            'p95 TTFT',
            'error',
            'All done',
            'error',
            ...(hasDrift ? ['Drift'] : []),
            ...simMemory.labels,
          ].map((label) => h('th', { scope: 'col', class: 'num' }, label))
        )
      ),
      h(
        'tbody',
        null,
        order.map((name) => {
          const p = r.policies[name];
          const drift = p.drift
            ? Math.max(
                ...['median_ttft', 'p95_ttft', 'makespan'].map((k) => Math.abs(p.drift[k])).filter(Number.isFinite)
              )
            : null;
          return h(
            'tr',
            { dataset: { policy: name } },
            h('th', { scope: 'row', title: name }, policyLabel(name)),
            num(p.sim.median_ttft_ms, duration(p.sim.median_ttft_ms), 'median_ttft_ms'),
            errorCell(p.error.median_ttft, 'error_median_ttft'),
            num(p.sim.p95_ttft_ms, duration(p.sim.p95_ttft_ms), 'p95_ttft_ms'),
            errorCell(p.error.p95_ttft, 'error_p95_ttft'),
            num(p.sim.makespan_ms, duration(p.sim.makespan_ms), 'makespan_ms'),
            errorCell(p.error.makespan, 'error_makespan'),
            hasDrift ? num(drift, `±${sig(drift * 100, 2)}%`, 'drift') : null,
            simMemory.cells(p)
          );
        })
      ),
      h(
        'tfoot',
        null,
        h(
          'tr',
          null,
          h(
            'td',
            { colspan: String(7 + (hasDrift ? 1 : 0) + simMemory.labels.length) },
            `Error = (simulated − real) / real: positive when the simulator predicts more time than the run took; beyond ±${ERROR_TARGET * 100}% it is marked.${hasDrift ? ' Drift: how far the same simulation moves between the step table measured just before a policy’s run and the one measured just after it (the largest of the three), i.e. how much this machine’s own speed changed meanwhile; errors within it cannot be read more finely.' : ''}`
          )
        )
      )
    )
  );

  const drifts = order
    .flatMap((n) => (r.policies[n].drift ? Object.values(r.policies[n].drift).map(Math.abs) : []))
    .filter(Number.isFinite);
  const maxDrift = drifts.length ? Math.max(...drifts) : 0;
  const worst = (key) =>
    order.reduce(
      (best, n) => (Math.abs(r.policies[n].error[key]) > Math.abs(r.policies[best].error[key]) ? n : best),
      order[0]
    );
  const wm = worst('median_ttft');
  const wk = worst('makespan');
  const within = order.filter(
    (n) =>
      Math.abs(r.policies[n].error.median_ttft) <= ERROR_TARGET &&
      Math.abs(r.policies[n].error.makespan) <= ERROR_TARGET
  );
  replace(
    $('#replay-finding', section),
    `Median TTFT and “all done” within ±${ERROR_TARGET * 100}% of the real run for ${within.length} of ${order.length} policies. `,
    `Largest error of median TTFT: ${signedPct(r.policies[wm].error.median_ttft)} (${policyLabel(wm)}); of “all done”: ${signedPct(r.policies[wk].error.makespan)} (${policyLabel(wk)}). `,
    'Where the two differ, the step check below says which kind of forward pass the table misjudged, or how much time went outside forward passes.',
    afterPromptFinding(r, order, ERROR_TARGET),
    maxDrift > ERROR_TARGET
      ? ` Meanwhile this device’s own speed moved by up to ${sig(maxDrift * 100, 2)}% (the drift column), more than the ±${ERROR_TARGET * 100}% target: other work was probably sharing the processor, so run it again when the device is quiet before reading much into the errors.`
      : ''
  );

  const current = order.includes(policySelect.value)
    ? policySelect.value
    : findPolicy(order, POLICY_ROLES.continuous) || order[0];
  replace(
    policySelect,
    order.map((name) => h('option', { value: name, text: policyLabel(name) }))
  );
  policySelect.value = current;
  $('#replay-results', section).hidden = false;
  renderTimelines(r, current, section);
}

export function renderTimelines(r, name, section) {
  const p = r.policies[name];
  const real = p.real.timeline || [];
  const simulated = p.sim.timeline || [];
  const xMax = Math.max(1e-9, ...real.map((t) => t.end_ms), ...simulated.map((t) => t.end_ms));
  const unit = timelineUnit(xMax);
  const shown = new Set(real.map((t) => t.request)).size;
  replace(
    $('#replay-legend', section),
    legendSwatches([
      { label: 'prefill (or a no-cache pass)', color: PHASE_COLORS.prefill },
      { label: 'decode', color: PHASE_COLORS.decode },
    ])
  );
  const lastEnd = (list) => Math.max(0, ...list.map((t) => t.end_ms));
  const preempted = (side) =>
    Number.isFinite(p[side].preemptions)
      ? `; ${int(p[side].preemptions)} preemptions, ${int(p[side].recomputed_tokens)} tokens recomputed`
      : '';
  replace(
    $('#replay-gantt-real-caption', section),
    `Real run: the first ${shown} requests done at ${duration(lastEnd(real))}${preempted('real')}`
  );
  replace(
    $('#replay-gantt-sim-caption', section),
    `Simulated: done at ${duration(lastEnd(simulated))}${preempted('sim')}`
  );
  const hover = $('#replay-hover', section);
  const onHover = (bar) =>
    replace(
      hover,
      bar
        ? `Request ${bar.request + 1}, slot ${bar.slot + 1}: ${bar.phase} from ${duration(bar.start_ms)} to ${duration(bar.end_ms)}.`
        : 'Point at a bar to see its request.'
    );
  const slots = policySlots(name);
  gantt($('#chart-replay-real', section), real, { slots, xMaxMs: xMax, onHover });
  gantt($('#chart-replay-sim', section), simulated, { slots, xMaxMs: xMax, onHover });

  if (p.step_check)
    replace($('#replay-steps-box', section), kindsTable(name, p.step_check), historyTable(name, p.step_check));
}

// Every forward pass of the real run priced on the table, by kind and rows.
function kindsTable(name, check) {
  const formula =
    (check.kinds || []).some((k) => Number.isFinite(k.derived_ms)) && check.mixed_formula?.cells > 0
      ? check.mixed_formula
      : null;
  return h(
    'table',
    { id: 'replay-steps-table' },
    h('caption', null, `${policyLabel(name)}: every forward pass of the real run, priced on the table`),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ['Kind', 'Rows', 'Passes', 'Real', 'Table', 'Table / real', ...(formula ? ['Formula / real'] : [])].map(
          (label, i) => h('th', { scope: 'col', class: i ? 'num' : null }, label)
        )
      )
    ),
    h(
      'tbody',
      null,
      (check.kinds || []).map((k) =>
        h(
          'tr',
          { dataset: { kind: k.kind } },
          h('th', { scope: 'row' }, k.kind),
          num(k.rows, int(k.rows), 'rows'),
          num(k.steps, int(k.steps), 'steps'),
          num(k.real_ms, duration(k.real_ms), 'real_ms'),
          num(k.table_ms, duration(k.table_ms), 'table_ms'),
          num(k.table_ms / k.real_ms, sig(k.table_ms / k.real_ms, 3), 'ratio'),
          formula
            ? num(
                k.derived_ms / k.real_ms,
                Number.isFinite(k.derived_ms) ? sig(k.derived_ms / k.real_ms, 3) : '',
                'formula_ratio'
              )
            : null
        )
      )
    ),
    h(
      'tfoot',
      null,
      h(
        'tr',
        null,
        h(
          'td',
          { colspan: formula ? '7' : '6' },
          `Inside forward passes: ${duration(check.real_steps_ms)} real, ${duration(check.table_steps_ms)} on the table; outside them (waiting for arrivals, the engine’s own bookkeeping): ${duration(check.outside_steps_ms)}.`,
          formula
            ? ` A mixed pass (a prompt chunk with decode rows) is priced on the table’s measured mixed grid; “Formula” prices it by the formula derived from prefill and decode alone, which misses the measured grid’s ${int(formula.cells)} cells by ${sig(formula.mean_abs_error * 100, 2)}% on average (${sig(formula.max_abs_error * 100, 2)}% at most).`
            : ''
        )
      )
    )
  );
}

// The same passes by what ran before them: decode passes by the passes since the last prompt pass, prompt
// passes by the pass just before. The table times each cell in a stretch of its own.
function historyTable(name, check) {
  const groups = [
    ...(check.decode_by_passes_since_prompt || []).map((g) => ({
      pass: 'decode',
      when: `${g.passes_since_prompt} ${g.passes_since_prompt === '1' ? 'pass' : 'passes'} after a prompt pass`,
      ...g,
    })),
    ...(check.prompt_by_pass_before || []).map((g) => ({
      pass: 'prompt',
      when:
        g.pass_before === 'none'
          ? 'first of the run'
          : `after a ${g.pass_before === 'nocache' ? 'no-cache' : g.pass_before} pass`,
      ...g,
    })),
  ];
  return h(
    'table',
    { id: 'replay-history-table' },
    h('caption', null, `${policyLabel(name)}: the same passes by what ran before them`),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ['Pass', 'When', 'Passes', 'Real', 'Table', 'Table / real'].map((label, i) =>
          h('th', { scope: 'col', class: i > 1 ? 'num' : null }, label)
        )
      )
    ),
    h(
      'tbody',
      null,
      groups.map((g) =>
        h(
          'tr',
          { dataset: { pass: g.pass } },
          h('th', { scope: 'row' }, g.pass),
          h('td', null, g.when),
          num(g.steps, int(g.steps), 'steps'),
          num(g.real_ms, duration(g.real_ms), 'real_ms'),
          num(g.table_ms, duration(g.table_ms), 'table_ms'),
          num(g.table_ms / g.real_ms, g.real_ms > 0 ? sig(g.table_ms / g.real_ms, 3) : '', 'ratio')
        )
      )
    ),
    h(
      'tfoot',
      null,
      h(
        'tr',
        null,
        h(
          'td',
          { colspan: '6' },
          'A prompt pass is a prefill, a no-cache pass or a prompt chunk. The table times each of its cells in a stretch of that cell alone; ' +
            'on some processors a pass runs slower soon after dense prompt work, which shows here as a ratio below 1 for the first passes after one.'
        )
      )
    )
  );
}
