// The Memory section's form: the KV budget (a device example, or tokens by field and log slider), block
// size, arrival rate, system prompt, chunk size and TTFT target; the budget's explanation under it;
// messages per field; the settings in and out of the URL hash.

import { $, h, replace } from '../../shared/dom.js';
import { formErrors } from '../../shared/formerrors.js';
import { int } from '../../shared/format.js';
import {
  DEVICES,
  MEM_DEFAULTS,
  MEM_ORDER,
  kvTokens,
  longestRequest,
  memoryToHash,
  memoryToRaw,
  minimumTokens,
  validateMemory,
} from './config.js';
import { budgetExplanation } from './words.js';

// Form control of each setting.
export const IDS = {
  kv: 'mem-kv',
  block: 'mem-block',
  mem_rate: 'mem-rate',
  system_prompt: 'mem-system',
  chunk: 'mem-chunk',
  ttft_target: 'mem-target',
};
const SLIDER_STEPS = 1000;

// queue() -> the lab settings the budget is checked against; kvBytesPerToken() -> {preset, kv, bytes} or
// null; onValidChange(): the settings changed and are valid (rewrite the hash).
export function memoryForm(section, { queue, kvBytesPerToken, onValidChange }) {
  const element = $('#mem-form', section);
  const deviceSelect = $('#mem-device', section);
  const slider = $('#mem-kv-slider', section);
  const kvInput = $('#mem-kv', section);
  let device = MEM_DEFAULTS.kv; // the device example chosen, or 'custom'
  let lastGood = { ...MEM_DEFAULTS };

  replace(
    deviceSelect,
    DEVICES.map((d) => h('option', { value: d.id, text: d.label })),
    h('option', { value: 'custom', text: 'A number of tokens (type it or use the slider)' })
  );

  function readRaw() {
    const raw = {};
    for (const key of MEM_ORDER) raw[key] = $(`#${IDS[key]}`, section).value;
    if (device !== 'custom') raw.kv = device;
    return raw;
  }

  const errors = formErrors({
    root: section,
    keys: MEM_ORDER,
    idOf: (key) => IDS[key],
    summary: $('#mem-form-error', section),
    what: 'memory settings',
  });

  function check() {
    const { settings, errors: found } = validateMemory(readRaw(), queue());
    return { settings, errors: found, ok: Object.keys(found).length === 0 };
  }

  // The slider: log scale from the smallest budget that takes the longest request to room for every
  // slot's longest request four times over.
  function sliderRange(settings) {
    const lab = queue();
    const lo = minimumTokens(settings, lab);
    const hi = Math.max(lo * 8, 4 * lab.slots * longestRequest(settings, lab));
    return { lo, hi };
  }

  function syncSlider(settings, tokens) {
    const { lo, hi } = sliderRange(settings);
    const t = Number.isFinite(tokens) ? Math.min(hi, Math.max(lo, tokens)) : lo;
    slider.value = String(Math.round((Math.log(t / lo) / Math.log(hi / lo)) * SLIDER_STEPS));
    slider.setAttribute('aria-valuetext', `${int(tokens)} tokens`);
  }

  // The explanation under the budget: the device example worked through, and what it is in this model.
  function describeBudget() {
    const { settings, errors: found } = validateMemory(readRaw(), queue());
    const tokens = kvTokens(settings, queue());
    if (device !== 'custom') kvInput.value = Number.isFinite(tokens) ? String(tokens) : '';
    kvInput.readOnly = false;
    if (!found.kv && !found.block && !found.system_prompt) syncSlider(settings, tokens);
    const example = DEVICES.find((x) => x.id === device);
    replace(
      $('#mem-kv-help', section),
      budgetExplanation({ device: example, settings, errors: found, lab: queue(), tokens, toy: kvBytesPerToken() })
    );
  }

  function fill(settings) {
    const raw = memoryToRaw(settings);
    device = typeof settings.kv === 'number' ? 'custom' : settings.kv;
    deviceSelect.value = device;
    for (const key of MEM_ORDER) if (key !== 'kv') $(`#${IDS[key]}`, section).value = raw[key];
    kvInput.value = device === 'custom' ? raw.kv : '';
    describeBudget();
  }

  // Settings from the hash (strings by key; missing keys keep their defaults). Returns the messages of
  // bad values, whose defaults then stand in.
  function applyRaw(raw) {
    const given = {};
    for (const key of MEM_ORDER) if (raw[key] !== undefined) given[key] = raw[key];
    const { settings, errors: found } = validateMemory(given, queue());
    const messages = MEM_ORDER.filter((k) => found[k]).map((k) => found[k]);
    const fixed = { ...settings };
    for (const key of Object.keys(found)) fixed[key] = MEM_DEFAULTS[key];
    const second = validateMemory(memoryToRaw(fixed), queue());
    const final = Object.keys(second.errors).length ? { ...MEM_DEFAULTS } : second.settings;
    fill(final);
    lastGood = final;
    errors.showAll({});
    return messages;
  }

  // The hash part: the settings as they stand if valid, else the last valid ones.
  function hash() {
    const { settings, ok } = check();
    return ok ? memoryToHash(settings) : memoryToHash(lastGood);
  }

  // Messages already shown, and the budget's explanation, are updated as the user types, so that
  // nothing appears or disappears on blur and moves the Run button from under a click; new messages
  // wait for Run.
  function refreshShown() {
    const result = validateMemory(readRaw(), queue());
    errors.refresh(result.errors);
    return result;
  }

  function remember(settings) {
    lastGood = settings;
    onValidChange();
  }

  element.addEventListener('input', (event) => {
    if (event.target === slider) return;
    describeBudget();
    refreshShown();
  });
  element.addEventListener('change', (event) => {
    if (event.target === deviceSelect) {
      device = deviceSelect.value;
      if (device === 'custom' && !kvInput.value) kvInput.value = String(kvTokens(MEM_DEFAULTS, queue()));
    }
    describeBudget();
    const { settings, errors: found } = refreshShown();
    if (!Object.keys(found).length) remember(settings);
  });
  kvInput.addEventListener('input', () => {
    if (device !== 'custom') {
      device = 'custom';
      deviceSelect.value = 'custom';
    }
  });
  slider.addEventListener('input', () => {
    const { settings } = validateMemory({ ...readRaw(), kv: undefined }, queue());
    const { lo, hi } = sliderRange(settings);
    const raw = lo * (hi / lo) ** (Number(slider.value) / SLIDER_STEPS);
    const tokens = Math.max(lo, Math.round(raw / settings.block) * settings.block);
    device = 'custom';
    deviceSelect.value = 'custom';
    kvInput.value = String(tokens);
    slider.setAttribute('aria-valuetext', `${int(tokens)} tokens`);
  });
  slider.addEventListener('change', () => element.dispatchEvent(new Event('change')));

  return { element, errors, check, fill, applyRaw, hash, describeBudget, remember };
}
