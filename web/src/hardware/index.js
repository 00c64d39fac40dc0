// The hardware switch (issue 17): "this device (measured)", the default, or a GPU preset whose step table
// the C++ roofline models (docs/gpu.md). With a preset a job worker models the table, replays the lab's
// queue on it under the four policies, compares the memory policies at the GPU's real KV budget, and
// lists the published figures the model was checked against; the measured tables above stay as they are.
//
// The result goes out as a `kvlab:hardware-result` event on document and stays in window.kvlabHardwareResult.

import { JobRunner } from '../jobs.js';
import { jobPanel } from '../panel.js';
import { sig } from '../format.js';
import { hardwareSection, readHardware } from './form.js';
import { MEASURED } from './presets.js';
import { renderHardware } from './render.js';

// anchor: the element the section goes after. hooks: queue() -> {workload, policies} of the lab's settings
// (policies for the modeled slots); busy(); onRunningChange().
export function setupHardware(anchor, hooks) {
  const root = hardwareSection();
  anchor.after(root);
  const $ = (selector) => root.querySelector(selector);
  let lastOptions = null;

  const panel = jobPanel('gpu', {
    root,
    createJob: (handlers) => new JobRunner('hardware', handlers),
    onResult(raw, elapsedMs) {
      const result = { ...raw, options: lastOptions, elapsed_ms: elapsedMs };
      panel.finish(result, `Modeled in ${sig(elapsedMs / 1000, 3)} s (step times from the roofline, not measured).`, renderHardware);
    },
    busy: hooks.busy,
    onRunningChange: hooks.onRunningChange,
    retryHint: 'Press the button to try again (a fresh worker starts).',
    resultEvent: 'kvlab:hardware-result',
    resultGlobal: 'kvlabHardwareResult',
    downloadName: 'kvlab-modeled-gpu.json',
    cancelledPhase: 'Cancelled: the worker was stopped.',
  });

  function start() {
    const choice = readHardware(root);
    root.dataset.hardware = choice.measured ? MEASURED : choice.roofline ? choice.roofline.gpu : root.dataset.hardware;
    $('#gpu-slots-error').hidden = !choice.error;
    $('#gpu-slots-error').textContent = choice.error || '';
    if (choice.error) return;
    if (choice.measured) {
      const shown = 'This device is shown above; choose a GPU preset to model one.';
      if (!panel.cancel(shown)) panel.setPhase(shown);
      $('#gpu-results').hidden = true;
      return;
    }
    if (panel.running || hooks.busy()) return;
    lastOptions = { roofline: choice.roofline, slots: choice.slots, ...hooks.queue(choice.slots) };
    panel.run(lastOptions, 'Modeling the step table…');
  }

  $('#gpu-run').addEventListener('click', start);
  // A lab run redraws the page's plots (charts.js destroys every chart first): draw the modeled view again.
  document.addEventListener('kvlab:result', () => {
    if (panel.result && !$('#gpu-results').hidden) renderHardware(panel.result);
  });
  $('#gpu-hardware').addEventListener('change', start);
  return panel;
}
