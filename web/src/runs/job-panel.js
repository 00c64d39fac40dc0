// What the page's job panels share. The SIMD vs scalar vs JavaScript comparison, the Memory section and
// "Simulated vs real" each run one job in a worker of their own and show it the same way: a phase
// line, a progress bar with its percent, Run / Cancel / Download buttons kept in step with the job and
// with the page's other runs, an error box, and the finished result published for tests and embedding
// pages. Their elements are named by the panel's prefix (#simd-phase, #mem-progress,
// #replay-error-detail, …). Each panel keeps only what differs: its options, how it words its phases,
// how it draws its result.

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

const capitalized = (text) => text.replace(/^(.)/, (c) => c.toUpperCase());

// prefix: of the panel's element ids; root: the panel's element (its data-state and aria-busy).
// createJob(handlers) -> the job (jobs.js's JobRunner, or any with run, cancel and running), given the
//   handlers that keep the panel in step; onResult(raw, elapsedMs) and onError(error) are the panel's
//   own (onError defaults to showing the error with retryHint).
// busy() -> another run holds the processor; onRunningChange() -> the panel started or stopped.
// describePhase(phase) -> the worker's phase in the panel's words (it is capitalized and gets "…").
// store, storeKey: the run store and the key the finished result is written under (runs/publish.js
// hands it on from there).
// downloadName: the file the Download button saves the result as (JSON).
// cancelledPhase: the phase after its Cancel button stopped the job (panels with a Cancel button).
export function jobPanel(
  prefix,
  {
    root,
    createJob,
    onResult,
    onError,
    busy,
    onRunningChange,
    describePhase = (phase) => phase,
    retryHint,
    store,
    storeKey,
    downloadName,
    cancelledPhase,
  }
) {
  const element = (part) => $(`#${prefix}-${part}`, root);
  const runButton = element('run');
  const cancelButton = element('cancel'); // null where the panel has none (Memory: the lab stops it)
  let result = null;

  const setPhase = (text) => replace(element('phase'), text);
  const setProgress = (fraction) => showProgress(element('progress'), element('percent'), fraction);

  function sync() {
    const running = job.running;
    root.setAttribute('aria-busy', running ? 'true' : 'false');
    runButton.disabled = running || busy();
    if (cancelButton) cancelButton.disabled = !running;
    element('download').disabled = !result;
  }

  // The panel's state (its data-state: ready, running, done, error, cancelled, …) and its buttons.
  function setState(state) {
    root.dataset.state = state;
    sync();
  }

  function showError(error, hint) {
    setProgress(0);
    setPhase('Stopped.');
    replace(element('error-message'), `${error.message} ${hint}`);
    replace(element('error-detail'), error.detail || '');
    element('error').hidden = false;
  }

  const job = createJob({
    onState(state) {
      setState(state);
      onRunningChange?.();
    },
    onProgress(fraction, phase) {
      setProgress(fraction);
      setPhase(`${capitalized(describePhase(String(phase || '')))}…`);
    },
    onResult,
    onError: onError || ((error) => showError(error, retryHint)),
  });

  // Stops the job mid-computation; false when there was none.
  function cancel(phase) {
    if (!job.running) return false;
    job.cancel();
    setProgress(0);
    setPhase(phase);
    return true;
  }

  if (cancelButton) {
    cancelButton.addEventListener('click', () => {
      if (cancel(cancelledPhase)) runButton.focus();
    });
  }
  element('download').addEventListener(
    'click',
    () => result && download(downloadName, `${JSON.stringify(result, null, 2)}\n`, 'application/json')
  );

  return {
    setPhase,
    setProgress,
    sync,
    setState,
    showError,
    cancel,
    get running() {
      return job.running;
    },
    get result() {
      return result;
    },

    // Starts the job on these options, the last error hidden.
    run(options, phase = 'Starting…') {
      element('error').hidden = true;
      setProgress(0);
      setPhase(phase);
      job.run(options);
    },

    // A finished job's result: drawn by render, then written to the run store.
    finish(finished, donePhase, render) {
      result = finished;
      setProgress(1);
      setPhase(donePhase);
      render(finished);
      sync();
      store.set({ [storeKey]: finished });
    },
  };
}
