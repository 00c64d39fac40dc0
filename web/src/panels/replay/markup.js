// The "Simulated vs real" panel's markup: its explanation, its form (form.js), its progress, its error box and
// its results (render.js).

import { jobStatusMarkup } from '../job-panel.js';

export const MARKUP = `
<section id="replay" class="full-only" aria-labelledby="replay-title" data-state="ready">
  <h2 id="replay-title">Simulated vs real</h2>
  <p class="lead">Every table above comes from a simulator fed with measured step times. Here a real serving engine
    (the same model, slots with their own KV caches, real forward passes, times from the clock) serves a queue
    under each policy chosen below in this browser, and the simulator predicts the same queue: 64 requests at
    t = 0, prompts 8–32, answers 16–48, 8 slots, the model chosen in the settings. The memory policies serve
    it within a KV budget of blocks, as the Memory section simulates them, and the engine really frees and
    recomputes a preempted request. It takes about half a minute with the default
    model; the lab and the other panels wait meanwhile, since they would slow the real runs down.</p>
  <form id="replay-form" novalidate>
    <fieldset id="replay-policies" aria-describedby="replay-policies-error">
      <legend>Policies</legend>
      <div id="replay-policy-choices" class="choices"></div>
      <p class="field-error" id="replay-policies-error" hidden></p>
    </fieldset>
    <div class="mem-grid">
      <div class="field">
        <label for="replay-kv">KV budget (tokens)</label>
        <input id="replay-kv" inputmode="numeric" autocomplete="off" aria-describedby="replay-kv-help replay-kv-error">
        <p class="help" id="replay-kv-help">For reserve, paged and chunked: enough for the longest request.</p>
        <p class="field-error" id="replay-kv-error" hidden></p>
      </div>
      <div class="field">
        <label for="replay-block">Block size (tokens)</label>
        <input id="replay-block" inputmode="numeric" autocomplete="off" aria-describedby="replay-block-help replay-block-error">
        <p class="help" id="replay-block-help">vLLM’s default is 16.</p>
        <p class="field-error" id="replay-block-error" hidden></p>
      </div>
      <div class="field">
        <label for="replay-chunk">Chunked prefill: tokens per step</label>
        <input id="replay-chunk" inputmode="numeric" autocomplete="off" aria-describedby="replay-chunk-help replay-chunk-error">
        <p class="help" id="replay-chunk-help">T of chunked:8,T, from the 8 slots to 1,000,000.</p>
        <p class="field-error" id="replay-chunk-error" hidden></p>
      </div>
      <div class="field">
        <label for="replay-prefix-kind">Shared prefix</label>
        <select id="replay-prefix-kind" aria-describedby="replay-prefix-kind-help">
          <option value="none">None</option>
          <option value="system">A system prompt</option>
          <option value="chat">A chat</option>
        </select>
        <p class="help" id="replay-prefix-kind-help">What the prompts share, which paged and chunked find cached.</p>
      </div>
      <div class="field">
        <label for="replay-prefix" id="replay-prefix-label">Shared prefix size</label>
        <input id="replay-prefix" inputmode="numeric" autocomplete="off" aria-describedby="replay-prefix-help replay-prefix-error">
        <p class="help" id="replay-prefix-help"></p>
        <p class="field-error" id="replay-prefix-error" hidden></p>
      </div>
    </div>
    <div class="actions">
      <button type="submit" id="replay-run" class="primary">Serve the queue for real and compare</button>
      <button type="button" id="replay-cancel" disabled>Cancel</button>
      <button type="button" id="replay-download" disabled>Download (JSON)</button>
    </div>
    <p id="replay-form-error" class="notice error" role="alert" hidden></p>
  </form>${jobStatusMarkup('replay', 'Measures the step table, serves the queue under each chosen policy, measures again.')}
  <div id="replay-results" hidden>
    <p id="replay-summary"></p>
    <div class="compare replay-tables">
      <div id="replay-real-box" class="table-box scroll-x" tabindex="0" role="region" aria-label="Real engine"></div>
      <div id="replay-sim-box" class="table-box scroll-x" tabindex="0" role="region" aria-label="Simulator and its error"></div>
    </div>
    <p id="replay-finding"></p>
    <div class="field">
      <label for="replay-policy">Slot timeline of</label>
      <select id="replay-policy"></select>
    </div>
    <div id="replay-legend"></div>
    <div class="two-col">
      <figure class="chart">
        <figcaption id="replay-gantt-real-caption">Real run</figcaption>
        <div id="chart-replay-real" class="chart-box" role="img" aria-label="Slot timeline of the real run"></div>
      </figure>
      <figure class="chart">
        <figcaption id="replay-gantt-sim-caption">Simulated</figcaption>
        <div id="chart-replay-sim" class="chart-box" role="img" aria-label="Slot timeline of the simulation"></div>
      </figure>
    </div>
    <p id="replay-hover" class="help" aria-live="off">Point at a bar to see its request.</p>
    <details>
      <summary id="replay-steps-summary">Step check: every forward pass of the real run, priced on the table</summary>
      <div id="replay-steps-box" class="table-box scroll-x" tabindex="0" role="region" aria-label="Step check"></div>
    </details>
  </div>
</section>
`;
