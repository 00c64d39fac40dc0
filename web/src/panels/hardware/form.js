// The hardware switch of one chapter: "this device (measured)" or a GPU preset, and for a preset the
// served model, its weight and KV formats, the GPUs sharing it (tensor parallelism) and the modeled
// server's slots; its status line and its error box. The option lists come from the module
// (rooflinePresets()), so they are filled in once it has loaded. Ids start with `prefix`.

import { h, replace } from '../../shared/dom.js';
import { docLinked } from '../../docs/links.js';
import { parseSpec } from '../../shared/fields.js';
import { DEFAULT, MAX_SLOTS, MEASURED, WEBGPU, modelName, tpSizes } from '../../plans/hardware-settings.js';

const SLOTS = { label: 'Slots (modeled server)', kind: 'int', min: 1, max: MAX_SLOTS };

const field = (id, label, control, help) =>
  h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    control,
    help ? h('p', { class: 'help', id: `${id}-help` }, help) : null
  );

const options = (items) => items.map(([value, text]) => h('option', { value, text }));

// This device's two measured choices: its CPU (the default) and its GPU.
const MEASURED_OPTIONS = [
  [MEASURED, 'This device (measured)'],
  [WEBGPU, 'This device’s GPU (WebGPU, measured)'],
];

// The switch's elements, ids from id(part).
function switchElements(id) {
  const controls = {
    gpu: h('select', { id: id('gpu'), 'aria-describedby': id('gpu-help') }, options(MEASURED_OPTIONS)),
    model: h('select', { id: id('model') }),
    weights: h('select', { id: id('weights') }),
    kv: h('select', { id: id('kv') }),
    tp: h('select', { id: id('tp') }),
    slots: h('input', {
      id: id('slots'),
      inputmode: 'numeric',
      autocomplete: 'off',
      value: String(DEFAULT.slots),
      'aria-describedby': `${id('slots-help')} ${id('slots-error')}`,
    }),
  };
  const parts = {
    slotsError: h('p', { class: 'field-error', id: id('slots-error'), hidden: true }),
    status: h('p', { id: id('status'), class: 'hw-status', 'aria-live': 'polite' }),
    errorMessage: h('p', { id: id('error-message') }),
    errorDetail: h('p', { id: id('error-detail'), class: 'detail' }),
  };
  parts.errorBox = h(
    'div',
    { id: id('error'), class: 'notice error', role: 'alert', hidden: true },
    parts.errorMessage,
    parts.errorDetail
  );
  parts.server = h(
    'div',
    { class: 'hw-server', hidden: true },
    field(id('model'), 'Model', controls.model),
    field(id('weights'), 'Weights', controls.weights),
    field(id('kv'), 'KV cache', controls.kv),
    field(id('tp'), 'GPUs (tensor parallel)', controls.tp),
    h(
      'div',
      { class: 'field' },
      h('label', { for: id('slots') }, SLOTS.label),
      controls.slots,
      h('p', { class: 'help', id: id('slots-help') }, `1–${MAX_SLOTS}: B of every batching policy.`),
      parts.slotsError
    )
  );
  const element = h(
    'div',
    { class: 'hw-switch' },
    h(
      'fieldset',
      null,
      h('legend', null, 'Hardware'),
      h(
        'div',
        { class: 'hw-fields' },
        field(
          id('gpu'),
          'Run on',
          controls.gpu,
          docLinked('This device is measured; a GPU is modeled from its published figures (docs/gpu.md).')
        ),
        parts.server
      )
    ),
    parts.status,
    parts.errorBox
  );
  return { element, controls, ...parts };
}

export function hardwareSwitch(prefix) {
  const { element, controls, server, slotsError, status, errorMessage, errorDetail, errorBox } = switchElements(
    (part) => `${prefix}-${part}`
  );
  const { gpu, model, weights, kv, tp, slots } = controls;

  // The module's presets (again after a restarted worker): current, the choice to keep showing.
  function setPresets(presets, current) {
    replace(gpu, options([...MEASURED_OPTIONS, ...presets.gpus.map((g) => [g.name, `${g.description} (modeled)`])]));
    replace(model, options(presets.models.map((m) => [m.name, `${modelName(m)}, ${m.n_kv_heads} KV heads`])));
    replace(weights, options(presets.weights.map((w) => [w, `${w.toUpperCase()} weights`])));
    replace(kv, options(presets.kv.map((k) => [k, k.toUpperCase()])));
    replace(tp, options(tpSizes(presets.max_tp).map((n) => [String(n), n === 1 ? '1 GPU' : `${n} GPUs`])));
    show({ ...DEFAULT, ...current });
  }

  // The switch's values: {measured: true, backend}, {error} (bad slots), or the modeled server's options.
  function read() {
    if (gpu.value === MEASURED || gpu.value === WEBGPU)
      return { measured: true, backend: gpu.value === WEBGPU ? 'webgpu' : 'cpu' };
    const parsed = parseSpec(SLOTS, slots.value);
    if (parsed.error) return { error: parsed.error };
    return {
      gpu: gpu.value,
      model: model.value,
      weights: weights.value,
      kv: kv.value,
      tp: Number(tp.value),
      slots: parsed.value,
    };
  }

  function showSlotsError(text) {
    replace(slotsError, text || '');
    slotsError.hidden = !text;
    slots.setAttribute('aria-invalid', text ? 'true' : 'false');
  }

  // Shows a choice (made here or in another chapter's switch); this device keeps the server's fields.
  function show(choice) {
    gpu.value = choice.measured ? (choice.backend === 'webgpu' ? WEBGPU : MEASURED) : choice.gpu;
    if (choice.model) {
      model.value = choice.model;
      weights.value = choice.weights;
      kv.value = choice.kv;
      tp.value = String(choice.tp);
      slots.value = String(choice.slots);
    }
    server.hidden = Boolean(choice.measured);
    showSlotsError(null);
  }

  function showError(error) {
    replace(errorMessage, error ? error.message : '');
    replace(errorDetail, error ? error.detail || '' : '');
    errorBox.hidden = !error;
  }

  // onChoose(choice): a valid choice was made here.
  function onChoose(callback) {
    element.addEventListener('change', () => {
      const choice = read();
      server.hidden = Boolean(choice.measured);
      showSlotsError(choice.error);
      if (!choice.error) callback(choice);
    });
  }

  return { element, setPresets, read, show, setStatus: (text) => replace(status, text), showError, onChoose };
}
