// Chapter 4's drawing: one canvas per policy, redrawn from stateAt() (playback/seats.js) at each
// frame. Top: the crowd, a dot per person; middle: the seats, each a bar of that request's KV (its
// prompt, then its answer token by token); bottom: the TTFT histogram of everyone served so far.

import { ttftsUpTo } from '../../playback/seats.js';
import { duration } from '../../shared/format.js';
import { beginFrame, drawTimeAxis } from '../canvas.js';

export const COLORS = {
  notArrived: '#eaecf0',
  waiting: '#475467',
  done: '#b7dfd2',
  prefill: '#fdb022',
  prompt: '#98a2b3',
  idle: '#d0d5dd',
  idleStripe: '#667085',
  seatOutline: '#d0d5dd',
  axis: '#344054',
};

const PAD = 6;
const LABEL_W = 22;
const HIST_H = 54;
const BINS = 30;

// Where things go in a panel `width` CSS pixels wide.
export function layoutPanel(width, q) {
  const cols = Math.min(50, Math.max(1, q.count));
  const pitch = Math.max(3, Math.min(8, Math.floor((width - 2 * PAD) / cols)));
  const rows = Math.ceil(q.count / cols);
  const seatH = q.slots > 1 ? 10 : 16;
  const crowdH = rows * pitch;
  const seatsTop = PAD + crowdH + 10;
  const seatsH = q.slots * (seatH + 2);
  const histTop = seatsTop + seatsH + 14;
  return {
    width,
    cols,
    pitch,
    rows,
    seatH,
    seatsTop,
    histTop,
    height: histTop + HIST_H + 16,
    cell: (width - 2 * PAD - LABEL_W) / (q.maxPrompt + q.maxAnswer),
  };
}

// The histograms' time axis, one for every panel so that they read on one clock: the longest TTFT of
// all the queues.
export function sharedTtftSpanMs(queues) {
  return roundTickUp(Math.max(1, ...queues.map((q) => q.maxTtftMs)));
}

// The axis's end, a tick: the longest TTFT rounded up to 1, 2, 2.5 or 5 × 10^k, so that it never reads
// like a measured figure beside the figures the words quote (a makespan of "3,386.1 s" above an axis
// ending at "3,385.0 s").
function roundTickUp(ms) {
  const power = 10 ** Math.floor(Math.log10(ms));
  return [1, 2, 2.5, 5, 10].find((step) => step * power >= ms) * power;
}

const binOf = (ttftMs, spanMs) => Math.min(BINS - 1, Math.floor((ttftMs / spanMs) * BINS));

// A histogram's count scale: its final distribution's tallest bin over `spanMs`, so that the bars grow
// towards it (the axis says the count).
export function finalHistogramPeak(q, spanMs) {
  const counts = new Int32Array(BINS);
  for (let r = 0; r < q.count; r += 1)
    counts[binOf(q.requests.first_token_ms[r] - q.requests.arrival_ms[r], spanMs)] += 1;
  return Math.max(1, ...counts);
}

// The crowd changes a few dots a frame: it is kept on a canvas of its own (made for each layout),
// where only the dots whose state changed are redrawn, and copied onto the panel.
function drawCrowd(g, layout, state, dpr) {
  const { cols, pitch } = layout;
  const width = layout.width;
  const height = PAD + layout.rows * pitch;
  if (!layout.crowd) {
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    const cg = canvas.getContext('2d');
    cg.setTransform(dpr, 0, 0, dpr, 0, 0);
    layout.crowd = { canvas, g: cg, drawn: new Uint8Array(state.people.length).fill(255) };
  }
  const { g: cg, drawn } = layout.crowd;
  const size = pitch >= 6 ? pitch - 2 : pitch - 1;
  const colors = [COLORS.notArrived, COLORS.waiting, layout.color, COLORS.done];
  for (let r = 0; r < state.people.length; r += 1) {
    const kind = state.people[r];
    if (drawn[r] === kind) continue;
    drawn[r] = kind;
    cg.fillStyle = colors[kind];
    cg.fillRect(PAD + (r % cols) * pitch, PAD + Math.floor(r / cols) * pitch, size, size);
  }
  g.drawImage(layout.crowd.canvas, 0, 0, width, height);
}

