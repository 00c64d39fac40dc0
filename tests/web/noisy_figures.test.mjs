// Noisy figures (shared/noisy.js): a figure whose spread stayed wide after re-timing is shown with its
// spread and never turned into a finding, in the chapters' words, the busy texts and the share link's
// record. Results are built here (tests/web/fixtures/noisy-result.mjs), with no device timing.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATALOG } from '../../web/src/generated/catalog.js';
import { noisyAnswerPaths, noisyCellsText, noisyDecodeCell, noisyText } from '../../web/src/shared/noisy.js';
import { busyRowsText, fasterWithMoreRows } from '../../web/src/shared/contradictions.js';
import { explanation as rowsWords, statedGain, threadsWords } from '../../web/src/chapters/rows/words.js';
import { explanation as cacheWords } from '../../web/src/chapters/cache/words.js';
import { introParagraphs } from '../../web/src/chapters/queue/words.js';
import { comparisonRows } from '../../web/src/walkthrough/shared-result.js';
import { shareRecord } from '../../web/src/runs/share.js';
import { stepsByRows } from '../../web/src/shared/steps.js';
import { remeasureContradictions } from '../../web/src/worker/remeasure.js';
import { injectedResult, preparedFor } from './fixtures/noisy-result.mjs';

const NOISY_16 = { grid: 'decode', rows: 16, context: 64, spread: 0.82 };

test('a noisy cell is found by its grid, rows and context, and said with its spread', () => {
  const { steps } = injectedResult({ noisyCells: [NOISY_16] });
  assert.deepEqual(noisyDecodeCell(steps, 16, 64), NOISY_16);
  assert.equal(noisyDecodeCell(steps, 16, 8), null);
  assert.equal(noisyDecodeCell(steps, 1, 64), null);
  assert.equal(noisyText(0.82), '±41%, timed again, the device was busy');
  assert.match(
    noisyCellsText(steps),
    /^Noisy figures: the 16 rows at context 64 decode step \(±41%, timed again, the device was busy\)/
  );
  assert.equal(noisyCellsText(injectedResult().steps), null);
  assert.equal(noisyCellsText({ model: {} }), null, 'a table made before spreads were kept');
});

test('Part A’s noisy paths are those whose spread passes the limit, only when the answer is noisy', () => {
  const answer = { noisy: true, nocache_ms: { spread: 0.82 }, cache_ms: { spread: 0.05 } };
  assert.deepEqual(noisyAnswerPaths(answer, 0.25), [{ path: 'nocache', spread: 0.82 }]);
  assert.deepEqual(noisyAnswerPaths({ ...answer, noisy: false }, 0.25), []);
  assert.deepEqual(noisyAnswerPaths({ nocache_ms: { median: 1 }, cache_ms: { median: 1 } }), []);
});

test('chapter 3 over a noisy 16-row step: the step with its spread, no rows gain and no story drawn from it', () => {
  const { steps } = injectedResult({ noisyCells: [NOISY_16] });
  const byRows = stepsByRows(steps);
  const words = rowsWords(byRows, steps).join(' ');
  assert.match(words, /16 rows: 8\.7 ms a step \(noisy: ±41%, timed again, the device was busy\)/);
  assert.doesNotMatch(words, /as many/);
  assert.doesNotMatch(words, /Why the extra rows ride along/);
  assert.match(words, /no conclusion is drawn from them/);
  assert.equal(statedGain(byRows, steps), null);
});

test('chapter 3 over quiet steps: the rows gain and why', () => {
  const { steps } = injectedResult();
  const byRows = stepsByRows(steps);
  const words = rowsWords(byRows, steps).join(' ');
  assert.match(words, /as many\)/);
  assert.match(words, /Why the extra rows ride along/);
  assert.doesNotMatch(words, /noisy/);
  assert.ok(statedGain(byRows, steps) > 1);
});

test('a 16-row step faster than one on one thread is never read as a rows gain of 18.1×', () => {
  // 16 × 56 / 49.5 = 18.1: the one-row step on one thread timed while the device was busy.
  const { steps } = injectedResult({ oneThread: { 1: 56, 2: 40, 4: 42, 8: 45, 16: 49.5 } });
  const one = stepsByRows({ decode: steps.one_thread_decode });
  const words = threadsWords(one, stepsByRows(steps), 2);
  assert.doesNotMatch(words, /rows gain with/);
  assert.doesNotMatch(words, /18\.1×/);
  assert.match(words, /on one thread 16 rows took 49\.5 ms a step against 56 ms for 1 row \(±6.2% apart\)/);
  assert.match(words, /The device was busy/);
});

