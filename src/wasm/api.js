// Appended to the Emscripten glue (--post-js): the JS face of the module. Options go in as plain
// objects, results come out as plain objects, bad input comes out as a thrown RangeError/TypeError
// whose message names the field, and which carries the field as data (kvlabResultOf). The C++ side never throws across Embind (see bindings.cpp).

// The structural limits of every input (json_input.h), read from the module once.
var kvlabLimits = null;
function kvlabInputLimits() {
  if (kvlabLimits === null) kvlabLimits = JSON.parse(Module['input_limits_json']()).ok;
  return kvlabLimits;
}

// JSON text of a value; non-finite numbers become "NaN"/"Infinity" strings so that the C++ validator
// can name them (JSON.stringify would turn them into null). A text over the size limit is refused
// here, before it is copied into the wasm heap; the C++ parser checks every other limit.
function kvlabToJson(value, name) {
  var text;
  try {
    text = JSON.stringify(value === undefined ? {} : value, function (key, v) {
      return typeof v === 'number' && !isFinite(v) ? String(v) : v;
    });
  } catch (e) {
    throw kvlabArgumentError(name, value, name + ' cannot be read as JSON: ' + e.message);
  }
  // A Symbol or a function has no JSON text: Embind would refuse it without naming the argument.
  if (text === undefined)
    throw kvlabArgumentError(name, value, name + ' must be a JSON value (got a ' + typeof value + ')');
  var limits = kvlabInputLimits();
  // A UTF-16 unit is 1 to 3 UTF-8 bytes: count them exactly only where it matters.
  if (text !== undefined && text.length > limits.max_bytes / 3) {
    var bytes = lengthBytesUTF8(text);
    if (bytes > limits.max_bytes) {
      throw new RangeError(name + ' is ' + bytes.toLocaleString('en-US') + ' bytes as JSON: ' + limits.size_limit_text);
    }
  }
  return text;
}

// A TypeError about a whole argument, with the argument as the field: error.path is its name and
// error.given its JavaScript type.
function kvlabArgumentError(name, value, message) {
  var error = new TypeError(message);
  error.path = name;
  error.given = typeof value;
  return error;
}

function kvlabUnwrap(replyText) {
  return kvlabResultOf(JSON.parse(replyText));
}

// Bad input throws with the field as data besides the message: error.path ("options.workload.count"),
// error.given (what was there, as the message shows it) and error.allowed ({min, max, integer} or
// {choices}), each present when the module knows it.
function kvlabResultOf(reply) {
  if (reply.error) {
    var ErrorClass =
      reply.error.type === 'TypeError' ? TypeError : reply.error.type === 'RangeError' ? RangeError : Error;
    var error = new ErrorClass(reply.error.message);
    ['path', 'given', 'allowed'].forEach(function (key) {
      if (key in reply.error) error[key] = reply.error[key];
    });
    throw error;
  }
  return 'ok' in reply ? reply.ok : reply;
}

// A callback that cannot throw into wasm: a throwing callback is reported once and then ignored.
// `name` is the argument's name (for the messages); `args(a, b)` turns what wasm passes into the
// callback's arguments.
function kvlabCallback(callback, name, args) {
  if (callback === undefined || callback === null) return undefined;
  if (typeof callback !== 'function') throw new TypeError(name + ' must be a function (got ' + typeof callback + ')');
  var failed = false;
  return function (a, b) {
    if (failed) return;
    try {
      callback.apply(null, args(a, b));
    } catch (e) {
      failed = true;
      console.error('kvlab: the ' + name + ' callback threw, and is no longer called:', e);
    }
  };
}

// Progress: (fraction, phase), as wasm passes them.
function kvlabProgress(callback) {
  return kvlabCallback(callback, 'onProgress', function (fraction, phase) {
    return [fraction, phase];
  });
}

// A part of a result: (name, value), the value parsed from the JSON text wasm passes.
function kvlabParts(callback) {
  return kvlabCallback(callback, 'onPart', function (name, text) {
    return [name, JSON.parse(text)];
  });
}

/** measure(options?, onProgress?) -> { answer, steps }. options.source: "loaded" measures the model loadModel
 *  loaded (then preset and model are refused, weights and kv must be loadModel's, and Part A's prompt is text:
 *  prompt_text, or one of our story openings picked by prompt_seed); its answer also holds prompt_text and pieces
 *  (one string per token of tokens_nocache, as the tokenizer writes it), and steps.model its name and
 *  source: "file" where a preset's holds preset */
Module['measure'] = function (options, onProgress) {
  return kvlabUnwrap(Module['measure_json'](kvlabToJson(options, 'options'), kvlabProgress(onProgress)));
};

