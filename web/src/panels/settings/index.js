// The lab's settings panel: the settings form (validated, kept in the URL hash) and the lab's run
// (runs/lab-run.js) drawn with its progress, cancel and errors (status.js). It puts the module's ready
// message and the accepted settings into the run store, which the other panels and the chapters read.

import { $, fromTemplate, h, replace } from '../../shared/dom.js';
import { DEFAULTS, PRESETS } from '../../config.js';
import { CATALOG } from '../../generated/catalog.js';
import { labForm } from './form.js';
import { hashState } from './hash.js';
import { hardwareFromRaw, hardwareToHash } from '../hardware/hash.js';
import { labRun } from '../../runs/lab-run.js';
import { showLabStatus } from './status.js';
import { MARKUP } from './markup.js';
import { modelControls } from '../../models/control.js';
import { modelChoices } from '../../models/choices.js';
import { standalone } from '../../runs/worker-client.js';
import { AUTO_THREADS, THREAD_CHOICES } from '../../threads.js';

export const name = 'settings';

// The model, weight and KV cache menus: what the module's catalog offers.
function fillMenus(root) {
  const options = (items, label) => items.map((item) => h('option', { value: item.name, text: label(item) }));
  const defaults = CATALOG.lab.defaults;
  replace(
    $('#preset', root),
    options(CATALOG.model_presets, (p) => `${p.name} (${p.label})`)
  );
  replace(
    $('#weights', root),
    options(
      CATALOG.weight_formats,
      (f) => `${f.name} (${f.bytes_per_weight} bytes a weight${f.name === defaults.weights ? ', default' : ''})`
    )
  );
  replace(
    $('#kv_format', root),
    options(
      CATALOG.kv_formats,
      (f) => `${f.name} (${f.bytes_per_number} bytes a number${f.name === defaults.kv ? ', default' : ''})`
    )
  );
  replace(
    $('#threads', root),
    THREAD_CHOICES.map((choice) =>
      h('option', { value: choice, text: choice === AUTO_THREADS ? 'what this device offers (default)' : choice })
    )
  );
}

// ctx: the lab bench's (panels/bench.js). Returns what the page and the other panels ask of the lab.
export function mount(root, ctx) {
  const { store, runs, panels } = ctx;
  root.append(fromTemplate(MARKUP));
  fillMenus(root);
  const presets = { ...PRESETS };
  // The single file carries no model file: it offers the random models and the file picker.
  const models = modelChoices(!standalone);
  modelControls({ choices: models, store, benchSelect: $('#model', root) });
  const form = labForm(root, presets, models);

  // The lab's settings as the form has them (the last valid ones while the form has errors).
  const labSettings = () => {
    const { settings, errors } = form.peek();
    return Object.keys(errors).length ? hash.written : settings;
  };

  const hash = hashState({
    root,
    form,
    presets,
    models,
    memoryHash: () => (panels.memory ? panels.memory.hash() : ''),
    memoryApply: (raw) => (panels.memory ? panels.memory.applyRaw(raw) : []),
    hardwareHash: () => hardwareToHash(ctx.hardware.choice),
    hardwareApply(raw) {
      const { choice, problems } = hardwareFromRaw(raw);
      // A link without a GPU (or with a refused one) is this device, on the lab's backend.
      if (choice) ctx.hardware.choose(choice, { fromLink: true });
      else if (!ctx.hardware.choice.measured)
        ctx.hardware.choose({ measured: true, backend: $('#backend', root).value });
      return problems;
    },
    viewKeys: ctx.viewKeys,
    store,
  });

  const run = labRun({
    store,
    runs,
    env: () => ctx.env,
    embed: ctx.embed,
    accepted: (settings) => hash.write(settings),
    linkTo: hash.wholePageUrl,
    stopYielding: () => {
      if (runs.yielding('lab').includes('memory')) panels.memory.cancel();
    },
    onReady(info) {
      for (const [preset, modelInfo] of Object.entries(info.presets || {})) {
        presets[preset] = { ...(presets[preset] || { label: preset }), max_seq: modelInfo.max_seq, info: modelInfo };
      }
      // The clock the measurements use is the worker's: kept with every result.
      Object.assign(ctx.env, {
        worker_timer_resolution_ms: info.timer_resolution_ms,
        min_sample_ms: info.min_sample_ms,
      });
      store.set({ module: info });
    },
  });
  showLabStatus(root, { store, form, env: () => ctx.env });

  // Checks the form and starts a run of its settings; false when nothing started (the phase says why).
  function start() {
    const { settings, ok } = form.check();
    if (ok) return run.start(settings);
    const first = $('[aria-invalid="true"]', form.element);
    if (first) first.focus();
    run.say('Not run: fix the highlighted settings.');
    return false;
  }

  form.element.addEventListener('submit', (event) => {
    event.preventDefault();
    start();
  });
  // On a change, messages already shown are updated (or cleared once fixed); new ones wait for “Run”,
  // so that a message appearing on blur never moves the Run button from under a click.
  form.element.addEventListener('change', (event) => {
    if (event.target.id === 'arrival') form.showRate();
    const { settings, errors } = form.peek();
    form.errors.refresh(errors);
    if (!Object.keys(errors).length) hash.write(settings);
  });
  $('#cancel', root).addEventListener('click', () => {
    if (!run.running) return;
    run.cancel();
    $('#run', root).focus();
  });
  $('#reset', root).addEventListener('click', () => {
    form.fill(DEFAULTS);
    form.errors.showAll({});
    $('#hash-message', root).hidden = true;
    hash.write(DEFAULTS);
  });
  // Try again: a fresh worker, and the run again if the error stopped one.
  $('#retry', root).addEventListener('click', () => {
    const { error } = store.get().lab;
    run.retry();
    if (error && error.rerun) start();
  });

  return {
    labSettings,
    // The module's facts about the form's model preset, once the module is ready.
    toyModel: () => presets[$('#preset', root).value] && presets[$('#preset', root).value].info,
    // The form's model preset for the panels that measure one (the default if the form's is unknown).
    formPreset: () => (PRESETS[$('#preset', root).value] ? $('#preset', root).value : DEFAULTS.preset),
    // Reads a link's settings (the hash without the page's own keys) into the forms.
    applyHash: (text) => hash.apply(text),
    // Rewrites the hash (another panel's settings in it changed).
    rewriteHash: () => hash.write(hash.written),
    // The backend chosen elsewhere (the hardware switch): into the form and the hash, for the next run.
    setBackend(backend) {
      const select = $('#backend', root);
      if (select.value === backend) return;
      select.value = backend;
      form.element.dispatchEvent(new Event('change'));
    },
    startLoading: run.load,
    start,
    cancel: run.cancel,
    say: run.say,
    get running() {
      return run.running;
    },
  };
}
