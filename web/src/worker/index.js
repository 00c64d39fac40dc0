// The Web Worker that owns the wasm module: every measurement and simulation runs here, so the page
// stays responsive. The page cancels a run by terminating this worker and starting a new one.
//
// The same code runs in four roles (lab.js, simd.js, job.js, webgpu/device-worker.js), told apart by the worker's name:
//
// The lab (any other name): loads the module at start: the threaded one (kvlab-threads.js) where the
// page is cross-origin isolated, else the SIMD one (lab.js).
//   Messages in:  {type: 'run', id, options, model}   (model: what to load first, worker/model-loader.js;
//                 options.threads: 'auto' or a count, which the worker turns into options.measure.threads)
//                 {type: 'heap', id}   (diagnostics: the wasm heap, for tests/web/hardening and scripts/soak)
//   Messages out: {type: 'ready', version, presets, roofline_presets, instruction_set, timer_resolution_ms,
//                  min_sample_ms, threads: {max, offered, cross_origin_isolated, threaded_module_error}}
//                 (roofline_presets: m.rooflinePresets(), for the hardware switch; threads: the module's
//                 limit, the device's cores, for web/src/threads.js)
//                 {type: 'progress', id, fraction, phase}
//                 {type: 'part', id, name: 'answer' | 'steps', value}   (as each is measured)
//                 {type: 'result', id, result, elapsed_ms}
//                 {type: 'error', id, stage: 'load' | 'run', name, message, fatal, path?, given?, allowed?}
//                 {type: 'heap', id, heap: {heap_bytes, in_use_bytes}}   (the page ignores it)
//
// The "SIMD vs scalar vs JavaScript" panel (name 'kvlab-compare'): started only when the panel runs,
// loads nothing until asked; then times the same decode step in the SIMD module, in the scalar build
// (kvlab-scalar.js + kvlab-scalar.wasm, loaded here on demand) and in plain JavaScript
// (web/reference/model.js, bundled in) over the SIMD module's weights.
//   Messages in:  {type: 'compare', id, options: {preset, simd, context, min_sample_ms, samples}}
//   Messages out: {type: 'progress', id, fraction, phase, loading}
//                 {type: 'result', id, result, elapsed_ms}
//                 {type: 'error', id, stage, name, message, fatal}
//
// A job (name 'kvlab-job'): one Memory-section run (m.simulate() calls on the lab's step table, see
// plans/memory.js), one replay (m.replay(): measure, serve for real, simulate, compare) or one
// modeled GPU server (plans/hardware.js: m.roofline(), then simulations on its table); started for the
// job and ended after it (jobs.js).
//   Messages in:  {type: 'memory' | 'replay' | 'hardware', id, options}
//   Messages out: {type: 'progress', id, fraction, phase}
//                 {type: 'result', id, result, elapsed_ms}
//                 {type: 'error', id, stage: 'load' | 'run', name, message, fatal, path?, given?, allowed?}
//
// A replay's GPU (name 'kvlab-gpu-device'): started by a replay's job worker on a cross-origin-isolated
// page, runs its passes on the GPU while the job worker waits on shared memory (webgpu/device-worker.js).
//
// Served: the glue kvlab.js sits next to this file and is loaded with importScripts; it finds
// kvlab.wasm next to itself. Standalone: the single-file glue (wasm inlined), the scalar glue and its
// wasm as base64 (kvlabScalarWasmBase64) are prepended to this code in one Blob, so `createKvlab` and
// `createKvlabScalar` already exist.

import { COMPARE_WORKER_NAME, GPU_DEVICE_WORKER_NAME, JOB_WORKER_NAME } from '../runs/roles.js';
import { startGpuDevice } from '../webgpu/device-worker.js';
import { startCompare } from './simd.js';
import { startJob } from './job.js';
import { startLab } from './lab.js';

if (self.name === COMPARE_WORKER_NAME) startCompare();
else if (self.name === JOB_WORKER_NAME) startJob();
else if (self.name === GPU_DEVICE_WORKER_NAME) startGpuDevice();
else startLab();
