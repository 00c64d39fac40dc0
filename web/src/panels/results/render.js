// Renders a result into the page: Part A, Part B (with the published table beside it) and the plots.
// Every table is a real <table> with a caption and header cells; numbers carry data-value.

import { $, h, replace } from '../../shared/dom.js';
import { count, duration, int, ratio, sig, spread } from '../../shared/format.js';
import { noisyCells, noisyCellsText, noisyDecodeCell, noisyText } from '../../shared/noisy.js';
import {
  POLICY_ROLES,
  PUBLISHED_LABEL,
  PUBLISHED_PART_A,
  PUBLISHED_POLICIES,
  findPolicy,
  policyLabel,
} from '../../shared/policies.js';
import { referenceContext } from '../../shared/steps.js';
import {
  PHASE_COLORS,
  destroyCharts,
  gantt,
  legendSwatches,
  stepChart,
  ttftCdf,
  timelineUnit,
} from '../../shared/charts.js';

function num(value, text, extra = {}) {
  return h('td', { class: 'num', dataset: { value: String(value), ...extra } }, text);
}

function card(label, value, note, id) {
  return h(
    'div',
    { class: 'card', id },
    h('div', { class: 'card-label' }, label),
    h('div', { class: 'card-value' }, value),
    note ? h('div', { class: 'card-note' }, note) : null
  );
}

export function decodeSpeedup(steps) {
  const { rows, contexts, ms: grid } = steps.decode;
  const j = referenceContext(contexts);
  const first = 0;
  const last = rows.length - 1;
  const one = rows[first] / grid[first][j];
  const many = rows[last] / grid[last][j];
  return {
    context: contexts[j],
    rowsLo: rows[first],
    rowsHi: rows[last],
    msLo: grid[first][j],
    msHi: grid[last][j],
    speedup: many / one,
  };
}

// ---- Part A -----------------------------------------------------------------------------------