test('a contradiction that persists after re-timing is said with each cell’s spread', () => {
  const found = fasterWithMoreRows({
    points: [
      { rows: 4, step_ms: 12.1 },
      { rows: 8, step_ms: 10.2 },
    ],
  });
  const text = busyRowsText(found, [
    { rows: 4, context: 64, before_ms: 12.1, after_ms: 12.5, replaced: false },
    { rows: 8, context: 64, before_ms: 10.2, after_ms: 10.4, replaced: false },
  ]);
  assert.match(text, /^This device was busy while measuring: 8 rows took 10\.2 ms a step against 12\.1 ms for 4/);
  assert.match(
    text,
    /4 rows at context 64: 12\.1 ms, then 12\.5 ms \(±1\.6%\); 8 rows at context 64: 10\.2 ms, then 10\.4 ms \(±0\.97%\)/
  );
});

test('chapter 2 with differing tokens: where they part and why, no “disagrees with the reference”', () => {
  const { answer } = injectedResult();
  const words = cacheWords({ ...answer, identical_tokens: false, tokens_cache: [5, 6, 9] }).join(' ');
  assert.doesNotMatch(words, /disagrees|reference/);
  assert.match(words, /The two answers part at token 3 \(marked ✗ from there\)/);
  assert.match(words, /nearly tied/);
});

test('chapter 2 with a noisy path: its spread, and the ratio not read as the speed-up', () => {
  const spread = CATALOG.limits.timing.noisy_spread;
  const { answer } = injectedResult({ answerSpreads: { nocache: spread * 3, cache: spread / 2 } });
  const words = cacheWords(answer).join(' ');
  assert.match(
    words,
    /Without a cache: 812 ms \(noisy: ±\d+%, the device was busy\)\. With it: 203 ms \(medians of 5 runs\)\./
  );
  assert.doesNotMatch(words, /faster/);
});

test('the queue chapter names its noisy cells', () => {
  const result = injectedResult({ noisyCells: [NOISY_16, { grid: 'prefill', tokens: 1, spread: 0.5 }] });
  const [first] = introParagraphs(result, result.policy_order, preparedFor(result));
  assert.match(
    first,
    /^This queue is priced on the step table\. Noisy figures: the 16 rows at context 64 decode step \(±41%, timed again, the device was busy\); a 1-token prefill \(±25%/
  );
});

test('the share link carries the noisy flags, and the comparison marks those figures', () => {
  const noisy = shareRecord(injectedResult({ noisyCells: [NOISY_16] }));
  const quiet = shareRecord(injectedResult());
  assert.deepEqual(noisy.steps.decode.noisy, [{ rows: 16, context: 64, spread: 0.82 }]);
  assert.equal(noisy.noisy, true);
  assert.deepEqual(quiet.steps.decode.noisy, []);
  assert.equal(quiet.noisy, false);
  const rows = comparisonRows('rows', quiet, noisy);
  assert.deepEqual(
    rows.map((r) => [r.mine[1], r.theirs[1]]),
    [
      [null, null],
      [null, 'noisy: ±41%'],
      [null, 'noisy: ±41%'],
    ]
  );
  const queue = comparisonRows('queue', quiet, noisy);
  assert.ok(queue.every((r) => r.mine[1] === null && r.theirs[1] === 'noisy: priced on noisy steps'));
  // A link made before the flags existed marks nothing.
  const { noisy: _, ...old } = noisy;
  const oldRows = comparisonRows('queue', quiet, {
    ...old,
    steps: { decode: { ...old.steps.decode, noisy: undefined } },
  });
  assert.ok(oldRows.every((r) => r.theirs[1] === null));
});

test('a 1-token prompt pass slower than 8: timed again, and said busy with the spread when it persists', async () => {
  const result = injectedResult();
  result.steps.prefill = { tokens: [1, 8], ms: [14, 12] };
  const asked = [];
  const timings = {
    async decodeAndPrefill(rows, contexts, tokens) {
      asked.push(tokens);
      return { decode: result.steps.decode.ms, prefill: [13.5, 11] };
    },
  };
  const settled = await remeasureContradictions(result, timings, () => result.policies);
  assert.deepEqual(asked, [[1, 8]]);
  assert.equal(settled.steps.remeasured_queue.replaced, false);
  assert.deepEqual(settled.steps.prefill.ms, [14, 12], 'the first figures stand');
  const [first] = introParagraphs(settled, settled.policy_order, preparedFor(settled));
  assert.match(
    first,
    /^This device was busy while measuring: timed twice, a 1-token prompt pass took 13\.5 ms against 11 ms for 8 tokens \(±10%/
  );
});

test('a prompt pass that comes back in order on its second timing replaces the first', async () => {
  const result = injectedResult();
  result.steps.prefill = { tokens: [1, 8], ms: [14, 12] };
  const timings = { decodeAndPrefill: async () => ({ decode: result.steps.decode.ms, prefill: [3.9, 12.4] }) };
  const settled = await remeasureContradictions(result, timings, () => result.policies);
  assert.equal(settled.steps.remeasured_queue.replaced, true);
  assert.deepEqual(settled.steps.prefill.ms, [3.9, 12]);
  const words = introParagraphs(settled, settled.policy_order, preparedFor(settled)).join(' ');
  assert.doesNotMatch(words, /busy/);
});
