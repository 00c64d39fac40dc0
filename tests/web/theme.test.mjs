// Browser tests of the dark theme: a reader whose system prefers dark gets a dark page (color-scheme:
// light dark), its text and controls still pass axe's contrast rules, and the plots keep their light ink
// on a light surface of their own, so that every chart stays readable. Screenshots at 1280 and 390 px
// land in build/screenshots/ (theme-dark-*.png) for a person to look at.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SMALL_LAB, axeViolations, pageSession, shot, waitForResult } from './helpers.mjs';

const session = pageSession({ launchOptions: { colorScheme: 'dark' } });

// The relative luminance of a computed colour "rgb(r, g, b)" (WCAG's formula).
function luminance(rgb) {
  const [r, g, b] = rgb
    .match(/\d+(\.\d+)?/g)
    .slice(0, 3)
    .map((c) => {
      const v = Number(c) / 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

describe('the dark theme', { timeout: 240000 }, () => {
  test('follows the system: a dark page with light text, readable plots, no contrast violations', async () => {
    const { page } = await session.openPage(`${session.server.url}index.html#${SMALL_LAB}&autorun`);
    await waitForResult(page);
    await page.waitForSelector('#chapter-memory .played-panel canvas', { timeout: 120000 });
    assert.equal(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), true);
    const colors = await page.evaluate(() => {
      const style = (el) => getComputedStyle(el);
      const surface = (selector) => style(document.querySelector(selector)).backgroundColor;
      return {
        scheme: style(document.documentElement).colorScheme,
        page: style(document.body).backgroundColor,
        text: style(document.body).color,
        plot: surface('.uplot'),
        canvas: surface('#chapter-queue .played-panel canvas'),
        plotText: style(document.querySelector('.uplot .u-legend') || document.querySelector('.uplot')).color,
      };
    });
    assert.equal(colors.scheme, 'light dark');
    assert.ok(luminance(colors.page) < 0.02, `page ${colors.page}`);
    assert.ok(luminance(colors.text) > 0.7, `text ${colors.text}`);
    for (const key of ['plot', 'canvas']) assert.ok(luminance(colors[key]) > 0.85, `${key} surface ${colors[key]}`);
    assert.ok(luminance(colors.plotText) < 0.05, `a plot's own text ${colors.plotText}`);
    assert.deepEqual(await axeViolations(page, '#walkthrough'), [], 'axe on the walkthrough, dark');
    assert.deepEqual(await axeViolations(page, '#bench'), [], 'axe on the lab bench, dark');
    await shot(page, 'theme-dark-1280.png');
    await page.setViewportSize({ width: 390, height: 900 });
    await shot(page, 'theme-dark-390.png');
  });

  test('no page logged an error', () => session.checkPages(1));
});
