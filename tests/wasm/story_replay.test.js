// Replay on stories15M (build/models/stories15M, extracted by scripts/extract-models): a short queue of
// story openings served for real under two policies, natively (kvlab replay --model stories15M) and in
// wasm (Embind replay with source: "loaded"). Both engines answer every request as it is answered alone,
// and with the same tokens.
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { root, nativeCli, loadModule, thrown } = require('./helpers');

const modelDir = path.join(root, 'build/models/stories15M');
const skip = fs.existsSync(path.join(modelDir, 'model.bin')) ? false : 'no build/models/stories15M: run scripts/build';

const policies = ['serial-cache', 'continuous:2'];
const workload = { count: 3, prompts: 'stories', answer: [6, 10], seed: 3 };
// A grid just large enough to price the queue, timed briefly: the test checks tokens, not times.
const measure = { decode_contexts: [16, 32], prefill_tokens: [1, 16], min_sample_ms: 0.1, samples: 1 };

// Per policy, each request's [prompt_text, tokens, text].
function answers(result) {
  const out = {};
  for (const policy of policies)
    out[policy] = result[policy].real.requests.map((request) => [request.prompt_text, request.tokens, request.text]);
  return out;
}

test(
  'replay on stories15M: story openings served alike natively and in wasm, as generated alone',
  { skip },
  async () => {
    const workloadFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kvlab-stories-')), 'workload.json');
    fs.writeFileSync(workloadFile, JSON.stringify(workload));
    const flags = [
      '--decode-contexts',
      '16,32',
      '--prefill-tokens',
      '1,16',
      '--min-sample-ms',
      '0.1',
      '--samples',
      '1',
    ];
    const native = JSON.parse(
      execFileSync(
        nativeCli,
        [
          'replay',
          '--model',
          'stories15M',
          '--workload',
          workloadFile,
          '--after-prompt-rounds',
          '0',
          '--json',
          ...flags,
        ].concat(policies.flatMap((policy) => ['--policy', policy])),
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }
      )
    );

    const kvlab = await loadModule();
    kvlab.loadModel({
      checkpoint: fs.readFileSync(path.join(modelDir, 'model.bin')),
      tokenizer: fs.readFileSync(path.join(modelDir, 'tokenizer.bin')),
    });
    const wasm = kvlab.replay({ source: 'loaded', measure, workload, policies, after_prompt_rounds: 0 });

    for (const result of [native, wasm])
      for (const policy of policies) {
        assert.equal(result[policy].request_count, 3, policy);
        assert.equal(result[policy].answers_equal_alone, 3, policy);
        for (const request of result[policy].real.requests) {
          assert.match(request.prompt_text, /^[A-Z].*[.]$/);
          assert.ok(request.text.length > 0);
        }
      }
    assert.deepEqual(answers(wasm), answers(native));
    // Both policies serve each story alike: the same answers.
    assert.deepEqual(answers(native)[policies[1]], answers(native)[policies[0]]);

    // A story queue needs a tokenizer: a preset is refused, naming the field.
    const error = thrown(() => kvlab.replay({ measure: { preset: 'tiny' }, workload, policies }));
    assert.equal(error.path, 'options.workload.prompts');
  }
);
