// The page with a noisy step (shared/noisy.js): the lab worker's messages get a noisy cell injected
// (steps.model.timing.noisy_cells: the step of the most rows at the reference context, spread 0.82, as the
// module reports a cell still wide after re-timing), and the page shows it as noisy, with its spread,
// and draws no finding from it. The page's own code is unchanged; no timing is asserted.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SMALL_LAB, pageSession, waitForResult, workerMessagesRewritten } from './helpers.mjs';

// Marks the decode step of the most rows at the context nearest 64 noisy in every step table the lab
// worker sends (the steps part and the whole result).
function noisyCell(data, _, steps) {
  if (steps) {
    const { rows, contexts } = steps.decode;
    const context = contexts.reduce((best, c) => (Math.abs(c - 64) < Math.abs(best - 64) ? c : best));
    const cell = { grid: 'decode', rows: rows[rows.length - 1], context, spread: 0.82 };
    steps.model.timing = { ...steps.model.timing, noisy_spread: 0.25, retimed_cells: 1, noisy_cells: [cell] };
    if (data.result) data.result.noisy = true;
  }
  return data;
}

const session = pageSession();

describe('a noisy step on the page', { timeout: 200000 }, () => {
  test('chapter 3 and the bench mark it with its spread and state no rows gain', async () => {
    const { page } = await session.openPage('about:blank', { init: workerMessagesRewritten(noisyCell) });
    await page.goto(`${session.server.url}index.html#${SMALL_LAB}&autorun`);
    const result = await waitForResult(page);
    const { rows } = result.steps.decode;
    const most = rows[rows.length - 1];
    assert.equal(result.noisy, true);

    const words = await page.textContent('#chapter-rows .chapter-words');
    assert.match(
      words,
      new RegExp(`${most} rows: [\\d.,]+ (ms|µs) a step \\(noisy: ±41%, timed again, the device was busy\\)`)
    );
    assert.match(words, /no conclusion is drawn from them/);
    assert.doesNotMatch(words, /as many/);
    assert.doesNotMatch(words, /Why the extra rows ride along/);

    // The bar is marked, and its text is the words' text for the same step.
    const bar = `#chapter-rows .step-time .bar[data-rows="${most}"]`;
    assert.equal(await page.getAttribute(bar, 'data-noisy'), 'true');
    const barText = await page.textContent(`${bar} .value`);
    assert.match(barText, / ±41%$/);
    assert.ok(words.includes(`${barText.replace(/ ±41%$/, '')} a step (noisy`), `${barText} in ${words}`);
    assert.equal(await page.getAttribute(`#chapter-rows .step-time .bar[data-rows="1"]`, 'data-noisy'), 'false');
    assert.equal(await page.$$eval('#chapter-rows [data-key="tokens_per_s_ratio"]', (els) => els.length), 0);
    assert.match(await page.textContent('#chapter-rows .noisy-mark'), /noisy/);

    // The bench's decode table marks the cell; its sentence reads no batching gain off it.
    const noisyCells = await page.$$eval('#decode-table td.noisy', (tds) => tds.map((td) => td.textContent));
    assert.equal(noisyCells.length, 1);
    assert.match(noisyCells[0], /±41%$/);
    assert.match(await page.textContent('#decode-speedup'), /noisy, so no batching gain is read off them/);

    // The queue chapter names the noisy cell.
    await page.waitForSelector('#chapter-queue .chapter[data-ready="true"]');
    assert.match(
      await page.textContent('#chapter-queue .chapter-words'),
      new RegExp(`Noisy figures: the ${most} rows at context \\d+ decode step \\(±41%`)
    );
  });

  test('no console errors, no request off the origin', () => {
    session.checkPages(1);
  });
});
