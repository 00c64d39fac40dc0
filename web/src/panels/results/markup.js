// The lab's results panel: Part A, Part B with the published table and the downloads, the plots (drawn by
// render.js).

export const MARKUP = `
<div id="results" hidden>
  <section id="part-a" aria-labelledby="part-a-title">
    <h2 id="part-a-title">Part A: one answer, and one step</h2>
    <div id="part-a-summary" class="cards"></div>
    <p id="part-a-published" class="published-line"></p>
    <div class="full-only">
      <div class="two-col">
        <div id="answer-table-box" class="table-box scroll-x" tabindex="0" role="region" aria-label="Time for one answer"></div>
        <div id="tokens-box" class="table-box scroll-y" tabindex="0" role="region" aria-label="Generated token ids, both paths"></div>
      </div>
      <h3>One decode step: rows × context</h3>
      <div id="decode-box" class="table-box scroll-x" tabindex="0" role="region" aria-label="Decode step times"></div>
      <p id="decode-speedup"></p>
      <details>
        <summary>Prefill times and how they were measured</summary>
        <div id="prefill-box" class="table-box scroll-x" tabindex="0" role="region" aria-label="Prefill times"></div>
        <p id="timing-note" class="help"></p>
      </details>
    </div>
  </section>

  <section id="part-b" aria-labelledby="part-b-title">
    <h2 id="part-b-title">Part B: one queue, four ways to serve it</h2>
    <p id="workload-line"></p>
    <div class="compare">
      <div id="policy-box" class="table-box scroll-x" tabindex="0" role="region" aria-label="Policy table, this machine"></div>
      <div id="published-box" class="table-box scroll-x" tabindex="0" role="region" aria-label="Policy table, published"></div>
    </div>
    <ul id="findings"></ul>
    <div class="downloads full-only" role="group" aria-label="Downloads">
      <span>Download:</span>
      <button type="button" id="download-json">everything (JSON)</button>
      <button type="button" id="download-policies">policy table (CSV)</button>
      <button type="button" id="download-requests">per-request times (CSV)</button>
      <button type="button" id="download-steps">step times (CSV)</button>
    </div>
    <p class="embed-only"><a id="full-link" data-whole-page href="index.html" target="_blank" rel="noopener">Open the full lab, with plots and settings</a></p>
  </section>

  <section id="plots" aria-labelledby="plots-title">
    <h2 id="plots-title" class="full-only">Plots</h2>
    <figure class="chart">
      <figcaption>Time to first token: share of requests answered within a given time (log scale)</figcaption>
      <div id="chart-cdf" class="chart-box" role="img" aria-label="Cumulative distribution of time to first token per policy"></div>
    </figure>
    <div class="full-only">
      <h3>Who is in which slot: the first <span id="timeline-count">60</span> requests</h3>
      <div id="timeline-legend"></div>
      <div class="two-col">
        <figure class="chart">
          <figcaption id="gantt-static-caption">Static batches</figcaption>
          <div id="chart-gantt-static" class="chart-box" role="img" aria-label="Slot timeline of static batching"></div>
        </figure>
        <figure class="chart">
          <figcaption id="gantt-continuous-caption">Continuous batching</figcaption>
          <div id="chart-gantt-continuous" class="chart-box" role="img" aria-label="Slot timeline of continuous batching"></div>
        </figure>
      </div>
      <p id="gantt-hover" class="help" aria-live="off">Point at a bar to see its request.</p>
      <div class="two-col">
        <figure class="chart">
          <figcaption>Decode step time vs rows in the batch, one line per context</figcaption>
          <div id="chart-rows" class="chart-box" role="img" aria-label="Decode step time versus rows"></div>
        </figure>
        <figure class="chart">
          <figcaption>Decode step time vs context, one line per row count</figcaption>
          <div id="chart-context" class="chart-box" role="img" aria-label="Decode step time versus context"></div>
        </figure>
      </div>
    </div>
  </section>
</div>
`;
