// Chapter 5's drawing: per policy, the KV memory as a grid of blocks (filled with KV, held but
// empty, free) at time t, and under it the blocks held over time up to t, with the budget and a red
// tick at every preemption. A preemption at t (or just before it) flashes the grid's border red.

import { duration } from '../../shared/format.js';
import { beginFrame, drawTimeAxis } from '../canvas.js';

const PAD = 6;
const HISTORY_H = 64;
const GRID_MAX_H = 170;
export const MEMORY_COLORS = { held: '#d6e4f5', free: '#f2f4f7', budget: '#344054', preempt: '#b42318' };

// blocksPerCell > 1 when the budget has more blocks than fit as squares.
export function layoutMemory(width, m) {
  const inner = width - 2 * PAD;
  let blocksPerCell = 1;
  let pitch = Math.floor(Math.sqrt((inner * GRID_MAX_H) / m.blocks));
  if (pitch < 4) {
    pitch = 4;
    blocksPerCell = Math.ceil(m.blocks / (Math.floor(inner / pitch) * Math.floor(GRID_MAX_H / pitch)));
  }
  pitch = Math.min(pitch, 18);
  const cells = Math.ceil(m.blocks / blocksPerCell);
  const cols = Math.max(1, Math.min(cells, Math.floor(inner / pitch)));
  const rows = Math.ceil(cells / cols);
  const historyTop = PAD + rows * pitch + 12;
  return { width, pitch, cols, rows, cells, blocksPerCell, historyTop, height: historyTop + HISTORY_H + 18 };
}

function drawGrid(g, layout, state, color, flash) {
  const { pitch, cols, cells, blocksPerCell } = layout;
  const size = pitch >= 6 ? pitch - 2 : pitch - 1;
  const used = state.used_blocks / blocksPerCell;
  const held = state.held / blocksPerCell;
  for (let c = 0; c < cells; c += 1) {
    g.fillStyle = c < used ? color : c < held ? MEMORY_COLORS.held : MEMORY_COLORS.free;
    g.fillRect(PAD + (c % cols) * pitch, PAD + Math.floor(c / cols) * pitch, size, size);
  }
  if (flash) {
    g.strokeStyle = MEMORY_COLORS.preempt;
    g.lineWidth = 3;
    g.strokeRect(PAD - 3, PAD - 3, cols * pitch + 4, layout.rows * pitch + 4);
    g.lineWidth = 1;
  }
}

// The whole history (blocks held, filled, the budget, the preemptions) is drawn once on a canvas of its
// own (made for each layout); a frame copies its part from 0 to t.
function historyLayer(layout, m, endMs, color, dpr) {
  const w = layout.width - 2 * PAD;
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(HISTORY_H * dpr);
  const g = canvas.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  const x = (ms) => (ms / endMs) * w;
  const y = (blocks) => HISTORY_H - (blocks / m.blocks) * HISTORY_H;
  const n = m.t_ms.length;
  const until = (i) => (i + 1 < n ? m.t_ms[i + 1] : endMs);
  g.fillStyle = color;
  g.globalAlpha = 0.35;
  for (let i = 0; i < n; i += 1) {
    const usedBlocks = m.used_tokens[i] / m.block_tokens;
    g.fillRect(
      x(m.t_ms[i]),
      y(usedBlocks),
      Math.max(0.5, x(until(i)) - x(m.t_ms[i])),
      (usedBlocks / m.blocks) * HISTORY_H
    );
  }
  g.globalAlpha = 1;
  g.strokeStyle = color;
  g.beginPath();
  for (let i = 0; i < n; i += 1) {
    if (i === 0) g.moveTo(x(m.t_ms[i]), y(m.held_blocks[i]));
    else g.lineTo(x(m.t_ms[i]), y(m.held_blocks[i]));
    g.lineTo(x(until(i)), y(m.held_blocks[i]));
  }
  g.stroke();
  g.strokeStyle = MEMORY_COLORS.preempt;
  g.beginPath();
  for (let i = 0; i < m.preempt_t_ms.length; i += 1) {
    g.moveTo(x(m.preempt_t_ms[i]) + 0.5, 0);
    g.lineTo(x(m.preempt_t_ms[i]) + 0.5, HISTORY_H);
  }
  g.stroke();
  return canvas;
}

function drawHistory(g, layout, m, t, endMs, color, dpr) {
  const top = layout.historyTop;
  const x0 = PAD;
  const w = layout.width - 2 * PAD;
  if (!layout.history) layout.history = historyLayer(layout, m, endMs, color, dpr);
  const shown = Math.min(w, (t / endMs) * w);
  if (shown > 0) g.drawImage(layout.history, 0, 0, shown * dpr, HISTORY_H * dpr, x0, top, shown, HISTORY_H);
  if (m.budget_blocks) {
    const yBudget = top + HISTORY_H - (m.budget_blocks / m.blocks) * HISTORY_H;
    g.strokeStyle = MEMORY_COLORS.budget;
    g.setLineDash([4, 3]);
    g.beginPath();
    g.moveTo(x0, yBudget + 0.5);
    g.lineTo(x0 + w, yBudget + 0.5);
    g.stroke();
    g.setLineDash([]);
  }
  drawTimeAxis(g, {
    x0,
    x1: x0 + w,
    y: top + HISTORY_H,
    left: '0 s',
    right: duration(endMs),
    middle: [
      'blocks held over time (line), filled with KV (area), budget (dashed)',
      'blocks held (line), filled (area), budget (dashed)',
      'blocks held over time',
    ],
  });
}

export function drawMemoryPanel(canvas, layout, m, state, { t, endMs, color, flash, dpr }) {
  const g = beginFrame(canvas, layout, dpr);
  drawGrid(g, layout, state, color, flash);
  drawHistory(g, layout, m, t, endMs, color, dpr);
}
