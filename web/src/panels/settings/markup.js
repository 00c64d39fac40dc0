// The lab's settings panel: Part A's and Part B's settings, the Run, Cancel and reset buttons, the link to these
// settings, the run's progress and its error box. The model, weight and KV menus are filled from the
// module's catalog (index.js), and the ranges in the help from the form's fields (config.js).

import { FIELDS } from '../../config.js';
import { rangeHelp } from '../../shared/fields.js';

const range = (key) => rangeHelp(FIELDS[key]);

export const MARKUP = `
<section id="controls" aria-labelledby="controls-title">
  <h2 id="controls-title" class="full-only">Settings</h2>
  <form id="settings" novalidate>
    <div id="hash-message" class="notice warn" role="status" hidden></div>
    <div class="fieldsets full-only">
      <fieldset>
        <legend>Part A: one answer</legend>
        <div class="field">
          <label for="model">Model</label>
          <select id="model" name="model" aria-describedby="model-help model-error" data-model-choice></select>
          <p class="help" id="model-help">Random weights write token ids; a real model writes words. A model file is fetched (or read from your disk) when you press Run.</p>
          <p class="field-error" id="model-error" hidden></p>
        </div>
        <div class="field" id="model_file-field" data-model-file-field hidden>
          <label for="model_file">Model file</label>
          <input id="model_file" name="model_file" type="file" multiple accept=".gguf,.bin" aria-describedby="model_file-help" data-model-file>
          <p class="help" id="model_file-help" data-model-picked>One .gguf file (Llama or Qwen2 architecture), or a llama2.c checkpoint and its tokenizer.bin together. Read in this browser, never uploaded.</p>
        </div>
        <div class="field">
          <label for="preset">Model preset</label>
          <select id="preset" name="preset" aria-describedby="preset-help preset-error"></select>
          <p class="help" id="preset-help">Model size; the step times below come from this model.</p>
          <p class="field-error" id="preset-error" hidden></p>
        </div>
        <div class="field">
          <label for="weights">Weight format</label>
          <select id="weights" name="weights" aria-describedby="weights-help weights-error"></select>
          <p class="help" id="weights-help">How the weight matrices are stored: bfloat16 halves the bytes a decode step reads, rounded from the same float32 weights.</p>
          <p class="field-error" id="weights-error" hidden></p>
        </div>
        <div class="field">
          <label for="kv_format">KV cache format</label>
          <select id="kv_format" name="kv_format" aria-describedby="kv_format-help kv_format-error"></select>
          <p class="help" id="kv_format-help">How the KV cache stores keys and values: 16 bits halve its bytes per token, so the same memory holds twice the tokens; each key and value is rounded once, when its token is computed.</p>
          <p class="field-error" id="kv_format-error" hidden></p>
        </div>
        <div class="field">
          <label for="backend">Run the model on</label>
          <select id="backend" name="backend" aria-describedby="backend-help backend-error">
            <option value="cpu">This device’s CPU (WebAssembly)</option>
            <option value="webgpu">This device’s GPU (WebGPU)</option>
          </select>
          <p class="help" id="backend-help">The GPU runs float32 weights and cache, checked against the CPU first; where WebGPU is missing or wrong, the lab runs on the CPU and says why.</p>
          <p class="field-error" id="backend-error" hidden></p>
        </div>
        <div class="field">
          <label for="threads">Threads</label>
          <select id="threads" name="threads" aria-describedby="threads-help threads-error"></select>
          <p class="help" id="threads-help">The CPU’s threads share each step’s work; the tokens are the same on any number. More than one needs a cross-origin isolated page (see “This browser”).</p>
          <p class="field-error" id="threads-error" hidden></p>
        </div>
        <div class="field">
          <label for="runs">Runs per path</label>
          <input id="runs" name="runs" inputmode="numeric" autocomplete="off" aria-describedby="runs-help runs-error">
          <p class="help" id="runs-help">${range('runs')}; the median of the runs is shown.</p>
          <p class="field-error" id="runs-error" hidden></p>
        </div>
        <div class="field">
          <label for="prompt_tokens">Prompt length</label>
          <input id="prompt_tokens" name="prompt_tokens" inputmode="numeric" autocomplete="off" aria-describedby="prompt_tokens-help prompt_tokens-error">
          <p class="help" id="prompt_tokens-help">Tokens in Part A’s prompt, on random weights (a real model’s prompt is one of our story openings).</p>
          <p class="field-error" id="prompt_tokens-error" hidden></p>
        </div>
        <div class="field">
          <label for="answer_tokens">Answer length</label>
          <input id="answer_tokens" name="answer_tokens" inputmode="numeric" autocomplete="off" aria-describedby="answer_tokens-help answer_tokens-error">
          <p class="help" id="answer_tokens-help">Tokens generated in Part A.</p>
          <p class="field-error" id="answer_tokens-error" hidden></p>
        </div>
      </fieldset>
      <fieldset>
        <legend>Part B: the queue</legend>
        <div class="field">
          <label for="requests">Requests</label>
          <input id="requests" name="requests" inputmode="numeric" autocomplete="off" aria-describedby="requests-help requests-error">
          <p class="help" id="requests-help">${range('requests')}.</p>
          <p class="field-error" id="requests-error" hidden></p>
        </div>
        <div class="field">
          <label for="slots">Batch size / slots</label>
          <input id="slots" name="slots" inputmode="numeric" autocomplete="off" aria-describedby="slots-help slots-error">
          <p class="help" id="slots-help">B for static batches and continuous batching, ${range('slots')}.</p>
          <p class="field-error" id="slots-error" hidden></p>
        </div>
        <div class="field range wide">
          <span class="label" id="prompt-range-label">Prompt lengths (tokens)</span>
          <div class="pair" role="group" aria-labelledby="prompt-range-label">
            <label for="prompt_lo" class="visually-hidden">Prompt length, from</label>
            <input id="prompt_lo" name="prompt_lo" inputmode="numeric" autocomplete="off" aria-describedby="prompt_lo-error">
            <span aria-hidden="true">to</span>
            <label for="prompt_hi" class="visually-hidden">Prompt length, to</label>
            <input id="prompt_hi" name="prompt_hi" inputmode="numeric" autocomplete="off" aria-describedby="prompt_hi-error">
          </div>
          <p class="field-error" id="prompt_lo-error" hidden></p>
          <p class="field-error" id="prompt_hi-error" hidden></p>
        </div>
        <div class="field range wide">
          <span class="label" id="answer-range-label">Answer lengths (tokens)</span>
          <div class="pair" role="group" aria-labelledby="answer-range-label">
            <label for="answer_lo" class="visually-hidden">Answer length, from</label>
            <input id="answer_lo" name="answer_lo" inputmode="numeric" autocomplete="off" aria-describedby="answer_lo-error">
            <span aria-hidden="true">to</span>
            <label for="answer_hi" class="visually-hidden">Answer length, to</label>
            <input id="answer_hi" name="answer_hi" inputmode="numeric" autocomplete="off" aria-describedby="answer_hi-error">
          </div>
          <p class="field-error" id="answer_lo-error" hidden></p>
          <p class="field-error" id="answer_hi-error" hidden></p>
        </div>
        <div class="field">
          <label for="arrival">Arrivals</label>
          <select id="arrival" name="arrival" aria-describedby="arrival-error">
            <option value="all-at-zero">all at t = 0</option>
            <option value="poisson">random (Poisson)</option>
          </select>
          <p class="field-error" id="arrival-error" hidden></p>
        </div>
        <div class="field" id="rate-field">
          <label for="rate">Arrival rate (requests/s)</label>
          <input id="rate" name="rate" inputmode="decimal" autocomplete="off" aria-describedby="rate-help rate-error">
          <p class="help" id="rate-help">Average rate of the Poisson arrivals.</p>
          <p class="field-error" id="rate-error" hidden></p>
        </div>
        <div class="field">
          <label for="seed">Queue seed</label>
          <input id="seed" name="seed" inputmode="numeric" autocomplete="off" aria-describedby="seed-help seed-error">
          <p class="help" id="seed-help">Same seed, same queue.</p>
          <p class="field-error" id="seed-error" hidden></p>
        </div>
      </fieldset>
    </div>
    <div class="actions">
      <button type="submit" id="run" class="primary">Run the lab</button>
      <button type="button" id="cancel" disabled>Cancel</button>
      <button type="button" id="reset" class="full-only">Default settings</button>
      <a id="share-link" class="full-only" href="#">Link to these settings</a>
    </div>
    <p id="form-error" class="notice error" role="alert" hidden></p>
  </form>

  <div id="status" class="status" aria-live="polite">
    <div class="progress-row">
      <progress id="progress" max="100" value="0" aria-labelledby="phase"></progress>
      <span id="percent" aria-hidden="true">0%</span>
    </div>
    <p id="phase">Loading the WebAssembly module…</p>
  </div>
  <div id="error" class="notice error" role="alert" hidden>
    <p id="error-message"></p>
    <p id="error-detail" class="detail"></p>
    <button type="button" id="retry">Try again</button>
  </div>
</section>
`;
