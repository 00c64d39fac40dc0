// The settings panel's picture of the lab's run (the store's lab, runs/lab-run.js): the phase line, the
// progress bar, the Run and Cancel buttons, the error box, and a setting the module refused, marked in
// the form.

import { $, replace } from '../../shared/dom.js';
import { showProgress } from '../job-panel.js';
import { hint } from '../../runs/lab-words.js';
import { labCancelEnabled, labRunEnabled } from '../../runs/lab-run.js';

const KEPT = 'The results below are from the last run that finished.';

// root: the panel's element; store: the run store; form: the panel's form (form.js); env() -> the
// environment (the error's hint depends on it).
export function showLabStatus(root, { store, form, env }) {
  const phase = $('#phase', root);
  const box = $('#error', root);
  let shownError = null;

  function showError(error) {
    box.hidden = !error || Boolean(error.field);
    if (!error) return;
    if (error.field) {
      form.errors.showField(error.field, error.detail);
      const summary = $('#form-error', root);
      replace(summary, `${error.message} ${error.detail}`);
      summary.hidden = false;
      $(`#${error.field}`, root).focus();
      return;
    }
    replace(
      $('#error-message', root),
      [error.message, hint(error, env()), error.kept && KEPT].filter(Boolean).join(' ')
    );
    replace($('#error-detail', root), error.detail);
    box.dataset.kind = error.kind;
    box.scrollIntoView({ block: 'nearest' });
  }

  function draw(lab) {
    if (phase.textContent !== lab.phase) replace(phase, lab.phase);
    showProgress($('#progress', root), $('#percent', root), lab.progress);
    $('#run', root).disabled = !labRunEnabled(lab);
    $('#cancel', root).disabled = !labCancelEnabled(lab);
    if (lab.error !== shownError) {
      shownError = lab.error;
      showError(lab.error);
    }
  }

  draw(store.get().lab);
  store.subscribe((state, changes) => {
    if (changes.lab) draw(state.lab);
  });
}
