// The model choice, in two places that stay in step: the walkthrough's menu (beside its Run button) and
// the lab bench's Model field (#model, a setting like any other, kept in the URL hash as model=). Each
// place has a file picker, shown when "a model file from your disk" is chosen; the files picked in
// either are the ones the next run reads (store.modelFiles).

import { $$, h, replace } from '../shared/dom.js';
import { FILE_MODEL, MODEL_LABELS } from './choices.js';
import { pickedModel } from './picked.js';
import { loadedModelWords } from './words.js';

// choices: the model choices this page offers; store: the run store; benchSelect: the bench's #model,
// whose change events the settings form handles.
export function modelControls({ choices, store, benchSelect }) {
  const selects = $$('[data-model-choice]');
  for (const select of selects) {
    replace(
      select,
      choices.map((name) => h('option', { value: name, text: MODEL_LABELS[name] }))
    );
  }

  // Shows `choice` in every menu, and the file pickers when it is the file choice.
  function show(choice) {
    for (const select of selects) if (select.value !== choice) select.value = choice;
    for (const field of $$('[data-model-file-field]')) field.hidden = choice !== FILE_MODEL;
  }

  for (const select of selects) {
    select.addEventListener('change', () => {
      show(select.value);
      // The walkthrough's menu sets the bench's field, whose change the settings form takes up.
      if (select !== benchSelect) {
        benchSelect.value = select.value;
        benchSelect.dispatchEvent(new Event('change', { bubbles: true }));
      }
    });
  }

  // The pickers' notes: what was picked, and, once a run has loaded it, its weights as held.
  let chosen = null;
  function note(text, isError = false) {
    for (const element of $$('[data-model-picked]')) {
      replace(element, text);
      element.classList.toggle('field-error', isError);
    }
  }

  for (const input of $$('[data-model-file]')) {
    input.addEventListener('change', () => {
      const picked = pickedModel(input.files);
      store.set({ modelFiles: picked.error ? null : picked });
      chosen = picked.error
        ? null
        : `Chosen: ${Object.values(picked.files)
            .map((file) => file.name)
            .join(' and ')}.`;
      note(picked.error || chosen, Boolean(picked.error));
    });
  }

  store.subscribe((state, changes) => {
    if (changes.settings && state.settings) show(state.settings.model);
    const loaded = changes.lab && state.lab.parts && state.lab.parts.model;
    if (loaded && chosen && state.settings && state.settings.model === FILE_MODEL)
      note(`${chosen} ${loadedModelWords(loaded)}`);
  });
  show(benchSelect.value);
}
