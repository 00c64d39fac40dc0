// The hardware switch's section: its controls (this device or a GPU preset, the model, the weight format,
// the modeled server's slots) and the places its results go. Built here, so that the whole view is one
// element the page can put wherever the queue and the memory are shown.

import { h } from '../dom.js';
import { GPUS, MEASURED, MODELS, WEIGHTS } from './presets.js';

const select = (id, label, options, help) => h('div', { class: 'field' },
  h('label', { for: id }, label),
  h('select', { id, 'aria-describedby': help ? `${id}-help` : undefined }, options.map((o) => h('option', { value: o.id, text: o.label }))),
  help ? h('p', { class: 'help', id: `${id}-help` }, help) : null);

export const MAX_SLOTS = 256;

export function hardwareSection() {
  return h('section', { id: 'hardware', class: 'full-only', 'aria-labelledby': 'hardware-title', dataset: { state: 'ready', hardware: MEASURED } },
    h('h2', { id: 'hardware-title' }, 'Hardware: this device, or a GPU server on paper'),
    h('p', { class: 'lead' }, 'Everything above was measured on this device. Choose a GPU preset to see what a real server would do with the same policies: its step times are ',
      h('strong', null, 'modeled'), ', not measured, from each operation’s bytes over the GPU’s memory bandwidth against its FLOPs over the tensor throughput (a roofline; docs/gpu.md), checked against figures others published.'),
    h('form', { id: 'gpu-form', novalidate: true },
      h('div', { class: 'mem-grid' },
        select('gpu-hardware', 'Hardware', [{ id: MEASURED, label: 'This device (measured)' }, ...GPUS.map((g) => ({ id: g.id, label: `${g.label} (modeled)` }))]),
        select('gpu-model', 'Model', MODELS),
        select('gpu-weights', 'Weights', WEIGHTS),
        h('div', { class: 'field' },
          h('label', { for: 'gpu-slots' }, 'Slots (modeled server)'),
          h('input', { id: 'gpu-slots', inputmode: 'numeric', autocomplete: 'off', value: String(MAX_SLOTS), 'aria-describedby': 'gpu-slots-help gpu-slots-error' }),
          h('p', { class: 'help', id: 'gpu-slots-help' }, `1–${MAX_SLOTS}: B of every batching policy on the modeled server.`),
          h('p', { class: 'field-error', id: 'gpu-slots-error', hidden: true }))),
      h('div', { class: 'actions' },
        h('button', { type: 'button', id: 'gpu-run', class: 'primary' }, 'Model this server'),
        h('button', { type: 'button', id: 'gpu-cancel', disabled: true }, 'Cancel'),
        h('button', { type: 'button', id: 'gpu-download', disabled: true }, 'Download (JSON)'))),
    h('div', { class: 'status', 'aria-live': 'polite' },
      h('div', { class: 'bar' },
        h('progress', { id: 'gpu-progress', max: '100', value: '0', 'aria-labelledby': 'gpu-phase' }),
        h('span', { id: 'gpu-percent', class: 'percent', 'aria-hidden': 'true' }, '0%')),
      h('p', { id: 'gpu-phase', class: 'phase' }, 'This device is shown above; choose a GPU preset to model one.')),
    h('div', { id: 'gpu-error', class: 'notice error', role: 'alert', hidden: true },
      h('p', { id: 'gpu-error-message' }), h('p', { id: 'gpu-error-detail', class: 'detail' })),
    h('div', { id: 'gpu-results', hidden: true },
      h('p', { id: 'gpu-label', class: 'modeled-label' }),
      h('div', { id: 'gpu-queue-box', class: 'table-box scroll-x', tabindex: '0', role: 'region', 'aria-label': 'Policy table, modeled GPU' }),
      h('div', { id: 'gpu-gain-box', class: 'table-box scroll-x', tabindex: '0', role: 'region', 'aria-label': 'Rows gain, modeled GPU' }),
      h('p', { id: 'gpu-gain-words' }),
      h('p', { id: 'gpu-memory-words' }),
      h('div', { id: 'gpu-memory-box', class: 'table-box scroll-x', tabindex: '0', role: 'region', 'aria-label': 'Memory comparison, modeled GPU' }),
      h('figure', { class: 'chart' },
        h('figcaption', { id: 'gpu-blocks-caption' }),
        h('div', { id: 'gpu-chart-blocks', class: 'chart-box', role: 'img', 'aria-label': 'KV blocks held over time on the modeled GPU' })),
      h('div', { id: 'gpu-checks-box', class: 'table-box scroll-x', tabindex: '0', role: 'region', 'aria-label': 'Published measurements against the model' })));
}

// The switch's values: null for this device, else the roofline options and the slots (or an error).
export function readHardware(root) {
  const gpu = root.querySelector('#gpu-hardware').value;
  if (gpu === MEASURED) return { measured: true };
  const text = root.querySelector('#gpu-slots').value.trim();
  const slots = Number(text);
  if (!/^\d+$/.test(text) || slots < 1 || slots > MAX_SLOTS) {
    return { error: `Slots must be a whole number from 1 to ${MAX_SLOTS} (got ${text === '' ? 'nothing' : `“${text.slice(0, 20)}”`}).` };
  }
  return { roofline: { gpu, model: root.querySelector('#gpu-model').value, weights: root.querySelector('#gpu-weights').value }, slots };
}
