// Chapter 5's words. Every number comes from the Memory section's run.

import { count, duration, int, sig } from '../../shared/format.js';
import { POLICY_ROLES, findPolicy, policyLabel } from '../../shared/policies.js';

export const TITLE = 'Memory';

export function introParagraphs(plan, shown, prepared) {
  const first = prepared[shown[0]].memory;
  const budget = first.budget_blocks;
  const count = prepared[shown[0]].queue.count;
  const lab = plan.lab_settings || {};
  // On a real model the queue is the lab's story requests (plans/lab-queue.js).
  const stories = lab.stories
    ? `, each prompt one of our own story openings (${lab.prompt_lo}–${lab.prompt_hi} tokens in ${lab.model_name}’s tokenizer, the lab’s queue) answered on ${lab.model_name}’s measured step times,`
    : '';
  const out = [
    `The KV cache lives in memory, and memory runs out. Here it is cut into ${budget ? int(budget) : 'as many as needed'} blocks of ` +
      `${first.block_tokens} tokens (each square below is a block), and ${int(count)} requests${stories} arrive at random, ` +
      `${sig(plan.rate, 3)} a second on average.`,
  ];
  const reserve = findPolicy(shown, POLICY_ROLES.reserve);
  const paged = findPolicy(shown, POLICY_ROLES.paged);
  if (reserve) {
    const r = plan.results[reserve];
    out.push(
      `Reserving takes blocks for the prompt plus the longest answer a request might give, at admission, and holds them to the end: ` +
        `the pale squares are held but hold no KV yet. Averaged over the run, ${sig(r.waste_pct, 3)}% of the token space held stayed empty.`
    );
  }
  if (paged) out.push(pagedParagraph(plan.results[paged], reserve && plan.results[reserve]));
  out.push(
    `The 95th-percentile time to first token: ${shown.map((name) => `${policyLabel(name)} ${duration(plan.results[name].p95_ttft_ms)}`).join(', ')}.`
  );
  return out;
}

// What paged memory did in this run: fitting more requests at once than reserve only where it did (a
// modeled server's results carry requests_at_once), and preemptions only where there were some.
function pagedParagraph(p, r) {
  const alike =
    r && p.requests_at_once && r.requests_at_once && p.requests_at_once.peak <= r.requests_at_once.peak
      ? ` Not in this run: both ran at most ${int(p.requests_at_once.peak)} requests at once.`
      : '';
  const preempted = p.preemptions
    ? `When a step needs a block and none is free, the request admitted last is preempted: its blocks are freed and it goes back to the front of the queue, ` +
      `to recompute its KV later. That happened ${count(p.preemptions, 'time')} in this run ` +
      `(${int(p.recomputed_tokens)} tokens recomputed); each one flashes red below.`
    : `Had a step needed a block with none free, the request admitted last would have been preempted (its blocks freed, its KV ` +
      `recomputed later); in this run memory never ran short, so nothing was preempted.`;
  return `Paged memory gives a request a block only when its next token needs one, so more requests can fit at once.${alike} ${preempted}`;
}

export function countsText(state, memory) {
  const limit = memory.budget_blocks ? ` of ${int(memory.budget_blocks)}` : '';
  return (
    `${int(state.held)}${limit} blocks held, ${int(Math.ceil(state.used_blocks))} filled with KV; ` +
    `${count(state.preemptions, 'preemption')} so far`
  );
}

export function describeStep(t, shown, states, prepared) {
  const parts = shown.map((name) => {
    const s = states[name];
    const justNow =
      s.last_preemption && s.last_preemption.t_ms === t
        ? ` Request ${s.last_preemption.request} was just preempted.`
        : '';
    return `${policyLabel(name)}: ${countsText(s, prepared[name].memory)}.${justNow}`;
  });
  return `At ${duration(t)}: ${parts.join(' ')}`;
}
