// kvlab's page: settings (validated, kept in the URL hash), the worker that measures and simulates,
// progress and cancel, the results, the KV-memory calculator and the environment panel.

import 'uplot/dist/uPlot.min.css';
import './style.css';

import { $, $$, h, replace } from './dom.js';
import {
  DEFAULTS, FIELD_ORDER, PRESETS, fieldOfModuleError, isPublishedQueue, parseHash, policyNames,
  settingsToHash, settingsToRaw, toRunOptions, validate,
} from './config.js';
import { Lab, standalone } from './lab.js';
import { renderResult } from './render.js';
import { watchResizes } from './charts.js';
import { environment } from './env.js';
import { setupKvCalculator } from './kvmem.js';
import { download, policiesCsv, requestsCsv, stepsCsv } from './exports.js';
import { sig } from './format.js';
import { formErrors } from './formerrors.js';
import { showProgress } from './panel.js';
import { setupComparison } from './compare.js';
import { setupMemory } from './memory.js';
import { setupReplay } from './replay.js';
import { mountPreview } from './chapters/preview.js';  // TEMPORARY until the walkthrough shell (issue 14)

const embed = new URLSearchParams(location.search).has('embed') || document.body.hasAttribute('data-embed');
if (embed) document.documentElement.classList.add('embed');

const main = $('#lab');
if (!embed) mountPreview(main);
const form = $('#settings');
const presets = { ...PRESETS };
let lastResult = null;
let lastOptions = null;
let lastSettings = null;
let env = null;
let comparison = null;   // the SIMD vs scalar vs JavaScript panel
let memory = null;       // the Memory section (simulations on the lab's step table)
let replayPanel = null;  // the Simulated vs real panel
let hashSettings = DEFAULTS;   // the lab settings last written to the hash

// Runs that compete for the processor never overlap: each Run button is disabled while another of
// these runs (except that a new lab run simply stops a Memory run, whose inputs it replaces).
const busyChecks = {
  lab: () => lab.running,
  simd: () => Boolean(comparison && comparison.running),
  memory: () => Boolean(memory && memory.running),
  replay: () => Boolean(replayPanel && replayPanel.running),
};
function busyExcept(...names) {
  return Object.entries(busyChecks).some(([name, running]) => !names.includes(name) && running());
}
function syncPanels() {
  $('#run').disabled = main.dataset.state === 'running' || busyExcept('lab', 'memory');
  for (const panel of [comparison, memory, replayPanel]) if (panel) panel.sync();
}

const PHASES = {
  'no-cache answers': 'Timing one answer without the cache',
  'KV-cache answers': 'Timing one answer with the KV cache',
  'step grid': 'Timing decode steps (rows × context) and prefills, a round over every cell at a time',
  simulating: 'Replaying the queue under four policies',
  done: 'Done',
};

function setState(state) {
  main.dataset.state = state;
  const running = state === 'running';
  // The lab and the SIMD panel never run at once: they would compete for the processor.
  $('#run').disabled = running || busyExcept('lab', 'memory');
  $('#cancel').disabled = !running;
  main.setAttribute('aria-busy', running ? 'true' : 'false');
  syncPanels();
}

function setPhase(text) {
  replace($('#phase'), text);
}

function setProgress(fraction) {
  showProgress($('#progress'), $('#percent'), fraction);
}

// ---- the form ---------------------------------------------------------------------------------

function readForm() {
  const raw = {};
  for (const key of FIELD_ORDER) raw[key] = $(`#${key}`).value;
  if (raw.arrival !== 'poisson') delete raw.rate;   // only checked when it is used
  return raw;
}

function fillForm(settings) {
  const raw = settingsToRaw(settings);
  for (const key of FIELD_ORDER) $(`#${key}`).value = raw[key];
  showRate();
}

function showRate() {
  $('#rate-field').hidden = $('#arrival').value !== 'poisson';
}

// Each field's control has the field's key as its id.
const fieldErrors = formErrors({ keys: FIELD_ORDER, summary: $('#form-error'), what: 'settings' });

