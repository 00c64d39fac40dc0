// Browser tests of the words when a measurement contradicts the story (shared/contradictions.js): a step
// table and policy totals are injected into the lab worker's messages (the page's own code is unchanged),
// and the rows and queue chapters say the device was busy instead of telling the usual story.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SMALL_LAB, chromiumOnly, pageSession, waitForResult, workerMessagesRewritten } from './helpers.mjs';

// Rewrites, in a lab worker's message, the decode step at the context nearest 64 for each row count
// (stepMs, in the table's row order) and the queue's totals (makespans: policy -> ms).
function injectMeasurements(data, { stepMs, makespans }, steps) {
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
}

const session = pageSession({ extraFiles: ['models/stories15M/model.bin', 'models/stories15M/tokenizer.bin'] });

async function openWith(measurements) {
  const { page } = await session.openPage('about:blank');
  await page.addInitScript(workerMessagesRewritten(injectMeasurements, measurements));
  await page.goto(`${session.server.url}index.html#${SMALL_LAB}&autorun`);
  await waitForResult(page);
  await page.waitForSelector('#chapter-queue .chapter[data-ready="true"]');
  return {
    rows: await page.textContent('#chapter-rows .chapter-words'),
    queue: await page.$$eval('#chapter-queue .chapter-words p', (ps) => ps.map((p) => p.textContent)),
  };
}

describe('a measurement that contradicts the story', { timeout: 200000 }, () => {
  test('more rows faster and the cache slower than none: the chapters say the device was busy', async () => {
    const { rows, queue } = await openWith({
      stepMs: [2, 4, 12.1, 10.2, 20],
      makespans: { 'static:16': 50000, 'serial-cache': 97600, 'serial-nocache': 86700 },
    });
    assert.match(rows, /This device was busy while measuring: 8 rows took 10\.2 ms a step against 12\.1 ms for 4/);
    assert.doesNotMatch(rows, /Why the extra rows ride along/);
    assert.match(
      queue[0],
      /^This device was busy while measuring: One at a time, with cache served the queue in 97\.6 s against 86\.7 s for One at a time, no cache/i
    );
  });

  // Static batches slower than one at a time, as on the tiny and lab presets: a static batch decodes every
  // row until its longest answer ends, so that is arithmetic, not a busy device.
  test('measurements in the physics’ order, static batches slower than one at a time among them: the usual story, no notice', async () => {
    const { rows, queue } = await openWith({
      stepMs: [2, 4, 8, 12, 20],
      makespans: { 'static:16': 97600, 'serial-cache': 86700, 'serial-nocache': 200000 },
    });
    assert.match(rows, /Why the extra rows ride along/);
    assert.doesNotMatch(rows, /busy/);
    assert.doesNotMatch(queue.join(' '), /busy/);
  });
});

// The lab worker's module, with run()'s decode grid replaced by firstMs (rows -> ms, the same at every
// context but for a thousandth of a millisecond a context) and the decode cells of any later measure()
// (the second timing, worker/remeasure.js) by againMs, a row count not in againMs timing as in firstMs;
// every prefill of t tokens takes t times prefillMsPerToken (1 ms, a one-row step a token: no cache stays
// slower than the cache). run()'s queue is priced again on that table, as the worker prices a table timed
// again (worker/simulate-queue.js), so that the policies' order is the test's and not the host's: on the
// tiny preset, static batches cost more than one at a time by a margin a busy host narrows. A story
// workload keeps run()'s prices (its requests only the model counts). The page's own code is unchanged.
function moduleWith(source, { firstMs, againMs, prefillMsPerToken = 1 }) {
  const patch = (firstMs, againMs, prefillMsPerToken) => {
    const create = createKvlab;
    const rewrite = (result, msOf) => {
      const { rows, contexts, ms } = result.steps.decode;
      rows.forEach((r, i) => contexts.forEach((c, k) => (ms[i][k] = msOf[r] + k / 1000)));
      const { prefill } = result.steps;
      prefill.ms = prefill.tokens.map((t) => t * prefillMsPerToken);
      return result;
    };
    createKvlab = (args) =>
      create(args).then((m) => {
        const { run, measure, simulate } = m;
        m.run = (options, ...rest) => {
          const result = rewrite(run(options, ...rest), firstMs);
          if (options.workload && options.workload.prompts === 'stories') return result;
          const simulateOptions = { ...(options.simulate || {}), timeline_requests: options.timeline_requests };
          return { ...result, policies: simulate(result.steps, options.workload, options.policies, simulateOptions) };
        };
        m.measure = (...a) => rewrite(measure(...a), { ...firstMs, ...againMs });
        return m;
      });
  };
  return `${source}\n(${patch})(${JSON.stringify(firstMs)}, ${JSON.stringify(againMs)}, ${JSON.stringify(prefillMsPerToken)});\n`;
}

async function openRemeasured(times, hash = SMALL_LAB) {
  const { page } = await session.openPage('about:blank');
  await page.context().route('**/kvlab.js', async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, body: moduleWith(await response.text(), times) });
  });
  await page.goto(`${session.server.url}index.html#${hash}&autorun`);
  const result = await waitForResult(page, 120000);
  await page.waitForSelector('#chapter-queue .chapter[data-ready="true"]');
  // Waits for a handler still running (a later worker's request for the module, such as the Memory
  // section's, in flight now): unrouted mid-way, its fulfill would find the request handled already, and
  // the file's end would close the browser under it (a busy host makes that likelier, not a bug).
  await page.context().unrouteAll({ behavior: 'wait' });
  return {
    result,
    rows: await page.textContent('#chapter-rows .chapter-words'),
    queue: await page.$$eval('#chapter-queue .chapter-words p', (ps) => ps.map((p) => p.textContent)),
    progress: await page.evaluate(() => window.__kvlabTest.progress),
  };
}

