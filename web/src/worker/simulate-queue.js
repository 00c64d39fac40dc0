// The lab's queue priced on a step table (the CPU's, re-timed, or the GPU's), as the module's run() prices it.

import { explicitStoryWorkload, queueRequests } from '../plans/lab-queue.js';

// A story workload ("prompts": "stories") has prompts whose lengths only the loaded model's tokenizer
// counts, and simulate() takes no model: the queue is priced again on the very requests the lab's run
// drew (its result's queue playback), as an explicit workload at the same arrival times.
function pricedWorkload(workload, labResult) {
  if (!workload || workload.prompts !== 'stories') return workload;
  const requests = queueRequests(labResult);
  return explicitStoryWorkload(requests, requests.arrival_ms, 0);
}

// options: the lab's options (workload, policies, simulate, timeline_requests); labResult: the lab's
// result on the table being replaced (its queue playback holds the requests a story workload drew).
export function simulateLabQueue(m, steps, options, labResult) {
  return m.simulate(steps, pricedWorkload(options.workload, labResult), options.policies, {
    ...(options.simulate || {}),
    timeline_requests: options.timeline_requests,
  });
}
