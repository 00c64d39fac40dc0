// The lab's settings form: reading and filling its fields, and its messages per field.

import { $ } from '../../shared/dom.js';
import { FIELD_ORDER, settingsToRaw, validate } from '../../config.js';
import { formErrors } from '../../shared/formerrors.js';

// root: the settings panel's element; presets: the model presets the form checks against (filled in
// further when the module is ready); models: the model choices this page offers.
export function labForm(root, presets, models) {
  function read() {
    const raw = {};
    for (const key of FIELD_ORDER) raw[key] = $(`#${key}`, root).value;
    if (raw.arrival !== 'poisson') delete raw.rate; // only checked when it is used
    return raw;
  }

  function showRate() {
    $('#rate-field', root).hidden = $('#arrival', root).value !== 'poisson';
  }

  function fill(settings) {
    const raw = settingsToRaw(settings);
    for (const key of FIELD_ORDER) $(`#${key}`, root).value = raw[key];
    showRate();
  }

  // Each field's control has the field's key as its id.
  const errors = formErrors({ root, keys: FIELD_ORDER, summary: $('#form-error', root), what: 'settings' });

  // Every field checked, its messages shown.
  function check() {
    const result = validate(read(), presets, models);
    errors.showAll(result.errors);
    return { ...result, ok: Object.keys(result.errors).length === 0 };
  }

  // The form's values checked without showing anything.
  const peek = () => validate(read(), presets, models);

  return { read, fill, showRate, errors, check, peek, element: $('#settings', root) };
}
