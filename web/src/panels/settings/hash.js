// The lab bench's side of the URL hash: the settings written back as they change, and a link's settings
// read into the forms (a bad value shows a message and falls back to its default).

import { $, $$, h, replace } from '../../shared/dom.js';
import { standalone } from '../../runs/worker-client.js';
import { DEFAULTS, FIELD_ORDER, settingsToHash, settingsToRaw, validate } from '../../config.js';
import { parseHash } from './link.js';

// form: form.js's labForm; presets; memoryHash() -> the Memory section's hash part; memoryApply(raw)
// -> its messages; hardwareHash() -> the hardware switch's part; hardwareApply(raw) -> its messages; viewKeys() -> the page's own keys (view, chapter) that go first; store: the run store,
// whose settings are the ones last written.
// models: the model choices this page offers.
export function hashState({
  root,
  form,
  presets,
  models,
  memoryHash,
  memoryApply,
  hardwareHash,
  hardwareApply,
  viewKeys,
  store,
}) {
  // The whole page: index.html next to this one, or, for the standalone file (opened from disk, where
  // nothing sits next to it), the file itself without the chapter.
  const wholePage = standalone ? location.pathname.split('/').pop() : 'index.html';
  function write(settings) {
    if (store.get().settings !== settings) store.set({ settings });
    const settingsText = [settingsToHash(settings), memoryHash(), hardwareHash()].filter(Boolean).join('&');
    const text = [viewKeys(), settingsText].filter(Boolean).join('&');
    const url = `${location.pathname}${location.search}${text ? `#${text}` : ''}`;
    if (`${location.pathname}${location.search}${location.hash}` !== url) history.replaceState(null, '', url);
    $('#share-link', root).href = settingsText ? `#${settingsText}` : '#';
    for (const full of $$('[data-whole-page]')) full.href = `${wholePage}${settingsText ? `#${settingsText}` : ''}`;
  }

  // Reads `hashText` (the hash without the page's own keys) into the forms.
  function apply(hashText) {
    const { raw, autorun, problems } = parseHash(hashText);
    const { settings, errors } = validate(raw, presets, models);
    const messages = [...problems, ...FIELD_ORDER.filter((k) => errors[k]).map((k) => errors[k])];
    const fallback = { ...settings };
    for (const key of Object.keys(errors)) fallback[key] = DEFAULTS[key];
    // Defaults can still clash with what was kept (e.g. a long prompt with the tiny preset): re-check.
    const second = validate(settingsToRaw(fallback), presets, models);
    const final = Object.keys(second.errors).length ? { ...DEFAULTS } : second.settings;
    form.fill(final);
    form.errors.showAll({});
    messages.push(...memoryApply(raw)); // after the lab's form is filled
    messages.push(...hardwareApply(raw));
    const box = $('#hash-message', root);
    if (messages.length) {
      replace(
        box,
        h('strong', null, 'Some settings in this link could not be used, so defaults stand in for them. '),
        messages.join(' ')
      );
      box.hidden = false;
    } else {
      replace(box);
      box.hidden = true;
    }
    write(final);
    return { autorun, settings: final, bad: messages.length > 0 };
  }

  return {
    write,
    apply,
    // The whole page's address with this hash (a result's link).
    wholePageUrl: (hashText) => new URL(`${wholePage}#${hashText}`, location.href).href,
    get written() {
      return store.get().settings;
    },
  };
}
