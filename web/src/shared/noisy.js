// Figures timed while the device was busy. The module keeps each timed figure's spread (its samples'
// (max - min) / median, after any re-timing) and names the figures whose spread stayed wider than the
// catalog's limit (docs/contract.md, "Noise"): steps.model.timing.noisy_cells, answer.noisy with
// answer.nocache_ms.spread and answer.cache_ms.spread, and the lab's top-level `noisy`. The page shows
// such a figure with a mark and its spread, and never draws a finding from it.

import { CATALOG } from '../generated/catalog.js';
import { count, int, spread } from './format.js';

// The widest spread a figure may have and still be read: the module's, through the catalog.
export const noisySpreadLimit = () => CATALOG.limits.timing.noisy_spread;

// steps.model.timing.noisy_cells, or none for a table made before spreads were kept.
export function noisyCells(steps) {
  const timing = steps && steps.model && steps.model.timing;
  return timing && Array.isArray(timing.noisy_cells) ? timing.noisy_cells : [];
}

// The noisy decode cell at (rows, context) of the table, or null.
export function noisyDecodeCell(steps, rows, context) {
  return noisyCells(steps).find((c) => c.grid === 'decode' && c.rows === rows && c.context === context) || null;
}

// Part A's paths whose time is noisy: [{path: 'nocache' | 'cache', spread}].
export function noisyAnswerPaths(answer, limit = answer && answer.noisy ? noisySpreadLimit() : Infinity) {
  if (!answer || !answer.noisy) return [];
  return ['nocache', 'cache']
    .map((path) => ({ path, spread: answer[`${path}_ms`] && answer[`${path}_ms`].spread }))
    .filter((p) => Number.isFinite(p.spread) && p.spread > limit);
}

// The spread of two timings of one figure, by the module's definition: (max - min) / median.
export function twoTimingsSpread(first, second) {
  return Math.abs(first - second) / ((first + second) / 2);
}

// What the page says beside a noisy figure: "±41%, timed again, the device was busy". timedAgain: the
// figure was timed a second time (a table's noisy cells are; Part A's paths are not).
export function noisyText(fraction, timedAgain = true) {
  return `${spread(fraction)}${timedAgain ? ', timed again' : ''}, the device was busy`;
}

// A decode cell in words: "16 rows at context 64".
export const decodeCellText = (cell) => `${count(cell.rows, 'row')} at context ${int(cell.context)}`;

// One sentence on the noisy cells of a table, or null when none: which cells, and their spreads.
export function noisyCellsText(steps) {
  const cells = noisyCells(steps);
  if (!cells.length) return null;
  const where = (c) =>
    c.grid === 'prefill'
      ? `a ${int(c.tokens)}-token prefill`
      : c.grid === 'mixed'
        ? `a ${int(c.chunk_tokens)}-token chunk with ${decodeCellText(c)}`
        : `the ${decodeCellText(c)} decode step`;
  return `Noisy figures: ${cells.map((c) => `${where(c)} (${noisyText(c.spread)})`).join('; ')}. Timed again, they still spread too wide to be read, so no conclusion is drawn from them: run again when the device is idle.`;
}
