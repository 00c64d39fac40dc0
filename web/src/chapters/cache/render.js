// Chapter 2's picture: two lanes of tokens, one per path, filling in as the race clock runs, each
// position marked where both paths produced the same token; the measured times and the ratio beside
// them. A model with a tokenizer writes words (answer.pieces: the text of each generated token), shown
// after its prompt (answer.prompt_text); a random model writes token ids.

import { h } from '../../shared/dom.js';
import { duration, ratio } from '../../shared/format.js';
import { noisyAnswerPaths, noisyText } from '../../shared/noisy.js';

// The text of each of `tokens`: its piece where it is the token the piece is of (piecesOf[i]), else its
// id, which amid words is written apart as "[id 2638]" so that ids never run together.
const tokenTexts = (tokens, piecesOf, pieces) =>
  tokens.map((token, i) =>
    !pieces ? String(token) : piecesOf[i] === token && i < pieces.length ? pieces[i] : `[id ${token}]`
  );

// texts: what each token shows; words: whether they are words (else ids).
function laneView(id, label, tokens, other, texts, words) {
  const chips = tokens.map((token, i) =>
    h(
      'li',
      {
        class: `token ${other[i] === token ? 'same' : 'differs'}${words && texts[i] === `[id ${token}]` ? ' token-id' : ''}`,
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
  const noisy = noisyAnswerPaths(answer);
  // noisySpread: the card's figure's spread when it is noisy, else undefined.
  const card = (label, value, key, raw, noisySpread) =>
    h(
      'div',
      { class: `card${noisySpread === undefined ? '' : ' noisy'}` },
      h('div', { class: 'card-label' }, label),
      h('div', { class: 'card-value figure-value', dataset: { key, value: String(raw) } }, value),
      noisySpread === undefined
        ? null
        : h(
            'div',
            { class: 'noisy-mark', dataset: { noisy: 'true' } },
            Number.isFinite(noisySpread) ? `noisy: ${noisyText(noisySpread, false)}` : 'noisy: from a noisy time'
          )
    );
  const spreadOf = (path) => {
    const found = noisy.find((p) => p.path === path);
    return found ? found.spread : undefined;
  };
  const cards = h(
    'div',
    { class: 'cards cards-3', dataset: { provisional: String(Boolean(answer.provisional)) } },
    card(
      'Without a cache',
      duration(answer.nocache_ms.median),
      'nocache_ms',
      answer.nocache_ms.median,
      spreadOf('nocache')
    ),
    card('With the KV cache', duration(answer.cache_ms.median), 'cache_ms', answer.cache_ms.median, spreadOf('cache')),
    card('Cache speed-up', ratio(answer.ratio), 'ratio', answer.ratio, noisy.length ? NaN : undefined)
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
        same ? '✓ Identical tokens on both paths' : '✗ The paths part at a near-tie (marked in red from there)'
      )
    : null;
  return { lanes: [nocache.element, cache.element], cards, prompt, mark, setCounts };
}
