// The lab's queue priced on a step table (the CPU's, re-timed, or the GPU's), as the module's run() prices it.

// options: the lab's options (workload, policies, simulate, timeline_requests).
export function simulateLabQueue(m, steps, options) {
  return m.simulate(steps, options.workload, options.policies, {
    ...(options.simulate || {}),
    timeline_requests: options.timeline_requests,
  });
}
