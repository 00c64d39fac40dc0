// The lab's settings: defaults, validation with messages that name the field, the URL hash that
// shares them, and the options object that the wasm module's run() takes.
//
// Nothing here touches the DOM; the form (main.js) and the tests use the same rules. The Memory
// section's settings (memconfig.js) share the hash: its keys are known here too.

import { fieldOfErrorPath, parseSpec } from './shared/fields.js';
import { CATALOG } from './generated/catalog.js';
import { ALL_MODELS, MODEL_LABELS, RANDOM_MODEL, isRealModel } from './models/choices.js';
import { AUTO_THREADS, THREAD_CHOICES } from './threads.js';

// The model presets, the lab's defaults and the fields' limits come from the module's catalog
// (src/wasm/catalog.h), written at build time. max_seq bounds Part A's prompt + answer.
const LAB_DEFAULTS = CATALOG.lab.defaults;
const LIMITS = CATALOG.limits;

export const PRESETS = Object.fromEntries(
  CATALOG.model_presets.map((p) => [p.name, { label: `${p.name} (${p.label})`, max_seq: p.max_seq }])
);

export const DEFAULTS = Object.freeze({
  // Random weights: the page loads in a moment and runs from file:// too; stories15M is one choice
  // away (docs/real-model.md says why it is not the default).
  model: RANDOM_MODEL,
  preset: LAB_DEFAULTS.preset,
  weights: LAB_DEFAULTS.weights,
  kv_format: LAB_DEFAULTS.kv,
  runs: LAB_DEFAULTS.runs,
  prompt_tokens: LAB_DEFAULTS.prompt_tokens,
  answer_tokens: LAB_DEFAULTS.answer_tokens,
  requests: LAB_DEFAULTS.requests,
  prompt_lo: LAB_DEFAULTS.prompt[0],
  prompt_hi: LAB_DEFAULTS.prompt[1],
  answer_lo: LAB_DEFAULTS.answer[0],
  answer_hi: LAB_DEFAULTS.answer[1],
  slots: LAB_DEFAULTS.slots,
  arrival: LAB_DEFAULTS.arrival,
  rate: 50, // the page's own: the module's default of 1 request/s would leave 16 slots idle
  seed: LAB_DEFAULTS.seed,
  backend: 'cpu',
  threads: AUTO_THREADS,
});

// The published lab's queue: the comparison table only matches this one.
export function isPublishedQueue(s) {
  return (
    s.requests === 1000 &&
    s.prompt_lo === 8 &&
    s.prompt_hi === 32 &&
    s.answer_lo === 16 &&
    s.answer_hi === 96 &&
    s.slots === 16 &&
    s.arrival === 'all-at-zero'
  );
}

const MAX_TOKENS = LIMITS.tokens.max; // per prompt or answer in the queue
const MAX_ANSWER_WORK = LIMITS.page_answer_work.max; // requests x longest answer: keeps one run quick

// One entry per form control: the id of the control is the key.
export const FIELDS = {
  model: { label: 'Model', kind: 'choice', choices: ALL_MODELS, labels: MODEL_LABELS },
  preset: { label: 'Model preset', kind: 'choice', choices: Object.keys(PRESETS) },
  weights: { label: 'Weight format', kind: 'choice', choices: CATALOG.weight_formats.map((f) => f.name) },
  kv_format: { label: 'KV cache format', kind: 'choice', choices: CATALOG.kv_formats.map((f) => f.name) },
  runs: { label: 'Runs per path', kind: 'int', ...LIMITS.runs },
  prompt_tokens: { label: 'Part A prompt length', kind: 'int', min: 1 }, // max depends on the preset
  answer_tokens: { label: 'Part A answer length', kind: 'int', min: 1 },
  requests: { label: 'Requests', kind: 'int', ...LIMITS.requests },
  prompt_lo: { label: 'Prompt length, from', kind: 'int', min: 1, max: MAX_TOKENS },
  prompt_hi: { label: 'Prompt length, to', kind: 'int', min: 1, max: MAX_TOKENS },
  answer_lo: { label: 'Answer length, from', kind: 'int', min: 1, max: MAX_TOKENS },
  answer_hi: { label: 'Answer length, to', kind: 'int', min: 1, max: MAX_TOKENS },
  slots: { label: 'Batch size / slots', kind: 'int', ...LIMITS.batch_rows },
  arrival: { label: 'Arrivals', kind: 'choice', choices: ['all-at-zero', 'poisson'] },
  rate: { label: 'Arrival rate (requests/s)', kind: 'number', ...LIMITS.rate_per_s },
  seed: { label: 'Queue seed', kind: 'int', ...LIMITS.seed },
  // Where the model runs: the CPU (the wasm module) or this device's GPU through WebGPU (webgpu/).
  backend: { label: 'Run the model on', kind: 'choice', choices: ['cpu', 'webgpu'] },
  // The CPU's threads: what the device offers, or a count (threads.js; one where the page is not isolated).
  threads: { label: 'Threads', kind: 'choice', choices: THREAD_CHOICES },
};

export const FIELD_ORDER = Object.keys(FIELDS);

