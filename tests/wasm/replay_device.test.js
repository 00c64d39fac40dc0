// replay() on a device the page hands in ({slots, step(rows, tokens)}, src/wasm/page_device.h): here a
// device in plain JavaScript (web/reference/model.js) standing in for the GPU worker, one KV cache per
// slot. Every pass the replay times or serves runs on it, and the answers are the CPU replay's tokens.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { loadModule, smallMeasure, thrown } = require('./helpers');

const reference = require(path.resolve(__dirname, '../../web/reference/model.js'));

const options = {
  measure: { ...smallMeasure, weights: 'f32', kv: 'f32' },
  workload: { count: 8, prompt: [2, 10], answer: [1, 10], seed: 6 },
  policies: ['serial-nocache', 'serial-cache', 'static:3', 'continuous:3'],
  nocache_requests: 3,
  timeline_requests: 0,
};

// The reference model as a device: rows are [token, slot, position, wants a token] × N.
function referenceDevice(kvlab, slots) {
  const model = reference.createModel(kvlab.exportWeights({ preset: 'tiny' }));
  const caches = Array.from({ length: slots }, () => model.newCache());
  const device = { slots, passes: 0, rows: 0 };
  device.step = (rows, tokens) => {
    let wanted = 0;
    for (let row = 0; row < rows.length; row += 4) {
      const [token, slot, position, wants] = rows.subarray(row, row + 4);
      const logits = model.step(caches[slot], token, position);
      if (wants) tokens[wanted++] = reference.argmax(logits);
    }
    device.passes += 1;
    device.rows += rows.length / 4;
    return wanted === tokens.length ? '' : `${wanted} tokens for ${tokens.length} wanted rows`;
  };
  return device;
}

let kvlab;
test.before(async () => {
  kvlab = await loadModule();
});

test("a replay on the device serves the CPU replay's tokens, every pass on the device", () => {
  const onCpu = kvlab.replay(options);
  const device = referenceDevice(kvlab, 8);
  const onDevice = kvlab.replay(options, undefined, device);
  let servedSteps = 0;
  for (const policy of options.policies) {
    const cpuRequests = onCpu[policy].real.requests;
    const deviceRequests = onDevice[policy].real.requests;
    assert.equal(deviceRequests.length, cpuRequests.length, policy);
    cpuRequests.forEach((request, i) =>
      assert.deepEqual(Array.from(deviceRequests[i].tokens), Array.from(request.tokens), `${policy} request ${i}`)
    );
    assert.equal(onDevice[policy].real.steps, onCpu[policy].real.steps, policy);
    servedSteps += onDevice[policy].real.steps;
  }
  // The served steps, and the step table's and the history parts' timed passes besides.
  assert.ok(device.passes > servedSteps, `${device.passes} device passes for ${servedSteps} served steps`);
});

test("the device's problem stops the replay with the device's words", () => {
  const device = { slots: 8, step: () => 'the adapter was lost' };
  const error = thrown(() => kvlab.replay(options, undefined, device));
  assert.match(error.message, /the GPU stopped: the adapter was lost/);
  // The module is still usable after it.
  assert.ok(kvlab.replay({ ...options, policies: ['serial-cache'] })['serial-cache']);
});

test('a device without slots or a step function is refused, naming the field', () => {
  const step = () => '';
  for (const [device, field] of [
    [{ slots: 0, step }, 'device.slots'],
    [{ slots: 2.5, step }, 'device.slots'],
    [{ step }, 'device.slots'],
    [{ slots: 4 }, 'device.step'],
    [{ slots: 4, step: 'step' }, 'device.step'],
    // continuous:3 runs passes of three sequences.
    [{ slots: 2, step }, 'device.slots'],
  ]) {
    const error = thrown(() => kvlab.replay(options, undefined, device));
    assert.match(error.message, new RegExp(field.replace('.', '\\.')), JSON.stringify(device));
  }
});

test('a policy that keeps its KV in shared blocks is refused on a device before anything runs', () => {
  const device = referenceDevice(kvlab, 8);
  const error = thrown(() => kvlab.replay({ ...options, policies: ['serial-cache', 'paged:3'] }, undefined, device));
  assert.match(error.message, /options\.policies\[1\]/);
  assert.equal(device.passes, 0);
});
