// The lab bench: every setting (validated, kept in the URL hash), the lab's run with its progress and
// cancel, the results (Part A, Part B, plots, downloads), and the panels below them (Memory,
// Simulated vs real, SIMD vs scalar vs JavaScript, the KV-memory calculator, this browser).

import { $, $$, replace } from '../shared/dom.js';
import { DEFAULTS, PRESETS, toRunOptions } from '../config.js';
import { standalone } from '../runs/worker-client.js';
import { oneRunAtATime } from '../runs/one-at-a-time.js';
import { watchResizes } from '../shared/charts.js';
import { environment } from '../env.js';
import { kvBytesPerToken, kvFormatBytes, setupKvCalculator } from '../panels/kv-calculator/index.js';
import { download, policiesCsv, requestsCsv, stepsCsv } from '../shared/downloads.js';
import { setupComparison } from '../panels/compare/index.js';
import { setupMemory } from '../panels/memory/index.js';
import { setupReplay } from '../panels/replay/index.js';
import { labForm } from './form.js';
import { hashState } from './hash.js';
import { labRun } from './run.js';
import { renderEnvironment } from './environment.js';

// embed: the compact view; viewKeys() -> the page's own hash keys; store: the run store (runs/store.js);
// memoryAfterLab: the Memory section runs by itself when the lab has run (its chapter is shown);
// hardware: the chapters' modeled GPU server (hardware/run.js), which takes its presets from the module
// and the lab's queue from the form.
export function setupBench({ embed, viewKeys, store, memoryAfterLab, hardware }) {
  const presets = { ...PRESETS };
  const runs = oneRunAtATime();
  const env = environment();
  const form = labForm(presets);
  const kv = setupKvCalculator($('#kv-memory'));
  let memory = null;

  const toyModel = () => presets[$('#preset').value] && presets[$('#preset').value].info;
  const updateToyModel = () => {
    if (toyModel()) kv.setToyModel(toyModel(), labSettings().kv_format);
  };
  // The toy model's KV bytes per token in the form's KV cache format (the memory numbers before a run).
  const toyKvBytes = () => {
    const info = toyModel();
    if (!info || !info.n_layers) return null;
    const format = labSettings().kv_format;
    return { preset: info.preset, kv: format,
      bytes: kvBytesPerToken({ layers: info.n_layers, kv_heads: info.n_kv_heads, head_dim: info.head_dim, bytes_per_number: kvFormatBytes(format) }) };
  };
  // The settings form's model preset for the panels that measure one (the default if the form's is unknown).
  const formPreset = () => (PRESETS[$('#preset').value] ? $('#preset').value : DEFAULTS.preset);

  // The lab's settings as the form has them (the last valid ones while the form has errors).
  const labSettings = () => {
    const { settings, errors } = form.peek();
    return Object.keys(errors).length ? hash.written : settings;
  };

  const hash = hashState({
    form,
    presets,
    memoryHash: () => (memory ? memory.hash() : ''),
    memoryApply: (raw) => (memory ? memory.applyRaw(raw) : []),
    viewKeys,
    store,
  });

  const run = labRun({
    form,
    hash,
    runs,
    store,
    env: () => env,
    embed,
    stopYielding: () => {
      if (runs.yielding('lab').includes('memory')) memory.cancel();
    },
    onReady(info) {
      for (const [name, modelInfo] of Object.entries(info.presets || {})) {
        presets[name] = { ...(presets[name] || { label: name }), max_seq: modelInfo.max_seq, info: modelInfo };
      }
      replace($('#version'), `${info.version}, ${info.instruction_set || 'WebAssembly'}`);
      // The clock the measurements use is the worker's: kept with every result.
      Object.assign(env, { worker_timer_resolution_ms: info.timer_resolution_ms, min_sample_ms: info.min_sample_ms });
      renderEnvironment(env, info, standalone);
      updateToyModel();
      if (memory) memory.labChanged();
      if (info.roofline_presets) hardware.setPresets(info.roofline_presets);
    },
  });
  runs.add('lab', {
    running: () => run.running,
    sync: () => run.syncButtons(),
  });

  const comparison = setupComparison({
    preset: formPreset,
    environment: () => env,
    busy: () => runs.busyFor('simd'),
    onRunningChange: runs.sync,
  });
  runs.add('simd', { running: () => comparison.running, sync: comparison.sync });
  memory = setupMemory({
    lab: () => {
      const { labResult } = store.get();
      return labResult ? { result: labResult, settings: labResult.settings } : null;
    },
    labSettings,
    // The last run's table (what the Memory section simulates on), else the form's model and format.
    kvBytesPerToken: () => {
      const { labResult } = store.get();
      const model = labResult && labResult.steps && labResult.steps.model;
      if (model && model.kv_bytes_per_token) return { preset: model.preset, kv: model.kv, bytes: model.kv_bytes_per_token };
      return toyKvBytes();
    },
    busy: () => runs.busyFor('memory'),
    onRunningChange: runs.sync,
    onSettingsChange: () => hash.write(hash.written),
    store,
  });
  runs.add('memory', { running: () => memory.running, sync: memory.sync, yieldsTo: ['lab'] });
  const replayPanel = setupReplay({
    preset: formPreset,
    environment: () => env,
    busy: () => runs.busyFor('replay'),
    onRunningChange: runs.sync,
  });
  runs.add('replay', { running: () => replayPanel.running, sync: replayPanel.sync });
  hardware.connect({
    busy: () => runs.busyFor('hardware'),
    onRunningChange: runs.sync,
    labQueue: () => toRunOptions(labSettings()).workload,
  });
  runs.add('hardware', { running: () => hardware.running, sync: hardware.sync });

  // ---- wiring -----------------------------------------------------------------------------------

  form.element.addEventListener('submit', (event) => {
    event.preventDefault();
    run.start();
  });
  // On a change, messages already shown are updated (or cleared once fixed); new ones wait for “Run”,
  // so that a message appearing on blur never moves the Run button from under a click.
  form.element.addEventListener('change', (event) => {
    if (event.target.id === 'arrival') form.showRate();
    if (event.target.id === 'preset' || event.target.id === 'kv_format') updateToyModel();
    const { settings, errors } = form.peek();
    memory.labChanged();
    form.errors.refresh(errors);
    if (!Object.keys(errors).length) hash.write(settings);
  });
  $('#cancel').addEventListener('click', () => {
    if (!run.running) return;
    run.cancel();
    $('#run').focus();
  });
  $('#reset').addEventListener('click', () => {
    form.fill(DEFAULTS);
    form.errors.showAll({});
    $('#hash-message').hidden = true;
    hash.write(DEFAULTS);
  });
  $('#retry').addEventListener('click', run.retry);

  const lastResult = () => store.get().labResult;
  const downloads = {
    'download-json': () => ['kvlab-result.json', `${JSON.stringify(lastResult(), null, 2)}\n`, 'application/json'],
    'download-policies': () => ['kvlab-policies.csv', policiesCsv(lastResult()), 'text/csv'],
    'download-requests': () => ['kvlab-requests.csv', requestsCsv(lastResult()), 'text/csv'],
    'download-steps': () => ['kvlab-steps.csv', stepsCsv(lastResult()), 'text/csv'],
  };
  for (const [id, file] of Object.entries(downloads)) {
    $(`#${id}`).addEventListener('click', () => lastResult() && download(...file()));
  }
  store.subscribe((state, changes) => {
    if (changes.labResult && memoryAfterLab) memory.labDone();
  });

  // ---- start --------------------------------------------------------------------------------------

  for (const button of $$('.downloads button')) button.disabled = true;
  renderEnvironment(env, null, standalone);
  watchResizes();
  run.setState('loading');

  return {
    // Reads a link's settings (the hash without the page's own keys) into the forms.
    applyHash: (text) => hash.apply(text),
    startLoading: () => run.lab.start(),
    start: run.start,
    cancel: run.cancel,
    setPhase: run.setPhase,
    get running() { return run.running; },
  };
}