function checkForm() {
  const { settings, errors } = validate(readForm(), presets);
  fieldErrors.showAll(errors);
  return { settings, errors, ok: Object.keys(errors).length === 0 };
}

function writeHash(settings) {
  hashSettings = settings;
  const text = [settingsToHash(settings), memory ? memory.hash() : ''].filter(Boolean).join('&');
  const url = `${location.pathname}${location.search}${text ? `#${text}` : ''}`;
  if (`${location.pathname}${location.search}${location.hash}` !== url) history.replaceState(null, '', url);
  $('#share-link').href = text ? `#${text}` : '#';
  const full = $('#full-link');
  if (full) full.href = `index.html${text ? `#${text}` : ''}`;
}

// Reads the hash into the form. A bad value shows a message and falls back to its default.
function applyHash() {
  const { raw, autorun, problems } = parseHash(location.hash);
  const { settings, errors } = validate(raw, presets);
  const messages = [...problems, ...FIELD_ORDER.filter((k) => errors[k]).map((k) => errors[k])];
  const applyMemory = () => (memory ? memory.applyRaw(raw) : []);   // after the lab's form is filled
  const fallback = { ...settings };
  for (const key of Object.keys(errors)) fallback[key] = DEFAULTS[key];
  // Defaults can still clash with what was kept (e.g. a long prompt with the tiny preset): re-check.
  const second = validate(settingsToRaw(fallback), presets);
  const final = Object.keys(second.errors).length ? { ...DEFAULTS } : second.settings;
  fillForm(final);
  fieldErrors.showAll({});
  messages.push(...applyMemory());
  const box = $('#hash-message');
  if (messages.length) {
    replace(box, h('strong', null, 'Some settings in this link could not be used, so defaults stand in for them. '), messages.join(' '));
    box.hidden = false;
  } else {
    replace(box);
    box.hidden = true;
  }
  writeHash(final);
  return { autorun, settings: final, bad: messages.length > 0 };
}

// ---- running ----------------------------------------------------------------------------------

const lab = new Lab({
  onState(state) {
    if (state === 'loading') {
      if (!lab.running) setPhase('Loading the WebAssembly module…');
      setState(lab.running ? 'running' : 'loading');
    } else if (state === 'ready') {
      if (main.dataset.state === 'loading') {
        setState('ready');
        setPhase('Ready. Press “Run the lab” to measure this device.');
      }
    } else if (state === 'running') {
      setState('running');
    }
  },
  onReady(info) {
    for (const [name, modelInfo] of Object.entries(info.presets || {})) {
      presets[name] = { ...(presets[name] || { label: name }), max_seq: modelInfo.max_seq, info: modelInfo };
    }
    replace($('#version'), `${info.version}, ${info.instruction_set || 'WebAssembly'}`);
    renderEnvironment(info);
    updateToyModel();
    if (memory) memory.labChanged();
  },
  onProgress(fraction, phase) {
    setProgress(fraction);
    setPhase(`${PHASES[phase] || phase}…`);
  },
  onResult(result, elapsedMs) {
    setState('done');
    finish(result, elapsedMs);
  },
  onError(error) {
    let field = null;
    if (error.kind === 'input') field = fieldOfModuleError(error.detail);
    if (field) {
      fieldErrors.showField(field, error.detail);
      const box = $('#form-error');
      replace(box, `${error.message} ${error.detail}`);
      box.hidden = false;
      setState('ready');
      setPhase('Not run: fix the highlighted setting.');
      setProgress(0);
      $(`#${field}`).focus();
      return;
    }
    setState('error');
    setProgress(0);
    setPhase('Stopped.');
    const kept = lastResult && (error.kind === 'crash' || error.kind === 'memory') ? 'The results below are from the last run that finished.' : '';
    replace($('#error-message'), [error.message, hint(error), kept].filter(Boolean).join(' '));
    replace($('#error-detail'), error.detail || '');
    $('#error').hidden = false;
    $('#error').dataset.kind = error.kind;
    $('#error').scrollIntoView({ block: 'nearest' });
    $('#retry').dataset.rerun = error.wasRunning ? 'true' : 'false';
  },
});

