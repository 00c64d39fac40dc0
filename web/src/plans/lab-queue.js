// The lab's queue as the Memory section serves it, read from the lab's result (no DOM here). Every
// policy's result carries the whole queue's playback, whose `requests` columns hold each request's
// prompt and answer lengths in workload order (the lab asks the simulator for queue_timeline).
//
// On a real model the lab's prompts are our story openings ("prompts": "stories"), whose lengths only
// the model's tokenizer counts: the lab's worker has the model, the section's job worker does not, and
// the simulator refuses a story workload without one. So the section serves the very requests the
// lab's queue drew (each a story opening's token count and its answer) as an explicit workload, at
// the arrival times it simulates.

// The requests columns of the lab result's queue playback, or null when it carries none.
export function queueRequests(result) {
  const withQueue = Object.values(result.policies || {}).find((r) => r && r.queue_timeline);
  return withQueue ? withQueue.queue_timeline.requests : null;
}

// The lab's settings with what its result says of the queue: `stories` (its prompts are story
// openings), then the story prompts' shortest and longest token counts as prompt_lo and prompt_hi;
// `longest_positions`, the most positions one request holds (prompt + answer − 1), and `max_seq`, the
// measured model's context, where the result has them; `model_name`, the model measured (its name, or its preset's).
export function labQueue(lab) {
  const { result, settings } = lab;
  const requests = queueRequests(result);
  const model = (result.steps && result.steps.model) || {};
  // Without the playback (a result saved without it) the section serves the form's prompt range.
  const stories = Boolean(requests && result.workload && result.workload.prompts === 'stories');
  const queue = { ...settings, stories };
  if (model.name || model.preset) queue.model_name = model.name || model.preset;
  if (model.max_seq) queue.max_seq = model.max_seq;
  if (!requests) return queue;
  // Reductions, not Math.max(...list): a queue may hold more requests than a call takes arguments.
  const most = (list) => list.reduce((a, b) => Math.max(a, b), 0);
  queue.longest_positions = most(requests.prompt_tokens.map((p, i) => p + requests.answer_tokens[i] - 1));
  if (queue.stories) {
    queue.prompt_lo = requests.prompt_tokens.reduce((a, b) => Math.min(a, b), Infinity);
    queue.prompt_hi = most(requests.prompt_tokens);
  }
  return queue;
}

// The lab's story requests, {prompt_tokens, answer_tokens} (columns in workload order), for the job
// worker; null when the lab's prompts are not stories.
export function storyRequests(lab) {
  if (!labQueue(lab).stories) return null;
  const requests = queueRequests(lab.result);
  return { prompt_tokens: requests.prompt_tokens, answer_tokens: requests.answer_tokens };
}

// The explicit workload of those requests arriving at `arrivalMs` (one time per request), each prompt
// after the shared system prompt of `systemPrompt` tokens (0: none).
export function explicitStoryWorkload(stories, arrivalMs, systemPrompt) {
  const workload = {
    requests: stories.prompt_tokens.map((prompt, i) => ({
      arrival_ms: arrivalMs[i],
      prompt: systemPrompt + prompt,
      answer: stories.answer_tokens[i],
    })),
  };
  if (systemPrompt > 0) workload.system_prompt = systemPrompt;
  return workload;
}
