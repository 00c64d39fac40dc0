// The Memory section (issue 6): the lab's queue under a KV memory budget, on the step table the lab
// already measured (window.kvlabResult.steps; nothing is measured again). A job worker (jobs.js,
// memplan.js) simulates reserve:B, paged:B, chunked:B,T and continuous:B (the reference, no memory
// model); the section plots KV blocks held over time, p95 TTFT against the arrival rate (a load curve
// with the target) and the waste, and tabulates the memory figures.
//
// The result goes out as a `kvlab:memory-result` event on document and stays in window.kvlabMemoryResult.

import { $, h, replace } from './dom.js';
import { formErrors } from './formerrors.js';
import { JobRunner } from './jobs.js';
import { jobPanel } from './panel.js';
import {
  DEVICES, MEM_DEFAULTS, MEM_ORDER, REAL_CONTEXT, deviceBudget, kvTokens, longestRequest, memFieldOfModuleError,
  memoryToHash, memoryToRaw, minimumTokens, validateMemory,
} from './memconfig.js';
import { MEMORY_POLICY_NOTES, policyLabel, policyStyle } from './policies.js';
import { barChart, blocksChart, loadCurveChart } from './charts.js';
import { bytes, duration, int, sig } from './format.js';

// Form control of each setting.
const IDS = { kv: 'mem-kv', block: 'mem-block', mem_rate: 'mem-rate', system_prompt: 'mem-system', chunk: 'mem-chunk', ttft_target: 'mem-target' };
const SLIDER_STEPS = 1000;

// The first rate at which p95 TTFT goes above the target, interpolated on log TTFT between the two
// rates around it; null when it never does; the first rate itself when it is above already.
export function crossingRate(rates, values, target) {
  for (let i = 0; i < rates.length; i += 1) {
    const v = values[i];
    if (!(Number.isFinite(v) && v > target)) continue;
    if (i === 0) return { rate: rates[0], already: true };
    const lo = values[i - 1];
    if (!(Number.isFinite(lo) && lo > 0)) return { rate: rates[i], already: false };
    const f = (Math.log(target) - Math.log(lo)) / (Math.log(v) - Math.log(lo));
    return { rate: rates[i - 1] + (rates[i] - rates[i - 1]) * Math.min(1, Math.max(0, f)), already: false };
  }
  return null;
}

const kindOf = (name) => name.split(':')[0];
const pct = (v, digits = 3) => (Number.isFinite(v) ? `${sig(v, digits)}%` : '–');

function num(value, text, key) {
  const ok = Number.isFinite(value);
  return h('td', { class: 'num', dataset: { key, value: ok ? String(value) : '' } }, ok ? text : '–');
}

