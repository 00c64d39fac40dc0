// Chapter 1, "One token at a time": the rows a model projects without and with a KV cache, for the
// prompt and answer lengths of this run (its data: the run's Part A, result.answer).

import { h, replace } from '../../shared/dom.js';
import { int } from '../../shared/format.js';
import { projectedRows } from './rows.js';
import { triangles } from './render.js';
import { TITLE, WAITING, announcement, explanation } from './words.js';

const STEP_MS = 40; // one column every 40 ms while drawing

export const name = 'tokens';
export const title = TITLE;

export function mount(root, ctx) {
  let timer = null;
  const stop = () => {
    clearInterval(timer);
    timer = null;
  };

  function clear() {
    stop();
    replace(root, h('p', { class: 'chapter-waiting' }, WAITING));
  }

  function show(answer) {
    stop();
    const rows = projectedRows(answer.prompt_tokens, answer.answer_tokens);
    const { left, right, reveal } = triangles(rows);
    const figure = (svg, caption, total, key) =>
      h(
        'figure',
        { class: 'chapter-figure' },
        svg,
        h(
          'figcaption',
          null,
          caption,
          ': ',
          h('strong', { class: 'figure-value', dataset: { key, value: String(total) } }, `${int(total)} rows`)
        )
      );
    replace(
      root,
      h(
        'div',
        { class: 'chapter-split' },
        h(
          'div',
          { class: 'chapter-words' },
          explanation(answer, rows).map((text) => h('p', null, text))
        ),
        h(
          'div',
          { class: 'chapter-picture two-figures' },
          figure(left, 'Without a cache', rows.nocache_total, 'nocache_rows'),
          figure(right, 'With a KV cache', rows.cache_total, 'cache_rows')
        )
      )
    );
    ctx.announceFigure(announcement(rows));
    ctx.figureLanded();
    if (ctx.reducedMotion) return;
    let k = 0;
    reveal(0);
    timer = setInterval(() => {
      k += 1;
      reveal(k);
      if (k >= rows.steps.length) stop();
    }, STEP_MS);
  }

  clear();
  return { show, clear, destroy: stop };
}
