// The replay panel's sentence about the after-prompt part, on a hand-made result: the ratios it quotes,
// the counts of policies within the target with the part and on the grid alone, and nothing without it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { afterPromptFinding } from '../../web/src/panels/replay/words.js';

const part = { prompt_rows: [8, 16, 32, 64, 128], ratio: [[1.0, 1.0], [1.02, 1.0], [1.37, 1.2], [1.6, 1.4], [1.8, 1.7]], rounds: 8 };
const policy = (error, gridOnly) => ({ error, error_grid_only: gridOnly, step_table: { after_prompt: part } });
const within = { median_ttft: -0.01, makespan: 0.02 };
const outside = { median_ttft: -0.09, makespan: -0.04 };

test('quotes the first pass after 32 and 128 tokens, and both counts', () => {
  const r = { policies: { 'static:8': policy(within, outside), 'continuous:8': policy(within, outside), 'serial-cache': policy(outside, within) } };
  const text = afterPromptFinding(r, ['serial-cache', 'static:8', 'continuous:8'], 0.05);
  assert.match(text, /after a prompt pass of 32 tokens took 1\.37× its time at rest, and after one of 128 tokens 1\.8×/);
  assert.match(text, /Priced on the step grid alone, 1 of 3 policies would have been within ±5% \(with it: 2\)\./);
});

test('says nothing without the part', () => {
  const r = { policies: { 'static:8': { error: within, step_table: {} } } };
  assert.equal(afterPromptFinding(r, ['static:8'], 0.05), '');
});
