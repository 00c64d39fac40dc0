// Browser tests of the model choice: stories15M, fetched from beside the page only when chosen, with its
// progress shown, writes words in chapter 2's race (the words the module's generate() writes for the
// same prompt, as `kvlab generate` prints them), and the queue and memory chapters serve story
// openings (the memory's system prompt checked against the model's context); the URL hash
// keeps the choice; a bad model file from the reader's disk is refused with the reader's message; the
// single file offers only the random models and the file picker.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { dist, pageSession, root, shot, waitForResult } from './helpers.mjs';

const MODEL_DIR = 'models/stories15M';
const ANSWER_TOKENS = 24;
const SMALL_REAL_LAB = `runs=1&answer_tokens=${ANSWER_TOKENS}&requests=40`;

// Records every phase line the page shows (the fetch's progress is one).
const recordPhases = () => {
  window.__phases = [];
  setInterval(() => {
    const phase = document.getElementById('phase');
    const text = phase ? phase.textContent : '';
    if (text && window.__phases[window.__phases.length - 1] !== text) window.__phases.push(text);
  }, 10);
};

const session = pageSession({
  extraFiles: [`${MODEL_DIR}/model.bin`, `${MODEL_DIR}/tokenizer.bin`],
  preparePage: (page) => page.addInitScript(recordPhases),
});
const { openPage } = session;
const modelRequests = () => session.served.filter((url) => url.includes('/models/'));

// The module in Node with stories15M loaded (once).
let loaded = null;
function stories15M() {
  if (!loaded) {
    const wasmDir = path.join(root, 'build', 'wasm', 'src', 'wasm');
    const createKvlab = createRequire(import.meta.url)(path.join(wasmDir, 'kvlab.js'));
    const file = (name) => new Uint8Array(fs.readFileSync(path.join(dist, MODEL_DIR, name)));
    loaded = createKvlab({ wasmBinary: fs.readFileSync(path.join(wasmDir, 'kvlab.wasm')) }).then((m) => {
      m.loadModel({ checkpoint: file('model.bin'), tokenizer: file('tokenizer.bin') }, {});
      return m;
    });
  }
  return loaded;
}

// What the module's generate() writes on stories15M for `prompt` (the same C++ as `kvlab generate`).
async function generated(prompt, tokens) {
  return (await stories15M()).generate({ prompt, tokens });
}

// The token count of each of our story openings (src/model_files/story_openings.cpp, where they are
// defined) under stories15M's tokenizer: generate()'s prompt_tokens, BOS first, as a story workload
// counts them.
async function openingTokenCounts() {
  const source = fs.readFileSync(path.join(root, 'src', 'model_files', 'story_openings.cpp'), 'utf8');
  const openings = Array.from(source.matchAll(/^ +"(.+)",$/gm), (match) => match[1]);
  assert.equal(openings.length, 20);
  const m = await stories15M();
  return openings.map((text) => m.generate({ prompt: text, tokens: 1 }).prompt_tokens.length);
}

// The Memory section's next result (it runs by itself after a lab run), or its error's text.
async function nextMemoryResult(page, before) {
  await page.waitForFunction(
    (previous) =>
      (window.kvlabMemoryResult !== undefined && window.kvlabMemoryResult.elapsed_ms !== previous) ||
      !document.getElementById('mem-error').hidden,
    before === undefined ? null : before.elapsed_ms,
    { timeout: 120000, polling: 100 }
  );
  assert.equal(await page.isVisible('#mem-error'), false, await page.textContent('#mem-error'));
  return page.evaluate(() => window.kvlabMemoryResult);
}

// Puts `files` ({name: bytes}) into the file input `selector` as a reader's pick would.
function pickFiles(page, selector, files) {
  return page.evaluate(
    ([where, named]) => {
      const input = document.querySelector(where);
      const picked = new DataTransfer();
      for (const [name, bytes] of Object.entries(named)) picked.items.add(new File([new Uint8Array(bytes)], name));
      input.files = picked.files;
      input.dispatchEvent(new Event('change', { bubbles: true }));
    },
    [selector, Object.fromEntries(Object.entries(files).map(([name, bytes]) => [name, Array.from(bytes)]))]
  );
}

// One lab on stories15M, at most this long: about 12 s here (docs/log/2026-12-04-real-model-ci.md). Each
// test has its own limit, so that one that fails does not cancel the others.
const REAL_LAB_MS = 240000;

