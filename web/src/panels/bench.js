// The lab bench: the panels below the walkthrough, each mounted like a chapter: it owns its markup,
// mounts it into its place in index.html (<div data-panel="NAME">) and returns a handle. They share
// the run store (runs/store.js), the page's one rule for runs that compete for the processor, and the
// environment facts; a panel that needs another's reaches it through ctx.panels: while it mounts, that
// holds the panels mounted before it, and every panel once the bench is mounted (the settings panel's
// hash reads the Memory section's when it is written, never while it mounts).

import { $ } from '../shared/dom.js';
import { watchResizes } from '../shared/charts.js';
import { environment } from '../env.js';
import { oneRunAtATime } from '../runs/one-at-a-time.js';
import { labWorkload } from '../config.js';
import * as settings from './settings/index.js';
import * as results from './results/index.js';
import * as memory from './memory/index.js';
import * as replay from './replay/index.js';
import * as simd from './simd/index.js';
import * as kvCalculator from './kv-calculator/index.js';
import * as thisBrowser from './environment/index.js';

// In the page's order.
const PANELS = [settings, results, memory, replay, simd, kvCalculator, thisBrowser];

// page: the page's main element, which holds the bench and whose data-state is the lab's run state;
// embed: the compact view; viewKeys() -> the page's own hash keys; store: the run store;
// memoryAfterLab: the Memory section runs by itself when the lab has run (its chapter is shown);
// hardware: the chapters' modeled GPU server (runs/hardware-run.js), which takes its presets from the module
// and the lab's queue from the settings. Returns the settings panel: the lab's run and the hash.
export function setupBench({ page, embed, viewKeys, store, memoryAfterLab, hardware }) {
  const ctx = {
    page,
    embed,
    viewKeys,
    store,
    memoryAfterLab,
    hardware,
    runs: oneRunAtATime(),
    env: environment(),
    panels: {},
  };
  for (const panel of PANELS) ctx.panels[panel.name] = panel.mount($(`[data-panel="${panel.name}"]`, page), ctx);

  // The chapters' modeled GPU server waits for the bench's runs like any of them.
  hardware.connect({
    busy: () => ctx.runs.busyFor('hardware'),
    onRunningChange: ctx.runs.sync,
    labQueue: () => labWorkload(ctx.panels.settings.labSettings()),
    setBackend: (backend) => ctx.panels.settings.setBackend(backend),
    onChoiceChange: () => ctx.panels.settings.rewriteHash(),
  });
  ctx.runs.add('hardware', { running: () => hardware.running, sync: hardware.sync });
  store.subscribe((state, changes) => {
    if (changes.module && state.module.roofline_presets) hardware.setPresets(state.module.roofline_presets);
    // The lab's backend (its form, a link) shows in the switch while it shows this device.
    const { choice } = hardware;
    if (changes.settings && choice.measured && (choice.backend || 'cpu') !== state.settings.backend)
      hardware.choose({ measured: true, backend: state.settings.backend });
  });

  // The page's data-state is the lab's run state.
  const showLabState = ({ lab }) => (page.dataset.state = lab.state);
  showLabState(store.get());
  store.subscribe((state, changes) => changes.lab && showLabState(state));

  watchResizes();
  return ctx.panels.settings;
}