/** modelInfo(options?) -> { weights, kv, parameters, weight_bytes, kv_bytes_per_token, ... }; options.source:
 *  "loaded" describes the loaded model ({name, source: "file", ...}) */
Module['modelInfo'] = function (options) {
  return kvlabUnwrap(Module['model_info_json'](kvlabToJson(options, 'options')));
};

/** bench({source, measure, answer_runs, simulator, weight_formats, kv_formats}?, onProgress?) -> { instruction_set, peak_gflops, read_gb_per_s,
 *  matrix, decode: [{context, rows1, rows16, tokens_per_s_ratio}], decode_fraction_of_bandwidth, rows16_fraction_of_peak,
 *  weight_formats?, kv_formats?, answer?, simulator? } (what `kvlab bench` prints); source: "loaded" times the loaded
 *  model (as measure's options.source) */
Module['bench'] = function (options, onProgress) {
  return kvlabUnwrap(Module['bench_json'](kvlabToJson(options, 'options'), kvlabProgress(onProgress)));
};

/** inputLimits() -> { max_bytes, max_values, max_depth, max_members, max_string_bytes, size_limit_text }: the
 *  structural limits of every input (docs/RELIABILITY.md) */
Module['inputLimits'] = function () {
  return Object.assign({}, kvlabInputLimits());
};

/** memory() -> { heap_bytes, in_use_bytes }: the wasm heap's size and what malloc holds of it */
Module['memory'] = function () {
  return kvlabUnwrap(Module['memory_json']());
};

/** catalog() -> { model_presets, lab: {defaults, policies}, replay: {policies, block_tokens}, policy_forms, policies (each family's traits), limits }:
 *  what the page's forms offer, from the C++ that defines it (src/wasm/catalog.h) */
Module['catalog'] = function () {
  return kvlabUnwrap(Module['catalog_json']());
};

/** presets() -> [{ preset, description, vocab, d_model, ..., parameters, weight_bytes, kv_bytes_per_token }] */
Module['presets'] = function () {
  return kvlabUnwrap(Module['presets_json']());
};

/** simulate(steps, workload, policies?, options?) -> { [policy]: metrics }; options: { timeline_requests,
 *  queue_timeline, kv_tokens, kv_bytes, block_tokens, ttft_target_ms, tpot_target_ms } (docs/memory.md) */
Module['simulate'] = function (steps, workload, policies, options) {
  return kvlabUnwrap(
    Module['simulate_json'](
      kvlabToJson(steps, 'steps'),
      kvlabToJson(workload, 'workload'),
      policies === undefined ? 'null' : kvlabToJson(policies, 'policies'),
      options === undefined ? 'null' : kvlabToJson(options, 'options')
    )
  );
};

/** workload(workload) -> { arrival_ms, prompt_tokens, answer_tokens }: the requests simulate() serves for a
 *  workload object (generated or explicit, checked as simulate checks it), as columns in workload order: the
 *  generator's draws for its seed, named as a queue playback's requests */
Module['workload'] = function (workload) {
  return kvlabUnwrap(Module['workload_json'](kvlabToJson(workload, 'workload')));
};

/** roofline({gpu, model, weights, kv, tp, bw_efficiency, compute_efficiency, step_overhead_ms}) -> { model, decode,
 *  prefill }: a modeled step table for a GPU preset, in the shape simulate() takes (docs/gpu.md) */
Module['roofline'] = function (options) {
  return kvlabUnwrap(Module['roofline_json'](kvlabToJson(options, 'options')));
};

/** rooflineChecks({bw_efficiency, compute_efficiency}?) -> { efficiencies, figures: [{id, source, source_name,
 *  source_url, conditions, published, modeled, error_pct, fit, ...}] }: the published measurements against the
 *  model (docs/gpu.md) */
Module['rooflineChecks'] = function (options) {
  return kvlabUnwrap(Module['roofline_checks_json'](kvlabToJson(options, 'options')));
};

/** rooflinePresets() -> { gpus: [{name, description, memory_bytes, memory_bytes_per_s, link}], models: [{name,
 *  description, parameters, n_kv_heads}], weights, kv, max_tp }: what roofline() takes (the page's hardware switch) */
Module['rooflinePresets'] = function () {
  return kvlabUnwrap(Module['roofline_presets_json']());
};

/** run({source, measure, workload, policies, simulate, timeline_requests}?, onProgress?, onPart?) -> { answer, steps,
 *  workload, policies } : measure, then simulate; onPart(name, value) gets 'first_answer' (the first run of
 *  each path), then 'answer' and 'steps' (the values the result holds) as each is measured. source: "loaded"
 *  runs the lab on the loaded model (as measure's options.source; options.measure then takes no preset) */
