// One figure, one text (shared/format.js): a figure reads the same in a chapter's words, in the share
// link's comparison table and in the labels that name it, since each writes it with the function for its
// unit. Before, one makespan read "1,231.9 s" in chapter 4 (the playback's end), "1,232.0 s" in the share
// table (the link kept four digits) and otherwise on a chart.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { count, duration, rate, ratio, shownDuration } from '../../web/src/shared/format.js';
import { introParagraphs } from '../../web/src/chapters/queue/words.js';
import { explanation as rowsWords } from '../../web/src/chapters/rows/words.js';
import { explanation as cacheWords } from '../../web/src/chapters/cache/words.js';
import { comparisonRows } from '../../web/src/walkthrough/shared-result.js';
import { shareRecord } from '../../web/src/runs/share.js';
import { stepsByRows } from '../../web/src/shared/steps.js';
import { injectedResult, preparedFor } from './fixtures/noisy-result.mjs';

const texts = (rows, side) => rows.map((row) => row[side][0]);

test('a makespan reads the same in the queue chapter and in both columns of the share table', () => {
  const result = injectedResult();
  const words = introParagraphs(result, result.policy_order, preparedFor(result)).join(' ');
  const record = shareRecord(result);
  const rows = comparisonRows('queue', record, record);
  for (const [i, name] of result.policy_order.entries()) {
    const text = duration(result.policies[name].makespan_ms);
    assert.equal(rows[i].mine[0], text, name);
    assert.equal(rows[i].theirs[0], text, name);
    if (name.startsWith('serial')) assert.ok(words.includes(text), `${name}: ${text} in ${words}`);
  }
  assert.equal(duration(result.policies['serial-nocache'].makespan_ms), '1,231.9 s');
  assert.ok(words.includes('1,231.9 s'));
  assert.ok(!words.includes('1,232.0 s'));
});

test('Part A’s times and ratio read the same in chapter 2 and the share table', () => {
  const result = injectedResult();
  const record = shareRecord(result);
  const [nocache, cache, speedUp] = texts(comparisonRows('cache', record, record), 'theirs');
  const words = cacheWords(result.answer).join(' ');
  assert.deepEqual([nocache, cache, speedUp], [duration(812.34), duration(203.21), ratio(812.34 / 203.21)]);
  for (const text of [nocache, cache, speedUp]) assert.ok(words.includes(text), `${text} in ${words}`);
});

test('the decode steps and tokens/s read the same in chapter 3 and the share table', () => {
  const result = injectedResult();
  const record = shareRecord(result);
  const [one, many, tokens] = texts(comparisonRows('rows', record, record), 'theirs');
  const words = rowsWords(stepsByRows(result.steps), result.steps).join(' ');
  const { points } = stepsByRows(result.steps);
  assert.equal(one, duration(points[0].step_ms));
  assert.equal(many, duration(points[4].step_ms));
  assert.equal(tokens, rate(points[4].tokens_per_s));
  for (const text of [one, many, tokens]) assert.ok(words.includes(text), `${text} in ${words}`);
});

test('a duration kept as its text shows it is written the same again', () => {
  for (let i = 0; i < 2000; i += 1) {
    const ms = 10 ** (Math.random() * 10 - 3);
    assert.equal(duration(shownDuration(ms)), duration(ms), String(ms));
  }
  for (const ms of [1231949.3, 1231950, 999.95, 0.0005, 1.005, 12345.65])
    assert.equal(duration(shownDuration(ms)), duration(ms));
});

test('a count meets its unit in the singular for one', () => {
  assert.equal(count(1, 'row'), '1 row');
  assert.equal(count(16, 'row'), '16 rows');
  assert.equal(count(0, 'slot'), '0 slots');
  assert.equal(count(1234, 'request'), '1,234 requests');
  const words = rowsWords(stepsByRows(injectedResult().steps), injectedResult().steps).join(' ');
  assert.match(words, /1 row: /);
  assert.doesNotMatch(words, /\b1 rows\b/);
});
