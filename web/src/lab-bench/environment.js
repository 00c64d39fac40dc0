// The "This browser" panel: what the page found out about the browser and the module.

import { $, h, replace } from '../shared/dom.js';
import { environmentItems } from '../env.js';

// env: env.js's environment(); info: the worker's ready message, or null before it.
export function renderEnvironment(env, info, standalone) {
  if (!env) return;
  const items = environmentItems(env, { standalone, worker: info });
  replace($('#env-list'), items.map(([k, v]) => [h('dt', null, k), h('dd', { dataset: { key: k } }, v)]));
}
