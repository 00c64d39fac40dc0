// The Memory section's markup: its explanation, its form (filled by form.js), its progress, its error box and its
// results (drawn by render.js).

import { jobStatusMarkup } from '../job-panel.js';
import { rangeHelp } from '../../shared/fields.js';
import { MEM_FIELDS } from './config.js';

const range = (key) => rangeHelp(MEM_FIELDS[key]);

export const MARKUP = `
<section id="memory" class="full-only" aria-labelledby="memory-title" data-state="waiting">
  <h2 id="memory-title">Memory: a KV budget, paged blocks, chunked prefill</h2>
  <p class="lead">The queue above assumed every request’s KV cache fits. A real server has a budget of KV memory,
    and how it hands that out decides how many requests run at once. Here the lab’s queue is replayed under a
    budget, on the same step times (nothing is measured again), with requests arriving at random:
    <strong>reserve</strong> takes room for the prompt plus the longest answer when a request starts (Orca,
    FasterTransformer); <strong>paged</strong> takes blocks as tokens are written and, when none is free, stops
    the newest request and later computes it again (vLLM); <strong>chunked prefill</strong> is paged memory with
    prompts cut into chunks that ride along with the decode steps (Sarathi-Serve); continuous batching with no
    memory limit is the reference.</p>
  <form id="mem-form" novalidate>
    <div class="mem-grid">
      <div class="field wide">
        <label for="mem-device">KV budget</label>
        <select id="mem-device" aria-describedby="mem-kv-help"></select>
        <p class="help" id="mem-kv-help"></p>
      </div>
      <div class="field">
        <label for="mem-kv">KV budget (tokens)</label>
        <input id="mem-kv" inputmode="numeric" autocomplete="off" aria-describedby="mem-kv-error">
        <input id="mem-kv-slider" type="range" min="0" max="1000" step="1" aria-label="KV budget (tokens), slider">
        <p class="field-error" id="mem-kv-error" hidden></p>
      </div>
      <div class="field">
        <label for="mem-block">Block size (tokens)</label>
        <input id="mem-block" inputmode="numeric" autocomplete="off" aria-describedby="mem-block-help mem-block-error">
        <p class="help" id="mem-block-help">${range('block')}; vLLM’s default is 16.</p>
        <p class="field-error" id="mem-block-error" hidden></p>
      </div>
      <div class="field">
        <label for="mem-rate">Arrival rate (requests/s)</label>
        <input id="mem-rate" inputmode="decimal" autocomplete="off" aria-describedby="mem-rate-help mem-rate-error">
        <p class="help" id="mem-rate-help">Poisson arrivals, ${range('mem_rate')}, or <code>auto</code>: 80% of what continuous batching gets through with the whole queue at once.</p>
        <p class="field-error" id="mem-rate-error" hidden></p>
      </div>
      <div class="field">
        <label for="mem-system">Shared system prompt (tokens)</label>
        <input id="mem-system" inputmode="numeric" autocomplete="off" aria-describedby="mem-system-help mem-system-error">
        <p class="help" id="mem-system-help">${range('system_prompt')}, before every prompt; paged and chunked reuse its cached blocks.</p>
        <p class="field-error" id="mem-system-error" hidden></p>
      </div>
      <div class="field">
        <label for="mem-chunk">Chunked prefill: tokens per step</label>
        <input id="mem-chunk" inputmode="numeric" autocomplete="off" aria-describedby="mem-chunk-help mem-chunk-error">
        <p class="help" id="mem-chunk-help">T of chunked:B,T, from the slots B to 1,000,000.</p>
        <p class="field-error" id="mem-chunk-error" hidden></p>
      </div>
      <div class="field">
        <label for="mem-target">TTFT target (ms)</label>
        <input id="mem-target" inputmode="decimal" autocomplete="off" aria-describedby="mem-target-help mem-target-error">
        <p class="help" id="mem-target-help">For the load curve and “within targets”.</p>
        <p class="field-error" id="mem-target-error" hidden></p>
      </div>
    </div>
    <div class="actions">
      <button type="submit" id="mem-run" class="primary">Run the memory policies</button>
      <button type="button" id="mem-download" disabled>Download (JSON)</button>
    </div>
    <p id="mem-form-error" class="notice error" role="alert" hidden></p>
  </form>${jobStatusMarkup('mem', 'Runs by itself when the lab has run: it replays the lab’s queue on the step times the lab measured.')}
  <div id="mem-results" hidden>
    <p id="mem-summary"></p>
    <figure class="chart">
      <figcaption>KV blocks held over time</figcaption>
      <p class="plot-note">How many blocks of KV memory each policy holds at each moment of the run, against the budget (dashed) and what the same queue holds with unlimited memory (dotted).</p>
      <div id="chart-mem-blocks" class="chart-box" role="img" aria-label="KV blocks held over time per policy"></div>
    </figure>
    <figure class="chart">
      <figcaption>p95 time to first token vs arrival rate</figcaption>
      <p class="plot-note">The same queue and budget at Poisson rates from a quarter to twice what the server gets through with everything at once; a ring marks where each policy’s p95 TTFT crosses the target (dashed).</p>
      <div id="chart-mem-load" class="chart-box" role="img" aria-label="p95 time to first token versus arrival rate per policy"></div>
      <ul id="mem-crossings" class="crossings"></ul>
    </figure>
    <div class="two-col mem-waste">
      <figure class="chart">
        <figcaption>Memory held but never written</figcaption>
        <p class="plot-note">The share of the KV memory each policy holds without writing it, averaged over the run’s time.</p>
        <div id="chart-mem-waste" class="chart-box" role="img" aria-label="KV memory waste per policy"></div>
      </figure>
      <ul id="mem-findings" class="findings"></ul>
    </div>
    <div id="mem-table-box" class="table-box scroll-x" tabindex="0" role="region" aria-label="Memory policies"></div>
  </div>
</section>
`;
