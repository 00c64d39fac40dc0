// The name that starts worker.js in its second role: the SIMD vs scalar vs JavaScript panel.
export const COMPARE_WORKER_NAME = 'kvlab-compare';
