// The real engine's replay on this device's GPU: the job worker runs m.replay() in wasm, which cannot
// await, so every pass it times or serves goes to a worker that owns the GPU (device-worker.js) and the
// job worker sleeps on shared memory (Atomics.wait) until that worker has written the pass's tokens.
// This needs SharedArrayBuffer, that is a cross-origin-isolated page; elsewhere the replay runs on the
// CPU and says why (docs/webgpu.md, "The queue on the GPU's table, and replayed on the GPU").
//
// The shared answer, an Int32Array over a SharedArrayBuffer:
//   [0] state: WAITING, then TOKENS or PROBLEM, written last
//   [1] length: the tokens' count, or the problem's characters
//   [2 ...] the wanted rows' tokens in row order, or the problem's UTF-16 code units (cut to fit)

import { GPU_DEVICE_WORKER_NAME } from '../runs/roles.js';
import { policyIs } from '../shared/policies.js';
import { NO_WEBGPU } from './device.js';

export const ANSWER = { WAITING: 0, TOKENS: 1, PROBLEM: 2, HEADER: 2 };
const FIRST_ANSWER_TOKENS = 4096;
const ANSWER_TIMEOUT_MS = 60000;
const OPEN_TIMEOUT_MS = 120000;

export function newAnswer(tokens) {
  return new Int32Array(new SharedArrayBuffer((ANSWER.HEADER + tokens) * Int32Array.BYTES_PER_ELEMENT));
}

// Device-worker side: the pass's tokens, or what went wrong, and the waiting job worker woken.
export function writeAnswer(answer, tokens) {
  answer.set(tokens, ANSWER.HEADER);
  answer[1] = tokens.length;
  Atomics.store(answer, 0, ANSWER.TOKENS);
  Atomics.notify(answer, 0);
}

export function writeProblem(answer, problem) {
  const text = String(problem).slice(0, answer.length - ANSWER.HEADER);
  for (let i = 0; i < text.length; i += 1) answer[ANSWER.HEADER + i] = text.charCodeAt(i);
  answer[1] = text.length;
  Atomics.store(answer, 0, ANSWER.PROBLEM);
  Atomics.notify(answer, 0);
}

// Why the replay cannot run on the GPU here, or '' when it may try: the page's isolation and the policies
// (a device's KV slot holds one sequence; KV in blocks of one pool stays on the CPU's engine). Without
// WebGPU it says so before any worker starts (in Firefox a worker that starts a worker can stop for good,
// docs/threads.md "Firefox").
export function replayOnGpuRefusal(policies) {
  if (!self.navigator?.gpu) return NO_WEBGPU;
  if (self.crossOriginIsolated !== true || typeof SharedArrayBuffer !== 'function')
    return 'The replay waits on the GPU through shared memory, which only a cross-origin-isolated page has: this one is not (a single file on disk, another page’s frame, or a server without the isolation headers).';
  const blocked = (policies || []).filter((name) => policyIs(String(name), (t) => t.keeps_kv_in_blocks));
  if (blocked.length)
    return `The GPU keeps each sequence’s KV in one slot of its own; ${blocked.join(', ')} keep${blocked.length === 1 ? 's' : ''} KV in blocks of one pool, which only the CPU’s engine does.`;
  return '';
}

function opened(worker) {
  return new Promise((resolve) => {
    const timer = setTimeout(
      () => resolve({ type: 'refused', reason: `The GPU worker did not open within ${OPEN_TIMEOUT_MS / 1000} s.` }),
      OPEN_TIMEOUT_MS
    );
    worker.onmessage = (event) => {
      clearTimeout(timer);
      resolve(event.data);
    };
    worker.onerror = (event) => {
      clearTimeout(timer);
      event.preventDefault();
      resolve({ type: 'refused', reason: `The GPU worker failed to start: ${event.message || 'no message'}` });
    };
  });
}

// Job-worker side. weights: m.exportWeights() of the replay's model. -> {device, gpu, self_check, traffic,
// close} with device = {slots, step(rows, tokens) -> problem} as m.replay() takes it
// (src/wasm/page_device.h) and traffic = {passes, rows, waited_ms} counting its passes as they go, or
// {reason, gpu?, self_check?, close} when the GPU is refused.
export async function openReplayDevice(weights) {
  const worker = new Worker(self.location.href, { name: GPU_DEVICE_WORKER_NAME });
  const close = () => worker.terminate();
  let answer = newAnswer(FIRST_ANSWER_TOKENS);
  const reply = opened(worker);
  worker.postMessage({ type: 'open', weights, answer });
  const { type, reason, gpu, self_check: selfCheck, slots } = await reply;
  worker.onmessage = null;
  if (type !== 'opened') return { reason, gpu, self_check: selfCheck, close };

  const traffic = { passes: 0, rows: 0, waited_ms: 0 };
  // Blocks this worker until the device worker answers; never throws (the module takes a problem).
  function step(rows, tokens) {
    if (tokens.length > answer.length - ANSWER.HEADER) answer = newAnswer(tokens.length);
    Atomics.store(answer, 0, ANSWER.WAITING);
    const start = performance.now();
    worker.postMessage({ type: 'step', rows: rows.slice(), answer });
    const waited = Atomics.wait(answer, 0, ANSWER.WAITING, ANSWER_TIMEOUT_MS);
    traffic.passes += 1;
    traffic.rows += rows.length / 4;
    traffic.waited_ms += performance.now() - start;
    if (waited === 'timed-out')
      return `it did not answer a pass of ${rows.length / 4} rows within ${ANSWER_TIMEOUT_MS / 1000} s`;
    const length = answer[1];
    if (Atomics.load(answer, 0) === ANSWER.PROBLEM)
      return String.fromCharCode(...answer.subarray(ANSWER.HEADER, ANSWER.HEADER + length));
    if (length !== tokens.length) return `it answered ${length} tokens for ${tokens.length} wanted rows`;
    tokens.set(answer.subarray(ANSWER.HEADER, ANSWER.HEADER + length));
    return '';
  }
  return { device: { slots, step }, gpu, self_check: selfCheck, traffic, close };
}
