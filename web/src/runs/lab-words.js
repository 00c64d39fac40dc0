// What the lab says about its run: its phases, what blocks it, and what to try after each kind of error.

export const PHASES = {
  'no-cache answers': 'Timing one answer without the cache',
  'KV-cache answers': 'Timing one answer with the KV cache',
  'step grid': 'Timing decode steps (rows × context) and prefills, a round over every cell at a time',
  simulating: 'Replaying the queue under four policies',
  done: 'Done',
};

// Why a runner other than the lab blocks it, for the phase line.
export const BLOCKED_BY = {
  simd: 'Not run: the SIMD vs scalar vs JavaScript comparison is running; cancel it or wait for it.',
  replay: 'Not run: the simulated vs real replay is running; cancel it or wait for it.',
  hardware: 'Not run: a GPU server is being modeled (a second or two); wait for it or choose “This device”.',
};

export function hint(error, env) {
  if (error.kind === 'memory') return 'Try a smaller model preset, fewer requests or shorter answers.';
  if (error.kind === 'load') {
    if (env && !env.wasm) return 'This browser has no WebAssembly.';
    if (env && !env.wasm_simd)
      return 'This browser lacks WebAssembly SIMD, which the lab needs (any current Chrome, Edge, Firefox or Safari 16.4+ has it); the SIMD vs scalar vs JavaScript panel below still measures the other two.';
    return 'Check that kvlab.js and kvlab.wasm sit next to this page.';
  }
  if (error.kind === 'crash')
    return error.restarted
      ? 'A fresh worker has been started: press Run to run again.'
      : 'The worker is restarted when you retry.';
  return '';
}