// Parses one raw (string) value. Returns {value} or {error}. `limits` ({max, why}) tightens the range
// for this call (Part A's lengths, bounded by the preset's cache).
export function parseField(key, raw, limits = {}) {
  return parseSpec(FIELDS[key], raw, limits);
}

// Validates a whole set of raw values (strings from the form or the hash). Returns
// {settings, errors: {key: message}}; `settings` holds every field that parsed (others stay default).
// models: the model choices this page offers (models/choices.js: the single-file page has fewer).
export function validate(raw, presets = PRESETS, models = ALL_MODELS) {
  const errors = {};
  const settings = { ...DEFAULTS };
  // The preset first: Part A's lengths are bounded by its cache (max_seq positions).
  let maxSeq = PRESETS[DEFAULTS.preset].max_seq;
  for (const key of FIELD_ORDER) {
    if (key === 'prompt_tokens') maxSeq = (presets[settings.preset] || PRESETS[settings.preset]).max_seq;
    if (raw[key] === undefined) continue;
    const why = ` for the ${settings.preset} model, whose cache holds ${maxSeq} positions`;
    // A real model's cache is known once its file is read: the module checks Part A's lengths then.
    const bounded = !isRealModel(settings.model);
    const limits =
      bounded && key === 'prompt_tokens'
        ? { max: maxSeq - 1, why }
        : bounded && key === 'answer_tokens'
          ? { max: maxSeq, why }
          : {};
    const r =
      key === 'model' ? parseSpec({ ...FIELDS.model, choices: models }, raw[key]) : parseField(key, raw[key], limits);
    if (r.error) errors[key] = r.error;
    else settings[key] = r.value;
  }
  // Fields that depend on each other.
  if (
    !isRealModel(settings.model) &&
    !errors.prompt_tokens &&
    !errors.answer_tokens &&
    settings.prompt_tokens + settings.answer_tokens - 1 > maxSeq
  ) {
    errors.answer_tokens = `${FIELDS.answer_tokens.label} must be from 1 to ${maxSeq - settings.prompt_tokens + 1}: prompt + answer must fit the ${settings.preset} model's ${maxSeq} positions (got ${settings.answer_tokens}).`;
  }
  if (!errors.prompt_lo && !errors.prompt_hi && settings.prompt_lo > settings.prompt_hi) {
    errors.prompt_hi = `${FIELDS.prompt_hi.label} must be at least the “from” value, ${settings.prompt_lo} (got ${settings.prompt_hi}).`;
  }
  if (!errors.answer_lo && !errors.answer_hi && settings.answer_lo > settings.answer_hi) {
    errors.answer_hi = `${FIELDS.answer_hi.label} must be at least the “from” value, ${settings.answer_lo} (got ${settings.answer_hi}).`;
  }
  // Every request of the queue must fit the model's positions too: prompt + answer − 1 (the module
  // refuses the queue otherwise, since the step table's figures end there).
  if (!errors.prompt_hi && !errors.answer_hi && settings.prompt_hi + settings.answer_hi - 1 > maxSeq) {
    const fit = `every request must fit the ${settings.preset} model's ${maxSeq} positions (prompt + answer − 1)`;
    if (settings.prompt_hi > maxSeq) {
      errors.prompt_hi = `${FIELDS.prompt_hi.label} must be from 1 to ${maxSeq}: ${fit} (got ${settings.prompt_hi}).`;
    } else {
      errors.answer_hi = `${FIELDS.answer_hi.label} must be from 1 to ${maxSeq - settings.prompt_hi + 1} with prompts up to ${settings.prompt_hi}: ${fit} (got ${settings.answer_hi}).`;
    }
  }
  if (!errors.requests && !errors.answer_hi && settings.requests * settings.answer_hi > MAX_ANSWER_WORK) {
    errors.requests = `${FIELDS.requests.label} × longest answer must be at most ${MAX_ANSWER_WORK.toLocaleString('en-US')} to keep the simulation quick: with answers up to ${settings.answer_hi} tokens, use at most ${Math.floor(MAX_ANSWER_WORK / settings.answer_hi).toLocaleString('en-US')} requests (got ${settings.requests.toLocaleString('en-US')}).`;
  }
  return { settings, errors };
}

// ---- URL hash -------------------------------------------------------------------------------
// #preset=tiny&weights=bf16&kv_format=f16&runs=1&requests=40&prompt=8-32&answer=16-96&slots=16&arrival=poisson&rate=20&seed=1&autorun
// Only values that differ from the defaults are written.

// The lab's settings written as one key each, a range as lo-hi (panels/settings/link.js reads them).
export const RANGE_KEYS = { prompt: ['prompt_lo', 'prompt_hi'], answer: ['answer_lo', 'answer_hi'] };

