// The "This browser" panel: what the page found out about the browser and the module.

import { $, h, replace } from '../shared/dom.js';
import { sig } from '../shared/format.js';

// env: env.js's environment(); info: the worker's ready message, or null before it.
export function renderEnvironment(env, info, standalone) {
  if (!env) return;
  const yesNo = (v) => (v ? 'yes' : 'no');
  const items = [
    ['Browser', env.browser],
    ['Logical cores', env.logical_cores ? String(env.logical_cores) : 'not reported'],
    ['WebAssembly SIMD', env.wasm_simd ? 'on' : 'off (not supported)'],
    ['Timer resolution', Number.isFinite(env.timer_resolution_ms) ? `${sig(env.timer_resolution_ms * 1000, 3)} µs, measured` : 'unknown'],
    ['Cross-origin isolated', `${yesNo(env.cross_origin_isolated)}${env.cross_origin_isolated ? '' : ' (so the clock is coarse; each timing repeats a step many times)'}`],
    ['Page', standalone ? 'single file (kvlab-standalone.html)' : 'served'],
  ];
  if (info) items.push(['kvlab module', `${info.version}, ${info.instruction_set}`]);
  replace($('#env-list'), items.map(([k, v]) => [h('dt', null, k), h('dd', { dataset: { key: k } }, v)]));
}
