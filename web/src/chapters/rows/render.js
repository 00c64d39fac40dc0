// Chapter 3's picture: for each row count, the measured step time and the tokens per second it gives,
// as two bar charts on one row axis; and, when the lab ran on this device's GPU, the GPU's rows gain
// beside the CPU's on one chart.

import { h } from '../../shared/dom.js';
import { s } from '../../shared/svg.js';
import { count, duration, int, rate, ratio, sig, spread } from '../../shared/format.js';

const WIDTH = 300;
const ROW_H = 26;
const PAD = { left: 64, right: 100, top: 8 }; // right: room for the value's text ("12,345 tokens/s")

// noisy: the noisy cells among the points (shared/noisy.js): their bars are marked, with their spread.
function bars(points, key, label, format, className, noisy) {
  const noisyAt = (p) => noisy.find((c) => c.rows === p.rows);
  // The spread follows the timed figure (the step); a figure derived from it (tokens/s) is only marked.
  const valueText = (p) =>
    noisyAt(p) && key === 'step_ms' ? `${format(p[key])} ${spread(noisyAt(p).spread)}` : format(p[key]);
  const max = Math.max(...points.map((p) => p[key]));
  const plotW = WIDTH - PAD.left - PAD.right;
  const height = PAD.top + points.length * ROW_H + 4;
  return s(
    'svg',
    {
      viewBox: `0 0 ${WIDTH} ${height}`,
      class: `rows-bars ${className}`,
      role: 'img',
      'aria-label': `${label}: ${points.map((p) => `${count(p.rows, 'row')} ${valueText(p)}${noisyAt(p) ? ' (noisy)' : ''}`).join(', ')}`,
    },
    points.map((p, i) => {
      const y = PAD.top + i * ROW_H;
      const w = Math.max(1, (p[key] / max) * plotW);
      return s(
        'g',
        { class: noisyAt(p) ? 'bar noisy' : 'bar', 'data-rows': p.rows, 'data-noisy': String(Boolean(noisyAt(p))) },
        s('text', {
          class: 'tick',
          x: PAD.left - 6,
          y: y + ROW_H / 2 + 4,
          'text-anchor': 'end',
          text: count(p.rows, 'row'),
        }),
        s('rect', { x: PAD.left, y: y + 4, width: w, height: ROW_H - 8 }),
        s('text', { class: 'value', x: PAD.left + w + 4, y: y + ROW_H / 2 + 4, text: valueText(p) })
      );
    })
  );
}

// noisy: the noisy cells among byRows's points.
export function rowsCharts(byRows, noisy = []) {
  return {
    stepTime: bars(byRows.points, 'step_ms', 'Decode step time', duration, 'step-time', noisy),
    throughput: bars(byRows.points, 'tokens_per_s', 'Tokens per second', (v) => rate(v), 'throughput', noisy),
  };
}

// The rows gain (tokens/s at r rows over tokens/s at the series' first row count) of each series
// [{key, label, points: stepsByRows().points}] as lines on one chart, rows on a log-2 axis; the legend
// under it names each series.
const GAIN = { width: 600, height: 220, left: 44, right: 16, top: 10, bottom: 32 };

export function gainChart(series) {
  const gains = series.map(({ points }) =>
    points.map((p) => ({ rows: p.rows, gain: p.tokens_per_s / points[0].tokens_per_s }))
  );
  const all = gains.flat();
  const maxRows = Math.max(...all.map((p) => p.rows));
  const maxGain = Math.max(1, ...all.map((p) => p.gain));
  const plotW = GAIN.width - GAIN.left - GAIN.right;
  const plotH = GAIN.height - GAIN.top - GAIN.bottom;
  const x = (rows) => GAIN.left + (maxRows > 1 ? (Math.log2(rows) / Math.log2(maxRows)) * plotW : 0);
  const y = (gain) => GAIN.top + plotH - (gain / maxGain) * plotH;
  const rowTicks = [...new Set(all.map((p) => p.rows))].sort((a, b) => a - b);
  const svg = s(
    'svg',
    {
      viewBox: `0 0 ${GAIN.width} ${GAIN.height}`,
      class: 'rows-gain',
      role: 'img',
      'aria-label': series
        .map(
          ({ label }, i) => `${label}: ${gains[i].map((p) => `${count(p.rows, 'row')} ${ratio(p.gain)}`).join(', ')}`
        )
        .join('; '),
    },
    s('line', { class: 'axis', x1: GAIN.left, y1: y(0), x2: GAIN.left + plotW, y2: y(0) }),
    s('line', { class: 'axis', x1: GAIN.left, y1: y(0), x2: GAIN.left, y2: GAIN.top }),
    rowTicks.map((rows) =>
      s('text', { class: 'tick', x: x(rows), y: y(0) + 14, 'text-anchor': 'middle', text: int(rows) })
    ),
    s('text', {
      class: 'tick',
      x: GAIN.left + plotW / 2,
      y: GAIN.height - 2,
      'text-anchor': 'middle',
      text: 'rows in the step',
    }),
    [1, maxGain].map((gain) =>
      s('text', { class: 'tick', x: GAIN.left - 4, y: y(gain) + 4, 'text-anchor': 'end', text: `${sig(gain, 2)}×` })
    ),
    s('text', { class: 'tick', x: GAIN.left + 4, y: GAIN.top + 8, text: 'rows gain (tokens/s over one row’s)' }),
    series.map(({ key }, i) =>
      s(
        'g',
        { class: `gain-series ${key}`, 'data-series': key, 'data-gains': JSON.stringify(gains[i]) },
        s('polyline', { points: gains[i].map((p) => `${x(p.rows)},${y(p.gain)}`).join(' ') }),
        gains[i].map((p) => s('circle', { cx: x(p.rows), cy: y(p.gain), r: 3 }))
      )
    )
  );
  const legend = h(
    'ul',
    { class: 'rows-gain-legend' },
    series.map(({ key, label }) =>
      h('li', { class: key }, h('span', { class: 'swatch', 'aria-hidden': 'true' }), label)
    )
  );
  return { svg, legend };
}
