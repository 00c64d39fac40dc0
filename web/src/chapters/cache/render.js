// Chapter 2's picture: two lanes of token ids, one per path, filling in as the race clock runs, each
// position marked where both paths produced the same id; the measured times and the ratio beside them.

import { h } from '../../shared/dom.js';
import { ms, ratio } from '../../shared/format.js';

function laneView(id, label, tokens, other) {
  const chips = tokens.map((token, i) =>
    h(
      'li',
      {
        class: `token ${other[i] === token ? 'same' : 'differs'}`,
        dataset: { index: String(i) },
        title: other[i] === token ? 'the same id on both paths' : 'differs from the other path',
      },
      String(token)
    )
  );
  const count = h('span', { class: 'lane-count' });
  const list = h('ol', { class: 'tokens', 'aria-label': `${label}: token ids` }, chips);
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
  const nocache = laneView('lane-nocache', 'Without a cache', answer.tokens_nocache, answer.tokens_cache);
  const cache = laneView('lane-cache', 'With the KV cache', answer.tokens_cache, answer.tokens_nocache);
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
  return { lanes: [nocache.element, cache.element], cards, setCounts };
}
