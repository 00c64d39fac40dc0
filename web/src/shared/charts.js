// The plots, drawn with uPlot (canvas; it styles its elements through the CSSOM only, so it runs
// under a style-src without 'unsafe-inline'):
//   - TTFT distribution (empirical CDF) per policy,
//   - a slot timeline (Gantt) of the first requests, static vs continuous batching,
//   - decode step time vs rows and vs context, from the measured grid.

import uPlot from 'uplot';
import { h, replace } from './dom.js';
import { policyLabel, policyStyle } from './policies.js';
import { duration, rate, sig } from './format.js';
import { firstThatFits } from './fit-text.js';

const AXIS = { stroke: '#1f2328', grid: { stroke: '#d8dee4', width: 1 }, ticks: { stroke: '#8c959f', width: 1 } };
const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const PALETTE = ['#1d5fa8', '#b54708', '#0a7a5a', '#8a3f8f', '#3d4451', '#9a6700', '#0e7490', '#be185d'];
const DASHES = [[], [8, 4], [2, 3], [4, 2, 1, 2], [10, 3, 2, 3]];
export const PHASE_COLORS = { prefill: '#c2410c', decode: '#1d5fa8' };

const live = new Set(); // charts to resize with their containers

function chartHeight(width) {
  return Math.max(200, Math.min(320, Math.round(width * 0.55)));
}

function axis(label, extra = {}) {
  return { label, font: FONT, labelFont: FONT, labelSize: 22, ...AXIS, ...extra };
}

// A y axis as wide as its longest tick label, so that its title, outside that width, never sits on
// the labels (a fixed width cut "1,234,567" or left it under "tokens/s"). label: the title, or its
// wordings longest first: a short plot (a phone's) takes the first that fits its height.
function yAxis(label, extra = {}) {
  const wordings = Array.isArray(label) ? label : [label];
  return axis(wordings[0], { size: fitTickLabels, label: (u, i) => yTitle(u, u.axes[i], wordings), ...extra });
}

// The wording of a y axis's title that fits the plot's height (the shortest if none does).
function yTitle(u, a, wordings) {
  const font = u.ctx.font;
  u.ctx.font = a.labelFont[0];
  const title = firstThatFits(u.ctx, wordings, u.bbox.height) ?? wordings[wordings.length - 1];
  u.ctx.font = font;
  return title;
}

// What the y axis was given and what its tick labels need, and its title's length and the plot's
// height, in CSS pixels, on the chart's container (data-y-axis-px, data-y-labels-px, data-y-title-px,
// data-y-room-px): the page's tests hold the one to the other at every width.
function recordYAxis(u, container) {
  const a = u.axes[1];
  if (!a || !a.show) return;
  const ratio = u.pxRatio || 1;
  container.dataset.yAxisPx = String(a._size);
  container.dataset.yLabelsPx = String(tickLabelsPx(u, a, a._values));
  const font = u.ctx.font;
  u.ctx.font = a.labelFont[0];
  const title = typeof a.label === 'function' ? a.label(u, 1) : String(a.label ?? '');
  container.dataset.yTitlePx = String(Math.ceil(u.ctx.measureText(title).width / ratio));
  u.ctx.font = font;
  container.dataset.yRoomPx = String(Math.floor(u.bbox.height / ratio));
}

// The width of an axis's tick marks, their gap and the widest of `values`, in CSS pixels. The canvas's
// font is put back: uPlot keeps track of the one it set.
function tickLabelsPx(u, a, values) {
  const font = u.ctx.font;
  u.ctx.font = a.font[0];
  const widest = Math.max(0, ...(values || []).map((v) => u.ctx.measureText(String(v ?? '')).width));
  u.ctx.font = font;
  return Math.ceil(a.ticks.size + a.gap + widest / (u.pxRatio || 1));
}

