// The GPU's self-check (web/src/webgpu/self-check.js) decides on the logits a model's step returns, so it
// is checked here in Node with stand-in GPUs built on the plain-JS reference: one exact (passes), one a
// little off where its top token flips (reported with the CPU's gap), one wrong (refused with a message). No browser and no WebGPU needed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { before, test } from 'node:test';
import reference from '../../web/reference/model.js';
import { selfCheck } from '../../web/src/webgpu/self-check.js';
import { root } from './helpers.mjs';

let weights;
before(async () => {
  const dir = path.join(root, 'build/wasm/src/wasm');
  const createKvlab = createRequire(import.meta.url)(path.join(dir, 'kvlab.js'));
  const m = await createKvlab({ wasmBinary: fs.readFileSync(path.join(dir, 'kvlab.wasm')) });
  weights = m.exportWeights({ preset: 'tiny' });
});

// A stand-in for createGpuModel(): the reference's step per row and slot, its logits changed by `alter`.
function standIn(alter) {
  const model = reference.createModel(weights);
  const caches = new Map();
  return {
    async step({ tokens, positions, slots }) {
      const vocab = weights.config.vocab;
      const logits = new Float32Array(tokens.length * vocab);
      const ids = new Uint32Array(tokens.length);
      tokens.forEach((token, row) => {
        if (!caches.has(slots[row])) caches.set(slots[row], model.newCache());
        const values = alter(model.step(caches.get(slots[row]), token, positions[row]), positions[row], row);
        logits.set(values, row * vocab);
        ids[row] = reference.argmax(values);
      });
      return { ids, logits };
    },
  };
}

test('the reference itself passes, with no flips and a finite near-tie gap', async () => {
  const check = await selfCheck(
    standIn((x) => x),
    weights
  );
  assert.equal(check.passed, true);
  assert.equal(check.max_abs_diff, 0);
  assert.deepEqual(check.flips, []);
  assert.ok(check.closest_top2_gap > 0 && Number.isFinite(check.closest_top2_gap));
  assert.equal(check.reason, '');
});

test('a flipped top token is reported with the CPU’s gap, and passes only within the tolerance', async () => {
  // Lift the runner-up of row 0's first step just past the top.
  let lifted = null;
  const check = await selfCheck(
    standIn((x, position, row) => {
      if (position !== 0 || row !== 0) return x;
      const order = Array.from(x.keys()).sort((a, b) => x[b] - x[a]);
      const y = Float32Array.from(x);
      y[order[1]] = x[order[0]] + 1e-3;
      lifted = { top: order[0], second: order[1], gap: x[order[0]] - x[order[1]], by: y[order[1]] - x[order[1]] };
      return y;
    }),
    weights
  );
  assert.equal(check.flips.length, 1);
  const [flip] = check.flips;
  assert.deepEqual([flip.step, flip.row, flip.cpu_token, flip.gpu_token], [0, 0, lifted.top, lifted.second]);
  assert.ok(Math.abs(flip.gap - lifted.gap) < 1e-6);
  assert.equal(check.passed, lifted.by <= check.tolerance);
  if (!check.passed) assert.match(check.reason, /differ from the CPU’s/);
});

test('wrong logits are refused with a message naming the difference', async () => {
  const check = await selfCheck(
    standIn((x) => x.map((v, i) => (i === 3 ? v + 1 : v))),
    weights
  );
  assert.equal(check.passed, false);
  assert.ok(check.max_abs_diff > check.tolerance);
  assert.match(check.reason, /differ from the CPU’s by up to 1\.00 .*the lab runs on the CPU/);
});

test('NaN logits are refused', async () => {
  const check = await selfCheck(
    standIn((x) => x.map(() => NaN)),
    weights
  );
  assert.equal(check.passed, false);
  assert.equal(check.max_abs_diff, Infinity);
});