function renderPartA(result, root) {
  const { answer, steps } = result;
  const identical = answer.identical_tokens;
  const speed = decodeSpeedup(steps);
  replace(
    $('#part-a-summary', root),
    card(
      'Without a cache',
      duration(answer.nocache_ms.median),
      `median of ${count(answer.runs, 'run')}`,
      'card-nocache'
    ),
    card('With the KV cache', duration(answer.cache_ms.median), `median of ${count(answer.runs, 'run')}`, 'card-cache'),
    card(
      'Cache speed-up',
      ratio(answer.ratio),
      `${answer.prompt_tokens} prompt + ${answer.answer_tokens} answer tokens`,
      'card-ratio'
    ),
    h(
      'div',
      { class: `card ${identical ? 'ok' : 'bad'}`, id: 'identical', dataset: { identical: String(identical) } },
      h('div', { class: 'card-label' }, 'Same tokens both ways?'),
      h('div', { class: 'card-value' }, identical ? '✓ identical' : '✗ different'),
      h('div', { class: 'card-note' }, identical ? 'in every run' : 'the two paths disagree')
    ),
    card(
      `${speed.rowsHi} rows vs ${speed.rowsLo} per step`,
      ratio(speed.speedup),
      `tokens/s at context ${speed.context}`,
      'card-batch'
    )
  );

  const pub = PUBLISHED_PART_A;
  replace(
    $('#part-a-published', root),
    h('span', { class: 'tag' }, PUBLISHED_LABEL),
    ' ',
    `${sig(pub.nocache_ms, 5)} ms without cache, ${sig(pub.cache_ms, 4)} ms with it (${pub.ratio}×); decode step at context ${pub.context}: 1 row ${pub.decode_1_ms} ms, 16 rows ${pub.decode_16_ms} ms (${pub.speedup_16}× tokens/s).`
  );

  const answerRow = (label, stats, id) =>
    h(
      'tr',
      { id },
      h('th', { scope: 'row' }, label),
      num(stats.median, duration(stats.median)),
      num(stats.min, duration(stats.min)),
      num(stats.max, duration(stats.max))
    );
  replace(
    $('#answer-table-box', root),
    h(
      'table',
      { id: 'answer-table' },
      h(
        'caption',
        null,
        `One answer: ${answer.prompt_tokens} prompt tokens, ${answer.answer_tokens} answer tokens, ${count(answer.runs, 'run')} per path`
      ),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, 'Path'),
          h('th', { scope: 'col' }, 'Median'),
          h('th', { scope: 'col' }, 'Min'),
          h('th', { scope: 'col' }, 'Max')
        )
      ),
      h(
        'tbody',
        null,
        answerRow('No cache', answer.nocache_ms, 'row-nocache'),
        answerRow('KV cache', answer.cache_ms, 'row-cache'),
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, 'Ratio of medians'),
          num(answer.ratio, ratio(answer.ratio)),
          h('td'),
          h('td')
        )
      )
    )
  );

  const a = answer.tokens_nocache || [];
  const b = answer.tokens_cache || [];
  const n = Math.max(a.length, b.length);
  const rows = [];
  for (let i = 0; i < n; i += 1) {
    const same = a[i] === b[i];
    rows.push(
      h(
        'tr',
        { class: same ? null : 'mismatch' },
        h('th', { scope: 'row' }, String(i + 1)),
        h('td', { class: 'num' }, a[i] ?? '–'),
        h('td', { class: 'num' }, b[i] ?? '–'),
        h('td', null, same ? '=' : '≠')
      )
    );
  }
  replace(
    $('#tokens-box', root),
    h('p', { class: 'help prompt-ids' }, `Prompt token ids: ${(answer.prompt || []).join(' ')}.`),
    h(
      'table',
      { id: 'tokens-table' },
      h('caption', null, 'Generated token ids, both paths'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, '#'),
          h('th', { scope: 'col' }, 'No cache'),
          h('th', { scope: 'col' }, 'KV cache'),
          h(
            'th',
            { scope: 'col' },
            h('span', { class: 'visually-hidden' }, 'Same?'),
            h('span', { 'aria-hidden': 'true' }, '')
          )
        )
      ),
      h('tbody', null, rows)
    )
  );

  // Decode grid: ms per step, and tokens/s at the reference context.
  const { rows: rr, contexts, ms: grid } = steps.decode;
  const j = referenceContext(contexts);
  replace(
    $('#decode-box', root),
    h(
      'table',
      { id: 'decode-table' },
      h('caption', null, 'Milliseconds per decode step (every row at the given context), and tokens per second'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, 'Rows \\ context'),
          contexts.map((c) => h('th', { scope: 'col', class: 'num' }, String(c))),
          h('th', { scope: 'col', class: 'num' }, `Tokens/s at ${contexts[j]}`)
        )
      ),
      h(
        'tbody',
        null,
        rr.map((r, i) =>
          h(
            'tr',
            { dataset: { rows: String(r) } },
            h('th', { scope: 'row' }, count(r, 'row')),
            contexts.map((c, k) => {
              const cell = noisyDecodeCell(steps, r, c);
              if (!cell) return num(grid[i][k], sig(grid[i][k], 3));
              return h(
                'td',
                {
                  class: 'num noisy',
                  title: `noisy: ${noisyText(cell.spread)}`,
                  dataset: { value: String(grid[i][k]), noisy: 'true' },
                },
                `${sig(grid[i][k], 3)} ${spread(cell.spread)}`
              );
            }),
            num((r / grid[i][j]) * 1000, int((r / grid[i][j]) * 1000))
          )
        )
      )
    )
  );
  const noisyEnds = [speed.rowsLo, speed.rowsHi].some((r) => noisyDecodeCell(steps, r, speed.context));
  replace(
    $('#decode-speedup', root),
    `At context ${speed.context}, one step of ${count(speed.rowsLo, 'row')} takes ${duration(speed.msLo)} and one of ${count(speed.rowsHi, 'row')} takes ${duration(speed.msHi)}: `,
    noisyEnds
      ? h('strong', { class: 'noisy-mark', dataset: { noisy: 'true' } }, 'noisy, so no batching gain is read off them')
      : h('strong', null, `${ratio(speed.speedup)} the tokens per second`),
    ` ${noisyEnds ? '' : 'from batching '}(published: ${pub.speedup_16}×).`,
    noisyCellsText(steps) && ` ${noisyCellsText(steps)}`
  );

  const { tokens, ms: pre } = steps.prefill;
  replace(
    $('#prefill-box', root),
    h(
      'table',
      { id: 'prefill-table' },
      h('caption', null, 'Prefill of one sequence (also the cost of one no-cache step over that many tokens)'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, 'Tokens'),
          tokens.map((t) => h('th', { scope: 'col', class: 'num' }, String(t)))
        )
      ),
      h(
        'tbody',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, 'ms'),
          pre.map((v) => num(v, sig(v, 3)))
        )
      )
    )
  );
  const timing = steps.model && steps.model.timing;
  if (timing) {
    replace(
      $('#timing-note', root),
      `Each figure is the ${timing.statistic || 'median of samples'}: ${timing.samples} samples of at least ${timing.min_sample_ms} ms, each repeating the step (decode repeats from ${Math.min(...timing.decode_repeats.flat())} to ${Math.max(...timing.decode_repeats.flat())}), so that a coarse browser clock still times it well.`,
      Number.isFinite(timing.noisy_spread)
        ? ` A step whose samples spread wider than ${spread(timing.noisy_spread)} was timed again (${count(timing.retimed_cells || 0, 'cell')}); those still that wide are marked noisy (${int(noisyCells(steps).length)}).`
        : null
    );
  }
}