// uPlot's size callback for a y axis. uPlot asks again while the layout settles (the ticks change with
// the plot's size); after the first pass the size only grows, so that it cannot oscillate.
function fitTickLabels(u, values, axisIndex, cycle) {
  const a = u.axes[axisIndex];
  const needed = tickLabelsPx(u, a, values) + 2;
  return cycle > 1 && a._size ? Math.max(a._size, needed) : needed;
}

// Creates a uPlot inside `container` (cleared first), sized to it and kept sized to it.
function mount(container, makeOptions, data) {
  replace(container);
  const width = Math.max(260, Math.floor(container.clientWidth || 600));
  const options = makeOptions(width, chartHeight(width));
  const hooks = options.hooks || {};
  options.hooks = { ...hooks, draw: [...(hooks.draw || []), (u) => recordYAxis(u, container)] };
  const plot = new uPlot(options, data, container);
  plot.root.setAttribute('aria-hidden', 'true');
  const entry = { plot, container, width };
  live.add(entry);
  return plot;
}

let resizeObserver = null;
export function watchResizes() {
  if (resizeObserver || typeof ResizeObserver !== 'function') return;
  resizeObserver = new ResizeObserver(() => {
    for (const entry of live) {
      if (!entry.container.isConnected) {
        live.delete(entry);
        entry.plot.destroy();
        continue;
      }
      const width = Math.max(260, Math.floor(entry.container.clientWidth));
      if (width !== entry.width) {
        entry.width = width;
        entry.plot.setSize({ width, height: chartHeight(width) });
      }
    }
  });
  resizeObserver.observe(document.body);
}

export function destroyCharts() {
  for (const entry of live) entry.plot.destroy();
  live.clear();
}

// ---- TTFT CDF ---------------------------------------------------------------------------------

function sortedTtfts(requests) {
  const values = requests.map((r) => (r.first_token_ms - r.arrival_ms) / 1000);
  values.sort((a, b) => a - b);
  return values;
}

// At most `limit` points of a sorted list, evenly spaced in rank (keeps first and last).
function thin(sorted, limit) {
  if (sorted.length <= limit) return sorted.map((v, i) => [v, (i + 1) / sorted.length]);
  const out = [];
  for (let k = 0; k < limit; k += 1) {
    const i = Math.round((k * (sorted.length - 1)) / (limit - 1));
    out.push([sorted[i], (i + 1) / sorted.length]);
  }
  return out;
}

export function ttftCdf(container, policies, order) {
  const curves = order.map((name) => thin(sortedTtfts(policies[name].requests), 1500));
  const xs = Array.from(new Set(curves.flatMap((c) => c.map((p) => p[0])))).sort((a, b) => a - b);
  const logX = xs.length > 0 && xs[0] > 0 && xs[xs.length - 1] / xs[0] > 20;
  const ys = curves.map((curve) => {
    const y = new Array(xs.length);
    let j = 0;
    let level = 0;
    for (let i = 0; i < xs.length; i += 1) {
      while (j < curve.length && curve[j][0] <= xs[i]) {
        level = curve[j][1];
        j += 1;
      }
      y[i] = level;
    }
    return y;
  });
  return mount(
    container,
    (width, height) => ({
      width,
      height,
      scales: { x: { time: false, distr: logX ? 3 : 1, log: 10 }, y: { range: [0, 1] } },
      axes: [
        axis(logX ? 'time to first token, s (log scale)' : 'time to first token, s', {
          values: (u, splits) => splits.map((v) => (v == null ? '' : sig(v, 2))),
        }),
        yAxis('share of requests', { values: (u, splits) => splits.map((v) => `${Math.round(v * 100)}%`) }),
      ],
      series: [
        { label: 'TTFT', value: (u, v) => (v == null ? '–' : duration(v * 1000)) },
        ...order.map((name) => {
          const style = policyStyle(name);
          return {
            label: policyLabel(name),
            stroke: style.color,
            dash: style.dash,
            width: 2,
            points: { show: false },
            paths: uPlot.paths.stepped({ align: 1 }),
            value: (u, v) => (v == null ? '–' : `${Math.round(v * 100)}%`),
          };
        }),
      ],
      legend: { show: true, live: true },
      cursor: { drag: { x: true, y: false } },
    }),
    [xs, ...ys]
  );
}

