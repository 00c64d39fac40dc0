// What the page's job panels share as views. The SIMD vs scalar vs JavaScript comparison, the Memory
// section and "Simulated vs real" each draw their job's run (runs/job-run.js: the store's jobs[name] and
// store[name]) the same way: a phase line, a progress bar with its percent, Run / Cancel / Download
// buttons kept in step with the job and with the page's other runs, an error box, and the finished
// result drawn. Their elements are named by the panel's prefix (#simd-phase, #mem-progress,
// #replay-error-detail, …). Each panel keeps only what differs: its options, its words, how it draws
// its result and marks a refused setting.

import { $, replace } from '../shared/dom.js';
import { download } from '../shared/downloads.js';

// A <progress> out of 100 and the whole percent beside it (the lab's own bar too).
export function showProgress(bar, percentLabel, fraction) {
  const percent = Math.max(0, Math.min(100, Math.round(fraction * 1000) / 10));
  bar.value = percent;
  replace(percentLabel, `${Math.floor(percent)}%`);
}

// A job panel's progress line and error box, with the ids jobPanel looks them up by; phase: the first
// phase line (what the panel does, before it runs).
export function jobStatusMarkup(prefix, phase) {
  return `
  <div class="status" aria-live="polite">
    <div class="progress-row">
      <progress id="${prefix}-progress" max="100" value="0" aria-labelledby="${prefix}-phase"></progress>
      <span id="${prefix}-percent" class="percent" aria-hidden="true">0%</span>
    </div>
    <p id="${prefix}-phase" class="phase">${phase}</p>
  </div>
  <div id="${prefix}-error" class="notice error" role="alert" hidden>
    <p id="${prefix}-error-message"></p>
    <p id="${prefix}-error-detail" class="detail"></p>
  </div>`;
}

// prefix: of the panel's element ids; root: the panel's element (its data-state and aria-busy); run: the
// job's run (runs/job-run.js) under `name` in store; render(result): draws a finished result;
// showField(field, detail): marks a setting the module refused; downloadName: the file the Download button
// saves the result as (JSON); cancelledPhase: the phase after its Cancel button stopped the job (panels
// with a Cancel button). Returns the last result drawn.
export function jobPanel(prefix, { root, name, run, store, render, showField, downloadName, cancelledPhase }) {
  const element = (part) => $(`#${prefix}-${part}`, root);
  const runButton = element('run');
  const cancelButton = element('cancel'); // null where the panel has none (Memory: the lab stops it)
  let result = null;
  let shownError = null;

  function showError(error) {
    element('error').hidden = !error || Boolean(error.field);
    if (!error) return;
    if (error.field) {
      showField(error.field, error.detail);
      return;
    }
    replace(element('error-message'), error.message);
    replace(element('error-detail'), error.detail);
  }

  function draw(job) {
    root.dataset.state = job.state;
    const running = job.state === 'running';
    root.setAttribute('aria-busy', running ? 'true' : 'false');
    runButton.disabled = running || job.blocked;
    if (cancelButton) cancelButton.disabled = !running;
    element('download').disabled = !result;
    if (job.phase !== null && element('phase').textContent !== job.phase) replace(element('phase'), job.phase);
    showProgress(element('progress'), element('percent'), job.progress);
    if (job.error !== shownError) {
      shownError = job.error;
      showError(job.error);
    }
  }

  if (cancelButton) {
    cancelButton.addEventListener('click', () => {
      if (run.cancel(cancelledPhase)) runButton.focus();
    });
  }
  element('download').addEventListener(
    'click',
    () => result && download(downloadName, `${JSON.stringify(result, null, 2)}\n`, 'application/json')
  );

  store.subscribe((state, changes) => {
    // A new lab run empties the Memory section's result: the last one drawn stays.
    if (changes[name] && state[name]) {
      result = state[name];
      render(result);
    }
    if (changes.jobs || changes[name]) draw(state.jobs[name]);
  });
  draw(store.get().jobs[name]);

  return {
    get result() {
      return result;
    },
  };
}
