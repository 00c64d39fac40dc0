// Browser tests of the words when a measurement contradicts the story (shared/contradictions.js): a step
// table and policy totals are injected into the lab worker's messages (the page's own code is unchanged),
// and the rows and queue chapters say the device was busy instead of telling the usual story.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SMALL_LAB, pageSession, waitForResult } from './helpers.mjs';

// Rewrites, in the lab worker's messages, the decode step at the context nearest 64 for each row count
// (stepMs, in the table's row order) and the queue's totals (makespans: policy -> ms).
function injectMeasurements({ stepMs, makespans }) {
  const change = (data) => {
    const steps =
      data && data.type === 'part' && data.name === 'steps'
        ? data.value
        : data && data.result && data.result.answer && data.result.steps;
    if (steps) {
      const { contexts, ms } = steps.decode;
      let j = 0;
      contexts.forEach((c, k) => {
        if (Math.abs(c - 64) < Math.abs(contexts[j] - 64)) j = k;
      });
      ms.forEach((row, i) => {
        row[j] = stepMs[i];
      });
    }
    if (data && data.type === 'result' && data.result && data.result.answer)
      for (const [name, value] of Object.entries(makespans)) data.result.policies[name].makespan_ms = value;
    return data;
  };
  const handler = Object.getOwnPropertyDescriptor(Worker.prototype, 'onmessage');
  Object.defineProperty(Worker.prototype, 'onmessage', {
    configurable: true,
    get() {
      return handler.get.call(this);
    },
    set(listener) {
      handler.set.call(this, listener && ((event) => listener({ data: change(event.data) })));
    },
  });
}

const session = pageSession();

async function openWith(measurements) {
  const { page } = await session.openPage('about:blank');
  await page.addInitScript(injectMeasurements, measurements);
  await page.goto(`${session.server.url}index.html#${SMALL_LAB}&autorun`);
  await waitForResult(page);
  await page.waitForSelector('#chapter-queue .chapter[data-ready="true"]');
  return {
    rows: await page.textContent('#chapter-rows .chapter-words'),
    queue: await page.$$eval('#chapter-queue .chapter-words p', (ps) => ps.map((p) => p.textContent)),
  };
}

describe('a measurement that contradicts the story', { timeout: 200000 }, () => {
  test('more rows faster and static batches slower than one at a time: the chapters say the device was busy', async () => {
    const { rows, queue } = await openWith({
      stepMs: [2, 4, 12.1, 10.2, 20],
      makespans: { 'static:16': 97600, 'serial-cache': 86700, 'serial-nocache': 200000 },
    });
    assert.match(rows, /This device was busy while measuring: 8 rows took 10\.2 ms a step against 12\.1 ms for 4/);
    assert.doesNotMatch(rows, /Why the extra rows ride along/);
    assert.match(
      queue[0],
      /^This device was busy while measuring: Static batches.* served the queue in 97\.6 s against 86\.7 s for /i
    );
  });

  test('measurements in the physics’ order: the usual story, no notice', async () => {
    const { rows, queue } = await openWith({
      stepMs: [2, 4, 8, 12, 20],
      makespans: { 'static:16': 50000, 'serial-cache': 86700, 'serial-nocache': 200000 },
    });
    assert.match(rows, /Why the extra rows ride along/);
    assert.doesNotMatch(rows, /busy/);
    assert.doesNotMatch(queue.join(' '), /busy/);
  });
});

describe('every page', () => {
  test('logged no console errors', () => {
    session.checkPages(2);
  });
});