function hint(error) {
  if (error.kind === 'memory') return 'Try a smaller model preset, fewer requests or shorter answers.';
  if (error.kind === 'load') {
    if (env && !env.wasm) return 'This browser has no WebAssembly.';
    if (env && !env.wasm_simd) return 'This browser lacks WebAssembly SIMD, which the lab needs (any current Chrome, Edge, Firefox or Safari 16.4+ has it); the SIMD vs scalar vs JavaScript panel below still measures the other two.';
    return 'Check that kvlab.js and kvlab.wasm sit next to this page.';
  }
  if (error.kind === 'crash') return error.restarted ? 'A fresh worker has been started: press “Run the lab” to run again.' : 'The worker is restarted when you retry.';
  return '';
}

function startRun() {
  const { settings, ok } = checkForm();
  if (!ok) {
    const first = $('[aria-invalid="true"]', form);
    if (first) first.focus();
    setPhase('Not run: fix the highlighted settings.');
    return;
  }
  if (comparison && comparison.running) {
    setPhase('Not run: the SIMD vs scalar vs JavaScript comparison is running; cancel it or wait for it.');
    return;
  }
  if (replayPanel && replayPanel.running) {
    setPhase('Not run: the simulated vs real replay is running; cancel it or wait for it.');
    return;
  }
  if (memory && memory.running) memory.cancel();
  writeHash(settings);
  $('#error').hidden = true;
  lastSettings = { ...settings, published_queue: isPublishedQueue(settings) };
  lastOptions = toRunOptions(settings);
  setProgress(0);
  setPhase('Starting…');
  lab.run(lastOptions);
}

function finish(result, elapsedMs) {
  const order = policyNames(lastSettings).filter((name) => result.policies[name]);
  const full = {
    ...result,
    policy_order: order,
    settings: lastSettings,
    options: lastOptions,
    elapsed_ms: elapsedMs,
    version: lab.info && lab.info.version,
    environment: env,
    page: { standalone, embed },
  };
  lastResult = full;
  renderResult(full, lastSettings, { full: !embed });
  setPhase(`Done in ${sig(elapsedMs / 1000, 3)} s.`);
  if (memory && !embed) memory.labDone();
  for (const button of $$('.downloads button')) button.disabled = false;
  window.kvlabResult = full;
  document.dispatchEvent(new CustomEvent('kvlab:result', { detail: full }));
  if (embed && window.parent !== window) {
    // Results are benchmark figures, nothing private: any embedding page may have them.
    window.parent.postMessage({ type: 'kvlab:result', result: full }, '*');
  }
}

// ---- panels -----------------------------------------------------------------------------------

function renderEnvironment(info) {
  if (!env) return;
  const yesNo = (v) => (v ? 'yes' : 'no');
  const items = [
    ['Browser', env.browser],
    ['Logical cores', env.logical_cores ? String(env.logical_cores) : 'not reported'],
    ['WebAssembly SIMD', env.wasm_simd ? 'on' : 'off (not supported)'],
    ['Timer resolution', Number.isFinite(env.timer_resolution_ms) ? `${sig(env.timer_resolution_ms * 1000, 3)} µs, measured` : 'unknown'],
    ['Cross-origin isolated', `${yesNo(env.cross_origin_isolated)}${env.cross_origin_isolated ? '' : ' (so the clock is coarse; each timing repeats a step many times)'}`],
    ['Page', standalone ? 'single file (kvlab-standalone.html)' : 'served'],
  ];
  if (info) items.push(['kvlab module', `${info.version}, ${info.instruction_set}`]);
  replace($('#env-list'), items.map(([k, v]) => [h('dt', null, k), h('dd', { dataset: { key: k } }, v)]));
}

let kv = null;
function updateToyModel() {
  const info = presets[$('#preset').value] && presets[$('#preset').value].info;
  if (kv && info) kv.setToyModel(info);
}

