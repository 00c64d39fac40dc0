// Chapter 5's drawing: per policy, the KV memory as a grid of blocks (filled with KV, held but
// empty, free) at time t, and under it the blocks held over time up to t, with the budget and a red
// tick at every preemption. A preemption at t (or just before it) flashes the grid's border red.

import { lastAtOrBefore } from '../../playback/memory.js';
import { beginFrame, drawTimeAxis, seconds } from '../canvas.js';

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

function drawHistory(g, layout, m, t, endMs, color) {
  const top = layout.historyTop;
  const x0 = PAD;
  const w = layout.width - 2 * PAD;
  const x = (ms) => x0 + (ms / endMs) * w;
  const y = (blocks) => top + HISTORY_H - (blocks / m.blocks) * HISTORY_H;
  const last = lastAtOrBefore(m.t_ms, t);
  g.fillStyle = color;
  g.globalAlpha = 0.35;
  for (let i = 0; i <= last; i += 1) {
    const until = i < last ? m.t_ms[i + 1] : t;
    const usedBlocks = m.used_tokens[i] / m.block_tokens;
    g.fillRect(x(m.t_ms[i]), y(usedBlocks), Math.max(0.5, x(until) - x(m.t_ms[i])), (usedBlocks / m.blocks) * HISTORY_H);
  }
  g.globalAlpha = 1;
  g.strokeStyle = color;
  g.beginPath();
  for (let i = 0; i <= last; i += 1) {
    const until = i < last ? m.t_ms[i + 1] : t;
    if (i === 0) g.moveTo(x(m.t_ms[i]), y(m.held_blocks[i]));
    else g.lineTo(x(m.t_ms[i]), y(m.held_blocks[i]));
    g.lineTo(x(until), y(m.held_blocks[i]));
  }
  g.stroke();
  if (m.budget_blocks) {
    g.strokeStyle = MEMORY_COLORS.budget;
    g.setLineDash([4, 3]);
    g.beginPath();
    g.moveTo(x0, y(m.budget_blocks) + 0.5);
    g.lineTo(x0 + w, y(m.budget_blocks) + 0.5);
    g.stroke();
    g.setLineDash([]);
  }
  g.strokeStyle = MEMORY_COLORS.preempt;
  g.beginPath();
  for (let i = 0; i < m.preempt_t_ms.length && m.preempt_t_ms[i] <= t; i += 1) {
    g.moveTo(x(m.preempt_t_ms[i]) + 0.5, top);
    g.lineTo(x(m.preempt_t_ms[i]) + 0.5, top + HISTORY_H);
  }
  g.stroke();
  drawTimeAxis(g, { x0, x1: x0 + w, y: top + HISTORY_H, left: '0 s', right: seconds(endMs), middle: 'blocks held over time (line), filled with KV (area), budget (dashed)' });
}

export function drawMemoryPanel(canvas, layout, m, state, { t, endMs, color, flash, dpr }) {
  const g = beginFrame(canvas, layout, dpr);
  drawGrid(g, layout, state, color, flash);
  drawHistory(g, layout, m, t, endMs, color);
}