Module['run'] = function (options, onProgress, onPart) {
  return kvlabUnwrap(
    Module['run_json'](kvlabToJson(options, 'options'), kvlabProgress(onProgress), kvlabParts(onPart))
  );
};

/** replay({source, measure, workload, policies, nocache_requests, prompt_seed, timeline_requests, kv_tokens,
 *  block_tokens, after_prompt_rounds}?, onProgress?)
 *  -> { [policy]: { request_count, real, sim, error: {median_ttft, p95_ttft, makespan}, step_check } } :
 *  measure, serve the workload for real under each policy, simulate it, and compare (docs/replay.md).
 *  source: "loaded" serves the model loadModel loaded; its queue is story openings by default, and each of
 *  real.requests carries prompt_text, tokens and text, with answers_equal_alone per policy (docs/real-model.md).
 *  device: the page's GPU, {slots, step(rows, tokens) -> problem} (src/wasm/page_device.h), on which every
 *  timed and served pass runs; the CPU when undefined (docs/webgpu.md, "Replay on the GPU") */
Module['replay'] = function (options, onProgress, device) {
  return kvlabUnwrap(Module['replay_json'](kvlabToJson(options, 'options'), kvlabProgress(onProgress), device));
};

/** exportWeights(options?) -> { config, token_embedding, layers: [{attn_norm, wq, ...}], final_norm, w_out,
 *  rope_cos, rope_sin }: the model's weights as row-major Float32Arrays, for the plain-JS reference. */
Module['exportWeights'] = function (options) {
  return kvlabResultOf(Module['weights_value'](kvlabToJson(options, 'options')));
};

/** loadModel(files, {weights, kv, name}?) -> { name, source: "file", vocab, d_model, n_layers, n_heads, n_kv_heads,
 *  d_ff, max_seq, weights, kv, parameters, weight_bytes, kv_bytes_per_token, ... } (what modelInfo({source: "loaded"})
 *  replies): reads a real model from file bytes, files being {checkpoint, tokenizer}
 *  (a llama2.c checkpoint and its tokenizer file) or {gguf}, as Uint8Arrays or, in a worker, Blobs (Files: read a
 *  piece at a time, never whole outside the module); it replaces the model loaded before.
 *  name (default "model file") is what results call it (steps.model.name); measure, run, bench and modelInfo
 *  measure it with options.source: "loaded" */
Module['loadModel'] = function (files, options) {
  if (typeof files !== 'object' || files === null)
    throw new TypeError('files must be {checkpoint, tokenizer} or {gguf}');
  var readers = {};
  ['checkpoint', 'tokenizer', 'gguf'].forEach(function (name) {
    if (files[name] !== undefined) readers[name] = kvlabFileReader(files[name], 'files.' + name);
  });
  return kvlabUnwrap(Module['load_model_json'](readers, kvlabToJson(options, 'options')));
};

// A model file as the module reads it, {size, read(offset, length) -> Uint8Array}, a piece at a time into
// its heap. A Blob (a File the reader picked) is read piece by piece with FileReaderSync, which only a
// worker has, so that the whole file is never held twice (in JavaScript and in the heap).
function kvlabFileReader(file, field) {
  if (file instanceof Uint8Array)
    return {
      size: file.length,
      read: function (offset, length) {
        return file.subarray(offset, offset + length);
      },
    };
  if (typeof Blob === 'undefined' || !(file instanceof Blob))
    throw new TypeError(field + ' must be a Uint8Array or a Blob (a File)');
  if (typeof FileReaderSync === 'undefined')
    throw new TypeError(field + ' is a Blob, which the module reads only in a worker; pass its bytes as a Uint8Array');
  var reader = new FileReaderSync();
  return {
    size: file.size,
    read: function (offset, length) {
      return new Uint8Array(reader.readAsArrayBuffer(file.slice(offset, offset + length)));
    },
  };
}

/** generate({prompt, tokens}) -> { prompt_tokens, tokens, text }: greedy text from the loaded model, stopping
 *  early at BOS or EOS (what `kvlab generate --json` prints) */
Module['generate'] = function (options) {
  return kvlabUnwrap(Module['generate_json'](kvlabToJson(options, 'options')));
};

// Under Node the threaded module's workers (Emscripten pthreads, started as the module loads) must not
// keep a script running once its work is done; the single-threaded module has none. After the run:
// listening to a worker while it loads holds Node again.
if (typeof PThread !== 'undefined' && ENVIRONMENT_IS_NODE) {
  addOnPostRun(function () {
    PThread.unusedWorkers.forEach(function (worker) {
      worker.unref();
    });
  });
}
