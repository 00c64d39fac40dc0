// The KV-memory calculator's markup: the formula, its fields (the model menu filled by index.js) and its
// output.

export const MARKUP = `
<section id="kv-memory" class="full-only" aria-labelledby="kv-title">
  <h2 id="kv-title">How much memory does the KV cache take?</h2>
  <p>Every token of a conversation keeps a key and a value vector per layer and per KV head:
    <strong>bytes per token = 2 × layers × KV heads × head size × bytes per number</strong>.</p>
  <form id="kv-form" class="kv-grid" novalidate>
    <div class="field wide">
      <label for="kv-preset">Model</label>
      <select id="kv-preset"></select>
    </div>
    <div class="field"><label for="kv-layers">Layers</label><input id="kv-layers" inputmode="numeric" autocomplete="off"></div>
    <div class="field"><label for="kv-kv_heads">KV heads</label><input id="kv-kv_heads" inputmode="numeric" autocomplete="off"></div>
    <div class="field"><label for="kv-head_dim">Head size</label><input id="kv-head_dim" inputmode="numeric" autocomplete="off"></div>
    <div class="field">
      <label for="kv-bytes_per_number">Number format</label>
      <select id="kv-bytes_per_number">
        <option value="4">32-bit float (4 bytes)</option>
        <option value="2">16-bit (2 bytes)</option>
        <option value="1">8-bit (1 byte)</option>
        <option value="0.5">4-bit (½ byte)</option>
      </select>
    </div>
    <div class="field"><label for="kv-tokens">Conversation length (tokens)</label><input id="kv-tokens" inputmode="numeric" autocomplete="off" value="4096"></div>
    <div class="field"><label for="kv-conversations">Conversations at once</label><input id="kv-conversations" inputmode="numeric" autocomplete="off" value="16"></div>
  </form>
  <div id="kv-output" aria-live="polite"></div>
</section>
`;
