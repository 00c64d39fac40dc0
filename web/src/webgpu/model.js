// The model on the GPU: the weights uploaded once (the values exportWeights() gives the plain-JS
// reference; the matrices as f16 bits when weightFormat is 'f16', half.js), a KV cache of `slots` sequences in GPU buffers (one K and one V buffer a layer), and one
// step of 1..capacity rows recorded as a few dispatches in one compute pass. Each row carries its own
// token, position and slot: a decode step of r rows puts each row in its own slot; a prefill of t tokens
// is one step of t rows in one slot at positions 0..t-1 (attention reads only positions up to a row's
// own, which the earlier dispatch of the same step has written). Only the rows' token ids come back,
// and the logits when asked (the self-check).

import { argmaxShader } from './shaders/argmax.js';
import { attentionShader } from './shaders/attention.js';
import { WORKGROUP } from './shaders/common.js';
import { toHalfBits } from './half.js';
import { embedShader } from './shaders/embed.js';
import { ROW_TILE, matmulShader } from './shaders/matmul.js';
import { rmsnormShader } from './shaders/rmsnorm.js';
import { ropeShader, ropeThreads } from './shaders/rope.js';
import { swigluShader } from './shaders/swiglu.js';

const F32 = 4;
// Scores of one head live in workgroup memory beside the reduction's 64 floats.
const scoresFit = (maxSeq, limits) => (maxSeq + WORKGROUP) * F32 <= limits.maxComputeWorkgroupStorageSize;

// The model's sizes, head_dim derived as the reference does.
export function shapeOf(config) {
  const headDim = config.head_dim !== undefined ? config.head_dim : config.d_model / config.n_heads;
  return {
    d: config.d_model,
    nLayers: config.n_layers,
    nHeads: config.n_heads,
    nKvHeads: config.n_kv_heads,
    headDim,
    kvDim: config.n_kv_heads * headDim,
    dFf: config.d_ff,
    vocab: config.vocab,
    maxSeq: config.max_seq,
  };
}

// Why this model cannot run on this device's kernels, or '' when it can.
export function unsupportedReason(config, limits) {
  const s = shapeOf(config);
  if (s.d % 4 || s.dFf % 4)
    return `the GPU kernels read weights as vec4: d_model (${s.d}) and d_ff (${s.dFf}) must be multiples of 4`;
  if (s.headDim % 2) return `rotary embedding needs an even head_dim (got ${s.headDim})`;
  if (!scoresFit(s.maxSeq, limits))
    return `attention keeps a head's ${s.maxSeq} scores in workgroup memory, more than this adapter's ${limits.maxComputeWorkgroupStorageSize} bytes`;
  return '';
}

// The KV budget from the adapter's limits: one layer's K (or V) for every position is one buffer, bound
// whole, so the largest buffer and binding bound the positions of all sequences together.
export function kvBudget(config, limits) {
  const s = shapeOf(config);
  const bytesPerPosition = s.kvDim * F32;
  const largest = Math.min(limits.maxBufferSize, limits.maxStorageBufferBindingSize);
  const tokens = Math.floor(largest / bytesPerPosition);
  return {
    largest_buffer_bytes: largest,
    kv_bytes_per_token: bytesPerPosition * 2 * s.nLayers,
    kv_budget_tokens: tokens,
    max_slots: Math.floor(tokens / s.maxSeq),
  };
}

function concat(arrays) {
  const out = new Float32Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
}