// hooks: lab() -> {result, settings} of the lab's last completed run, or null; labSettings() -> the lab
//        form's valid settings (for checking before any run); busy() -> another run holds the processor;
//        onRunningChange(); onSettingsChange() (rewrite the hash).
export function setupMemory(hooks) {
  const form = $('#mem-form');
  const deviceSelect = $('#mem-device');
  const slider = $('#mem-kv-slider');
  let pendingOptions = null;
  let device = MEM_DEFAULTS.kv;   // the device example chosen, or 'custom'
  let lastGood = { ...MEM_DEFAULTS };

  replace(deviceSelect,
    DEVICES.map((d) => h('option', { value: d.id, text: d.label })),
    h('option', { value: 'custom', text: 'A number of tokens (type it or use the slider)' }));

  const queue = () => {
    const lab = hooks.lab();
    return lab ? lab.settings : hooks.labSettings();
  };

  // ---- the form ---------------------------------------------------------------------------------

  function readRaw() {
    const raw = {};
    for (const key of MEM_ORDER) raw[key] = $(`#${IDS[key]}`).value;
    if (device !== 'custom') raw.kv = device;
    return raw;
  }

  const fieldErrors = formErrors({ keys: MEM_ORDER, idOf: (key) => IDS[key], summary: $('#mem-form-error'), what: 'memory settings' });

  function check() {
    const { settings, errors } = validateMemory(readRaw(), queue());
    return { settings, errors, ok: Object.keys(errors).length === 0 };
  }

  // The slider: log scale from the smallest budget that takes the longest request to room for every
  // slot's longest request four times over.
  function sliderRange(settings) {
    const lab = queue();
    const lo = minimumTokens(settings, lab);
    const hi = Math.max(lo * 8, 4 * lab.slots * longestRequest(settings, lab));
    return { lo, hi };
  }

  function syncSlider(settings, tokens) {
    const { lo, hi } = sliderRange(settings);
    const t = Number.isFinite(tokens) ? Math.min(hi, Math.max(lo, tokens)) : lo;
    slider.value = String(Math.round((Math.log(t / lo) / Math.log(hi / lo)) * SLIDER_STEPS));
    slider.setAttribute('aria-valuetext', `${int(tokens)} tokens`);
  }

  // The explanation under the budget: the device example worked through, and what it is in this model.
  function describeBudget() {
    const { settings, errors } = validateMemory(readRaw(), queue());
    const lab = queue();
    const box = $('#mem-kv-help');
    const tokens = kvTokens(settings, lab);
    const kvInput = $('#mem-kv');
    if (device !== 'custom') {
      kvInput.value = Number.isFinite(tokens) ? String(tokens) : '';
    }
    kvInput.readOnly = false;
    if (!errors.kv && !errors.block && !errors.system_prompt) syncSlider(settings, tokens);
    const parts = [];
    const d = DEVICES.find((x) => x.id === device);
    const toy = hooks.kvBytesPerToken();
    if (d && !errors.block && !errors.system_prompt) {
      const b = deviceBudget(d, settings, lab);
      parts.push(`${d.gpu} holds ${sig(d.gib, 3)} GiB; ${d.model}’s ${d.weights.split(',')[0]} take ${sig(d.params * d.bytes_per_param / 1e9, 3)} GB, leaving ${sig(b.free_bytes / 1e9, 3)} GB for the KV cache: ${int(b.real_tokens)} tokens at ${bytes(d.kv_bytes_per_token)} each, ${sig(b.conversations, 3)} conversations of ${int(REAL_CONTEXT)} tokens. `,
        `This toy model’s KV cache is far smaller per token, so the same gigabytes would never run out here; what carries over is how many requests fit at once: room for ${sig(b.conversations, 3)} of this queue’s longest requests (${int(b.longest)} positions each) is ${int(b.tokens)} tokens.`);
    } else if (!errors.kv) {
      parts.push(`${int(tokens)} tokens: room for ${sig(tokens / longestRequest(settings, lab), 3)} of this queue’s longest requests (${int(longestRequest(settings, lab))} positions each).`);
    }
    if (!errors.kv && !errors.block && Number.isFinite(tokens)) {
      parts.push(` In blocks of ${settings.block} tokens: ${int(Math.floor(tokens / settings.block))} blocks${toy ? `, ${bytes(tokens * toy.bytes)} of the ${toy.preset} model’s KV cache (${bytes(toy.bytes)} a token, float32)` : ''}. Activations and the server’s own memory are left out, so a real server holds somewhat less.`);
    }
    replace(box, parts.join(''));
  }

  function fill(settings) {
    const raw = memoryToRaw(settings);
    device = typeof settings.kv === 'number' ? 'custom' : settings.kv;
    deviceSelect.value = device;
    for (const key of MEM_ORDER) if (key !== 'kv') $(`#${IDS[key]}`).value = raw[key];
    $('#mem-kv').value = device === 'custom' ? raw.kv : '';
    describeBudget();
  }

  // Settings from the hash (strings by key; missing keys keep their defaults). Returns the messages of
  // bad values, whose defaults then stand in.
  function applyRaw(raw) {
    const given = {};
    for (const key of MEM_ORDER) if (raw[key] !== undefined) given[key] = raw[key];
    const { settings, errors } = validateMemory(given, queue());
    const messages = MEM_ORDER.filter((k) => errors[k]).map((k) => errors[k]);
    const fixed = { ...settings };
    for (const key of Object.keys(errors)) fixed[key] = MEM_DEFAULTS[key];
    const second = validateMemory(memoryToRaw(fixed), queue());
    const final = Object.keys(second.errors).length ? { ...MEM_DEFAULTS } : second.settings;
    fill(final);
    lastGood = final;
    fieldErrors.showAll({});
    return messages;
  }

  // The hash part: the settings as they stand if valid, else the last valid ones.
  function hash() {
    const { settings, ok } = check();
    return ok ? memoryToHash(settings) : memoryToHash(lastGood);
  }

  // Messages already shown, and the budget's explanation, are updated as the user types, so that
  // nothing appears or disappears on blur and moves the Run button from under a click; new messages
  // wait for Run.
  function refreshShown() {
    const { settings, errors } = validateMemory(readRaw(), queue());
    fieldErrors.refresh(errors);
    return { settings, errors };
  }

  form.addEventListener('input', (event) => {
    if (event.target === slider) return;
    describeBudget();
    refreshShown();
  });
  form.addEventListener('change', (event) => {
    if (event.target === deviceSelect) {
      device = deviceSelect.value;
      if (device === 'custom' && !$('#mem-kv').value) $('#mem-kv').value = String(kvTokens(MEM_DEFAULTS, queue()));
    }
    describeBudget();
    const { settings, errors } = refreshShown();
    if (!Object.keys(errors).length) {
      lastGood = settings;
      hooks.onSettingsChange?.();
    }
  });
  $('#mem-kv').addEventListener('input', () => {
    if (device !== 'custom') {
      device = 'custom';
      deviceSelect.value = 'custom';
    }
  });
  slider.addEventListener('input', () => {
    const { settings } = validateMemory({ ...readRaw(), kv: undefined }, queue());
    const { lo, hi } = sliderRange(settings);
    const raw = lo * (hi / lo) ** (Number(slider.value) / SLIDER_STEPS);
    const tokens = Math.max(lo, Math.round(raw / settings.block) * settings.block);
    device = 'custom';
    deviceSelect.value = 'custom';
    $('#mem-kv').value = String(tokens);
    slider.setAttribute('aria-valuetext', `${int(tokens)} tokens`);
  });
  slider.addEventListener('change', () => form.dispatchEvent(new Event('change')));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    start();
  });

  // ---- running ----------------------------------------------------------------------------------

  // Its Run button is enabled before the lab has run too: pressing it checks the settings and says
  // what is missing.
  const panel = jobPanel('mem', {
    root: $('#memory'),
    createJob: (handlers) => new JobRunner('memory', handlers),
    onResult(raw, elapsedMs) {
      const { settings, lab, kv_tokens: kvTokensUsed } = pendingOptions;
      const result = { ...raw, settings, lab_settings: lab, kv_tokens: kvTokensUsed, block_tokens: settings.block, ttft_target_ms: settings.ttft_target, elapsed_ms: elapsedMs };
      panel.finish(result, `Done in ${sig(elapsedMs / 1000, 3)} s (${raw.load.rates.length + 3} simulations of ${int(lab.requests)} requests).`, render);
    },
    onError(error) {
      const field = error.kind === 'input' ? memFieldOfModuleError(error.raw || '') : null;
      if (field) {
        panel.setProgress(0);
        fieldErrors.showField(field, error.raw);
        panel.setPhase('Not run: fix the highlighted setting.');
        $(`#${IDS[field]}`).focus();
        return;
      }
      panel.showError(error, 'Press “Run the memory policies” to try again.');
    },
    busy: hooks.busy,
    onRunningChange: hooks.onRunningChange,
    resultEvent: 'kvlab:memory-result',
    resultGlobal: 'kvlabMemoryResult',
    downloadName: 'kvlab-memory.json',
  });

  function start() {
    const lab = hooks.lab();
    const { settings, errors, ok } = check();
    fieldErrors.showAll(errors);
    if (!ok) {
      const first = $('[aria-invalid="true"]', form);
      if (first) first.focus();
      panel.setPhase('Not run: fix the highlighted settings.');
      return false;
    }
    if (!lab) {
      panel.setPhase('Run the lab first: this section replays its queue on the step times it measured.');
      return false;
    }
    if (panel.running || hooks.busy()) {
      panel.setPhase('Not run: another run is using the processor; wait for it or cancel it.');
      return false;
    }
    lastGood = settings;
    hooks.onSettingsChange?.();
    const s = lab.settings;
    const workload = { count: s.requests, prompt: [s.prompt_lo, s.prompt_hi], answer: [s.answer_lo, s.answer_hi], seed: s.seed };
    if (settings.system_prompt > 0) workload.system_prompt = settings.system_prompt;
    const kv = kvTokens(settings, s);
    pendingOptions = { settings, lab: s, kv_tokens: kv };
    panel.run({
      steps: lab.result.steps,
      workload,
      slots: s.slots,
      chunk: settings.chunk,
      kv_tokens: kv,
      block_tokens: settings.block,
      rate: settings.mem_rate,
      ttft_target_ms: settings.ttft_target,
    });
    return true;
  }

  // ---- rendering --------------------------------------------------------------------------------

  function render(r) {
    const lab = r.lab_settings;
    const memoryNames = r.policies.filter((n) => kindOf(n) !== 'continuous');
    const anyMemory = r.results[memoryNames[0]];
    const budget = anyMemory ? anyMemory.kv_blocks_budget : null;
    const capacity = r.capacity_per_s;
    replace($('#mem-summary'),
      `${int(lab.requests)} requests (the lab’s queue: prompts ${lab.prompt_lo}–${lab.prompt_hi}${r.settings.system_prompt ? ` after a shared ${r.settings.system_prompt}-token system prompt` : ''}, answers ${lab.answer_lo}–${lab.answer_hi}, seed ${lab.seed}) arriving at random, ${sig(r.rate, 3)} per second on average; ${lab.slots} slots; a KV budget of ${int(r.kv_tokens)} tokens = ${int(budget)} blocks of ${r.block_tokens}. `,
      capacity ? `With the whole queue at once, continuous batching gets through ${sig(capacity, 3)} requests per second on this device; the rate here is ${r.rate / capacity > 3 ? `${sig(r.rate / capacity, 3)}×` : `${int(100 * r.rate / capacity)}% of`} that${r.rate_auto ? ' (the “auto” rate)' : ''}.` : '');

    // Blocks over time.
    const series = [
      { label: 'unlimited memory (paged, no budget)', color: '#6e7781', dash: [2, 3], ...r.unlimited.kv_blocks_in_use },
      ...memoryNames.map((name) => ({ label: name, color: policyStyle(name).color, dash: policyStyle(name).dash, ...r.results[name].kv_blocks_in_use })),
    ].filter((s) => Array.isArray(s.t_ms) && s.t_ms.length);
    blocksChart($('#chart-mem-blocks'), { series, budget });

    // Load curve.
    const target = r.ttft_target_ms;
    const lines = r.policies.map((name) => {
      const values = r.load.policies[name].p95_ttft_ms;
      const crossing = crossingRate(r.load.rates, values, target);
      return { name, label: name, color: policyStyle(name).color, dash: policyStyle(name).dash, values, crossing: crossing ? crossing.rate : null, crossingInfo: crossing };
    });
    loadCurveChart($('#chart-mem-load'), { rates: r.load.rates, lines, targetMs: target });
    const top = r.load.rates[r.load.rates.length - 1];
    replace($('#mem-crossings'), lines.map((line) => {
      const c = line.crossingInfo;
      const text = !c ? `stays within ${duration(target)} up to ${sig(top, 3)} requests/s, the highest rate simulated`
        : c.already ? `is above ${duration(target)} already at ${sig(c.rate, 3)} requests/s, the lowest rate simulated`
          : `crosses ${duration(target)} at about ${sig(c.rate, 3)} requests/s`;
      return h('li', { dataset: { policy: line.name, crossing: c ? String(c.rate) : '' } }, h('strong', null, policyLabel(line.name)), `: p95 TTFT ${text}.`);
    }));

    // Waste.
    barChart($('#chart-mem-waste'), {
      bars: memoryNames.map((name) => ({ label: name, value: r.results[name].waste_pct, color: policyStyle(name).color })),
      yLabel: 'held but never written',
      format: (v) => `${sig(v, 3)}%`,
      yMax: 100,
    });

    // The table.
    const columns = [
      ['median_ttft_ms', 'Median TTFT', duration],
      ['p95_ttft_ms', 'p95 TTFT', duration],
      ['makespan_ms', 'All done', duration],
      ['goodput_pct', 'Within targets', (v) => pct(v)],
      ['peak_kv_blocks', 'Peak blocks', (v, p) => `${int(v)} / ${int(p.kv_blocks_budget)}`],
      ['waste_pct', 'Waste', (v) => pct(v)],
      ['preemptions', 'Preemptions', int],
      ['recomputed_tokens', 'Recomputed tokens', int],
      ['prefix_hit_rate', 'Prefix hits', (v) => pct(v * 100)],
    ];
    replace($('#mem-table-box'), h('table', { id: 'memory-table', class: 'policy' },
      h('caption', null, `Under a budget of ${int(budget)} blocks, ${sig(r.rate, 3)} requests/s`),
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Policy'), columns.map(([, label]) => h('th', { scope: 'col', class: 'num' }, label)))),
      h('tbody', null, r.policies.map((name) => {
        const p = r.results[name];
        return h('tr', { dataset: { policy: name } },
          h('th', { scope: 'row', title: name }, policyLabel(name), h('span', { class: 'impl-note' }, MEMORY_POLICY_NOTES[kindOf(name)] || '')),
          columns.map(([key, , fmt]) => num(p[key], Number.isFinite(p[key]) ? fmt(p[key], p) : '–', key)));
      })),
      h('tfoot', null, h('tr', null, h('td', { colspan: String(columns.length + 1) },
        `“Within targets”: requests with TTFT ≤ ${duration(target)} and time per output token ≤ 100 ms. Waste: memory held but not yet written, averaged over the run’s time. Prefix hits: prompt tokens found in cached blocks; “–” when nothing is shared (no system prompt) or the policy does not reuse (reserve).`)))));

    replace($('#mem-findings'), findings(r, lines).map((text) => h('li', null, text)));
    $('#mem-results').hidden = false;
  }

  function findings(r, lines) {
    const out = [];
    const find = (kind) => r.policies.find((n) => kindOf(n) === kind);
    const reserve = r.results[find('reserve')];
    const paged = r.results[find('paged')];
    const cont = r.results[find('continuous')];
    if (reserve && paged) {
      out.push(`Reserve holds ${pct(reserve.waste_pct)} of the memory it takes without writing it (room for the longest answer, ${r.lab_settings.answer_hi} tokens, from admission on); paged wastes ${pct(paged.waste_pct)}, the unwritten end of each request’s last block.`);
      if (paged.preemptions > 0) {
        out.push(`When the budget ran out, paged preempted ${int(paged.preemptions)} times and computed ${int(paged.recomputed_tokens)} tokens again; median TTFT ${duration(paged.median_ttft_ms)} (paged) against ${duration(reserve.median_ttft_ms)} (reserve, which admits fewer requests at once)${cont ? ` and ${duration(cont.median_ttft_ms)} with no memory limit` : ''}.`);
      } else {
        out.push(`Paged never ran out of blocks here (no preemption); median TTFT ${duration(paged.median_ttft_ms)} (paged) against ${duration(reserve.median_ttft_ms)} (reserve)${cont ? ` and ${duration(cont.median_ttft_ms)} with no memory limit` : ''}.`);
      }
      if (Number.isFinite(paged.prefix_hit_rate)) {
        out.push(`The shared ${r.settings.system_prompt}-token system prompt is prefilled once and then found cached: ${pct(paged.prefix_hit_rate * 100)} of the prompt tokens paged looked up were hits.`);
      }
    }
    const sustained = lines.filter((l) => l.crossingInfo && !l.crossingInfo.already);
    if (sustained.length) {
      out.push(`Keeping p95 TTFT within ${duration(r.ttft_target_ms)}: ${sustained.map((l) => `${l.name} up to about ${sig(l.crossing, 3)}/s`).join(', ')}.`);
    }
    return out;
  }

  panel.setState('waiting');
  fill({ ...MEM_DEFAULTS });

  return {
    get running() { return panel.running; },
    sync: panel.sync,
    start,
    applyRaw,
    hash,
    // The lab finished a run: its step table and queue are ready, so the section runs on them.
    labDone() {
      panel.setState('ready');
      describeBudget();
      const { ok, errors } = check();
      if (ok) start();
      else {
        fieldErrors.showAll(errors);
        panel.setPhase('Not run: fix the highlighted memory settings, then press “Run the memory policies”.');
      }
    },
    // The lab's form changed (the queue the budget is checked against).
    labChanged() {
      describeBudget();
    },
    // A new lab run replaces the step table this run was using: stop it.
    cancel() {
      panel.cancel('Stopped: the lab is running again; this section runs on its new step times when it is done.');
    },
  };
}
