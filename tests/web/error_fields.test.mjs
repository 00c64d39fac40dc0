// The page marks the form field that a module error is about by the field's path the module reports
// (error.path), not by reading the message: the lookup on its own, for the lab's form and the Memory
// section's, and in the page, where the lab's worker is made to send the module a value the form would
// refuse.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fieldOfModuleError } from '../../web/src/config.js';
import { memFieldOfModuleError } from '../../web/src/panels/memory/config.js';
import { SMALL_LAB, chromiumOnly, pageSession } from './helpers.mjs';

const session = pageSession();
const { openPage } = session;

describe('finding the field of a module error', () => {
  test('the lab form: by path, the nearest listed path above it, or none', () => {
    const cases = [
      ['options.measure.runs', 'runs'],
      ['options.measure.preset', 'preset'],
      ['options.measure.threads', 'threads'],
      ['options.workload.count', 'requests'],
      ['options.workload.prompt[0]', 'prompt_lo'],
      ['options.workload.prompt[1]', 'prompt_hi'],
      ['options.workload.answer', 'answer_lo'],
      ['options.workload.answer[1]', 'answer_hi'],
      ['options.workload.arrival.rate_per_s', 'rate'],
      ['options.workload.arrival.kind', 'arrival'],
      ['options.policies[3]', 'slots'],
      ['options.measure.model.d_model', null],
      ['options.measure', null],
      ['workload.count', null], // not run()'s name for it
      ['', null],
      [undefined, null],
    ];
    for (const [path, key] of cases) assert.equal(fieldOfModuleError(path), key, `${path}`);
  });

  test('the Memory section: by path', () => {
    const cases = [
      ['options.kv_tokens', 'kv'],
      ['options.kv_bytes', 'kv'],
      ['options.block_tokens', 'block'],
      ['options.ttft_target_ms', 'ttft_target'],
      ['workload.arrival.rate_per_s', 'mem_rate'],
      ['workload.system_prompt', 'system_prompt'],
      ['policies[3]', 'chunk'],
      // A request past the model's context: the lab's queue fits it, so the system prompt is at fault.
      ['workload.answer[1]', 'system_prompt'],
      ['workload.prompt[1]', 'system_prompt'],
      ['workload.requests[7].answer', 'system_prompt'],
      ['workload.count', null],
      [undefined, null],
    ];
    for (const [path, key] of cases) assert.equal(memFieldOfModuleError(path), key, `${path}`);
  });
});

describe('the page', { timeout: 120000 }, () => {
  test(
    'a value the module refuses marks the field its error names by path',
    chromiumOnly('changes the worker from inside it, which Firefox’s WebDriver BiDi cannot'),
    async () => {
      const { page } = await openPage(`${session.server.url}index.html#${SMALL_LAB}`);
      await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
      // The form checks its values before a run, so the worker swaps in a bad upper prompt length
      // ("options.workload.prompt[1]"): a message search for "workload.prompt" would mark the lower one.
      const [worker] = page.workers();
      await worker.evaluate(() => {
        const original = self.onmessage;
        self.onmessage = (event) => {
          if (event.data && event.data.type === 'run') event.data.options.workload.prompt = [8, 0];
          return original.call(self, event);
        };
      });
      await page.click('#run');
      await page.waitForSelector('#prompt_hi-error:not([hidden])', { timeout: 30000 });
      assert.match(
        await page.textContent('#prompt_hi-error'),
        /options\.workload\.prompt\[1\] must be an integer from 1 to 1000000 \(got 0\)/
      );
      assert.equal(await page.getAttribute('#prompt_hi', 'aria-invalid'), 'true');
      assert.equal(await page.getAttribute('#prompt_lo', 'aria-invalid'), null);
      assert.equal(await page.isVisible('#prompt_lo-error'), false);
      assert.equal(await page.evaluate(() => document.activeElement.id), 'prompt_hi');
      assert.match(await page.textContent('#phase'), /Not run: fix the highlighted setting/);
    }
  );
});

describe('every page', () => {
  test('logged no console errors and made no request off its origin', () => {
    session.checkPages({ chromium: 1, firefox: 0 });
  });
});
