// What the visitor's browser offers: the facts that explain its numbers, and the environment panel
// that shows them.

import { duration } from './shared/format.js';
import { adapterWords } from './webgpu/words.js';
import { threadsWords } from './threads.js';

// A tiny module that uses a v128 instruction (i8x16.splat, i8x16.popcnt): it validates only where
// WebAssembly SIMD is supported.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

export function wasmSupported() {
  return typeof WebAssembly === 'object' && typeof WebAssembly.validate === 'function';
}

export function wasmSimd() {
  try {
    return wasmSupported() && WebAssembly.validate(SIMD_PROBE);
  } catch (error) {
    return false;
  }
}

// The smallest step performance.now() takes: spin for up to 50 ms and keep the smallest non-zero
// difference between consecutive readings.
export function timerResolutionMs() {
  let smallest = Infinity;
  const start = performance.now();
  let last = start;
  let steps = 0;
  while (steps < 200) {
    const now = performance.now();
    if (now !== last) {
      smallest = Math.min(smallest, now - last);
      last = now;
      steps += 1;
    }
    if (now - start > 50) break;
  }
  return smallest;
}

// The shortest sample the step timer may take on a clock of this resolution: 20 ticks, so that the
// clock's rounding (at most a tick) stays within 5% of one sample and about 1% of the mean of five;
// never under the timer's own 5 ms, nor over the 1 s the module accepts (a browser that resists
// fingerprinting may tick every 100 ms). Chromium's 0.1 ms clock keeps 5 ms; Firefox's 1 ms clock
// (without cross-origin isolation) gets 20 ms.
export const MIN_SAMPLE_TICKS = 20;
export const MIN_SAMPLE_FLOOR_MS = 5;
const MAX_SAMPLE_MS = 1000;

export function minSampleMs(resolutionMs, floorMs = MIN_SAMPLE_FLOOR_MS) {
  if (!Number.isFinite(resolutionMs) || resolutionMs <= 0) return floorMs;
  return Math.min(MAX_SAMPLE_MS, Math.max(floorMs, MIN_SAMPLE_TICKS * resolutionMs));
}

// The rendering engine, from the user agent: what decides how the wasm module is compiled and run.
export function engineName(ua = navigator.userAgent || '') {
  if (/Gecko\/\d/.test(ua) && /Firefox\//.test(ua)) return 'Gecko';
  if (/Chrom(e|ium)\//.test(ua)) return 'Blink';
  if (/AppleWebKit\//.test(ua)) return 'WebKit';
  return 'unknown';
}

export function browserName() {
  const ua = navigator.userAgent || '';
  const brands = navigator.userAgentData && navigator.userAgentData.brands;
  if (brands && brands.length) {
    const named = brands.filter((b) => !/Not.?A.?Brand/i.test(b.brand));
    const pick = named.find((b) => !/^Chromium$/.test(b.brand)) || named[0];
    if (pick) return `${pick.brand} ${pick.version}`;
  }
  const patterns = [
    [/Edg\/([\d.]+)/, 'Edge'],
    [/OPR\/([\d.]+)/, 'Opera'],
    [/Firefox\/([\d.]+)/, 'Firefox'],
    [/HeadlessChrome\/([\d.]+)/, 'Headless Chrome'],
    [/Chrome\/([\d.]+)/, 'Chrome'],
    [/Version\/([\d.]+).*Safari/, 'Safari'],
  ];
  for (const [re, name] of patterns) {
    const m = re.exec(ua);
    if (m) return `${name} ${m[1].split('.')[0]}`;
  }
  return 'unknown browser';
}

export function environment() {
  return {
    browser: browserName(),
    engine: engineName(),
    user_agent: navigator.userAgent || '',
    platform: (navigator.userAgentData && navigator.userAgentData.platform) || navigator.platform || '',
    logical_cores: navigator.hardwareConcurrency || null,
    device_memory_gb: navigator.deviceMemory || null,
    wasm: wasmSupported(),
    wasm_simd: wasmSimd(),
    timer_resolution_ms: timerResolutionMs(),
    cross_origin_isolated: Boolean(self.crossOriginIsolated),
  };
}

// The environment panel's rows, [label, text]. worker: the lab worker's ready message, whose clock is
// the one the measurements use ({version, instruction_set, timer_resolution_ms, min_sample_ms, threads});
// lab: the last lab result's environment (its GPU, when the run asked for one); situation: the page's
// (worker-client.js's threadsSituation: the single file, an embed, its service worker).
export function environmentItems(env, { situation, worker, lab }) {
  const yesNo = (v) => (v ? 'yes' : 'no');
  const clock = (ms) => (Number.isFinite(ms) ? duration(ms) : 'unknown');
  let timer = `${clock(env.timer_resolution_ms)} on the page`;
  if (worker && Number.isFinite(worker.timer_resolution_ms)) {
    timer += `, ${clock(worker.timer_resolution_ms)} in the worker that measures, so each timed sample lasts at least ${duration(worker.min_sample_ms)}`;
  }
  const items = [
    ['Browser', `${env.browser}, ${env.engine} engine`],
    ['Logical cores', env.logical_cores ? String(env.logical_cores) : 'not reported'],
    ['WebAssembly SIMD', env.wasm_simd ? 'on' : 'off (not supported)'],
    ['Timer resolution', `measured: ${timer}`],
    [
      'Cross-origin isolated',
      `${yesNo(env.cross_origin_isolated)}${env.cross_origin_isolated ? '' : ' (so the clock is coarse; each timing repeats a step many times)'}`,
    ],
    ['Page', situation.standalone ? 'single file (kvlab-standalone.html)' : 'served'],
    ['Threads', threadsWords(worker && worker.threads, situation, lab)],
  ];
  if (worker) items.push(['kvlab module', `${worker.version}, ${worker.instruction_set}`]);
  const gpu = lab && lab.webgpu ? adapterWords(lab) : 'not checked until the lab runs on “This device’s GPU (WebGPU)”';
  items.push(['GPU (WebGPU)', gpu]);
  return items;
}
