// Browser tests of the page in dist/ (built by scripts/build), headless, in the engine helpers.mjs
// picks (Chromium, or Firefox in scripts/test's second pass). Small configurations only (tiny model,
// one run, few requests); no timing asserted.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  ENGINE,
  POLICY_ORDER,
  SMALL_LAB,
  chromiumOnly,
  dist,
  eventually,
  expectNoSidewaysScroll,
  pageSession,
  readPolicyTable,
  screenshots,
  shot,
  startServer,
  waitForResult,
} from './helpers.mjs';

// The engine the page should name in its environment panel.
const ENGINE_SHOWN = { chromium: 'Blink', firefox: 'Gecko' }[ENGINE];

const session = pageSession();
const { openPage } = session;

describe('the served page', { timeout: 120000 }, () => {
  test('runs a small lab from the hash and renders everything', async () => {
    const { page } = await openPage(`${session.server.url}index.html#${SMALL_LAB}&autorun`);
    const result = await waitForResult(page);

    // Four policy rows, in the order of the published table, with finite positive numbers.
    const rows = await readPolicyTable(page);
    assert.deepEqual(
      rows.map((r) => r.policy),
      POLICY_ORDER
    );
    for (const row of rows) {
      assert.deepEqual(Object.keys(row.values).sort(), [
        'makespan_ms',
        'median_ttft_ms',
        'p95_ttft_ms',
        'p99_ttft_ms',
        'tokens_per_s',
        'tpot_ms',
      ]);
      for (const [key, value] of Object.entries(row.values)) {
        assert.ok(Number.isFinite(value) && value > 0, `${row.policy} ${key} = ${value}`);
      }
    }
    assert.deepEqual(
      await page.$$eval('#published-table tbody tr', (trs) => trs.map((tr) => tr.dataset.policy)),
      POLICY_ORDER
    );
    assert.match(await page.textContent('#published-table caption'), /Apple M2 Pro, JavaScript, published/);

    // Part A: identical tokens, both token lists shown side by side, the decode table.
    assert.equal(result.answer.identical_tokens, true);
    assert.equal(await page.getAttribute('#identical', 'data-identical'), 'true');
    assert.match(await page.textContent('#identical'), /identical/);
    const tokenRows = await page.$$eval('#tokens-table tbody tr', (trs) =>
      trs.map((tr) => Array.from(tr.cells).map((c) => c.textContent))
    );
    assert.equal(tokenRows.length, result.answer.answer_tokens);
    assert.deepEqual(
      tokenRows.map((r) => Number(r[1])),
      result.answer.tokens_nocache
    );
    assert.deepEqual(
      tokenRows.map((r) => Number(r[2])),
      result.answer.tokens_cache
    );
    assert.equal(await page.$$eval('#decode-table tbody tr', (trs) => trs.length), result.steps.decode.rows.length);
    assert.match(await page.textContent('#decode-speedup'), /tokens per second/);

    // Progress went through intermediate values to 100%, and the phase says so.
    const seen = await page.evaluate(() => window.__kvlabTest.progress);
    assert.equal(seen[seen.length - 1], 100, `progress values seen: ${seen.join(', ')}`);
    assert.ok(
      seen.some((v) => v > 0 && v < 100),
      `no intermediate progress in ${seen.join(', ')}`
    );
    assert.match(await page.textContent('#phase'), /^Done/);
    assert.equal(await page.getAttribute('#lab', 'data-state'), 'done');

    // The result hook: the event carried the whole result, and window.kvlabResult keeps it.
    const events = await page.evaluate(() => window.__kvlabTest.events);
    assert.equal(events.length, 1);
    for (const key of ['answer', 'steps', 'policies', 'workload', 'policy_order', 'settings', 'environment']) {
      assert.ok(events[0].includes(key), `event detail lacks ${key}`);
    }
    assert.deepEqual(result.policy_order, POLICY_ORDER);
    assert.equal(result.workload.count, 40);
    assert.equal(result.steps.model.preset, 'tiny');

    // Plots: the CDF, both slot timelines and both step charts were drawn.
    for (const id of ['chart-cdf', 'chart-gantt-static', 'chart-gantt-continuous', 'chart-rows', 'chart-context']) {
      assert.equal(await page.$$eval(`#${id} canvas`, (c) => c.length), 1, `${id} has no canvas`);
    }

    // Environment panel and the KV-memory calculator (the published example: 128 KiB per token).
    assert.match(await page.textContent('#env-list'), /WebAssembly SIMD\s*on/);
    assert.match(await page.textContent('#env-list'), /Cross-origin isolated\s*no/);
    // The engine, and the clock measured on the page and in the worker; the step samples follow the
    // worker's clock (at least 20 of its ticks, at least 5 ms).
    assert.match(await page.textContent('#env-list'), new RegExp(`Browser\\s*.*, ${ENGINE_SHOWN} engine`));
    assert.match(
      await page.textContent('#env-list'),
      /Timer resolution\s*measured: [\d.,]+ (µs|ms) on the page, [\d.,]+ (µs|ms) in the worker that measures, so each timed sample lasts at least [\d.,]+ ms/
    );
    const { environment } = result;
    assert.equal(environment.engine, ENGINE_SHOWN);
    for (const key of ['timer_resolution_ms', 'worker_timer_resolution_ms'])
      assert.ok(environment[key] > 0 && environment[key] <= 100, `${key} = ${environment[key]}`);
    assert.equal(environment.min_sample_ms, Math.min(1000, Math.max(5, 20 * environment.worker_timer_resolution_ms)));
    assert.equal(result.steps.model.timing.min_sample_ms, environment.min_sample_ms);
    console.log(
      `# ${ENGINE}: ${environment.browser}, clock ${environment.timer_resolution_ms} ms on the page, ${environment.worker_timer_resolution_ms} ms in the worker, samples of at least ${environment.min_sample_ms} ms`
    );
    assert.equal(await page.getAttribute('#kv-per-token', 'data-bytes'), String(128 * 1024));
    await page.selectOption('#kv-preset', 'llama-2-7b');
    assert.match(await page.textContent('#kv-per-token'), /512 KiB per token/);

    // Downloads: JSON holds the result, the policy CSV has a header and four rows.
    const [json] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
    const saved = JSON.parse(fs.readFileSync(await json.path(), 'utf8'));
    assert.deepEqual(saved.policy_order, POLICY_ORDER);
    const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#download-policies')]);
    const lines = fs
      .readFileSync(await csv.path(), 'utf8')
      .trim()
      .split(/\r?\n/);
    assert.equal(lines.length, 5);
    assert.match(lines[0], /^policy,label,median_ttft_ms,/);

    await page.waitForTimeout(200);
    await shot(page, 'desktop.png');

    // Phone width: no sideways scrolling of the page itself; charts follow the width.
    await expectNoSidewaysScroll(page);
    const chartWidth = () => page.$eval('#chart-cdf canvas', (c) => c.getBoundingClientRect().width);
    await eventually(
      async () => (await chartWidth()) <= 375,
      async () => `CDF chart is ${await chartWidth()}px wide at 375px`
    );
    await shot(page, 'phone.png');
  });

  test('an invalid form value shows a message naming the field and its range', async () => {
    const { page } = await openPage(`${session.server.url}index.html`);
    await page.fill('#runs', '0');
    await page.fill('#prompt_lo', '40');
    await page.fill('#prompt_hi', '8');
    await page.click('#run');
    assert.equal(await page.isVisible('#runs-error'), true);
    assert.match(await page.textContent('#runs-error'), /Runs per path must be from 1 to 100 \(got "0"\)/);
    assert.equal(await page.getAttribute('#runs', 'aria-invalid'), 'true');
    assert.match(await page.textContent('#prompt_hi-error'), /Prompt length, to must be at least .*40/);
    assert.equal(await page.isVisible('#form-error'), true);
    // Focus moved to the first bad field, and nothing started.
    assert.equal(await page.evaluate(() => document.activeElement.id), 'runs');
    assert.notEqual(await page.getAttribute('#lab', 'data-state'), 'running');

    await page.fill('#runs', 'two');
    await page.dispatchEvent('#runs', 'change');
    assert.match(await page.textContent('#runs-error'), /must be a whole number \(got "two"\)/);

    // Keyboard: Enter in a field submits the form, which checks every field.
    await page.selectOption('#preset', 'tiny');
    await page.fill('#prompt_tokens', '150');
    await page.fill('#answer_tokens', '48');
    await page.press('#answer_tokens', 'Enter');
    assert.match(await page.textContent('#answer_tokens-error'), /Part A answer length must be from 1 to 11/);

    // Fixed values clear their messages.
    await page.fill('#runs', '3');
    await page.fill('#prompt_lo', '8');
    await page.fill('#prompt_hi', '32');
    await page.fill('#prompt_tokens', '16');
    await page.dispatchEvent('#prompt_tokens', 'change');
    for (const id of ['runs', 'prompt_hi', 'answer_tokens']) {
      assert.equal(await page.isVisible(`#${id}-error`), false, `${id} message still shown`);
    }
    assert.equal(await page.isVisible('#form-error'), false);
  });

  test('the URL hash restores a configuration, and a bad hash falls back with a message', async () => {
    const hash =
      'preset=tiny&runs=2&prompt_tokens=12&answer_tokens=20&requests=123&prompt=4-12&answer=5-9&slots=8&arrival=poisson&rate=25&seed=7';
    const { page } = await openPage(`${session.server.url}index.html#${hash}`);
    const values = await page.evaluate(() =>
      Object.fromEntries(
        [
          'preset',
          'runs',
          'prompt_tokens',
          'answer_tokens',
          'requests',
          'prompt_lo',
          'prompt_hi',
          'answer_lo',
          'answer_hi',
          'slots',
          'arrival',
          'rate',
          'seed',
        ].map((id) => [id, document.getElementById(id).value])
      )
    );
    assert.deepEqual(values, {
      preset: 'tiny',
      runs: '2',
      prompt_tokens: '12',
      answer_tokens: '20',
      requests: '123',
      prompt_lo: '4',
      prompt_hi: '12',
      answer_lo: '5',
      answer_hi: '9',
      slots: '8',
      arrival: 'poisson',
      rate: '25',
      seed: '7',
    });
    assert.equal(await page.isVisible('#rate'), true);
    assert.equal(await page.isVisible('#hash-message'), false);

    // Changing the form writes the hash (a shareable link).
    await page.fill('#slots', '4');
    await page.dispatchEvent('#slots', 'change');
    assert.match(await page.evaluate(() => location.hash), /slots=4/);

    // A bad link: messages name what was wrong, defaults stand in, URL text never becomes markup.
    await page.goto(
      `${session.server.url}index.html#runs=abc&bogus=1&prompt=9-x&preset=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&requests=77`
    );
    await page.waitForSelector('#hash-message:not([hidden])');
    const message = await page.textContent('#hash-message');
    assert.match(message, /Runs per path must be a whole number \(got "abc"\)/);
    assert.match(message, /unknown setting "bogus"/);
    assert.match(message, /prompt range must look like 8-32/);
    assert.match(
      message,
      /Model preset must be one of small, lab, medium, tiny \(got "<img src=x onerror=alert\(1\)>"\)/
    );
    assert.equal(await page.$$eval('img', (imgs) => imgs.length), 0);
    assert.equal(await page.inputValue('#runs'), '5');
    assert.equal(await page.inputValue('#preset'), 'small');
    assert.equal(await page.inputValue('#requests'), '77'); // the good part of the link is kept
  });

  test(
    'the weight format setting runs the lab on bf16 weights, and a bad one is named',
    chromiumOnly('a setting passed to the same wasm module; Firefox runs the lab from the hash'),
    async () => {
      const { page } = await openPage(`${session.server.url}index.html#${SMALL_LAB}&weights=bf16&autorun`);
      assert.equal(await page.inputValue('#weights'), 'bf16');
      const result = await waitForResult(page);
      assert.equal(result.steps.model.weights, 'bf16');
      assert.equal(result.answer.identical_tokens, true);
      await page.goto(`${session.server.url}index.html#weights=fp16`);
      await page.waitForSelector('#hash-message:not([hidden])');
      assert.match(await page.textContent('#hash-message'), /Weight format must be one of f32, bf16 \(got "fp16"\)/);
      assert.equal(await page.inputValue('#weights'), 'f32');
    }
  );

  test(
    'the KV cache format setting runs the lab on 16-bit keys and values, the memory numbers follow, and a bad one is named',
    chromiumOnly('a setting passed to the same wasm module; Firefox runs the lab from the hash'),
    async () => {
      const { page } = await openPage(`${session.server.url}index.html#${SMALL_LAB}&kv_format=bf16&kv=256&autorun`);
      assert.equal(await page.inputValue('#kv_format'), 'bf16');
      const result = await waitForResult(page);
      assert.equal(result.steps.model.kv, 'bf16');
      const m = result.steps.model;
      assert.equal(m.kv_bytes_per_token, 2 * m.n_layers * m.n_kv_heads * m.head_dim * 2);
      assert.equal(result.answer.identical_tokens, true);
      assert.match(
        await page.textContent('#mem-kv-help'),
        new RegExp(`\\(${m.kv_bytes_per_token} bytes a token, bf16\\)`)
      );
      await page.goto(`${session.server.url}index.html#kv_format=x`);
      await page.waitForSelector('#hash-message:not([hidden])');
      assert.match(
        await page.textContent('#hash-message'),
        /KV cache format must be one of f32, bf16, f16 \(got "x"\)/
      );
      assert.equal(await page.inputValue('#kv_format'), 'f32');
    }
  );

  test('Cancel really stops a run, and the lab runs again afterwards', async () => {
    const { page } = await openPage(`${session.server.url}index.html#preset=small&runs=3`);
    await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
    const workers = page.workers();
    assert.equal(workers.length, 1);
    const closed = new Promise((resolve) => workers[0].once('close', () => resolve(true)));
    await page.click('#run');
    await page.waitForFunction(() => /Timing/.test(document.getElementById('phase').textContent), null, {
      timeout: 30000,
    });
    assert.equal(await page.getAttribute('#lab', 'data-state'), 'running');
    assert.equal(await page.isEnabled('#cancel'), true);
    await page.click('#cancel');
    assert.equal(await page.getAttribute('#lab', 'data-state'), 'cancelled');
    assert.match(await page.textContent('#phase'), /Cancelled/);
    assert.equal(await page.isEnabled('#run'), true);
    assert.equal(await page.isEnabled('#cancel'), false);
    // The worker was terminated (a fresh one replaces it) and no progress or result arrives any more.
    const terminated = await Promise.race([closed, new Promise((resolve) => setTimeout(() => resolve(false), 15000))]);
    assert.equal(terminated, true, 'the running worker was not terminated');
    await eventually(
      () => page.workers().length === 1 && page.workers()[0] !== workers[0],
      'a fresh worker should replace it'
    );
    assert.equal(await page.evaluate(() => document.getElementById('progress').value), 0);
    assert.equal(await page.evaluate(() => window.kvlabResult), undefined);

    // A hash change with autorun starts a new (small) run on the new worker.
    await page.evaluate(
      (hash) => {
        location.hash = hash;
      },
      `${SMALL_LAB.replace(/requests=\d+/, 'requests=20')}&autorun`
    );
    const result = await waitForResult(page);
    assert.equal(result.workload.count, 20);
    assert.equal((await readPolicyTable(page)).length, 4);
  });

  test(
    'the compact view for an iframe shows the table without the settings',
    chromiumOnly('Firefox loads the compact view in the cross-origin iframe test below, which runs it there'),
    async () => {
      for (const url of [
        `${session.server.url}embed.html#${SMALL_LAB}&autorun`,
        `${session.server.url}index.html?embed#${SMALL_LAB}&autorun`,
      ]) {
        const { page } = await openPage(url);
        await page.setViewportSize({ width: 600, height: 800 });
        await waitForResult(page);
        assert.equal((await readPolicyTable(page)).length, 4);
        assert.equal(await page.isVisible('#policy-table'), true);
        assert.equal(await page.isVisible('#requests'), false);
        assert.equal(await page.isVisible('#kv-memory'), false);
        assert.equal(await page.isVisible('#run'), true);
        assert.match(await page.getAttribute('#full-link', 'href'), /^index\.html#.*preset=tiny/);
        if (url.includes('embed.html')) await shot(page, 'embed.png');
        await page.close();
      }
    }
  );

  test('the compact view runs in an iframe of a page from another origin and hands it the result', async () => {
    // A blog post on another origin (its own server), embedding the compact view as the README says.
    const blog = fs.mkdtempSync(path.join(os.tmpdir(), 'kvlab-blog-'));
    fs.writeFileSync(
      path.join(blog, 'post.html'),
      `<!doctype html><meta charset="utf-8"><title>A post</title><link rel="icon" href="data:,">
<p>Why does an AI server need a KV cache?</p>
<iframe id="lab" title="kvlab" src="${session.server.url}embed.html#${SMALL_LAB}&autorun" width="600" height="700" style="border:0"></iframe>
<script>
  window.fromFrame = [];
  addEventListener('message', (event) => window.fromFrame.push({ origin: event.origin, type: event.data && event.data.type, result: event.data && event.data.result }));
</script>`
    );
    const blogServer = await startServer(blog);
    try {
      assert.notEqual(new URL(blogServer.url).origin, new URL(session.server.url).origin);
      const { page } = await openPage(`${blogServer.url}post.html`, { allowedOrigins: [blogServer.url] });
      await page.waitForFunction(() => window.fromFrame.some((m) => m.type === 'kvlab:result'), null, {
        timeout: 60000,
        polling: 100,
      });
      const [message] = await page.evaluate(() => window.fromFrame.filter((m) => m.type === 'kvlab:result'));
      assert.equal(message.origin, new URL(session.server.url).origin);
      assert.deepEqual(message.result.policy_order, POLICY_ORDER);
      assert.equal(message.result.page.embed, true);
      assert.equal(message.result.answer.identical_tokens, true);
      // The parent cannot reach into the frame, nor the frame into the parent.
      assert.equal(await page.evaluate(() => document.getElementById('lab').contentDocument), null);
      await shot(page, 'embed-cross-origin.png');
    } finally {
      await blogServer.close();
      fs.rmSync(blog, { recursive: true, force: true });
    }
  });

  test('a module that fails to load shows a readable error with a retry, not a spinner', async () => {
    // A copy of dist/ without kvlab.wasm, on its own server.
    const broken = fs.mkdtempSync(path.join(os.tmpdir(), 'kvlab-broken-'));
    // (Its files only: the model files in dist/models are not needed.)
    for (const file of fs.readdirSync(dist))
      if (file !== 'kvlab.wasm' && fs.statSync(path.join(dist, file)).isFile())
        fs.copyFileSync(path.join(dist, file), path.join(broken, file));
    const brokenServer = await startServer(broken);
    try {
      const page = await session.browser.context.newPage();
      await page.goto(`${brokenServer.url}index.html#${SMALL_LAB}&autorun`);
      await page.waitForSelector('#error:not([hidden])', { timeout: 30000 });
      assert.match(await page.textContent('#error-message'), /could not be loaded/);
      assert.equal(await page.getAttribute('#lab', 'data-state'), 'error');
      assert.equal(await page.isVisible('#retry'), true);
      assert.equal(await page.isEnabled('#run'), true);
      assert.equal(await page.evaluate(() => window.kvlabResult), undefined);
      await page.locator('#controls').screenshot({ path: path.join(screenshots, 'error.png') });
      await page.click('#retry');
      await page.waitForSelector('#error:not([hidden])', { timeout: 30000 });
      await page.close();
    } finally {
      await brokenServer.close();
      fs.rmSync(broken, { recursive: true, force: true });
    }
  });
});

describe('a crashing worker', { timeout: 120000 }, () => {
  test(
    'shows a readable error, and Try again starts a fresh worker that runs the lab',
    chromiumOnly('makes the worker throw from inside it, and Firefox’s WebDriver BiDi cannot evaluate in a worker'),
    async () => {
      const page = await session.browser.context.newPage();
      try {
        await page.goto(`${session.server.url}index.html#${SMALL_LAB}`);
        await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
        const [worker] = page.workers();
        await worker.evaluate(() => {
          setTimeout(() => {
            throw new Error('simulated crash');
          }, 0);
        });
        await page.waitForSelector('#error:not([hidden])', { timeout: 30000 });
        assert.match(await page.textContent('#error-message'), /worker crashed/);
        assert.match(await page.textContent('#error-detail'), /simulated crash/);
        assert.equal(await page.getAttribute('#lab', 'data-state'), 'error');
        await page.click('#retry');
        await page.waitForSelector('#error', { state: 'hidden' });
        await page.click('#run');
        await waitForResult(page);
        assert.equal((await readPolicyTable(page)).length, 4);
      } finally {
        await page.close();
      }
    }
  );
});

describe('the standalone file', { timeout: 120000 }, () => {
  test('works from file:// with no server', async () => {
    const url = `${pathToFileURL(path.join(dist, 'kvlab-standalone.html')).href}#${SMALL_LAB}&autorun`;
    const { page, log } = await openPage(url);
    const result = await waitForResult(page);
    assert.deepEqual(
      (await readPolicyTable(page)).map((r) => r.policy),
      POLICY_ORDER
    );
    assert.equal(result.page.standalone, true);
    assert.equal(result.answer.identical_tokens, true);
    const foreign = log.requests.filter(
      (u) => !u.startsWith('file:') && !u.startsWith('data:') && !u.startsWith('blob:')
    );
    assert.deepEqual(foreign, []);
    await shot(page, 'standalone.png');
  });
});

describe('the Content-Security-Policy', () => {
  const cspOf = (file) => {
    const html = fs.readFileSync(path.join(dist, file), 'utf8');
    const m = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html);
    assert.ok(m, `${file} has no CSP meta tag`);
    return m[1];
  };

  test('is strict in every page: no unsafe-eval, no unsafe-inline', () => {
    for (const file of ['index.html', 'embed.html', 'kvlab-standalone.html']) {
      const csp = cspOf(file);
      assert.doesNotMatch(csp, /'unsafe-eval'|'unsafe-inline'/, file);
      assert.match(csp, /default-src 'none'/, file);
      assert.match(csp, /'wasm-unsafe-eval'/, file);
    }
    assert.match(cspOf('index.html'), /script-src 'self' 'wasm-unsafe-eval'/);
    assert.match(cspOf('kvlab-standalone.html'), /script-src 'sha256-[A-Za-z0-9+/=]+' 'wasm-unsafe-eval'/);
  });

  test('is enforced: an injected inline script is refused', async () => {
    for (const url of [
      `${session.server.url}index.html`,
      pathToFileURL(path.join(dist, 'kvlab-standalone.html')).href,
    ]) {
      const page = await session.browser.context.newPage(); // not watched: the refusal logs a console error
      await page.goto(url);
      const outcome = await page.evaluate(
        () =>
          new Promise((resolve) => {
            document.addEventListener('securitypolicyviolation', (event) => resolve(event.effectiveDirective), {
              once: true,
            });
            const script = document.createElement('script');
            script.textContent = 'window.__injected = true';
            document.head.append(script);
            setTimeout(() => resolve(window.__injected ? 'ran' : 'no violation reported'), 3000);
          })
      );
      assert.match(outcome, /^script-src/, url);
      await page.close();
    }
  });
});

describe('every page', () => {
  test('logged no console errors and made no request off its origin', () => {
    session.checkPages({ chromium: 6, firefox: 4 });
  });
});
