// The KV-memory calculator: bytes per token = 2 (keys and values) x layers x KV heads x head size x
// bytes per number; times the length of one conversation; times the conversations held at once.

import { $, fromTemplate, h, replace } from '../../shared/dom.js';
import { bytes, int } from '../../shared/format.js';
import { CATALOG } from '../../generated/catalog.js';
import { MARKUP } from './markup.js';

// The KV cache formats the toy model offers (the module's catalog): bytes per number, and a word for each.
export function kvFormatBytes(name) {
  return CATALOG.kv_formats.find((f) => f.name === name).bytes_per_number;
}
export const kvFormatWord = (name) => (name === 'f32' ? 'float32' : name);

// The toy model the lab measures (in the lab's KV cache format), the published example, and the real
// models the GPU model knows (16-bit), all from the module's catalog (src/wasm/catalog.h).
function toyPreset(name, { n_layers, n_kv_heads, head_dim }, kv = CATALOG.lab.defaults.kv) {
  return {
    id: 'toy',
    label: `This toy model: ${name}, ${n_layers} layers, ${n_kv_heads} KV heads, ${head_dim}, ${kvFormatWord(kv)}`,
    layers: n_layers,
    kv_heads: n_kv_heads,
    head_dim,
    bytes_per_number: kvFormatBytes(kv),
  };
}

export const KV_PRESETS = [
  toyPreset(CATALOG.model_presets[0].name, CATALOG.model_presets[0]),
  {
    id: 'published',
    label: 'The published example: 32 layers, 8 KV heads, 128, 16-bit',
    layers: 32,
    kv_heads: 8,
    head_dim: 128,
    bytes_per_number: 2,
  },
  ...CATALOG.real_models.map((m) => ({
    id: m.name,
    label: `${m.description}, 16-bit`,
    layers: m.n_layers,
    kv_heads: m.n_kv_heads,
    head_dim: m.head_dim,
    bytes_per_number: 2,
  })),
];

const LIMITS = {
  layers: ['Layers', 1, 1000],
  kv_heads: ['KV heads', 1, 1024],
  head_dim: ['Head size', 1, 16384],
  tokens: ['Conversation length', 1, 100000000],
  conversations: ['Conversations at once', 1, 1000000],
};

export function kvBytesPerToken({ layers, kv_heads, head_dim, bytes_per_number }) {
  return 2 * layers * kv_heads * head_dim * bytes_per_number;
}

export const name = 'kv-calculator';

// ctx: the lab bench's (panels/bench.js): the run store and the settings panel, whose model the toy preset follows.
export function mount(root, { store, panels }) {
  root.append(fromTemplate(MARKUP));
  const calculator = setupKvCalculator($('#kv-memory', root));
  store.subscribe((state, changes) => {
    const info = (changes.module || changes.settings) && panels.settings.toyModel();
    if (info) calculator.setToyModel(info, panels.settings.labSettings().kv_format);
  });
  return calculator;
}

function setupKvCalculator(root) {
  const form = $('#kv-form', root);
  const presetSelect = $('#kv-preset', form);
  const out = $('#kv-output', root);
  const fields = ['layers', 'kv_heads', 'head_dim', 'bytes_per_number', 'tokens', 'conversations'];
  const input = (name) => $(`#kv-${name}`, form);

  replace(
    presetSelect,
    KV_PRESETS.map((p) => h('option', { value: p.id, text: p.label })),
    h('option', { value: 'custom', text: 'Custom' })
  );

  function apply(preset) {
    for (const key of ['layers', 'kv_heads', 'head_dim', 'bytes_per_number']) input(key).value = String(preset[key]);
    update();
  }

  function read() {
    const values = {};
    const errors = [];
    for (const name of fields) {
      const el = input(name);
      const text = el.value.trim();
      if (name === 'bytes_per_number') {
        values[name] = Number(text);
        continue;
      }
      const [label, lo, hi] = LIMITS[name];
      const v = Number(text);
      const ok = text !== '' && /^\d+$/.test(text) && v >= lo && v <= hi;
      el.setAttribute('aria-invalid', ok ? 'false' : 'true');
      if (!ok)
        errors.push(
          `${label} must be a whole number from ${int(lo)} to ${int(hi)} (got ${JSON.stringify(text.slice(0, 20))}).`
        );
      values[name] = v;
    }
    return { values, errors };
  }

  function update() {
    const { values, errors } = read();
    if (errors.length) {
      replace(out, h('p', { class: 'field-error', role: 'alert' }, errors.join(' ')));
      return;
    }
    const perToken = kvBytesPerToken(values);
    const perConversation = perToken * values.tokens;
    const all = perConversation * values.conversations;
    replace(
      out,
      h(
        'p',
        { class: 'kv-formula' },
        `2 × ${int(values.layers)} layers × ${int(values.kv_heads)} KV heads × ${int(values.head_dim)} × ${values.bytes_per_number} bytes = `,
        h('strong', { id: 'kv-per-token', dataset: { bytes: String(perToken) } }, `${bytes(perToken)} per token`)
      ),
      h(
        'p',
        null,
        `One conversation of ${int(values.tokens)} tokens: `,
        h('strong', { id: 'kv-per-conversation' }, bytes(perConversation)),
        values.conversations > 1
          ? [`; ${int(values.conversations)} of them at once: `, h('strong', { id: 'kv-all' }, bytes(all))]
          : null,
        '.'
      )
    );
  }

  presetSelect.addEventListener('change', () => {
    const preset = KV_PRESETS.find((p) => p.id === presetSelect.value);
    if (preset) apply(preset);
  });
  form.addEventListener('input', (event) => {
    if (
      event.target !== presetSelect &&
      ['kv-layers', 'kv-kv_heads', 'kv-head_dim', 'kv-bytes_per_number'].includes(event.target.id)
    ) {
      const match = KV_PRESETS.find((p) =>
        ['layers', 'kv_heads', 'head_dim', 'bytes_per_number'].every((k) => String(p[k]) === input(k).value.trim())
      );
      presetSelect.value = match ? match.id : 'custom';
    }
    update();
  });
  form.addEventListener('submit', (event) => event.preventDefault());

  apply(KV_PRESETS.find((p) => p.id === 'published'));
  presetSelect.value = 'published';

  return {
    // The toy preset follows the model the lab measures and its KV cache format.
    setToyModel(info, kv) {
      const toy = Object.assign(KV_PRESETS[0], toyPreset(info.preset, info, kv));
      const option = presetSelect.querySelector('option[value="toy"]');
      if (option) option.textContent = toy.label;
      if (presetSelect.value === 'toy') apply(toy);
    },
  };
}