describe('the model choice', () => {
  test(
    'stories15M is fetched only when chosen, with its progress; the race writes its words, the queue and memory chapters serve story openings',
    { timeout: REAL_LAB_MS + 120000 },
    async () => {
      const { page } = await openPage(`${session.server.url}index.html#${SMALL_REAL_LAB}`);
      await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
      assert.deepEqual(modelRequests(), [], 'nothing of the model is fetched before it is chosen');

      await page.selectOption('#story-model', 'stories15M');
      assert.equal(await page.$eval('#model', (el) => el.value), 'stories15M');
      assert.match(await page.evaluate(() => location.hash), /(^#|&)model=stories15M(&|$)/);
      await page.click('#story-run');
      const result = await waitForResult(page, REAL_LAB_MS);

      assert.deepEqual(modelRequests().sort(), [`/${MODEL_DIR}/model.bin`, `/${MODEL_DIR}/tokenizer.bin`]);
      const phases = await page.evaluate(() => window.__phases);
      assert.ok(
        phases.some((text) => /^Fetching stories15M: [\d.]+ of 61\.2 MB/.test(text)),
        `a phase shows the bytes fetched of the total: ${phases.join(' | ')}`
      );
      assert.equal(result.settings.model, 'stories15M');
      assert.equal(result.steps.model.name, 'stories15M');
      assert.equal(result.steps.model.source, 'file');

      // The words: the uncached path's pieces, which are the text generate() writes for the same prompt.
      const { answer } = result;
      assert.equal(answer.pieces.length, ANSWER_TOKENS);
      const alone = await generated(answer.prompt_text, ANSWER_TOKENS);
      assert.deepEqual(alone.prompt_tokens, answer.prompt);
      assert.deepEqual(alone.tokens, answer.tokens_nocache.slice(0, alone.tokens.length));
      assert.ok(answer.pieces.join('').startsWith(alone.text), `${answer.pieces.join('')} | ${alone.text}`);
      await page.waitForSelector('#chapter-cache ol.tokens.words');
      const lanes = await page.$$eval('#chapter-cache ol.tokens.words', (lists) =>
        lists.map((list) => Array.from(list.children, (chip) => chip.textContent).join(''))
      );
      assert.deepEqual(lanes, [answer.pieces.join(''), answer.pieces.join('')]);
      assert.match(await page.textContent('#chapter-cache .race-prompt'), new RegExp(answer.prompt_text.trim()));
      assert.equal(answer.identical_tokens, true);
      assert.equal(await page.textContent('#chapter-cache .race-mark.same'), '✓ Identical tokens on both paths');
      await shot(page, 'real-model-race.png');

      // The queue serves story openings on the real model's step times.
      assert.equal(result.options.workload.prompts, 'stories');
      assert.equal(result.options.workload.prompt, undefined);
      await page.waitForSelector('#chapter-queue[data-state="landed"]', { timeout: 60000 });
      assert.match(await page.textContent('#chapter-queue'), /each prompt one of our own story openings/);

      // The memory chapter serves the lab's story openings, and its system prompt must fit the model's
      // context (the same run: a lab on stories15M takes minutes on a busy host).
      const memory = await nextMemoryResult(page);

      // The lab's queue: 40 story openings, each one's length its token count.
      const counts = new Set(await openingTokenCounts());
      const labQueue = Object.values(result.policies).find((r) => r.queue_timeline).queue_timeline.requests;
      assert.equal(labQueue.prompt_tokens.length, 40);
      for (const tokens of labQueue.prompt_tokens) assert.ok(counts.has(tokens), `${tokens} is no opening's count`);

      // The Memory section simulated those very requests, arriving at random.
      const served = memory.workload.requests;
      assert.equal(served.length, 40);
      assert.deepEqual(
        served.map((r) => r.prompt),
        labQueue.prompt_tokens
      );
      assert.deepEqual(
        served.map((r) => r.answer),
        labQueue.answer_tokens
      );
      assert.ok(served.some((r) => r.arrival_ms > 0));
      // ... at the workload generator's Poisson times for the lab's settings at the section's rate.
      const s = memory.lab_settings;
      const generatedQueue = (await stories15M()).workload({
        count: s.requests,
        prompt: [s.prompt_lo, s.prompt_hi],
        answer: [s.answer_lo, s.answer_hi],
        seed: s.seed,
        arrival: { kind: 'poisson', rate_per_s: memory.rate },
      });
      assert.deepEqual(
        served.map((r) => r.arrival_ms),
        generatedQueue.arrival_ms
      );
      for (const policy of memory.policies)
        assert.deepEqual(memory.results[policy].queue_timeline.requests.prompt_tokens, labQueue.prompt_tokens, policy);
      const shortest = Math.min(...labQueue.prompt_tokens);
      const longestPrompt = Math.max(...labQueue.prompt_tokens);
      assert.equal(memory.lab_settings.stories, true);
      assert.deepEqual([memory.lab_settings.prompt_lo, memory.lab_settings.prompt_hi], [shortest, longestPrompt]);

      // The words say so, in the section and in the chapter.
      const range = `${shortest}–${longestPrompt} tokens in stories15M’s tokenizer`;
      assert.match(
        await page.textContent('#mem-summary'),
        new RegExp(`each prompt one of our own story openings, ${range}`)
      );
      await page.waitForSelector('#chapter-memory[data-state="landed"]', { timeout: 60000 });
      assert.match(
        await page.textContent('#chapter-memory'),
        new RegExp(
          `40 requests, each prompt one of our own story openings \\(${range}, the lab’s queue\\) answered on stories15M’s measured step times`
        )
      );

      // A system prompt that, before the longest request, would pass the model's 256 positions is refused
      // at its field before anything runs; the most that fits runs, before every story.
      const longest = Math.max(...labQueue.prompt_tokens.map((p, i) => p + labQueue.answer_tokens[i] - 1));
      const most = result.steps.model.max_seq - longest;
      assert.equal(result.steps.model.max_seq, 256);
      await page.fill('#mem-system', String(most + 1));
      await page.click('#mem-run');
      await page.waitForSelector('#mem-system-error:not([hidden])');
      assert.equal(
        await page.textContent('#mem-system-error'),
        `Shared system prompt (tokens) must be from 0 to ${most}: the stories15M model’s context holds 256 positions, and this queue’s longest request takes ${longest} of them after the system prompt (prompt + answer − 1) (got "${most + 1}").`
      );
      assert.equal(await page.getAttribute('#mem-system', 'aria-invalid'), 'true');
      assert.match(await page.textContent('#mem-phase'), /Not run: fix the highlighted settings/);
      assert.equal(await page.evaluate(() => window.kvlabMemoryResult.elapsed_ms), memory.elapsed_ms);

      await page.fill('#mem-system', String(most));
      await page.click('#mem-run');
      const withPrompt = await nextMemoryResult(page, memory);
      assert.equal(withPrompt.workload.system_prompt, most);
      assert.deepEqual(
        withPrompt.workload.requests.map((r) => r.prompt - most),
        labQueue.prompt_tokens
      );
    }
  );

  test('the hash keeps the choice: model=stories15M restores it in both menus', async () => {
    const { page } = await openPage(`${session.server.url}index.html#model=stories15M&${SMALL_REAL_LAB}`);
    await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
    assert.equal(await page.$eval('#story-model', (el) => el.value), 'stories15M');
    assert.equal(await page.$eval('#model', (el) => el.value), 'stories15M');
    assert.equal(await page.isVisible('#hash-message'), false);
  });

  test('a bad model file from the disk is refused with the reader’s message, naming the field', async () => {
    const { page } = await openPage(`${session.server.url}index.html#model=file&${SMALL_REAL_LAB}`);
    await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
    assert.equal(await page.isVisible('#story-model-file'), true);
    // A llama2.c checkpoint whose header claims more than the file holds, with the real tokenizer.
    const header = new Int32Array([288, 768, 6, 6, 6, 32000, 256]);
    const tokenizer = fs.readFileSync(path.join(dist, MODEL_DIR, 'tokenizer.bin'));
    await pickFiles(page, '#story-model-file', {
      'model.bin': new Uint8Array(header.buffer),
      'tokenizer.bin': tokenizer,
    });
    await page.click('#story-run');
    await page.waitForSelector('#model-error:not([hidden])', { timeout: 60000 });
    const message = await page.textContent('#model-error');
    assert.match(message, /^model could not be read: .*checkpoint/, message);
    assert.equal(await page.$eval('#model', (el) => el.getAttribute('aria-invalid')), 'true');
    assert.deepEqual(
      modelRequests().filter((url) => !url.includes('stories15M')),
      []
    );
  });

  // stories15M quantized to Q4_0 by the tests' converter (a native test executable), picked from the disk:
  // the lab runs on its blocks, and the picker's note says how the weights are held once they are loaded.
  const converter = path.join(root, 'build/native/tests/model_files/kvlab_quantize_checkpoint');
  // stories15M's Q4_0 file's bytes, converted once for the file's tests.
  let q4File = null;
  const stories15MQ4_0 = () => {
    if (!q4File) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kvlab-q4-'));
      const gguf = path.join(dir, 'stories15M-Q4_0.gguf');
      execFileSync(converter, [
        path.join(dist, MODEL_DIR, 'model.bin'),
        path.join(dist, MODEL_DIR, 'tokenizer.bin'),
        'Q4_0',
        gguf,
      ]);
      q4File = fs.readFileSync(gguf);
      fs.rmSync(dir, { recursive: true, force: true });
    }
    return q4File;
  };
  test(
    'a quantized GGUF file from the disk runs the lab, its weights held as Q4_0 blocks and said so',
    { timeout: REAL_LAB_MS, skip: fs.existsSync(converter) ? false : 'no native converter: run scripts/build' },
    async () => {
      const { page } = await openPage(`${session.server.url}index.html#model=file&${SMALL_REAL_LAB}`);
      await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
      await pickFiles(page, '#story-model-file', { 'stories15M-Q4_0.gguf': stories15MQ4_0() });
      assert.equal(await page.textContent('#story-model-picked'), 'Chosen: stories15M-Q4_0.gguf.');
      await page.click('#story-run');
      const result = await waitForResult(page, REAL_LAB_MS);
      assert.deepEqual(result.steps.model.weight_types, { Q4_0: 43 });
      assert.ok(result.steps.model.weight_bytes < 10e6, `${result.steps.model.weight_bytes} bytes`);
      for (const note of ['#story-model-picked', '#model_file-help'])
        assert.match(
          await page.textContent(note),
          /^Chosen: stories15M-Q4_0\.gguf\. Loaded: 8\.\d+ MiB of weights as kvlab holds them \(43 Q4_0 matrices\), 15\.2 M parameters; its KV cache takes 13\.5 KiB a token\.$/
        );
      assert.equal(result.answer.pieces.length, ANSWER_TOKENS);
      assert.match(result.answer.pieces.join(''), /\w+ \w+/);
    }
  );

  // Issue 55 through the page's worker: a file whose attn_k tensor overlaps attn_q's bytes (which
  // llama.cpp refuses) is refused naming the tensor, and the same worker then runs the good file.
  test(
    'a hostile GGUF file is refused in the worker naming its tensor, and the worker then runs a good one',
    { timeout: REAL_LAB_MS, skip: fs.existsSync(converter) ? false : 'no native converter: run scripts/build' },
    async () => {
      const good = stories15MQ4_0();
      // A 2-D tensor's info: its name, then n_dims (4 bytes), two dimensions (16), its type (4), its offset.
      const offsetField = (name) => good.indexOf(name) + name.length + 4 + 16 + 4;
      const overlap = Buffer.from(good);
      good.copy(overlap, offsetField('blk.0.attn_k.weight'), offsetField('blk.0.attn_q.weight'));
      const { page } = await openPage(`${session.server.url}index.html#model=file&${SMALL_REAL_LAB}`);
      await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
      await pickFiles(page, '#story-model-file', { 'overlap.gguf': overlap });
      await page.click('#story-run');
      await page.waitForSelector('#model-error:not([hidden])', { timeout: 60000 });
      const message = await page.textContent('#model-error');
      assert.match(
        message,
        /^overlap could not be read: gguf\.tensors\[blk\.0\.attn_k\.weight\]\.offset .*llama\.cpp/,
        message
      );
      assert.ok(message.length < 1000, `${message.length} characters`);
      await pickFiles(page, '#story-model-file', { 'stories15M-Q4_0.gguf': good });
      await page.click('#story-run');
      const result = await waitForResult(page, REAL_LAB_MS);
      assert.deepEqual(result.steps.model.weight_types, { Q4_0: 43 });
      assert.equal(result.answer.pieces.length, ANSWER_TOKENS);
    }
  );

  test('a pick of the wrong number of files says what to pick', async () => {
    const { page } = await openPage(`${session.server.url}index.html#model=file`);
    await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
    await pickFiles(page, '#story-model-file', { 'notes.txt': new Uint8Array([1, 2, 3]) });
    assert.match(
      await page.textContent('#story-model-picked'),
      /^Model file: choose one \.gguf file, or a llama2\.c checkpoint and its tokenizer file together \(got 1 file: notes\.txt/
    );
  });

  test('the single file from file:// offers the random models and the file picker, and carries no model', async () => {
    const file = path.join(dist, 'kvlab-standalone.html');
    assert.ok(fs.statSync(file).size < fs.statSync(path.join(dist, MODEL_DIR, 'model.bin')).size / 4);
    const { page, log } = await openPage(`${pathToFileURL(file).href}#model=stories15M`);
    await page.waitForSelector('#lab[data-state="ready"]', { timeout: 30000 });
    assert.deepEqual(await page.$$eval('#story-model option', (options) => options.map((o) => o.value)), [
      'random',
      'file',
    ]);
    assert.equal(await page.$eval('#model', (el) => el.value), 'random');
    assert.match(await page.textContent('#hash-message'), /Model must be one of random, file \(got "stories15M"\)/);
    assert.deepEqual(
      log.requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:') && !u.startsWith('blob:')),
      []
    );
  });
});

describe('every model-choice page', () => {
  test('logged no console errors and made no request off its origin', () => {
    session.checkPages(5);
  });
});