// ---- slot timeline (Gantt) --------------------------------------------------------------------

export function timelineUnit(maxMs) {
  return maxMs >= 2000 ? { scale: 1000, name: 's' } : { scale: 1, name: 'ms' };
}

// Draws `timeline` ([{request, slot, phase, start_ms, end_ms}]) as bars, one lane per slot.
export function gantt(container, timeline, { slots, xMaxMs, onHover }) {
  const unit = timelineUnit(xMaxMs);
  const lanes = Math.max(1, slots, ...timeline.map((t) => t.slot + 1));
  const bars = timeline.map((t) => ({ ...t, x0: t.start_ms / unit.scale, x1: t.end_ms / unit.scale }));
  const xMax = xMaxMs / unit.scale;
  const laneStep = Math.max(1, Math.ceil(lanes / 16));

  function draw(u) {
    const { ctx } = u;
    const { left, top, width, height } = u.bbox;
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, top, width, height);
    ctx.clip();
    const laneHeight = Math.abs(u.valToPos(0, 'y', true) - u.valToPos(1, 'y', true));
    const barHeight = Math.max(2, laneHeight * 0.72);
    // Decode first, then prefill on top: a prefill is short next to an answer's decode steps, so it
    // gets at least 3 px to stay visible.
    const minPrefill = 3 * (u.pxRatio || 1);
    for (const phase of ['decode', 'prefill']) {
      ctx.fillStyle = PHASE_COLORS[phase];
      for (const bar of bars) {
        if (bar.phase !== phase) continue;
        const x0 = u.valToPos(bar.x0, 'x', true);
        const x1 = u.valToPos(bar.x1, 'x', true);
        const y = u.valToPos(bar.slot, 'y', true) - barHeight / 2;
        const w = phase === 'prefill' ? Math.max(minPrefill, x1 - x0) : Math.max(1, x1 - x0 - 1);
        ctx.fillRect(x0, y, w, barHeight);
      }
    }
    ctx.restore();
  }

  const plot = mount(
    container,
    (width, height) => ({
      width,
      height: Math.max(height, Math.min(420, 60 + lanes * 14)),
      scales: {
        x: { time: false, range: [0, xMax] },
        y: { range: [-0.5, lanes - 0.5], dir: -1 },
      },
      axes: [
        axis(`time, ${unit.name}`, { values: (u, splits) => splits.map((v) => sig(v, 3)) }),
        yAxis('slot', {
          splits: () => Array.from({ length: lanes }, (_, i) => i).filter((i) => i % laneStep === 0),
          values: (u, splits) => splits.map((v) => String(v + 1)),
          grid: { show: false },
        }),
      ],
      series: [{ label: 'time' }, { label: 'bars', stroke: 'transparent', points: { show: false } }],
      legend: { show: false },
      cursor: { drag: { x: true, y: false }, points: { show: false }, y: false },
      hooks: {
        draw: [draw],
        setCursor: [
          (u) => {
            if (!onHover) return;
            const { left, top } = u.cursor;
            if (left == null || left < 0) {
              onHover(null);
              return;
            }
            const x = u.posToVal(left, 'x');
            const lane = Math.round(u.posToVal(top, 'y'));
            const bar = bars.find((b) => b.slot === lane && b.x0 <= x && x <= b.x1);
            onHover(bar ? { ...bar, unit } : null);
          },
        ],
      },
    }),
    [
      [0, xMax],
      [null, null],
    ]
  );
  return plot;
}

// ---- step time vs rows / vs context ----------------------------------------------------------

