// What the visitor's browser offers: the facts that explain its numbers.

// A tiny module that uses a v128 instruction (i8x16.splat, i8x16.popcnt): it validates only where
// WebAssembly SIMD is supported.
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0,
  65, 0, 253, 15, 253, 98, 11]);

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

export function browserName() {
  const ua = navigator.userAgent || '';
  const brands = navigator.userAgentData && navigator.userAgentData.brands;
  if (brands && brands.length) {
    const named = brands.filter((b) => !/Not.?A.?Brand/i.test(b.brand));
    const pick = named.find((b) => !/^Chromium$/.test(b.brand)) || named[0];
    if (pick) return `${pick.brand} ${pick.version}`;
  }
  const patterns = [
    [/Edg\/([\d.]+)/, 'Edge'], [/OPR\/([\d.]+)/, 'Opera'], [/Firefox\/([\d.]+)/, 'Firefox'],
    [/HeadlessChrome\/([\d.]+)/, 'Headless Chrome'], [/Chrome\/([\d.]+)/, 'Chrome'],
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