describe(
  'cells that contradict the rest of the grid are timed again',
  {
    timeout: 200000,
    ...chromiumOnly('the worker’s module is replaced by routing its request, which the Firefox driver does not offer'),
  },
  () => {
    const firstMs = { 1: 2, 2: 4, 4: 12.1, 8: 10.2, 16: 20 };

    test('the second timing agrees: it replaces the cells, and the chapter says so and tells the usual story', async () => {
      const { result, rows } = await openRemeasured({ firstMs, againMs: { 4: 8, 8: 12 } });
      const { decode, remeasured } = result.steps;
      assert.deepEqual(
        remeasured.filter((c) => c.context === 64),
        [
          {
            rows: 4,
            context: 64,
            before_ms: 12.1 + decode.contexts.indexOf(64) / 1000,
            after_ms: 8 + decode.contexts.indexOf(64) / 1000,
            replaced: true,
          },
          {
            rows: 8,
            context: 64,
            before_ms: 10.2 + decode.contexts.indexOf(64) / 1000,
            after_ms: 12 + decode.contexts.indexOf(64) / 1000,
            replaced: true,
          },
        ]
      );
      assert.equal(remeasured.length, 2 * decode.contexts.length);
      assert.deepEqual(
        decode.ms.map((row) => Math.round(row[0] * 1000) / 1000),
        [2, 4, 8, 12, 20]
      );
      assert.match(
        rows,
        /timed a second time and the second figures are the ones shown \(4 rows at context 8: 12\.1 ms, then 8 ms/
      );
      assert.match(rows, /Why the extra rows ride along/);
      assert.doesNotMatch(rows, /busy/);
    });

    test('the second timing disagrees too: the first figures stand and the chapter says the device was busy, with both', async () => {
      const { result, rows } = await openRemeasured({ firstMs, againMs: { 4: 11, 8: 9.5 } });
      assert.ok(result.steps.remeasured.every((c) => !c.replaced));
      assert.deepEqual(
        result.steps.decode.ms.map((row) => Math.round(row[0] * 1000) / 1000),
        [2, 4, 12.1, 10.2, 20]
      );
      assert.match(rows, /This device was busy while measuring: 8 rows took 10\.2 ms a step against 12\.1 ms for 4/);
      assert.match(
        rows,
        /Timed a second time, the cells still disagreed \(4 rows at context 8: 12\.1 ms, then 11 ms \(±4\.8%\); 8 rows at context 8: 10\.2 ms, then 9\.5 ms \(±3\.6%\)/
      );
      assert.doesNotMatch(rows, /Why the extra rows ride along/);
    });

    test('the cache slower than none: the decode and prefill steps are timed again, the faster times are kept, and the queue chapter says so', async () => {
      // A one-row decode step at 200 ms against a prompt pass at 1 ms a token: with the cache, a token costs
      // more than its whole prefix passed again (3.6 times, priced on this table).
      const { result, queue, progress } = await openRemeasured({
        firstMs: { 1: 200, 2: 210, 4: 220, 8: 240, 16: 280 },
        againMs: { 1: 1, 2: 1.2, 4: 1.5, 8: 2, 16: 3 },
      });
      const again = result.steps.remeasured_queue;
      assert.equal(again.replaced, true);
      assert.deepEqual([again.orders[0].slower, again.orders[0].faster], ['serial-cache', 'serial-nocache']);
      assert.deepEqual(again.orders_after, []);
      assert.deepEqual(
        result.steps.decode.ms.map((row) => Math.round(row[0] * 1000) / 1000),
        [1, 1.2, 1.5, 2, 3]
      );
      assert.match(
        queue[0],
        /^At first, One at a time, with cache served the queue in .* against .* for One at a time, no cache, which the arithmetic forbids, so the decode and prefill steps were timed a second time/
      );
      assert.doesNotMatch(queue.join(' '), /busy/);
      // The second timing's progress came after run()'s end; the run still ends at 100%.
      assert.ok(progress.includes(99), `progress values seen: ${progress.join(', ')}`);
      assert.equal(progress[progress.length - 1], 100, `progress values seen: ${progress.join(', ')}`);
    });

    test('on stories15M the queue is priced again on the story requests the lab drew', async () => {
      const stories = 'model=stories15M&runs=1&answer_tokens=8&requests=40';
      const { result } = await openRemeasured({ firstMs, againMs: { 4: 8, 8: 12 } }, stories);
      assert.ok(result.steps.remeasured.every((c) => c.replaced));
      assert.equal(result.options.workload.prompts, 'stories');
      const [first, ...others] = Object.values(result.policies).map((r) => r.queue_timeline.requests);
      assert.equal(first.prompt_tokens.length, 40);
      for (const requests of others) assert.deepEqual(requests.prompt_tokens, first.prompt_tokens);
    });
  }
);

describe('every page', () => {
  test('logged no console errors', () => {
    session.checkPages({ chromium: 6, firefox: 2 });
  });
});
