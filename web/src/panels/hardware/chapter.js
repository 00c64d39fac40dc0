// A chapter with the hardware switch (queue, memory): the switch on top, then the chapter's measured view
// (the default) or its modeled view for the GPU chosen. The walkthrough's show/clear reach the measured
// view only; the modeled one follows the shared hardware model (ctx.hardware: runs/hardware-run.js). Switching back to
// "this device" shows the measured view as it was. The chapter's element carries data-hardware (the GPU's
// name, or "measured").

import './hardware.css';
import { h } from '../../shared/dom.js';
import { hardwareSwitch } from './form.js';
import { statusWords } from './words.js';
import { MEASURED } from '../../plans/hardware-settings.js';

// measured(element) -> the chapter's view ({show, clear, destroy}); modeled(element) -> {show(r), clear(),
// destroy()}; part: the chapter's name (its switch's ids start with `${part}-hw`).
export function mountWithHardware(root, ctx, { part, measured, modeled }) {
  const control = hardwareSwitch(`${part}-hw`);
  const measuredBox = h('div', { class: 'hw-measured' });
  const modeledBox = h('div', { class: 'hw-modeled', hidden: true });
  root.append(control.element, measuredBox, modeledBox);
  root.dataset.hardware = MEASURED;
  const measuredView = measured(measuredBox);
  const modeledView = modeled(modeledBox);

  let shown = {}; // what the switch shows: the presets, the choice, the error, the modeled result
  function draw(run, result) {
    if (run.presets !== shown.presets) control.setPresets(run.presets, run.choice);
    if (run.choice !== shown.choice) {
      control.show(run.choice);
      root.dataset.hardware = run.choice.measured ? MEASURED : run.choice.gpu;
      measuredBox.hidden = !run.choice.measured;
      modeledBox.hidden = true;
      modeledView.clear();
    }
    control.setStatus(statusWords(run));
    if (run.error !== shown.error) control.showError(run.error);
    const modeled = run.state === 'modeled' ? result : null;
    if (modeled && (modeled !== shown.result || run.choice !== shown.choice)) {
      modeledBox.hidden = false;
      modeledView.show(modeled);
    }
    shown = { presets: run.presets, choice: run.choice, error: run.error, result: modeled };
  }
  const remove = ctx.hardware.watch(draw);
  control.onChoose((choice) => ctx.hardware.choose(choice));

  return {
    show: measuredView.show,
    clear: measuredView.clear,
    destroy() {
      remove();
      measuredView.destroy();
      modeledView.destroy();
      root.replaceChildren();
    },
  };
}

// The chapter context for a modeled playback: no figure of the measured run lands with it.
export function modeledContext(ctx) {
  return {
    get reducedMotion() {
      return ctx.reducedMotion;
    },
    announce: ctx.announce,
  };
}
