// The "SIMD vs scalar vs JavaScript" panel's markup: its explanation, its buttons, its progress, its error box
// and its results (render.js).

import { jobStatusMarkup } from '../job-panel.js';

export const MARKUP = `
<section id="simd" class="full-only" aria-labelledby="simd-title" data-state="ready">
  <h2 id="simd-title">SIMD vs scalar vs JavaScript</h2>
  <p class="lead">The same decode step (one row, attending over 64 positions, the model chosen in the settings)
    timed in this browser three ways: kvlab’s C++ compiled to WebAssembly with SIMD (what the lab uses), the same
    C++ compiled without SIMD (a second module, fetched only when you press the button), and plain JavaScript over
    the same weights, written as the published lab was.</p>
  <p id="simd-no-simd" class="notice warn" hidden>This browser has no WebAssembly SIMD, so only the scalar build
    and plain JavaScript are measured.</p>
  <div class="actions">
    <button type="button" id="simd-run" class="primary">Measure SIMD, scalar and JavaScript</button>
    <button type="button" id="simd-cancel" disabled>Cancel</button>
    <button type="button" id="simd-download" disabled>Download (JSON)</button>
  </div>${jobStatusMarkup('simd', 'Takes about ten seconds with the default model; the lab’s own run waits meanwhile.')}
  <div id="simd-results" hidden>
    <div id="simd-cards" class="cards cards-4"></div>
    <p id="simd-model" class="help"></p>
    <div id="simd-table-box" class="table-box scroll-x" tabindex="0" role="region" aria-label="Decode step: SIMD, scalar, JavaScript"></div>
    <p id="simd-finding"></p>
    <div id="simd-rows-box" class="table-box scroll-x" tabindex="0" role="region" aria-label="Decode step of 16 rows"></div>
    <p class="help">The plain-JavaScript reference steps one row at a time, so 16 rows cost it 16 one-row steps.
      Each timing repeats the step until a sample lasts at least 10 ms and reports the median,
      min and max of 5 samples. The two WebAssembly figures come from the module’s <code>bench()</code> (what
      <code>kvlab bench</code> prints); the read bandwidth streams a buffer the size of the weights. GFLOP/s count
      two operations per multiply-add; “Weights GB/s” is the model’s weight bytes over the step’s time.</p>
  </div>
</section>
`;
