// The "Simulated vs real" panel's form: a checkbox per policy family (the chunked one named with its
// tokens per step), the KV budget, block size and chunk size, the shared prefix (its kind, and the size
// field that kind labels), and a message per field.

import { $, h, replace } from '../../shared/dom.js';
import { formErrors } from '../../shared/formerrors.js';
import { policyLabel } from '../../shared/policies.js';
import {
  PREFIX_KINDS,
  REPLAY_DEFAULTS,
  REPLAY_FAMILIES,
  REPLAY_FIELDS,
  REPLAY_ORDER,
  policyName,
  validateReplay,
} from './config.js';

// Form control of each setting (the policies' message box is #replay-policies-error).
export const IDS = {
  policies: 'replay-policies',
  kv: 'replay-kv',
  block: 'replay-block',
  chunk: 'replay-chunk',
  prefix: 'replay-prefix',
};

export function replayForm(section) {
  const element = $('#replay-form', section);
  const boxes = REPLAY_FAMILIES.map(({ family, checked }) =>
    h('input', { type: 'checkbox', value: family, checked, id: `replay-family-${family}` })
  );
  replace(
    $('#replay-policy-choices', section),
    boxes.map((box) => h('label', { for: box.id }, box, h('span', { id: `${box.id}-label` })))
  );
  for (const key of Object.keys(REPLAY_FIELDS)) $(`#${IDS[key]}`, section).value = String(REPLAY_DEFAULTS[key]);

  const prefixKind = $('#replay-prefix-kind', section);
  const readRaw = () => {
    const raw = {
      families: boxes.filter((b) => b.checked).map((b) => b.value),
      prefix_kind: prefixKind.value,
      prefix: $(`#${IDS.prefix}`, section).value,
    };
    for (const key of Object.keys(REPLAY_FIELDS)) raw[key] = $(`#${IDS[key]}`, section).value;
    return raw;
  };

  // The size field follows the prefix's kind: its label, help and first value; none disables it.
  function followPrefixKind() {
    const kind = PREFIX_KINDS[prefixKind.value];
    const input = $(`#${IDS.prefix}`, section);
    input.disabled = !kind.size;
    input.value = kind.size ? String(kind.initial) : '';
    replace($('#replay-prefix-label', section), kind.size ? kind.size.label : 'Shared prefix size');
    replace(
      $('#replay-prefix-help', section),
      kind.size ? `${kind.help} From ${kind.size.min} to ${kind.size.max.toLocaleString('en-US')}.` : 'Nothing shared.'
    );
  }

  // The labels name each policy as it will run (chunked's T follows its field while valid).
  function label() {
    const { settings } = validateReplay(readRaw());
    const named = { ...REPLAY_DEFAULTS, ...settings };
    for (const box of boxes) replace($(`#${box.id}-label`, section), policyLabel(policyName(box.value, named)));
  }

  const errors = formErrors({
    root: section,
    keys: REPLAY_ORDER,
    idOf: (key) => IDS[key],
    summary: $('#replay-form-error', section),
    what: 'replay settings',
  });

  function check() {
    const { settings, errors: found } = validateReplay(readRaw());
    return { settings, errors: found, ok: Object.keys(found).length === 0 };
  }

  // On the select's own input event, before the form's handler below checks the fields.
  prefixKind.addEventListener('input', followPrefixKind);
  element.addEventListener('input', () => {
    label();
    errors.refresh(check().errors);
  });
  followPrefixKind();
  label();
  return { element, check, errors };
}