// xs: the grid's x values; lines: [{label, values}] (ms, same length as xs).
export function stepChart(container, { xs, xLabel, lines }) {
  const log2 = xs.length > 1 && xs[0] > 0 && xs[xs.length - 1] / xs[0] >= 4;
  return mount(
    container,
    (width, height) => ({
      width,
      height,
      scales: { x: { time: false, distr: log2 ? 3 : 1, log: 2 }, y: { range: (u, lo, hi) => [0, hi * 1.08 || 1] } },
      axes: [
        axis(xLabel, { splits: () => xs, values: (u, splits) => splits.map((v) => String(v)) }),
        yAxis('ms per step', { values: (u, splits) => splits.map((v) => sig(v, 2)) }),
      ],
      series: [
        { label: xLabel, value: (u, v) => (v == null ? '–' : String(v)) },
        ...lines.map((line, i) => ({
          label: line.label,
          stroke: PALETTE[i % PALETTE.length],
          dash: DASHES[i % DASHES.length],
          width: 2,
          points: { show: true, size: 6, fill: PALETTE[i % PALETTE.length] },
          value: (u, v) => (v == null ? '–' : duration(v)),
        })),
      ],
      legend: { show: true, live: true },
    }),
    [xs, ...lines.map((l) => l.values)]
  );
}

export function legendSwatches(entries) {
  return h(
    'ul',
    { class: 'swatches' },
    entries.map(({ label, color }) => {
      const swatch = h('span', { class: 'swatch', 'aria-hidden': 'true' });
      swatch.style.background = color; // CSSOM, allowed by the CSP (a style="" attribute is not)
      return h('li', null, swatch, label);
    })
  );
}

// ---- the Memory section -----------------------------------------------------------------------

// KV blocks held over time, one line per policy (each has its own sample times, joined), and the
// budget as a flat dashed line. series: [{label, color, dash, t_ms, blocks}].
export function blocksChart(container, { series, budget }) {
  const maxMs = Math.max(1e-9, ...series.flatMap((s) => (s.t_ms.length ? [s.t_ms[s.t_ms.length - 1]] : [])));
  const unit = timelineUnit(maxMs);
  const tables = series.map((s) => [s.t_ms.map((t) => t / unit.scale), s.blocks]);
  const joined = tables.length > 1 ? uPlot.join(tables) : tables[0];
  const xs = joined[0];
  const data = [...joined];
  const lines = series.map((s) => ({
    label: s.label,
    stroke: s.color,
    dash: s.dash,
    width: 2,
    spanGaps: true,
    points: { show: false },
    paths: uPlot.paths.stepped({ align: -1 }),
    value: (u, v) => (v == null ? '–' : String(v)),
  }));
  if (Number.isFinite(budget)) {
    data.push(xs.map(() => budget));
    lines.push({
      label: 'KV budget',
      stroke: '#1f2328',
      dash: [10, 5],
      width: 1.5,
      points: { show: false },
      value: () => `${budget.toLocaleString('en-US')} blocks`,
    });
  }
  return mount(
    container,
    (width, height) => ({
      width,
      height,
      scales: { x: { time: false }, y: { range: (u, lo, hi) => [0, Math.max(hi, budget || 0) * 1.08 || 1] } },
      axes: [
        axis(`time, ${unit.name}`, { values: (u, splits) => splits.map((v) => sig(v, 3)) }),
        yAxis('KV blocks held', { values: (u, splits) => splits.map((v) => sig(v, 3)) }),
      ],
      series: [{ label: `t (${unit.name})`, value: (u, v) => (v == null ? '–' : duration(v * unit.scale)) }, ...lines],
      legend: { show: true, live: true },
      cursor: { drag: { x: true, y: false } },
    }),
    data
  );
}