// ---- Part B -----------------------------------------------------------------------------------

const POLICY_COLUMNS = [
  ['median_ttft_ms', 'Median TTFT', duration],
  ['p95_ttft_ms', 'p95 TTFT', duration],
  ['p99_ttft_ms', 'p99 TTFT', duration],
  ['makespan_ms', 'All done', duration],
  ['tokens_per_s', 'Tokens/s', int],
  ['tpot_ms', 'TPOT', (v) => duration(v)],
];

function policyHeader(name) {
  return h('th', { scope: 'row', title: name }, policyLabel(name));
}

function renderPartB(result, settings, root) {
  const order = result.policy_order;
  const w = result.workload;
  const arrival =
    w.arrival && w.arrival.kind === 'poisson'
      ? `arriving at random, ${sig(w.arrival.rate_per_s, 3)} per second on average`
      : 'all arriving at t = 0';
  replace(
    $('#workload-line', root),
    `${int(w.count)} requests ${arrival}; ${w.prompts === 'stories' ? 'each prompt one of our own story openings' : `prompts of ${w.prompt[0]}–${w.prompt[1]} tokens`}, answers of ${w.answer[0]}–${w.answer[1]} (seed ${w.seed}); ${count(settings.slots, 'slot')}. Replayed on the step times measured in Part A (WebAssembly SIMD, one worker).`
  );
  const contexts = result.steps.decode.contexts;
  // (A story workload's prompt lengths are not in the result: no note about extrapolated contexts then.)
  const longest = w.prompt ? w.prompt[1] + w.answer[1] - 1 : 0;
  if (longest > contexts[contexts.length - 1]) {
    $('#workload-line', root).append(
      ` Contexts beyond ${contexts[contexts.length - 1]} (up to ${longest} here) were not measured: their step times are extrapolated linearly.`
    );
  }

  replace(
    $('#policy-box', root),
    h(
      'table',
      { id: 'policy-table', class: 'policy' },
      h('caption', null, 'This device'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, 'Policy'),
          POLICY_COLUMNS.map(([, label]) => h('th', { scope: 'col', class: 'num' }, label))
        )
      ),
      h(
        'tbody',
        null,
        order.map((name) => {
          const p = result.policies[name];
          return h(
            'tr',
            { dataset: { policy: name } },
            policyHeader(name),
            POLICY_COLUMNS.map(([key, , fmt]) => num(p[key], fmt(p[key]), { key }))
          );
        })
      )
    )
  );

  const matching = settings.published_queue;
  replace(
    $('#published-box', root),
    h(
      'table',
      { id: 'published-table', class: 'policy published' },
      h('caption', null, PUBLISHED_LABEL),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, 'Policy'),
          ['Median TTFT', 'p95 TTFT', 'All done', 'Tokens/s'].map((label) =>
            h('th', { scope: 'col', class: 'num' }, label)
          )
        )
      ),
      h(
        'tbody',
        null,
        PUBLISHED_POLICIES.map((p) =>
          h(
            'tr',
            { dataset: { policy: p.policy } },
            policyHeader(p.policy),
            num(p.median_ttft_s, `${p.median_ttft_s} s`),
            num(p.p95_ttft_s, `${p.p95_ttft_s} s`),
            num(p.makespan_s, `${p.makespan_s} s`),
            num(p.tokens_per_s, int(p.tokens_per_s))
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
            { colspan: '5' },
            matching
              ? 'Same queue: 1,000 requests at t = 0, prompts 8–32, answers 16–96, 16 slots.'
              : 'The published queue was 1,000 requests at t = 0, prompts 8–32, answers 16–96, 16 slots; yours differs, so compare the shape, not the numbers.'
          )
        )
      )
    )
  );

  // What the table says, in words.
  const [nocache, cache, stat, cont] = order.map((name) => result.policies[name]);
  const findings = [];
  if (nocache && cache) {
    findings.push(
      `The KV cache alone cuts the median wait for a first token ${ratio(nocache.median_ttft_ms / cache.median_ttft_ms)} (${duration(nocache.median_ttft_ms)} → ${duration(cache.median_ttft_ms)}).`
    );
  }
  const spread = w.arrival && w.arrival.kind === 'poisson';
  if (cache && cont && spread) {
    findings.push(
      `The requests arrive over time, so when they stop arriving sets much of “all done” and of tokens/s; the TTFT columns show what each policy makes them wait (continuous batching: median ${duration(cont.median_ttft_ms)}, one at a time with the cache: ${duration(cache.median_ttft_ms)}).`
    );
  } else if (cache && cont) {
    const gain = cont.tokens_per_s / cache.tokens_per_s;
    findings.push(
      gain >= 1
        ? `Continuous batching with ${settings.slots} slots then serves ${ratio(gain)} the tokens per second of one-at-a-time serving (with the cache), and finishes the queue in ${duration(cont.makespan_ms)} instead of ${duration(cache.makespan_ms)}.`
        : `Here continuous batching with ${settings.slots} slots serves fewer tokens per second than one-at-a-time serving (${ratio(gain)}): on this model and device a step of many rows costs nearly as much per row as a step of one.`
    );
  }
  if (stat && cont) {
    findings.push(
      `Static batches wait for their longest answer; continuous batching refills a slot as soon as it frees: median TTFT ${duration(stat.median_ttft_ms)} (static) vs ${duration(cont.median_ttft_ms)} (continuous).`
    );
  }
  replace(
    $('#findings', root),
    findings.map((text) => h('li', null, text))
  );
}

