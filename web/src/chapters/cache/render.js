// Chapter 2's picture: two lanes of tokens, one per path, filling in as the race clock runs, each
// position marked where both paths produced the same token; the measured times and the ratio beside
// them. A model with a tokenizer writes words (answer.pieces: the text of each generated token), shown
// after its prompt (answer.prompt_text); a random model writes token ids.

import { h } from '../../shared/dom.js';
import { ms, ratio } from '../../shared/format.js';

// The text of each of `tokens`: its piece where it is the token the piece is of (piecesOf[i]), its id
// elsewhere.
const tokenTexts = (tokens, piecesOf, pieces) =>
  tokens.map((token, i) => (pieces && piecesOf[i] === token && i < pieces.length ? pieces[i] : String(token)));

// texts: what each token shows; words: whether they are words (else ids).
function laneView(id, label, tokens, other, texts, words) {
  const chips = tokens.map((token, i) =>
    h(
      'li',
      {
        class: `token ${other[i] === token ? 'same' : 'differs'}`,
        dataset: { index: String(i), id: String(token) },
        title: `${other[i] === token ? 'the same token on both paths' : 'differs from the other path'} (id ${token})`,
      },
      texts[i]
    )
  );
  const count = h('span', { class: 'lane-count' });
  const list = h(
    'ol',
    { class: `tokens${words ? ' words' : ''}`, 'aria-label': `${label}: ${words ? 'the answer' : 'token ids'}` },
    chips
  );
  return {
    element: h(
      'div',
      { class: 'lane', id },
      h('div', { class: 'lane-head' }, h('strong', null, label), ' ', count),
      list
    ),
    chips,
    count,
  };
}

export function raceView(answer) {
  // The pieces are the text of the uncached path's tokens.
  const pieces = Array.isArray(answer.pieces) ? answer.pieces : null;
  const lane = (id, label, tokens, other) =>
    laneView(id, label, tokens, other, tokenTexts(tokens, answer.tokens_nocache, pieces), Boolean(pieces));
  const nocache = lane('lane-nocache', 'Without a cache', answer.tokens_nocache, answer.tokens_cache);
  const cache = lane('lane-cache', 'With the KV cache', answer.tokens_cache, answer.tokens_nocache);
  const card = (label, value, key, raw) =>
    h(
      'div',
      { class: 'card' },
      h('div', { class: 'card-label' }, label),
      h('div', { class: 'card-value figure-value', dataset: { key, value: String(raw) } }, value)
    );
  const cards = h(
    'div',
    { class: 'cards cards-3', dataset: { provisional: String(Boolean(answer.provisional)) } },
    card('Without a cache', ms(answer.nocache_ms.median, 4), 'nocache_ms', answer.nocache_ms.median),
    card('With the KV cache', ms(answer.cache_ms.median, 4), 'cache_ms', answer.cache_ms.median),
    card('Cache speed-up', ratio(answer.ratio), 'ratio', answer.ratio)
  );
  // Shows the first n tokens of each lane.
  const setCounts = (counts, text) => {
    nocache.chips.forEach((chip, i) => chip.classList.toggle('pending', i >= counts.nocache));
    cache.chips.forEach((chip, i) => chip.classList.toggle('pending', i >= counts.cache));
    nocache.count.textContent = text(counts.nocache, answer.tokens_nocache.length);
    cache.count.textContent = text(counts.cache, answer.tokens_cache.length);
  };
  const prompt =
    typeof answer.prompt_text === 'string'
      ? h('p', { class: 'race-prompt' }, h('span', { class: 'race-prompt-label' }, 'Prompt: '), answer.prompt_text)
      : null;
  // Words carry no mark each (it would break up the text): one mark says whether all are the same.
  const same = answer.identical_tokens;
  const mark = pieces
    ? h(
        'p',
        { class: `race-mark ${same ? 'same' : 'differs'}`, dataset: { identical: String(same) } },
        same ? '✓ Identical tokens on both paths' : '✗ The paths’ tokens differ (marked in red)'
      )
    : null;
  return { lanes: [nocache.element, cache.element], cards, prompt, mark, setCounts };
}
