// The "Simulated vs real" panel's settings: which policies serve the queue (the lab's four and the
// memory policies reserve:B, paged:B and chunked:B,T, B being the queue's slots), the KV budget, the
// block size, chunked prefill's tokens per step and the queue's shared prefix; validation with messages
// naming the field and its range; the replay options they make; which field a module error is about.
// No DOM here.

import { fieldOfErrorPath, parseSpec } from '../../shared/fields.js';
import { CATALOG } from '../../generated/catalog.js';
import { parsePolicyName, policyNameOf } from '../../shared/policies.js';

const LIMITS = CATALOG.limits;
const defaultFamilies = CATALOG.replay.policies.map((name) => parsePolicyName(name).family);

// The replay queue's slots: those of the module's default replay policies (static:8, continuous:8).
export const REPLAY_SLOTS = CATALOG.replay.slots;

// The policy families offered, in the module's order; `memory`: served within the KV budget; the
// module's default replay policies are checked.
export const REPLAY_FAMILIES = CATALOG.policies.map(({ family, takes_kv_budget }) => ({
  family,
  memory: takes_kv_budget,
  checked: defaultFamilies.includes(family),
}));

export const REPLAY_DEFAULTS = Object.freeze({ kv: 512, block: CATALOG.replay.block_tokens, chunk: 64 });

// Numeric fields; `policies` (at least one) is checked apart.
export const REPLAY_FIELDS = {
  kv: { label: 'KV budget (tokens)', kind: 'int', ...LIMITS.kv_tokens },
  block: { label: 'Block size (tokens)', kind: 'int', ...LIMITS.block_tokens },
  chunk: { label: 'Chunked prefill: tokens per step', kind: 'int', min: REPLAY_SLOTS, max: LIMITS.step_tokens.max },
};

// The module's replay queue, and what its prompts may share: nothing, a system prompt of N tokens before
// every prompt, or a chat of K conversations (request i is the next turn of conversation i mod K, its
// prompt the turn before it, that turn's answer and tokens of its own). `size`: the field's spec.
export const REPLAY_WORKLOAD = CATALOG.replay.workload;
export const PREFIX_KINDS = {
  none: { size: null },
  system: {
    size: { label: 'System prompt (tokens)', kind: 'int', min: 1, max: LIMITS.tokens.max },
    initial: 64,
    help: 'Before every prompt, the same for all.',
  },
  chat: {
    size: { label: 'Conversations', kind: 'int', min: 1, max: REPLAY_WORKLOAD.count },
    initial: 32,
    help: `The ${REPLAY_WORKLOAD.count} requests are turns of this many conversations; each turn’s prompt carries the turn before it and its answer.`,
  },
};

export const REPLAY_ORDER = ['policies', ...Object.keys(REPLAY_FIELDS), 'prefix'];

// The policy name of a family under these settings ("paged:8", "chunked:8,64").
export function policyName(family, settings) {
  return policyNameOf(family, REPLAY_SLOTS, settings.chunk);
}

// raw: {families: [checked family names], kv, block, chunk, prefix_kind, prefix (strings)} -> {settings,
// errors by key}.
export function validateReplay(raw) {
  const settings = { families: raw.families.filter((f) => REPLAY_FAMILIES.some((x) => x.family === f)) };
  const errors = {};
  if (!settings.families.length) errors.policies = `Policies: choose at least one of the ${REPLAY_FAMILIES.length}.`;
  for (const [key, spec] of Object.entries(REPLAY_FIELDS)) {
    const parsed = parseSpec(spec, raw[key]);
    if (parsed.error) errors[key] = parsed.error;
    else settings[key] = parsed.value;
  }
  settings.prefix_kind = Object.hasOwn(PREFIX_KINDS, raw.prefix_kind) ? raw.prefix_kind : 'none';
  const size = PREFIX_KINDS[settings.prefix_kind].size;
  if (size) {
    const parsed = parseSpec(size, raw.prefix);
    if (parsed.error) errors.prefix = parsed.error;
    else settings.prefix = parsed.value;
  }
  return { settings, errors };
}

// The replay() options of valid settings; the KV fields go only with a memory policy, which alone
// reads them. backend: the lab's ('cpu' or 'webgpu'), which the job worker reads (worker/job.js).
export function replayOptions(settings, preset, backend) {
  const options = {
    backend,
    measure: { preset },
    timeline_requests: 60,
    policies: settings.families.map((f) => policyName(f, settings)),
  };
  if (settings.prefix_kind === 'system') options.workload = { ...REPLAY_WORKLOAD, system_prompt: settings.prefix };
  if (settings.prefix_kind === 'chat')
    options.workload = { ...REPLAY_WORKLOAD, chat: { conversations: settings.prefix } };
  if (settings.families.some((f) => REPLAY_FAMILIES.find((x) => x.family === f).memory)) {
    options.kv_tokens = settings.kv;
    options.block_tokens = settings.block;
  }
  return options;
}

// A module error's path -> the field it is about (a key of REPLAY_ORDER), or null. A policy's own
// error (options.policies[i]: its budget cannot hold a request) is the KV budget's; the workload's (its
// prompts too long for the model) the shared prefix's, the only setting that changes it.
const FIELD_OF_PATH = {
  'options.kv_tokens': 'kv',
  'options.block_tokens': 'block',
  'options.policies': 'kv',
  'options.workload': 'prefix',
};

export function replayFieldOfModuleError(path) {
  return fieldOfErrorPath(path, FIELD_OF_PATH);
}