// p95 TTFT against the arrival rate, one line per policy (log y), the target as a dashed line and a
// ring where each line crosses it. lines: [{label, color, dash, values, crossing}] (crossing: a rate or null).
export function loadCurveChart(container, { rates, lines, targetMs }) {
  const seconds = Math.max(targetMs, ...lines.flatMap((l) => l.values.filter(Number.isFinite))) >= 2000;
  const scale = seconds ? 1000 : 1;
  const unitName = seconds ? 's' : 'ms';
  const target = targetMs / scale;
  function drawCrossings(u) {
    const { ctx } = u;
    ctx.save();
    ctx.lineWidth = 2 * (u.pxRatio || 1);
    for (const line of lines) {
      if (!Number.isFinite(line.crossing)) continue;
      const x = u.valToPos(line.crossing, 'x', true);
      const y = u.valToPos(target, 'y', true);
      ctx.strokeStyle = line.color;
      ctx.beginPath();
      ctx.arc(x, y, 6 * (u.pxRatio || 1), 0, 2 * Math.PI);
      ctx.stroke();
    }
    ctx.restore();
  }
  return mount(
    container,
    (width, height) => ({
      width,
      height,
      scales: { x: { time: false }, y: { distr: 3, log: 10 } },
      axes: [
        axis('arrival rate, requests/s', { values: (u, splits) => splits.map((v) => sig(v, 3)) }),
        yAxis([`p95 TTFT, ${unitName} (log scale)`, `p95 TTFT, ${unitName}`], {
          values: (u, splits) => splits.map((v) => (v == null ? '' : sig(v, 2))),
        }),
      ],
      series: [
        { label: 'rate', value: (u, v) => (v == null ? '–' : rate(v, 'requests/s')) },
        ...lines.map((line) => ({
          label: line.label,
          stroke: line.color,
          dash: line.dash,
          width: 2,
          points: { show: true, size: 5, fill: line.color },
          value: (u, v) => (v == null ? '–' : duration(v * scale)),
        })),
        {
          label: `target ${duration(targetMs)}`,
          stroke: '#1f2328',
          dash: [10, 5],
          width: 1.5,
          points: { show: false },
          value: () => duration(targetMs),
        },
      ],
      legend: { show: true, live: true },
      hooks: { draw: [drawCrossings] },
    }),
    [
      rates,
      ...lines.map((l) => l.values.map((v) => (Number.isFinite(v) && v > 0 ? v / scale : null))),
      rates.map(() => target),
    ]
  );
}

// One bar per category, its value written above it. bars: [{label, value, color}]; yLabel: the y axis's
// title or its wordings (yAxis); yMax: the scale's top.
export function barChart(container, { bars, yLabel, format, yMax }) {
  const n = bars.length;
  const top = yMax ?? Math.max(1e-9, ...bars.map((b) => b.value).filter(Number.isFinite)) * 1.15;
  function draw(u) {
    const { ctx } = u;
    const ratio = u.pxRatio || 1;
    ctx.save();
    const slot = Math.abs(u.valToPos(1, 'x', true) - u.valToPos(0, 'x', true));
    const barWidth = Math.min(90 * ratio, slot * 0.6);
    ctx.font = `${Math.round(12 * ratio)}px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'bottom';
    bars.forEach((bar, i) => {
      if (!Number.isFinite(bar.value)) return;
      const x = u.valToPos(i, 'x', true);
      const y0 = u.valToPos(0, 'y', true);
      const y1 = u.valToPos(bar.value, 'y', true);
      ctx.fillStyle = bar.color;
      ctx.fillRect(x - barWidth / 2, y1, barWidth, Math.max(1, y0 - y1));
      ctx.fillStyle = '#1f2328';
      ctx.fillText(format(bar.value), x, y1 - 3 * ratio);
    });
    ctx.restore();
  }
  return mount(
    container,
    (width, height) => ({
      width,
      height: Math.min(height, 260),
      scales: { x: { time: false, range: [-0.5, n - 0.5] }, y: { range: [0, top] } },
      axes: [
        axis('', {
          splits: () => bars.map((_, i) => i),
          values: (u, splits) => splits.map((i) => (bars[i] ? bars[i].label : '')),
          grid: { show: false },
          labelSize: 0,
        }),
        yAxis(yLabel, { values: (u, splits) => splits.map((v) => format(v)) }),
      ],
      series: [{ label: 'policy' }, { label: [yLabel].flat()[0], stroke: 'transparent', points: { show: false } }],
      legend: { show: false },
      cursor: { show: false },
      hooks: { draw: [draw] },
    }),
    [bars.map((_, i) => i), bars.map(() => null)]
  );
}
