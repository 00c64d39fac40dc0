// The GPU device role (name GPU_DEVICE_WORKER_NAME): the worker that owns the GPU for a replay, started
// by the replay's job worker (replay-device.js), which waits on shared memory while this one runs a pass.
//   Messages in:  {type: 'open', weights, answer}   (weights: exportWeights(); answer: the shared Int32Array)
//                 {type: 'step', rows, answer}   (rows: Int32Array, [token, KV slot, position, wants a token] × N)
//   Messages out: {type: 'opened', gpu, self_check, slots} or {type: 'refused', reason, gpu?, self_check?}
//   A step's answer: the wanted rows' tokens, or what went wrong, in `answer` (replay-device.js).

import { openCheckedModel } from './open-model.js';
import { writeAnswer, writeProblem } from './replay-device.js';

// A pass of more rows than one GPU step takes (a batch of whole prompts) runs as consecutive steps in row
// order: a row's KV is written before any later row of its sequence reads it.
async function runPass(model, rows) {
  const count = rows.length / 4;
  const tokens = [];
  for (let first = 0; first < count; first += model.capacity) {
    const part = { tokens: [], positions: [], slots: [] };
    const wanted = [];
    for (let r = first; r < Math.min(count, first + model.capacity); r += 1) {
      part.tokens.push(rows[4 * r]);
      part.slots.push(rows[4 * r + 1]);
      part.positions.push(rows[4 * r + 2]);
      if (rows[4 * r + 3]) wanted.push(r - first);
    }
    const { ids } = await model.step(part);
    for (const r of wanted) tokens.push(ids[r]);
  }
  return tokens;
}

export function startGpuDevice() {
  let model = null;
  let lost = '';
  let work = Promise.resolve();

  async function open({ weights }) {
    const opened = await openCheckedModel(weights, { halfWhereOffered: false });
    if (opened.refused) {
      self.postMessage({ type: 'refused', ...opened.refused });
      return;
    }
    model = opened.model;
    opened.acquired.device.lost.then((info) => {
      lost = `the device was lost (${info.message || info.reason})`;
    });
    self.postMessage({ type: 'opened', gpu: opened.acquired.gpu, self_check: opened.self_check, slots: model.slots });
  }

  async function step({ rows, answer }) {
    if (lost || !model) {
      writeProblem(answer, lost || 'it was not opened');
      return;
    }
    try {
      writeAnswer(answer, await runPass(model, rows));
    } catch (error) {
      writeProblem(answer, lost || error.message);
    }
  }

  // One message at a time, in order: a step waits for the open before it.
  self.onmessage = (event) => {
    const message = event.data || {};
    const handler = { open, step }[message.type];
    if (handler) work = work.then(() => handler(message));
  };
}
