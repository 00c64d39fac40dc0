// Chapter 3's picture: for each row count, the measured step time and the tokens per second it gives,
// as two bar charts on one row axis; and the weights a step reads once, split among the rows.

import { s } from '../../shared/svg.js';
import { int, ms } from '../../shared/format.js';

const WIDTH = 300;
const ROW_H = 26;
const PAD = { left: 64, right: 70, top: 8 };

function bars(points, key, label, format, className) {
  const max = Math.max(...points.map((p) => p[key]));
  const plotW = WIDTH - PAD.left - PAD.right;
  const height = PAD.top + points.length * ROW_H + 4;
  return s(
    'svg',
    {
      viewBox: `0 0 ${WIDTH} ${height}`,
      class: `rows-bars ${className}`,
      role: 'img',
      'aria-label': `${label}: ${points.map((p) => `${p.rows} rows ${format(p[key])}`).join(', ')}`,
    },
    points.map((p, i) => {
      const y = PAD.top + i * ROW_H;
      const w = Math.max(1, (p[key] / max) * plotW);
      return s(
        'g',
        { class: 'bar', 'data-rows': p.rows },
        s('text', {
          class: 'tick',
          x: PAD.left - 6,
          y: y + ROW_H / 2 + 4,
          'text-anchor': 'end',
          text: `${int(p.rows)} row${p.rows > 1 ? 's' : ''}`,
        }),
        s('rect', { x: PAD.left, y: y + 4, width: w, height: ROW_H - 8 }),
        s('text', { class: 'value', x: PAD.left + w + 4, y: y + ROW_H / 2 + 4, text: format(p[key]) })
      );
    })
  );
}

export function rowsCharts(byRows) {
  return {
    stepTime: bars(byRows.points, 'step_ms', 'Decode step time', (v) => ms(v, 3), 'step-time'),
    throughput: bars(byRows.points, 'tokens_per_s', 'Tokens per second', (v) => `${int(v)}/s`, 'throughput'),
  };
}
