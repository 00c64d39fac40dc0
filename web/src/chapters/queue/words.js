// Chapter 4's words: the explanation beside the picture and the sentences the live caption says.
// Every number comes from the run's result.

import { count, duration, int } from '../../shared/format.js';
import { POLICY_ROLES, findPolicy, policyIs, policyLabel } from '../../shared/policies.js';
import {
  busyPrefillText,
  busyQueueText,
  forbiddenPolicyOrders,
  queueRemeasuredText,
} from '../../shared/contradictions.js';
import { noisyCellsText } from '../../shared/noisy.js';

export const TITLE = 'The queue';

function range(pair) {
  return Array.isArray(pair) ? `${pair[0]}–${pair[1]}` : String(pair);
}

// The paragraphs beside the figure. order: the policy names shown; prepared: name -> prepareQueue().
export function introParagraphs(result, order, prepared) {
  const w = result.workload || {};
  const requests = prepared[order[0]].count;
  const stat = findPolicy(order, POLICY_ROLES.staticBatches);
  const cont = findPolicy(order, POLICY_ROLES.continuous);
  const slots = cont ? prepared[cont].slots : stat ? prepared[stat].slots : 1;
  // The queue's time is the policy's makespan, the figure the share link and the bench's table give too.
  const done = (name) => duration(result.policies[name].makespan_ms);
  const out = [
    `${int(requests)} people send a question to one server at ${w.arrival && w.arrival.kind === 'poisson' ? 'random moments' : 'the same moment'}: ` +
      `${w.prompts === 'stories' ? 'each prompt one of our own story openings' : `prompts of ${range(w.prompt)} tokens`}, answers of ${range(w.answer)} tokens. Each row of dots below is the crowd: ` +
      'grey dots wait, coloured dots sit in a seat of the server, pale dots have their whole answer.',
    'A seat is a row of the batch the server computes in one step. Its bar grows as the KV cache of that request ' +
      'grows: the prompt first (read in one prefill), then one answer token per step.',
  ];
  if (stat && cont) {
    out.push(
      `Static batches seat ${prepared[stat].slots} people at a time and start the next batch only when the longest ` +
        'answer of the batch is done: a seat whose answer is finished stays held, striped, until then. ' +
        `Continuous batching hands a freed seat to the next person at once. Here the whole queue is done in ${done(stat)} ` +
        `with static batches and in ${done(cont)} with continuous batching, on ${slots} seats each, on this device's step times.`
    );
  }
  const serial = order.filter((name) => policyIs(name, POLICY_ROLES.oneAtATime));
  if (serial.length) {
    out.push(
      `One at a time, the same queue takes ${serial.map((name) => `${done(name)} ${policyIs(name, POLICY_ROLES.noCache) ? 'without a cache' : 'with the cache'}`).join(' and ')}: ` +
        'the four run on one clock, so the slow ones are still near the start of the crowd when the batched ones finish.'
    );
  }
  out.push(
    'The histogram under each server fills with the time to first token of everyone served so far: the four share one time axis, and the number at the top of each is the count of its tallest bar when the queue is done.'
  );
  const noisy = noisyCellsText(result.steps);
  if (noisy) out.unshift(`This queue is priced on the step table. ${noisy}`);
  const forbidden = forbiddenPolicyOrders(result);
  const again = result.steps && result.steps.remeasured_queue;
  if (again && again.prefill_after && again.prefill_after.length) out.unshift(busyPrefillText(again.prefill_after));
  if (forbidden.length) return [busyQueueText(forbidden, again), ...out];
  return again && again.replaced && again.orders.length ? [queueRemeasuredText(again), ...out] : out;
}

export function panelLabel(name) {
  return policyLabel(name);
}

// One policy's line: "16 in seats (4 idle, padding), 700 waiting, 284 done".
export function countsText(state) {
  const seats =
    `${count(state.seated + state.idle, 'seat')} held` + (state.idle ? ` (${int(state.idle)} idle: padding)` : '');
  return `${seats}, ${int(state.waiting)} waiting, ${int(state.done)} done`;
}

// What the caption says at t: the clock, what the step changed, and each policy's counts.
export function describeStep(t, order, states, changes) {
  const head = `At ${duration(t)}:`;
  const what = changes.length ? ` ${changes.join('; ')}.` : '';
  const lines = order.map((name) => `${policyLabel(name)}: ${countsText(states[name])}.`);
  return `${head}${what} ${lines.join(' ')}`;
}

// What happened exactly at t under one policy, in words ("admitted 3, first tokens 1, finished 2").
export function changesAt(name, q, t) {
  let admitted = 0;
  let first = 0;
  let finished = 0;
  for (let i = 0; i < q.stints.start_ms.length; i += 1) if (q.stints.start_ms[i] === t) admitted += 1;
  for (let r = 0; r < q.count; r += 1) {
    if (q.requests.first_token_ms[r] === t) first += 1;
    if (q.requests.finish_ms[r] === t) finished += 1;
  }
  const parts = [];
  if (admitted) parts.push(`${int(admitted)} seated`);
  if (first) parts.push(count(first, 'first token'));
  if (finished) parts.push(`${int(finished)} finished`);
  return parts.length ? `${policyLabel(name)} ${parts.join(', ')}` : null;
}