export function settingsToHash(settings, { autorun = false } = {}) {
  const p = new URLSearchParams();
  for (const key of ['model', 'preset', 'weights', 'kv_format', 'runs', 'prompt_tokens', 'answer_tokens', 'requests']) {
    if (settings[key] !== DEFAULTS[key]) p.set(key, String(settings[key]));
  }
  for (const [name, [lo, hi]] of Object.entries(RANGE_KEYS)) {
    if (settings[lo] !== DEFAULTS[lo] || settings[hi] !== DEFAULTS[hi]) p.set(name, `${settings[lo]}-${settings[hi]}`);
  }
  for (const key of ['slots', 'arrival']) if (settings[key] !== DEFAULTS[key]) p.set(key, String(settings[key]));
  if (settings.arrival === 'poisson') p.set('rate', String(settings.rate));
  if (settings.seed !== DEFAULTS.seed) p.set('seed', String(settings.seed));
  if (settings.backend !== DEFAULTS.backend) p.set('backend', settings.backend);
  if (settings.threads !== DEFAULTS.threads) p.set('threads', settings.threads);
  let text = p.toString();
  if (autorun) text += (text ? '&' : '') + 'autorun';
  return text;
}

// A kvlab link is no longer than this (panels/settings/link.js reads none longer; a result's link fits).
export const MAX_HASH_CHARS = 4096;

// Settings as strings, for filling the form.
export function settingsToRaw(settings) {
  const raw = {};
  for (const key of FIELD_ORDER) raw[key] = String(settings[key]);
  return raw;
}

// ---- the module's options ---------------------------------------------------------------------

// The module's default policies, with the form's batch size for the batching ones.
export function policyNames(settings) {
  return CATALOG.lab.policies.map((name) => name.replace(/:\d+$/, `:${settings.slots}`));
}

// The lab's queue with prompt lengths drawn from the form's range (what a model with no tokenizer serves,
// and what the modeled GPU server of the hardware switch serves).
export function labWorkload(settings) {
  return {
    count: settings.requests,
    prompt: [settings.prompt_lo, settings.prompt_hi],
    answer: [settings.answer_lo, settings.answer_hi],
    arrival: settings.arrival === 'poisson' ? { kind: 'poisson', rate_per_s: settings.rate } : { kind: 'all-at-zero' },
    seed: settings.seed,
  };
}

export function toRunOptions(settings) {
  // A real model is loaded into the module first, in the run's weight and KV formats (modelToLoad), then
  // measured as "the loaded model"; its Part A prompt is text, one of the module's story openings, and
  // the queue's prompts are story openings too (their lengths counted by its tokenizer).
  const real = isRealModel(settings.model);
  const measure = real
    ? { runs: settings.runs, answer_tokens: settings.answer_tokens }
    : {
        preset: settings.preset,
        weights: settings.weights,
        kv: settings.kv_format,
        runs: settings.runs,
        prompt_tokens: settings.prompt_tokens,
        answer_tokens: settings.answer_tokens,
      };
  return {
    ...(real ? { source: 'loaded' } : {}),
    measure,
    workload: real ? storyWorkload(labWorkload(settings)) : labWorkload(settings),
    policies: policyNames(settings),
    ...(settings.backend === DEFAULTS.backend ? {} : { backend: settings.backend }),
    // The lab worker turns it into options.measure.threads, within what its module can run.
    ...(settings.threads === DEFAULTS.threads ? {} : { threads: settings.threads }),
    timeline_requests: 60,
    // The whole queue's playback (the walkthrough's queue chapter).
    simulate: { queue_timeline: true },
  };
}

// The same queue with story openings for prompts ("prompts": "stories" takes no "prompt" range).
function storyWorkload(workload) {
  const stories = { ...workload, prompts: 'stories' };
  delete stories.prompt;
  return stories;
}

// What the lab's worker loads before the run (worker/model-loader.js): null for random weights, else
// {choice, weights, kv}; the page adds the picked files for the "file" choice.
export function modelToLoad(settings) {
  return isRealModel(settings.model)
    ? { choice: settings.model, weights: settings.weights, kv: settings.kv_format }
    : null;
}

// The form control of each field of run()'s options (toRunOptions), by the path the module names in
// an error about it.
const FIELD_OF_PATH = {
  // The model's files, as the worker reports an error in reading them (worker/model-loader.js).
  model: 'model',
  'options.source': 'model',
  'options.measure.preset': 'preset',
  'options.measure.weights': 'weights',
  'options.measure.kv': 'kv_format',
  'options.measure.runs': 'runs',
  'options.measure.prompt_tokens': 'prompt_tokens',
  'options.measure.answer_tokens': 'answer_tokens',
  'options.measure.threads': 'threads',
  'options.workload.count': 'requests',
  'options.workload.prompt': 'prompt_lo',
  'options.workload.prompt[1]': 'prompt_hi',
  'options.workload.prompts': 'model',
  'options.workload.answer': 'answer_lo',
  'options.workload.answer[1]': 'answer_hi',
  'options.workload.arrival': 'arrival',
  'options.workload.arrival.rate_per_s': 'rate',
  'options.workload.seed': 'seed',
  'options.policies': 'slots',
};

// Which form control a module error is about, from its path (error.path): a key of FIELDS, or null.
export function fieldOfModuleError(path) {
  return fieldOfErrorPath(path, FIELD_OF_PATH);
}
