// The replay panel's sentence about the parts that price a pass by what ran before it, on a hand-made
// result: the ratios it quotes, the counts of policies within the target with the parts and on the grid
// alone, and nothing without them.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { afterPromptFinding } from '../../web/src/panels/replay/words.js';

const part = {
  prompt_rows: [8, 16, 32, 64, 128],
  ratio: [
    [1.0, 1.0],
    [1.02, 1.0],
    [1.37, 1.2],
    [1.6, 1.4],
    [1.8, 1.7],
  ],
  rounds: 8,
};
const promptPart = {
  tokens: [8, 32, 128],
  decode_rows: [1, 8],
  after_decode: [
    [1.0, 1.06, 1.01],
    [1.0, 1.0, 1.0],
  ],
  after_prompt: [
    [1, 1, 1],
    [1, 1, 1],
    [1, 1, 1],
  ],
};
const policy = (error, gridOnly, stepTable = { after_prompt: part, prompt_pass: promptPart }) => ({
  error,
  error_grid_only: gridOnly,
  step_table: stepTable,
});
const within = { median_ttft: -0.01, makespan: 0.02 };
const outside = { median_ttft: -0.09, makespan: -0.04 };

test('quotes the first pass after 32 and 128 tokens, and both counts', () => {
  const r = {
    policies: {
      'static:8': policy(within, outside),
      'continuous:8': policy(within, outside),
      'serial-cache': policy(outside, within),
    },
  };
  const text = afterPromptFinding(r, ['serial-cache', 'static:8', 'continuous:8'], 0.05);
  assert.match(
    text,
    /after a prompt pass of 32 tokens took 1\.37× its time at rest, and after one of 128 tokens 1\.8×/
  );
  assert.match(
    text,
    /and a prompt pass of 32 tokens right after a one-row decode pass 1\.06× its time right after one of its own; the simulator prices that\./
  );
  assert.match(text, /Priced on the step grid alone, 1 of 3 policies would have been within ±5% \(with it: 2\)\./);
});

test('leaves the prompt passes out without their part', () => {
  const r = { policies: { 'static:8': policy(within, outside, { after_prompt: part }) } };
  const text = afterPromptFinding(r, ['static:8'], 0.05);
  assert.match(text, /1\.8× \(measured before the runs\); the simulator prices that\./);
  assert.doesNotMatch(text, /one-row decode pass/);
});

test('says nothing without the part', () => {
  const r = { policies: { 'static:8': { error: within, step_table: {} } } };
  assert.equal(afterPromptFinding(r, ['static:8'], 0.05), '');
});
