// The hardware switch's part of the URL hash: a GPU preset the queue and memory chapters model, so that
// "Link to these settings" opens on the same modeled server. `hw` is the GPU (absent: this device,
// measured); the server's other fields follow only where they differ from the switch's defaults:
// #hw=h100-sxm&hw_model=llama-3.1-70b&hw_weights=fp8&hw_tp=4&hw_slots=64
// The choices are the module's (rooflinePresets(), in the catalog the build writes). No DOM here.

import { parseSpec } from '../../shared/fields.js';
import { CATALOG } from '../../generated/catalog.js';
import { DEFAULT, MAX_SLOTS, tpSizes } from '../../plans/hardware-settings.js';

const PRESETS = CATALOG.roofline_presets;

// Each hash key: the choice's field it sets and its spec (the message names the link's key).
const KEYS = {
  hw: {
    field: 'gpu',
    spec: { label: 'The link’s hw (the GPU)', kind: 'choice', choices: PRESETS.gpus.map((g) => g.name) },
  },
  hw_model: {
    field: 'model',
    spec: { label: 'The link’s hw_model', kind: 'choice', choices: PRESETS.models.map((m) => m.name) },
  },
  hw_weights: { field: 'weights', spec: { label: 'The link’s hw_weights', kind: 'choice', choices: PRESETS.weights } },
  hw_kv: { field: 'kv', spec: { label: 'The link’s hw_kv', kind: 'choice', choices: PRESETS.kv } },
  hw_tp: {
    field: 'tp',
    spec: { label: 'The link’s hw_tp (GPUs)', kind: 'choice', choices: tpSizes(PRESETS.max_tp).map(String) },
  },
  hw_slots: { field: 'slots', spec: { label: 'The link’s hw_slots', kind: 'int', min: 1, max: MAX_SLOTS } },
};

export const HW_HASH_KEYS = Object.keys(KEYS);

// A choice (run.js) as hash text: '' for this device.
export function hardwareToHash(choice) {
  if (choice.measured) return '';
  const p = new URLSearchParams();
  for (const [key, { field }] of Object.entries(KEYS)) {
    if (key === 'hw' || choice[field] !== DEFAULT[field]) p.set(key, String(choice[field]));
  }
  return p.toString();
}

// The link's raw values (panels/settings/link.js's parseHash) as a choice: {choice, problems}. choice is null when the
// link names no GPU or its GPU is refused (this device stays); a bad server field keeps its default.
export function hardwareFromRaw(raw) {
  const problems = [];
  const present = HW_HASH_KEYS.filter((key) => raw[key] !== undefined);
  if (!present.length) return { choice: null, problems };
  if (raw.hw === undefined) {
    problems.push(`The link sets ${present.join(', ')} but no GPU (hw), so this device is measured instead.`);
    return { choice: null, problems };
  }
  const choice = { ...DEFAULT };
  for (const key of present) {
    const parsed = parseSpec(KEYS[key].spec, raw[key]);
    if (parsed.error) {
      problems.push(key === 'hw' ? `${parsed.error} This device is measured instead.` : parsed.error);
      if (key === 'hw') return { choice: null, problems };
    } else {
      choice[KEYS[key].field] = key === 'hw_tp' ? Number(parsed.value) : parsed.value;
    }
  }
  return { choice, problems };
}