// ---- wiring -----------------------------------------------------------------------------------

form.addEventListener('submit', (event) => {
  event.preventDefault();
  startRun();
});

// On a change, messages already shown are updated (or cleared once fixed); new ones wait for “Run”,
// so that a message appearing on blur never moves the Run button from under a click.
form.addEventListener('change', (event) => {
  if (event.target.id === 'arrival') showRate();
  if (event.target.id === 'preset') updateToyModel();
  const { settings, errors } = validate(readForm(), presets);
  if (memory) memory.labChanged();
  fieldErrors.refresh(errors);
  if (!Object.keys(errors).length) writeHash(settings);
});

$('#cancel').addEventListener('click', () => {
  if (!lab.running) return;
  lab.cancel();
  setState('cancelled');
  setProgress(0);
  setPhase('Cancelled: the work was stopped. Press “Run the lab” to start again.');
  $('#run').focus();
});

$('#reset').addEventListener('click', () => {
  fillForm(DEFAULTS);
  fieldErrors.showAll({});
  $('#hash-message').hidden = true;
  writeHash(DEFAULTS);
});

$('#retry').addEventListener('click', () => {
  $('#error').hidden = true;
  const rerun = $('#retry').dataset.rerun === 'true';
  lab.start();
  if (rerun) startRun();
  else setPhase('Loading the WebAssembly module…');
});

$('#download-json').addEventListener('click', () => lastResult && download('kvlab-result.json', `${JSON.stringify(lastResult, null, 2)}\n`, 'application/json'));
$('#download-policies').addEventListener('click', () => lastResult && download('kvlab-policies.csv', policiesCsv(lastResult), 'text/csv'));
$('#download-requests').addEventListener('click', () => lastResult && download('kvlab-requests.csv', requestsCsv(lastResult), 'text/csv'));
$('#download-steps').addEventListener('click', () => lastResult && download('kvlab-steps.csv', stepsCsv(lastResult), 'text/csv'));

window.addEventListener('hashchange', () => {
  const { autorun, bad } = applyHash();
  if (autorun && !bad && !lab.running) startRun();
  else if (bad) setPhase('Some link settings were replaced by defaults; see the message above.');
});

// ---- start ------------------------------------------------------------------------------------

for (const button of $$('.downloads button')) button.disabled = true;
env = environment();
renderEnvironment(null);
kv = setupKvCalculator($('#kv-memory'));
// The settings form's model preset for the panels that measure one (the default if the form's is unknown).
const formPreset = () => {
  const value = $('#preset').value;
  return PRESETS[value] ? value : DEFAULTS.preset;
};
comparison = setupComparison({
  preset: formPreset,
  environment: () => env,
  busy: () => busyExcept('simd'),
  onRunningChange: syncPanels,
});
memory = setupMemory({
  lab: () => (lastResult ? { result: lastResult, settings: lastSettings } : null),
  labSettings: () => {
    const { settings, errors } = validate(readForm(), presets);
    return Object.keys(errors).length ? hashSettings : settings;
  },
  kvBytesPerToken: () => {
    const model = lastResult && lastResult.steps && lastResult.steps.model;
    if (model && model.kv_bytes_per_token) return { preset: model.preset, bytes: model.kv_bytes_per_token };
    const info = presets[$('#preset').value] && presets[$('#preset').value].info;
    return info && info.kv_bytes_per_token ? { preset: info.preset, bytes: info.kv_bytes_per_token } : null;
  },
  busy: () => busyExcept('memory'),
  onRunningChange: syncPanels,
  onSettingsChange: () => writeHash(hashSettings),
});
replayPanel = setupReplay({
  preset: formPreset,
  environment: () => env,
  busy: () => busyExcept('replay'),
  onRunningChange: syncPanels,
});
watchResizes();
setState('loading');
const initial = applyHash();
lab.start();
if (initial.autorun && !initial.bad) startRun();   // a link with bad settings: the message first
