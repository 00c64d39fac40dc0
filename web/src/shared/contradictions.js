// Measurements that contradict the story a chapter tells: when the device was busy while it measured,
// a step with more rows can come out faster than one with fewer, or a policy order the physics forbids
// (one at a time with the cache slower than without it). A chapter that finds one says so instead
// of telling the usual story over numbers that deny it.

import { count, duration, int, spread } from './format.js';
import { twoTimingsSpread } from './noisy.js';
import { POLICY_ROLES, findPolicy, policyIs, policyLabel } from './policies.js';

// Beyond this fraction, a difference is not the clock's noise.
export const NOISE_FRACTION = 0.1;

// byRows: shared/steps.js's stepsByRows(). Returns [{rows, step_ms, fewer_rows, fewer_ms}]: each row
// count whose step was faster, beyond noise, than a step with fewer rows.
export function fasterWithMoreRows(byRows) {
  const found = [];
  byRows.points.forEach((point, i) => {
    const slower = byRows.points.slice(0, i).find((p) => point.step_ms < p.step_ms * (1 - NOISE_FRACTION));
    if (slower)
      found.push({ rows: point.rows, step_ms: point.step_ms, fewer_rows: slower.rows, fewer_ms: slower.step_ms });
  });
  return found;
}

// decode: a step table's decode grid ({rows, contexts, ms}). Returns [{rows, context, step_ms}]: every cell
// on either side of a step that came out faster with more rows, at any context: the cells to time again.
export function brokenDecodeCells(decode) {
  const cells = [];
  decode.contexts.forEach((context, j) => {
    const points = decode.rows.map((rows, i) => ({ rows, step_ms: decode.ms[i][j] }));
    for (const found of fasterWithMoreRows({ points }))
      for (const rows of [found.fewer_rows, found.rows])
        if (!cells.some((c) => c.rows === rows && c.context === context))
          cells.push({ rows, context, step_ms: decode.ms[decode.rows.indexOf(rows)][j] });
  });
  return cells;
}

// result: the lab's result (policies with makespan_ms). Returns [{slower, faster, slower_ms, faster_ms}]:
// pairs whose order the physics forbids, beyond noise. One pair is: the cache only removes work (a token's
// prompt pass over its whole prefix never costs less than one decode row at that context). Static batches
// slower than one at a time is not forbidden: a static batch decodes every row until its longest answer
// ends, so on a model whose 16-row step costs over about ten one-row steps it is slower by arithmetic
// (docs/log/2026-12-07-policy-order-check.md: the tiny and lab presets on a quiet host).
export function forbiddenPolicyOrders(result) {
  const names = Object.keys(result.policies || {});
  const pairs = [
    [
      findPolicy(names, POLICY_ROLES.oneAtATimeWithCache),
      names.find((n) => policyIs(n, POLICY_ROLES.oneAtATime) && policyIs(n, POLICY_ROLES.noCache)),
    ],
  ];
  return pairs
    .filter(([should, than]) => should && than)
    .map(([should, than]) => ({
      slower: should,
      faster: than,
      slower_ms: result.policies[should].makespan_ms,
      faster_ms: result.policies[than].makespan_ms,
    }))
    .filter((pair) => pair.slower_ms > pair.faster_ms * (1 + NOISE_FRACTION));
}

// prefill: a step table's prefill ({tokens, ms}). Returns [{tokens, step_ms, more_tokens, more_ms}]: each
// prompt pass slower, beyond noise, than one of more tokens, which does all its work and more.
export function slowerWithFewerTokens(prefill) {
  const found = [];
  prefill.tokens.forEach((tokens, i) => {
    const k = prefill.tokens.findIndex((t, j) => t > tokens && prefill.ms[j] < prefill.ms[i] * (1 - NOISE_FRACTION));
    if (k >= 0) found.push({ tokens, step_ms: prefill.ms[i], more_tokens: prefill.tokens[k], more_ms: prefill.ms[k] });
  });
  return found;
}

const BUSY = 'This device was busy while measuring:';

// The cells a busy sentence quotes; past them it says how many more.
const CELLS_QUOTED = 4;

// Each cell timed twice, with the two timings' spread.
const cellsText = (cells) =>
  cells
    .slice(0, CELLS_QUOTED)
    .map(
      (c) =>
        `${count(c.rows, 'row')} at context ${int(c.context)}: ${duration(c.before_ms)}, then ${duration(c.after_ms)} (${spread(twoTimingsSpread(c.before_ms, c.after_ms))})`
    )
    .join('; ') + (cells.length > CELLS_QUOTED ? `; and ${count(cells.length - CELLS_QUOTED, 'other cell')}` : '');

// found: fasterWithMoreRows(); remeasured: steps.remeasured (worker/remeasure.js), the cells timed a
// second time, or undefined. Says the device was busy, with the timings and their spread, and draws no
// finding from them.
export function busyRowsText(found, remeasured) {
  const cases = found.map(
    (f) =>
      `${int(f.rows)} rows took ${duration(f.step_ms)} a step against ${duration(f.fewer_ms)} for ${int(f.fewer_rows)}`
  );
  const again =
    remeasured && remeasured.length
      ? ` Timed a second time, the cells still disagreed (${cellsText(remeasured)}), so the first figures stand.`
      : '';
  return `${BUSY} ${cases.join('; ')}, though a step with more rows does more work.${again} These times are noisy, so the story of why extra rows ride along is not told over them: run again when the device is idle.`;
}

// The cells that came out faster with more rows and were replaced by a second timing that agreed.
export function remeasuredText(remeasured) {
  return `Some steps first came out faster with more rows, which the work they do forbids, so those cells were timed a second time and the second figures are the ones shown (${cellsText(remeasured)}).`;
}

const ordersText = (found) =>
  found
    .map(
      (f) =>
        `${policyLabel(f.slower)} served the queue in ${duration(f.slower_ms)} against ${duration(f.faster_ms)} for ${policyLabel(f.faster)}`
    )
    .join('; ');

// again: steps.remeasured_queue (worker/remeasure.js), when the table's steps were timed a second time.
export function busyQueueText(found, again) {
  const timedAgain = again
    ? ` The decode and prefill steps were timed a second time, and with each step’s faster time the queue still came out in this order (${ordersText(again.orders_after)}), so the first figures stand.`
    : '';
  return `${BUSY} ${ordersText(found)}, which the arithmetic forbids.${timedAgain} The step times under this queue are noisy, so read the comparison below with care, or run again when the device is idle.`;
}

// The queue's first order contradicted the arithmetic, and the table timed a second time settled it.
export function queueRemeasuredText(again) {
  return `At first, ${ordersText(again.orders)}, which the arithmetic forbids, so the decode and prefill steps were timed a second time: each step keeps the faster of its two times, the queue priced on them comes out in the physics’ order, and those are the figures shown.`;
}

// found: slowerWithFewerTokens() of the table the queue is priced on, after it was timed a second time.
export function busyPrefillText(found) {
  const cases = found.map(
    (f) =>
      `a ${int(f.tokens)}-token prompt pass took ${duration(f.step_ms)} against ${duration(f.more_ms)} for ${int(f.more_tokens)} tokens (${spread(twoTimingsSpread(f.step_ms, f.more_ms))} apart)`
  );
  return `${BUSY} timed twice, ${cases.join('; ')}, though the longer prompt does all the shorter one’s work and more. The queue’s prices lean on these steps, so read them with care, or run again when the device is idle.`;
}