function drawSeats(g, layout, state) {
  const { seatH, seatsTop, cell, width } = layout;
  const x0 = PAD + LABEL_W;
  const full = width - PAD - x0;
  g.font = '9px system-ui, sans-serif';
  g.textBaseline = 'middle';
  state.seats.forEach((seat, slot) => {
    const y = seatsTop + slot * (seatH + 2);
    g.fillStyle = COLORS.axis;
    g.fillText(String(slot + 1), PAD, y + seatH / 2);
    g.strokeStyle = COLORS.seatOutline;
    g.strokeRect(x0 + 0.5, y + 0.5, full - 1, seatH - 1);
    if (!seat) return;
    if (seat.phase === 'idle') {
      // Held, finished: padding until the batch's longest answer is done.
      const w = (seat.prompt + seat.answer) * cell;
      g.fillStyle = COLORS.idle;
      g.fillRect(x0, y, w, seatH);
      g.save();
      g.beginPath();
      g.rect(x0, y, w, seatH);
      g.clip();
      g.strokeStyle = COLORS.idleStripe;
      g.beginPath();
      for (let x = x0 - seatH; x < x0 + w; x += 6) {
        g.moveTo(x, y + seatH);
        g.lineTo(x + seatH, y);
      }
      g.stroke();
      g.restore();
      return;
    }
    if (seat.phase === 'prefill' || layout.cachesKv) {
      g.fillStyle = seat.phase === 'prefill' ? COLORS.prefill : COLORS.prompt;
      g.fillRect(x0, y, seat.prompt_done * cell, seatH);
    } else if (seat.prompt_done * cell > 3) {
      // Without a cache nothing of the prompt is kept: every step computes it again.
      g.strokeStyle = COLORS.prefill;
      g.strokeRect(x0 + 1.5, y + 1.5, seat.prompt_done * cell - 3, seatH - 3);
    }
    if (seat.tokens > 0) {
      g.fillStyle = layout.color;
      g.fillRect(x0 + seat.prompt * cell, y, seat.tokens * cell, seatH);
    }
  });
}

// The count axis: the peak's count at the top, 0 at the bottom, in the label column left of the bars.
function drawCountAxis(g, { x0, top, bottom, peak }) {
  g.fillStyle = COLORS.axis;
  g.font = '10px system-ui, sans-serif';
  g.textAlign = 'right';
  g.textBaseline = 'top';
  g.fillText(String(peak), x0 - 3, top);
  g.textBaseline = 'bottom';
  g.fillText('0', x0 - 3, bottom);
  g.textAlign = 'left';
  g.canvas.dataset.countMax = String(peak); // what the axis says, for the page's tests
}

function drawHistogram(g, layout, q, t, { scratch, peak, spanMs }) {
  const { histTop, width } = layout;
  const n = ttftsUpTo(q, t, scratch);
  const counts = new Int32Array(BINS);
  for (let i = 0; i < n; i += 1) counts[binOf(scratch[i], spanMs)] += 1;
  const x0 = PAD + LABEL_W;
  const w = (width - PAD - x0) / BINS;
  g.fillStyle = layout.color;
  for (let b = 0; b < BINS; b += 1) {
    const hgt = (counts[b] / peak) * HIST_H;
    if (hgt > 0) g.fillRect(x0 + b * w + 0.5, histTop + HIST_H - hgt, Math.max(1, w - 1), hgt);
  }
  drawCountAxis(g, { x0, top: histTop, bottom: histTop + HIST_H, peak });
  drawTimeAxis(g, {
    x0,
    x1: width - PAD,
    y: histTop + HIST_H,
    left: '0',
    right: duration(spanMs),
    middle: ['time to first token', 'TTFT'],
  });
  g.canvas.dataset.spanMs = String(spanMs);
  return n;
}

// Draws one panel. canvas is sized by the caller (layout.width x layout.height CSS px at dpr); the
// histogram counts into `scratch`, up to `peak` over `spanMs`.
export function drawPanel(canvas, layout, q, state, { scratch, peak, spanMs, dpr }) {
  const g = beginFrame(canvas, layout, dpr);
  drawCrowd(g, layout, state, dpr);
  drawSeats(g, layout, state);
  return drawHistogram(g, layout, q, state.t, { scratch, peak, spanMs });
}
