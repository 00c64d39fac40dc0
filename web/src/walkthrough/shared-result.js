// "Your device" against "the shared one", chapter by chapter: each chapter's figures from two share
// records (runs/share.js: this page's last result, and the one a link carried), as a small table under
// the chapter. The memory chapter simulates on each device's own table and is not compared. Each figure
// reads as its chapter writes it (shared/format.js); a noisy one (the record's noisy flags) carries a mark
// with its spread.

import { h, replace, tableHead } from '../shared/dom.js';
import { count, duration, int, rate, ratio, spread } from '../shared/format.js';
import { policyLabel } from '../shared/policies.js';
import { stepsByRows } from '../shared/steps.js';

// A figure's text and, when it is noisy, what its mark says: [text, noisy (null, or the mark's words)].
const figure = (text, noisy = null) => [text, noisy];
const NOISY_QUEUE = 'noisy: priced on noisy steps';

function answerFigures(answer) {
  const noisyPath = (path) => (answer.noisy || []).find((p) => p.path === path);
  const mark = (path) => (noisyPath(path) ? `noisy: ${spread(noisyPath(path).spread)}` : null);
  const anyNoisy = (answer.noisy || []).length > 0;
  return [
    ['Answer without a cache', figure(duration(answer.nocache_ms), mark('nocache'))],
    ['Answer with the KV cache', figure(duration(answer.cache_ms), mark('cache'))],
    [
      'The cache’s speed-up',
      figure(ratio(answer.ratio ?? answer.nocache_ms / answer.cache_ms), anyNoisy ? 'noisy: from a noisy time' : null),
    ],
  ];
}

function rowsFigures(steps) {
  const { context, points } = stepsByRows(steps);
  const first = points[0];
  const last = points[points.length - 1];
  const cell = (p) => (steps.decode.noisy || []).find((c) => c.rows === p.rows && c.context === context);
  const mark = (p) => (cell(p) ? `noisy: ${spread(cell(p).spread)}` : null);
  return [
    [`One step, ${count(first.rows, 'row')}, context ${context}`, figure(duration(first.step_ms), mark(first))],
    [`One step, ${count(last.rows, 'row')}, context ${context}`, figure(duration(last.step_ms), mark(last))],
    [`Tokens a second at ${count(last.rows, 'row')}`, figure(rate(last.tokens_per_s), mark(last))],
  ];
}

// record -> the chapter's rows as [label, [text, noisy]]; null: the chapter is not compared.
const FIGURES = {
  tokens: (r) => [
    ['Prompt + answer tokens', figure(`${int(r.answer.prompt_tokens)} + ${int(r.answer.answer_tokens)}`)],
  ],
  cache: (r) => answerFigures(r.answer),
  rows: (r) => rowsFigures(r.steps),
  queue: (r) =>
    Object.entries(r.policies).map(([name, totals]) => [
      `${policyLabel(name)}: the queue served in`,
      figure(duration(totals.makespan_ms), r.noisy ? NOISY_QUEUE : null),
    ]),
};

// A comparison cell: the figure's text, and its mark when it is noisy.
function figureCell([text, noisy]) {
  return h(
    'td',
    noisy ? { class: 'noisy', dataset: { noisy: 'true' } } : null,
    text,
    noisy ? ' ' : null,
    noisy ? h('span', { class: 'noisy-mark' }, noisy) : null
  );
}

function deviceText(device) {
  return `${device.browser} on ${device.platform}${device.logical_cores ? `, ${device.logical_cores} cores` : ''}`;
}

// The chapter's compared figures: [{label, mine, theirs}], each figure [text, noisy] (mine: null before
// this page has run, or where its record lacks the figure), or null when the chapter is not compared.
export function comparisonRows(chapter, mine, shared) {
  const figures = FIGURES[chapter];
  if (!figures) return null;
  const ours = new Map(mine ? figures(mine) : []);
  return figures(shared).map(([label, theirs]) => ({ label, mine: ours.get(label) || null, theirs }));
}

// The chapter's comparison table, or null when the chapter is not compared. mine: this page's record
// or null (not run yet).
export function comparisonTable(chapter, mine, shared) {
  const rows = comparisonRows(chapter, mine, shared);
  if (!rows) return null;
  return h(
    'table',
    { class: 'chapter-compare' },
    h('caption', null, `Your device against the shared one (${deviceText(shared.device)})`),
    tableHead('Figure', 'Your device', 'The shared one'),
    h(
      'tbody',
      null,
      rows.map((row) =>
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, row.label),
          row.mine ? figureCell(row.mine) : h('td', null, mine ? '–' : 'press Run'),
          figureCell(row.theirs)
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
