// What the Memory section says: the budget worked through, the run's summary, where p95 TTFT crosses
// the target, the table's footnote, and the findings under the charts.

import { REAL_CONTEXT, deviceBudget, longestRequest } from './config.js';
import { bytes, count, duration, int, pct, sig, rate } from '../../shared/format.js';
import { kvFormatWord } from '../kv-calculator/index.js';
import { POLICY_ROLES, findPolicy } from '../../shared/policies.js';

// device: the example chosen (or undefined for a number of tokens); errors: the form's; toy: the toy
// model's {preset, kv (its KV cache format), bytes} per token, or null.
export function budgetExplanation({ device, settings, errors, lab, tokens, toy }) {
  const parts = [];
  if (device && !errors.block && !errors.system_prompt) {
    const b = deviceBudget(device, settings, lab);
    parts.push(
      `${device.gpu} holds ${sig(device.gib, 3)} GiB; ${device.model}’s ${device.weights.split(',')[0]} take ${sig((device.params * device.bytes_per_param) / 1e9, 3)} GB, leaving ${sig(b.free_bytes / 1e9, 3)} GB for the KV cache: ${int(b.real_tokens)} tokens at ${bytes(device.kv_bytes_per_token)} each, ${sig(b.conversations, 3)} conversations of ${int(REAL_CONTEXT)} tokens. `,
      `This toy model’s KV cache is far smaller per token, so the same gigabytes would never run out here; what carries over is how many requests fit at once: room for ${sig(b.conversations, 3)} of this queue’s longest requests (${int(b.longest)} positions each) is ${int(b.tokens)} tokens.`
    );
  } else if (!errors.kv) {
    parts.push(
      `${int(tokens)} tokens: room for ${sig(tokens / longestRequest(settings, lab), 3)} of this queue’s longest requests (${int(longestRequest(settings, lab))} positions each).`
    );
  }
  if (!errors.kv && !errors.block && Number.isFinite(tokens)) {
    parts.push(
      ` In blocks of ${settings.block} tokens: ${int(Math.floor(tokens / settings.block))} blocks${toy ? `, ${bytes(tokens * toy.bytes)} of the ${toy.preset} model’s KV cache (${bytes(toy.bytes)} a token, ${kvFormatWord(toy.kv)})` : ''}. Activations and the server’s own memory are left out, so a real server holds somewhat less.`
    );
  }
  return parts.join('');
}

// The queue's prompts: story openings on a real model (plans/lab-queue.js), else the lab's range.
function promptsText(lab) {
  return lab.stories
    ? `each prompt one of our own story openings, ${lab.prompt_lo}–${lab.prompt_hi} tokens in ${lab.model_name}’s tokenizer`
    : `prompts ${lab.prompt_lo}–${lab.prompt_hi}`;
}

export function summary(r, budget) {
  const lab = r.lab_settings;
  const capacity = r.capacity_per_s;
  return [
    `${int(lab.requests)} requests (the lab’s queue: ${promptsText(lab)}${r.settings.system_prompt ? ` after a shared ${r.settings.system_prompt}-token system prompt` : ''}, answers ${lab.answer_lo}–${lab.answer_hi}, seed ${lab.seed}) arriving at random, ${sig(r.rate, 3)} per second on average; ${count(lab.slots, 'slot')}; a KV budget of ${int(r.kv_tokens)} tokens = ${int(budget)} blocks of ${r.block_tokens}. `,
    capacity
      ? `With the whole queue at once, continuous batching gets through ${sig(capacity, 3)} requests per second on this device; the rate here is ${r.rate / capacity > 3 ? `${sig(r.rate / capacity, 3)}×` : `${int((100 * r.rate) / capacity)}% of`} that${r.rate_auto ? ' (the “auto” rate)' : ''}.`
      : '',
  ];
}

// c: crossingRate's answer; top: the highest rate simulated.
export function crossingText(c, target, top) {
  if (!c) return `stays within ${duration(target)} up to ${rate(top, 'requests/s')}, the highest rate simulated`;
  if (c.already)
    return `is above ${duration(target)} already at ${rate(c.rate, 'requests/s')}, the lowest rate simulated`;
  return `crosses ${duration(target)} at about ${rate(c.rate, 'requests/s')}`;
}

export function tableFoot(target) {
  return `“Within targets”: requests with TTFT ≤ ${duration(target)} and time per output token ≤ 100 ms. Waste: memory held but not yet written, averaged over the run’s time. Prefix hits: prompt tokens found in cached blocks; “–” when nothing is shared (no system prompt) or the policy does not reuse (reserve).`;
}

export function findings(r, lines) {
  const out = [];
  const reserve = r.results[findPolicy(r.policies, POLICY_ROLES.reserve)];
  const paged = r.results[findPolicy(r.policies, POLICY_ROLES.paged)];
  const cont = r.results[findPolicy(r.policies, POLICY_ROLES.continuous)];
  if (reserve && paged) {
    out.push(
      `Reserve holds ${pct(reserve.waste_pct)} of the memory it takes without writing it (room for the longest answer, ${r.lab_settings.answer_hi} tokens, from admission on); paged wastes ${pct(paged.waste_pct)}, the unwritten end of each request’s last block.`
    );
    if (paged.preemptions > 0) {
      out.push(
        `When the budget ran out, paged preempted ${int(paged.preemptions)} times and computed ${int(paged.recomputed_tokens)} tokens again; median TTFT ${duration(paged.median_ttft_ms)} (paged) against ${duration(reserve.median_ttft_ms)} (reserve, which admits fewer requests at once)${cont ? ` and ${duration(cont.median_ttft_ms)} with no memory limit` : ''}.`
      );
    } else {
      out.push(
        `Paged never ran out of blocks here (no preemption); median TTFT ${duration(paged.median_ttft_ms)} (paged) against ${duration(reserve.median_ttft_ms)} (reserve)${cont ? ` and ${duration(cont.median_ttft_ms)} with no memory limit` : ''}.`
      );
    }
    if (Number.isFinite(paged.prefix_hit_rate)) {
      out.push(
        `The shared ${r.settings.system_prompt}-token system prompt is prefilled once and then found cached: ${pct(paged.prefix_hit_rate * 100)} of the prompt tokens paged looked up were hits.`
      );
    }
  }
  const sustained = lines.filter((l) => l.crossingInfo && !l.crossingInfo.already);
  if (sustained.length) {
    out.push(
      `Keeping p95 TTFT within ${duration(r.ttft_target_ms)}: ${sustained.map((l) => `${l.name} up to about ${sig(l.crossing, 3)}/s`).join(', ')}.`
    );
  }
  return out;
}
