// "Your device" against "the shared one", chapter by chapter: each chapter's figures from two share
// records (runs/share.js: this page's last result, and the one a link carried), as a small table under
// the chapter. The memory chapter simulates on each device's own table and is not compared.

import { h, replace, tableHead } from '../shared/dom.js';
import { count, duration, int, ratio } from '../shared/format.js';
import { policyLabel } from '../shared/policies.js';
import { stepsByRows } from '../shared/steps.js';

// record -> the chapter's rows as [label, text]; null: the chapter is not compared.
const FIGURES = {
  tokens: (r) => [['Prompt + answer tokens', `${int(r.answer.prompt_tokens)} + ${int(r.answer.answer_tokens)}`]],
  cache: (r) => [
    ['Answer without a cache', duration(r.answer.nocache_ms)],
    ['Answer with the KV cache', duration(r.answer.cache_ms)],
    ['The cache’s speed-up', ratio(r.answer.nocache_ms / r.answer.cache_ms)],
  ],
  rows: (r) => {
    const { context, points } = stepsByRows(r.steps);
    const first = points[0];
    const last = points[points.length - 1];
    return [
      [`One step, ${count(first.rows, 'row')}, context ${context}`, duration(first.step_ms)],
      [`One step, ${last.rows} rows, context ${context}`, duration(last.step_ms)],
      [`Tokens a second at ${last.rows} rows`, int(last.tokens_per_s)],
    ];
  },
  queue: (r) =>
    Object.entries(r.policies).map(([name, totals]) => [
      `${policyLabel(name)}: the queue served in`,
      duration(totals.makespan_ms),
    ]),
};

function deviceText(device) {
  return `${device.browser} on ${device.platform}${device.logical_cores ? `, ${device.logical_cores} cores` : ''}`;
}

// The chapter's comparison table, or null when the chapter is not compared. mine: this page's record
// or null (not run yet).
export function comparisonTable(chapter, mine, shared) {
  const figures = FIGURES[chapter];
  if (!figures) return null;
  const theirs = figures(shared);
  const ours = new Map(mine ? figures(mine) : []);
  return h(
    'table',
    { class: 'chapter-compare' },
    h('caption', null, `Your device against the shared one (${deviceText(shared.device)})`),
    tableHead('Figure', 'Your device', 'The shared one'),
    h(
      'tbody',
      null,
      theirs.map(([label, text]) =>
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, label),
          h('td', null, ours.get(label) || (mine ? '–' : 'press Run')),
          h('td', null, text)
        )
      )
    )
  );
}

// Fills (or empties) each chapter's comparison place: places is [{chapter, element}].
export function showComparisons(places, mine, shared) {
  for (const { chapter, element } of places) {
    const table = shared ? comparisonTable(chapter, mine, shared) : null;
    replace(element, table);
    element.hidden = !table;
  }
}