// ---- plots ------------------------------------------------------------------------------------

function renderPlots(result, settings, { full, root }) {
  destroyCharts();
  const order = result.policy_order;
  ttftCdf($('#chart-cdf', root), result.policies, order);
  if (!full) return;

  const staticName = findPolicy(order, POLICY_ROLES.staticBatches);
  const contName = findPolicy(order, POLICY_ROLES.continuous);
  const tl = (name) => (name && result.policies[name].timeline) || [];
  const requestsShown = new Set([...tl(staticName), ...tl(contName)].map((t) => t.request)).size;
  replace($('#timeline-count', root), String(requestsShown));
  replace(
    $('#timeline-legend', root),
    legendSwatches([
      { label: 'prefill (reading the prompt, first token)', color: PHASE_COLORS.prefill },
      { label: 'decode (one token per step)', color: PHASE_COLORS.decode },
    ])
  );
  const xMax = Math.max(1e-9, ...tl(staticName).map((t) => t.end_ms), ...tl(contName).map((t) => t.end_ms));
  const hover = $('#gantt-hover', root);
  const onHover = (bar) => {
    replace(
      hover,
      bar
        ? `Request ${bar.request + 1}, slot ${bar.slot + 1}: ${bar.phase} from ${duration(bar.start_ms)} to ${duration(bar.end_ms)}.`
        : 'Point at a bar to see its request.'
    );
  };
  const unit = timelineUnit(xMax);
  const lastFinish = (name) => Math.max(0, ...tl(name).map((t) => t.end_ms));
  if (staticName) {
    replace(
      $('#gantt-static-caption', root),
      `${policyLabel(staticName)}: the first ${requestsShown} requests are done at ${duration(lastFinish(staticName))}`
    );
    gantt($('#chart-gantt-static', root), tl(staticName), { slots: settings.slots, xMaxMs: xMax, onHover });
  }
  if (contName) {
    replace(
      $('#gantt-continuous-caption', root),
      `${policyLabel(contName)}: done at ${duration(lastFinish(contName))}`
    );
    gantt($('#chart-gantt-continuous', root), tl(contName), { slots: settings.slots, xMaxMs: xMax, onHover });
  }

  const { rows, contexts, ms: grid } = result.steps.decode;
  stepChart($('#chart-rows', root), {
    xs: rows,
    xLabel: 'rows',
    lines: contexts.map((c, j) => ({ label: `context ${c}`, values: rows.map((_, i) => grid[i][j]) })),
  });
  stepChart($('#chart-context', root), {
    xs: contexts,
    xLabel: 'context',
    lines: rows.map((r, i) => ({ label: count(r, 'row'), values: grid[i] })),
  });
}

// root: the results panel's element, whose parts it fills.
export function renderResult(result, settings, { full, root }) {
  $('#results', root).hidden = false;
  renderPartA(result, root);
  renderPartB(result, settings, root);
  renderPlots(result, settings, { full, root });
}
