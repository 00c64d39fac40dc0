// Who is where at simulated time t, from a policy's queue_timeline (the simulator's columns):
//   stints   {request, slot, start_ms, end_ms, held_until_ms, tokens_before}: a request in a seat from
//            its (re)admission to its finish or preemption; a static batch holds a finished row's
//            seat until held_until_ms (padding);
//   requests {arrival_ms, first_token_ms, finish_ms, prompt_tokens, answer_tokens}, workload order.
// A seat is occupied at t when start_ms <= t < held_until_ms; idle (padding) when end_ms <= t there.

// Typed copies plus what the drawing needs per stint: the tokens out at its end.
export function prepareQueue(queue) {
  const { stints, requests } = queue;
  const n = requests.arrival_ms.length;
  const stintCount = stints.request.length;
  const tokensAfter = new Int32Array(stintCount);
  const lastStint = new Int32Array(n).fill(-1);
  for (let i = stintCount - 1; i >= 0; i -= 1) {
    const r = stints.request[i];
    // The stint's successor (the request's next admission) begins with the tokens this one left.
    tokensAfter[i] = lastStint[r] >= 0 ? stints.tokens_before[lastStint[r]] : requests.answer_tokens[r];
    lastStint[r] = i;
  }
  let slots = 0;
  let maxPrompt = 1;
  let maxAnswer = 1;
  let endMs = 0;
  let maxTtftMs = 0;
  for (let i = 0; i < stintCount; i += 1) slots = Math.max(slots, stints.slot[i] + 1);
  for (let r = 0; r < n; r += 1) {
    maxPrompt = Math.max(maxPrompt, requests.prompt_tokens[r]);
    maxAnswer = Math.max(maxAnswer, requests.answer_tokens[r]);
    endMs = Math.max(endMs, requests.finish_ms[r]);
    maxTtftMs = Math.max(maxTtftMs, requests.first_token_ms[r] - requests.arrival_ms[r]);
  }
  for (let i = 0; i < stintCount; i += 1) endMs = Math.max(endMs, stints.held_until_ms[i]);
  return {
    stints: {
      request: Int32Array.from(stints.request),
      slot: Int32Array.from(stints.slot),
      start_ms: Float64Array.from(stints.start_ms),
      end_ms: Float64Array.from(stints.end_ms),
      held_until_ms: Float64Array.from(stints.held_until_ms),
      tokens_before: Int32Array.from(stints.tokens_before),
      tokens_after: tokensAfter,
    },
    requests: {
      arrival_ms: Float64Array.from(requests.arrival_ms),
      first_token_ms: Float64Array.from(requests.first_token_ms),
      finish_ms: Float64Array.from(requests.finish_ms),
      prompt_tokens: Int32Array.from(requests.prompt_tokens),
      answer_tokens: Int32Array.from(requests.answer_tokens),
    },
    count: n,
    slots,
    maxPrompt,
    maxAnswer,
    endMs,
    maxTtftMs,
  };
}

export const NOT_ARRIVED = 0;
export const WAITING = 1;
export const SEATED = 2;
export const DONE = 3;

// The picture at t. seats[slot]: null (free) or {request, phase: 'prefill' | 'decode' | 'idle',
// prompt_done (prompt tokens in the KV so far), tokens (answer tokens out), prompt, answer}.
// people[r]: NOT_ARRIVED, WAITING, SEATED or DONE. Token counts inside a phase are drawn at an even
// pace between its known times (the result keeps the admission, first-token and finish times, not
// every step's).
export function stateAt(q, t, people = new Uint8Array(q.count)) {
  const { stints, requests } = q;
  const seats = new Array(q.slots).fill(null);
  let waiting = 0;
  let done = 0;
  for (let r = 0; r < q.count; r += 1) {
    if (requests.finish_ms[r] <= t) {
      people[r] = DONE;
      done += 1;
    } else {
      people[r] = requests.arrival_ms[r] <= t ? WAITING : NOT_ARRIVED;
    }
  }
  let seated = 0;
  let idle = 0;
  for (let i = 0; i < stints.request.length; i += 1) {
    const start = stints.start_ms[i];
    if (start > t || t >= stints.held_until_ms[i]) continue;
    const r = stints.request[i];
    const prompt = requests.prompt_tokens[r];
    const answer = requests.answer_tokens[r];
    const end = stints.end_ms[i];
    let seat;
    if (t >= end) {
      seat = { request: r, phase: 'idle', prompt_done: prompt, tokens: answer, prompt, answer };
      idle += 1;
    } else {
      people[r] = SEATED;
      seated += 1;
      const before = stints.tokens_before[i];
      const firstToken = requests.first_token_ms[r];
      if (before === 0 && t < firstToken) {
        const share = firstToken > start ? (t - start) / (firstToken - start) : 1;
        seat = { request: r, phase: 'prefill', prompt_done: Math.floor(prompt * share), tokens: 0, prompt, answer };
      } else {
        const from = before === 0 ? 1 : before;
        const since = before === 0 ? firstToken : start;
        const share = end > since ? (t - since) / (end - since) : 1;
        const tokens = Math.min(stints.tokens_after[i], from + Math.floor((stints.tokens_after[i] - from) * share));
        seat = { request: r, phase: 'decode', prompt_done: prompt, tokens, prompt, answer };
      }
    }
    seats[stints.slot[i]] = seat;
  }
  for (let r = 0; r < q.count; r += 1) if (people[r] === WAITING) waiting += 1;
  return { t, seats, people, waiting, done, seated, idle };
}

// The TTFTs (ms) of the requests whose first token came by t, into `out` (a Float64Array of q.count);
// returns how many.
export function ttftsUpTo(q, t, out) {
  let n = 0;
  const { first_token_ms: first, arrival_ms: arrival } = q.requests;
  for (let r = 0; r < q.count; r += 1) if (first[r] <= t) out[n++] = first[r] - arrival[r];
  return n;
}
