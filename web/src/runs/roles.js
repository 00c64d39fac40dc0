// The names that start worker.js in its other roles (any other name is the lab).
export const COMPARE_WORKER_NAME = 'kvlab-compare'; // the SIMD vs scalar vs JavaScript panel
export const JOB_WORKER_NAME = 'kvlab-job'; // one memory-section run or one replay, then ended
export const GPU_DEVICE_WORKER_NAME = 'kvlab-gpu-device'; // a replay's GPU, started by its job worker