// device: a GPUDevice; weights: exportWeights() (rounded to f16 already for 'f16': half.js); capacity: the
// most rows a step takes; slots: sequences the KV cache holds (each max_seq positions); weightFormat:
// the matrices' format, 'f32' or 'f16' (precision.js).
export function createGpuModel(device, weights, { capacity, slots, weightFormat }) {
  const s = shapeOf(weights.config);
  const qkvWidth = s.d + 2 * s.kvDim;
  const { STORAGE, COPY_DST, COPY_SRC, UNIFORM, MAP_READ } = GPUBufferUsage;
  const buffers = [];
  const buffer = (size, usage = STORAGE) => {
    const b = device.createBuffer({ size: Math.max(16, Math.ceil(size / 4) * 4), usage });
    buffers.push(b);
    return b;
  };
  const upload = (array) => {
    const b = buffer(array.byteLength, STORAGE | COPY_DST);
    device.queue.writeBuffer(b, 0, array);
    return b;
  };

  let weightBytes = 0;
  const uploadWeight = (array) => {
    weightBytes += array.byteLength;
    return upload(array);
  };
  const uploadMatrix = (array) => uploadWeight(weightFormat === 'f16' ? toHalfBits(array) : array);
  const w = {
    embedding: uploadWeight(weights.token_embedding),
    finalNorm: uploadWeight(weights.final_norm),
    out: uploadMatrix(weights.w_out),
    cos: upload(weights.rope_cos),
    sin: upload(weights.rope_sin),
    layers: weights.layers.map((layer) => ({
      attnNorm: uploadWeight(layer.attn_norm),
      qkv: uploadMatrix(concat([layer.wq, layer.wk, layer.wv])),
      o: uploadMatrix(layer.wo),
      ffnNorm: uploadWeight(layer.ffn_norm),
      gateUp: uploadMatrix(concat([layer.w_gate, layer.w_up])),
      down: uploadMatrix(layer.w_down),
    })),
  };
  const kvLayerBytes = slots * s.maxSeq * s.kvDim * F32;
  const kv = weights.layers.map(() => ({ keys: buffer(kvLayerBytes), values: buffer(kvLayerBytes) }));

  const act = {
    step: buffer(16, UNIFORM | COPY_DST),
    tokens: buffer(capacity * 4, STORAGE | COPY_DST),
    positions: buffer(capacity * 4, STORAGE | COPY_DST),
    slots: buffer(capacity * 4, STORAGE | COPY_DST),
    x: buffer(capacity * s.d * F32),
    xb: buffer(capacity * s.d * F32),
    qkv: buffer(capacity * qkvWidth * F32),
    attn: buffer(capacity * s.d * F32),
    gateUp: buffer(capacity * 2 * s.dFf * F32),
    hidden: buffer(capacity * s.dFf * F32),
    logits: buffer(capacity * s.vocab * F32, STORAGE | COPY_SRC),
    ids: buffer(capacity * 4, STORAGE | COPY_SRC),
  };
  const readIds = buffer(capacity * 4, MAP_READ | COPY_DST);
  const readLogits = buffer(capacity * s.vocab * F32, MAP_READ | COPY_DST);

  const pipeline = (code) =>
    device.createComputePipeline({
      layout: 'auto',
      compute: { module: device.createShaderModule({ code }), entryPoint: 'main' },
    });
  const p = {
    embed: pipeline(embedShader(s)),
    norm: pipeline(rmsnormShader(s)),
    qkv: pipeline(matmulShader({ nIn: s.d, nOut: qkvWidth, accumulate: false, weights: weightFormat })),
    rope: pipeline(ropeShader(s)),
    attention: pipeline(attentionShader(s)),
    o: pipeline(matmulShader({ nIn: s.d, nOut: s.d, accumulate: true, weights: weightFormat })),
    gateUp: pipeline(matmulShader({ nIn: s.d, nOut: 2 * s.dFf, accumulate: false, weights: weightFormat })),
    swiglu: pipeline(swigluShader(s)),
    down: pipeline(matmulShader({ nIn: s.dFf, nOut: s.d, accumulate: true, weights: weightFormat })),
    out: pipeline(matmulShader({ nIn: s.d, nOut: s.vocab, accumulate: false, weights: weightFormat })),
    argmax: pipeline(argmaxShader(s)),
  };
  // Bindings from 1 in order; the row count at 0 for the kernels that read it.
  const bind = (pipe, resources, readsRows = true) =>
    device.createBindGroup({
      layout: pipe.getBindGroupLayout(0),
      entries: [act.step, ...resources]
        .map((b, binding) => ({ binding, resource: { buffer: b } }))
        .slice(readsRows ? 0 : 1),
    });

  // Each dispatch: its pipeline, bind group, and workgroups as a function of the rows.
  const tiles = (n) => Math.ceil(n / WORKGROUP);
  const rowTiles = (rows) => Math.ceil(rows / ROW_TILE);
  const dispatches = [
    [p.embed, bind(p.embed, [act.tokens, w.embedding, act.x]), (r) => [tiles(s.d), r]],
    ...weights.layers.flatMap((_, l) => {
      const lw = w.layers[l];
      return [
        [p.norm, bind(p.norm, [act.x, lw.attnNorm, act.xb], false), (r) => [r, 1]],
        [p.qkv, bind(p.qkv, [act.xb, lw.qkv, act.qkv]), (r) => [tiles(qkvWidth), rowTiles(r)]],
        [
          p.rope,
          bind(p.rope, [act.positions, act.slots, w.cos, w.sin, act.qkv, kv[l].keys, kv[l].values]),
          (r) => [tiles(ropeThreads(s)), r],
        ],
        [
          p.attention,
          bind(p.attention, [act.positions, act.slots, act.qkv, kv[l].keys, kv[l].values, act.attn], false),
          (r) => [s.nHeads, r],
        ],
        [p.o, bind(p.o, [act.attn, lw.o, act.x]), (r) => [tiles(s.d), rowTiles(r)]],
        [p.norm, bind(p.norm, [act.x, lw.ffnNorm, act.xb], false), (r) => [r, 1]],
        [p.gateUp, bind(p.gateUp, [act.xb, lw.gateUp, act.gateUp]), (r) => [tiles(2 * s.dFf), rowTiles(r)]],
        [p.swiglu, bind(p.swiglu, [act.gateUp, act.hidden]), (r) => [tiles(s.dFf), r]],
        [p.down, bind(p.down, [act.hidden, lw.down, act.x]), (r) => [tiles(s.d), rowTiles(r)]],
      ];
    }),
    [p.norm, bind(p.norm, [act.x, w.finalNorm, act.xb], false), (r) => [r, 1]],
    [p.out, bind(p.out, [act.xb, w.out, act.logits]), (r) => [tiles(s.vocab), rowTiles(r)]],
    [p.argmax, bind(p.argmax, [act.logits, act.ids], false), (r) => [r, 1]],
  ];

  function checkRows({ tokens, positions, slots: rowSlots }) {
    const rows = tokens.length;
    if (!(rows >= 1 && rows <= capacity)) throw new RangeError(`rows must be 1..${capacity} (got ${rows})`);
    for (let r = 0; r < rows; r += 1) {
      if (!(tokens[r] >= 0 && tokens[r] < s.vocab)) throw new RangeError(`tokens[${r}] must be 0..${s.vocab - 1}`);
      if (!(positions[r] >= 0 && positions[r] < s.maxSeq))
        throw new RangeError(`positions[${r}] must be 0..${s.maxSeq - 1}`);
      if (!(rowSlots[r] >= 0 && rowSlots[r] < slots)) throw new RangeError(`slots[${r}] must be 0..${slots - 1}`);
    }
    return rows;
  }

  // Writes the rows' inputs; the next recorded steps read them.
  function setRows(rowsIn) {
    const rows = checkRows(rowsIn);
    device.queue.writeBuffer(act.step, 0, new Uint32Array([rows, 0, 0, 0]));
    device.queue.writeBuffer(act.tokens, 0, Uint32Array.from(rowsIn.tokens));
    device.queue.writeBuffer(act.positions, 0, Uint32Array.from(rowsIn.positions));
    device.queue.writeBuffer(act.slots, 0, Uint32Array.from(rowsIn.slots));
    return rows;
  }

  // Records `repeats` steps of `rows` rows into one compute pass (the inputs set before stay).
  function encodeSteps(encoder, rows, repeats = 1, timestampWrites = undefined) {
    const pass = encoder.beginComputePass(timestampWrites ? { timestampWrites } : {});
    for (let k = 0; k < repeats; k += 1) {
      for (const [pipe, group, size] of dispatches) {
        pass.setPipeline(pipe);
        pass.setBindGroup(0, group);
        pass.dispatchWorkgroups(...size(rows));
      }
    }
    pass.end();
  }

  async function readBack(target, bytes, Type) {
    await target.mapAsync(GPUMapMode.READ, 0, bytes);
    const out = new Type(target.getMappedRange(0, bytes).slice(0));
    target.unmap();
    return out;
  }

  // One step: rows = {tokens, positions, slots} (arrays of one length) -> {ids, logits?}: each row's
  // greedy token, and with `logits` its logits (rows × vocab).
  async function step(rowsIn, { logits = false } = {}) {
    const rows = setRows(rowsIn);
    const encoder = device.createCommandEncoder();
    encodeSteps(encoder, rows);
    encoder.copyBufferToBuffer(act.ids, 0, readIds, 0, rows * 4);
    if (logits) encoder.copyBufferToBuffer(act.logits, 0, readLogits, 0, rows * s.vocab * F32);
    device.queue.submit([encoder.finish()]);
    const ids = await readBack(readIds, rows * 4, Uint32Array);
    const values = logits ? await readBack(readLogits, rows * s.vocab * F32, Float32Array) : null;
    return { ids, logits: values };
  }

  return {
    config: weights.config,
    shape: s,
    capacity,
    slots,
    weight_format: weightFormat,
    weight_bytes: weightBytes,
    kv_bytes: kvLayerBytes * 2 * s.nLayers,
    dispatches_per_step: dispatches.length,
    step,
    setRows,
    encodeSteps,
    destroy() {
      for (const b of buffers) b.destroy();
    },
  };
}
