// Chapter 1's picture: one column per generated token, its height the rows projected for it. Left,
// without a cache (a growing triangle: the rows recomputed, pale, under the one new row); right, with a
// cache (the prompt once, then one row per token). Columns appear one step at a time unless motion is
// reduced.

import { s } from '../../shared/svg.js';
import { int } from '../../shared/format.js';

const WIDTH = 320;
const HEIGHT = 200;
const PAD = { left: 34, right: 6, top: 24, bottom: 24 };

function panel(steps, key, maxRows, label, total) {
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const colW = plotW / steps.length;
  const y = (rows) => PAD.top + plotH - (rows / maxRows) * plotH;
  const columns = steps.map((step) => {
    const rows = step[key];
    const recomputed = key === 'nocache' ? step.recomputed : 0;
    const x = PAD.left + (step.k - 1) * colW;
    const w = Math.max(0.6, colW - (colW > 3 ? 1 : 0));
    return s(
      'g',
      { class: 'step', 'data-k': step.k },
      recomputed
        ? s('rect', { class: 'recomputed', x, y: y(rows), width: w, height: y(rows - recomputed) - y(rows) })
        : null,
      s('rect', { class: 'new-row', x, y: y(rows - recomputed), width: w, height: y(0) - y(rows - recomputed) })
    );
  });
  return s(
    'svg',
    {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      class: 'rows-triangle',
      role: 'img',
      'aria-label': `${label}: ${int(total)} rows in all`,
    },
    s('line', { class: 'axis', x1: PAD.left, y1: y(0), x2: WIDTH - PAD.right, y2: y(0) }),
    // The vertical axis's unit, above it: the ticks alone ("63", "0") would not say what is counted.
    s('text', { class: 'tick axis-title', x: 0, y: 12, text: 'rows per token' }),
    s('text', { class: 'tick', x: PAD.left - 4, y: y(maxRows) + 4, 'text-anchor': 'end', text: int(maxRows) }),
    s('text', { class: 'tick', x: PAD.left - 4, y: y(0), 'text-anchor': 'end', text: '0' }),
    s('text', { class: 'tick', x: PAD.left, y: HEIGHT - 6, text: 'token 1' }),
    s('text', {
      class: 'tick',
      x: WIDTH - PAD.right,
      y: HEIGHT - 6,
      'text-anchor': 'end',
      text: `token ${steps.length}`,
    }),
    columns
  );
}

// Returns the two panels and a function that reveals the first k columns of both.
export function triangles(rows) {
  const maxRows = rows.steps[rows.steps.length - 1].nocache;
  const left = panel(rows.steps, 'nocache', maxRows, 'Rows projected per token without a cache', rows.nocache_total);
  const right = panel(rows.steps, 'cache', maxRows, 'Rows projected per token with a KV cache', rows.cache_total);
  const reveal = (k) => {
    for (const svg of [left, right]) {
      for (const g of svg.querySelectorAll('.step')) g.classList.toggle('hidden-step', Number(g.dataset.k) > k);
    }
  };
  return { left, right, reveal };
}
