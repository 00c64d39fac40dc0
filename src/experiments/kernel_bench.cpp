#include "experiments/kernel_bench.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "common/input_error.h"
#include "common/json_fields.h"
#include "common/text_format.h"
#include "measure/measure_report.h"
#include "measure/step_timer.h"
#include "model/block_quantizer.h"
#include "model/generate.h"
#include "model/kernels.h"
#include "model/model.h"
#include "model/simd_arch.h"
#include "model/thread_pool.h"
#include "sim/simulate.h"

namespace kvlab::experiments {

using nlohmann::json;

namespace {

constexpr int kLimitsContext = 64;  // the context of the published lab's decode figures
// The contexts the decode steps are timed at; the figures at the limits are those at kLimitsContext.
const std::vector<int> kBenchContexts = {16, kLimitsContext, 128};

json timing_json(const StepTiming& t, double flops) {
  return {{"median_ms", t.median_ms}, {"min_ms", t.min_ms},   {"max_ms", t.max_ms},
          {"repeats", t.repeats},     {"samples", t.samples}, {"gflops", flops / (t.median_ms * 1e6)}};
}

// A repeatable piece of work to time and how much one run of it does (FLOPs or bytes), for its rate.
struct Probe {
  std::function<void()> run;
  double work;
};

// Peak arithmetic of this build: many independent multiply-add chains on registers, no memory.
// Each chain is a*x+b with |a| < 1, so the values stay bounded however long it runs.
Probe peak_probe(volatile float& sink) {
  constexpr int kChains = 12, kIterations = 4096;
#if KVLAB_SIMD
  using Batch = kernels::FloatBatch;
  constexpr int kLanes = static_cast<int>(Batch::size);
  auto body = [&sink] {
    Batch acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = Batch(0.001f * c);
    const Batch a(0.999f), b(0.001f);
    for (int i = 0; i < kIterations; ++i)
      for (int c = 0; c < kChains; ++c) acc[c] = xsimd::fma(acc[c], a, b);
    Batch total = acc[0];
    for (int c = 1; c < kChains; ++c) total += acc[c];
    sink = sink + xsimd::hadd(total);
  };
#else
  constexpr int kLanes = 1;
  auto body = [&sink] {
    float acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = 0.001f * c;
    for (int i = 0; i < kIterations; ++i)
      for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * 0.999f + 0.001f;
    float total = 0;
    for (float x : acc) total += x;
    sink = sink + total;
  };
#endif
  return {body, 2.0 * kLanes * kChains * kIterations};
}

// Eight segments of `segment` floats from `data` read side by side, as the matmul reads eight weight
// panels (one stream alone reaches only part of the bandwidth: the hardware prefetcher tracks several);
// returns their sum so that the reads cannot be left out. data is aligned, segment a multiple of 64.
constexpr size_t kReadStreams = 8;
float read_streams(const float* data, size_t segment) {
#if KVLAB_SIMD
  using Batch = kernels::FloatBatch;
  Batch sum[kReadStreams];
  for (Batch& s : sum) s = Batch(0.0f);
  for (size_t i = 0; i < segment; i += Batch::size)
    for (size_t k = 0; k < kReadStreams; ++k) sum[k] += Batch::load_aligned(data + k * segment + i);
  Batch total = sum[0];
  for (size_t k = 1; k < kReadStreams; ++k) total += sum[k];
  return xsimd::hadd(total);
#else
  float sum[kReadStreams] = {};
  for (size_t i = 0; i < segment; ++i)
    for (size_t k = 0; k < kReadStreams; ++k) sum[k] += data[k * segment + i];
  return sum[0] + sum[kReadStreams - 1];
#endif
}

// Streaming read bandwidth over `buffer` (as large as the model's weights) on `pool`'s threads, read
// over and over the way one-row decode steps read the weights: in contiguous pieces the threads claim,
// as the matmul shares out its panels. A decode step on those threads cannot take less than the bytes it
// reads / this; on one thread and on more, it says how much of the memory's bandwidth one core leaves
// unused. `sums` (one per piece) outlives the probe.
Probe read_probe(ThreadPool& pool, const FloatBuffer& buffer, std::vector<float>& sums, volatile float& sink) {
  const size_t unit = kReadStreams * 64;
  const int n_pieces = piece_count(static_cast<int>(buffer.size() / unit), pool.size());
  const size_t piece_size = buffer.size() / static_cast<size_t>(n_pieces) / unit * unit;
  sums.assign(static_cast<size_t>(n_pieces), 0.0f);
  auto body = [&pool, &buffer, &sums, &sink, n_pieces, piece_size] {
    pool.run(n_pieces, [&](int piece, int) {
      sums[piece] = read_streams(buffer.data() + static_cast<size_t>(piece) * piece_size, piece_size / kReadStreams);
    });
    float total = 0;
    for (float s : sums) total += s;
    sink = sink + total;
  };
  return {body, 4.0 * static_cast<double>(piece_size * static_cast<size_t>(n_pieces))};
}

// A buffer of ones as large as the model's weights.
FloatBuffer weights_sized_buffer(const ModelConfig& c) {
  return FloatBuffer(static_cast<size_t>(model_size(c).weight_bytes / 4 / 64 * 64), 1.0f);
}

// Bytes a one-row decode step at `context` reads: every weight matrix and norm, one row of the token
// embedding (not the whole table, which model_size's weight_bytes counts) and the keys and values of
// the context in every layer.
double one_row_step_bytes(const Model& model, int context) {
  const ModelConfig& c = model.config();
  double bytes = 0;
  for (const PackedMatrix* m : weight_matrices(model.weights())) bytes += static_cast<double>(m->bytes());
  const Weights& w = model.weights();
  const double norm_floats = (2.0 * c.n_layers + 1) * c.d_model;
  const double embedding_row_bytes =
      w.token_embedding.empty() ? static_cast<double>(w.quantized_embedding.row_bytes()) : 4.0 * c.d_model;
  return bytes + 4.0 * norm_floats + embedding_row_bytes +
         static_cast<double>(model_size(c).kv_bytes_per_token) * context;
}

// Everything the benchmark compares, timed interleaved (a sample of each in turn, the same number of
// samples, the median of each): the peak and the read bandwidth in the same rounds as the steps they
// are held against, so that a loaded machine slows the limits and the steps alike.
json measure_kernels_and_decode(Model& model, const TimingPolicy& policy, const std::vector<int>& contexts,
                                const std::function<void(double)>& on_round) {
  const ModelConfig& c = model.config();
  volatile float sink = 0;
  std::vector<std::string> names;
  std::vector<Probe> probes;
  auto add = [&](std::string name, Probe probe) {
    names.push_back(std::move(name));
    probes.push_back(std::move(probe));
  };
  add("peak", peak_probe(sink));
  const FloatBuffer read_buffer = weights_sized_buffer(c);
  std::vector<float> read_sums;
  add("read", read_probe(model.pool(), read_buffer, read_sums, sink));

  // One weight matrix of the model (w_gate) times 1 row (matrix-vector) and 16 rows (matrix-matrix).
  const PackedMatrix& gate = model.weights().layers[0].w_gate;
  std::vector<float> x(static_cast<size_t>(16) * widest_matrix_input(c), 0.5f), interleaved(x.size());
  std::vector<float> out(static_cast<size_t>(16) * std::max({c.d_model, c.d_ff, c.vocab}));
  for (int rows : {1, 16})
    add(rows == 1 ? "matvec" : "matmul16",
        {[&, rows] { kernels::matmul(out.data(), x.data(), gate, rows, interleaved.data()); },
         2.0 * rows * gate.n_out * gate.n_in});
  // Every matrix of the model times one row: the one-row step's matmuls without the rest of the step.
  const std::vector<const PackedMatrix*> matrices = weight_matrices(model.weights());
  double matrix_bytes = 0, matrix_flops = 0;
  for (const PackedMatrix* m : matrices) {
    matrix_bytes += static_cast<double>(m->bytes());
    matrix_flops += 2.0 * m->n_out * m->n_in;
  }
  add("matrices_rows1", {[&] {
                           for (const PackedMatrix* m : matrices)
                             kernels::matmul(out.data(), x.data(), *m, 1, interleaved.data());
                         },
                         matrix_flops});

  // Decode steps of 1 and 16 rows at each context, every row with its own cache.
  const int max_context = *std::max_element(contexts.begin(), contexts.end());
  std::vector<KvCache> caches(16, KvCache(c, max_context));
  std::vector<int> history = make_prompt(max_context, c.vocab, 11);
  prefill(model, caches[0], history.data(), max_context - 1, 0);
  for (KvCache& cache : caches) cache = caches[0];
  model.reserve_rows(16);
  std::vector<std::vector<Row>> batches;
  batches.reserve(2 * contexts.size());
  for (int context : contexts) {
    for (int rows : {1, 16}) {
      std::vector<Row> batch;
      for (int r = 0; r < rows; ++r) batch.push_back(Row{history[context - 1], &caches[r], context - 1, true});
      batches.push_back(std::move(batch));
      const std::vector<Row>& step = batches.back();
      add("decode", {[&model, &step] { model.forward(step); }, rows * decode_step_flops(c, context)});
    }
  }

  std::vector<std::function<void()>> runs;
  for (const Probe& p : probes) runs.push_back(p.run);
  const std::vector<StepTiming> t = time_steps_interleaved(runs, policy, on_round);
  const auto rate = [&](size_t i) { return probes[i].work / (t[i].median_ms * 1e6); };

  json result;
  result["peak_gflops"] = rate(0);
  result["read_gb_per_s"] = rate(1);
  result["matrix"] = {
      {"matvec", timing_json(t[2], probes[2].work)},
      {"matmul16", timing_json(t[3], probes[3].work)},
      {"matrix", {{"n_out", gate.n_out}, {"n_in", gate.n_in}, {"bytes", static_cast<double>(gate.bytes())}}}};
  result["matrices_rows1"] = timing_json(t[4], probes[4].work);
  result["matrices_rows1"]["bytes_read"] = matrix_bytes;
  result["matrices_rows1"]["gb_per_s"] = matrix_bytes / (t[4].median_ms * 1e6);
  result["decode"] = json::array();
  for (size_t k = 0; k < contexts.size(); ++k) {
    const size_t one = 5 + 2 * k, sixteen = one + 1;
    json entry = {{"context", contexts[k]},
                  {"rows1", timing_json(t[one], probes[one].work)},
                  {"rows16", timing_json(t[sixteen], probes[sixteen].work)}};
    entry["rows1"]["bytes_read"] = one_row_step_bytes(model, contexts[k]);
    entry["rows1"]["gb_per_s"] = entry["rows1"]["bytes_read"].get<double>() / (t[one].median_ms * 1e6);
    entry["tokens_per_s_ratio"] = 16.0 * t[one].median_ms / t[sixteen].median_ms;
    result["decode"].push_back(entry);
  }
  return result;
}

// A way to store the measured weights: a number format of the matrices (f32, bf16), or a block format
// (a GGUF file's: block_format.h), named as the result names it.
struct StoredWeights {
  std::string name;
  NumberFormat numbers = NumberFormat::f32;
  std::optional<BlockFormat> blocks;
};

std::vector<StoredWeights> stored_weights() {
  std::vector<StoredWeights> ways;
  for (NumberFormat format : model_weight_formats()) ways.push_back({number_format_name(format), format, {}});
  for (const BlockFormatTraits& t : block_formats()) ways.push_back({t.name, NumberFormat::f32, t.format});
  return ways;
}

// The measured weights stored `way`: a preset's drawn again, a file model's repacked from the loaded ones
// (a model loaded in bf16 holds its rounded values in f32 too: the same bytes to stream); in a block
// format, quantized from those (block_quantizer.h).
std::unique_ptr<Model> model_stored(const MeasureOptions& o, const StoredWeights& way) {
  if (!o.file.model && !way.blocks) {
    ModelConfig config = o.model;
    config.weights = way.numbers;
    return std::make_unique<Model>(config);
  }
  WeightTensors tensors = unpack_weights(o.file.model ? o.file.model->weights() : make_weights(o.model));
  tensors.config.weights = way.numbers;
  if (way.blocks) tensors = quantize_matrices(std::move(tensors), *way.blocks);
  return std::make_unique<Model>(pack_weights(std::move(tensors)));
}

// Steps of 1 and 16 rows at `context` with the same weights in f32, bf16 and each block format, timed
// interleaved (a sample of each in turn) with a read of a weights-sized buffer, so that a loaded machine
// slows all alike: bf16 streams about half the bytes of f32, Q8_0 about 0.27, Q4_0 and Q4_K 0.14. Each
// format's figures are its one-row step's (with its bytes read, GB/s, their fraction of the read
// bandwidth and its tokens/s over f32's), its 16-row step's ("rows16", and its time over the one-row
// step's) and the tokens/s of both.
json measure_weight_formats(const MeasureOptions& o, const TimingPolicy& policy, int context) {
  constexpr int kRows = 16;
  const std::vector<StoredWeights> ways = stored_weights();
  std::vector<std::unique_ptr<Model>> models;
  std::vector<std::vector<KvCache>> caches;  // [format][row]: each row's cache holds the history
  std::vector<std::vector<Row>> one_row, rows16;
  const std::vector<int> history = make_prompt(context, o.model.vocab, 11);
  for (const StoredWeights& way : ways) {
    models.push_back(model_stored(o, way));
    Model& model = *models.back();
    model.reserve_rows(kRows);
    KvCache first(model.config(), context);
    prefill(model, first, history.data(), context - 1, 0);
    caches.emplace_back(static_cast<size_t>(kRows), first);
  }
  for (size_t m = 0; m < models.size(); ++m) {
    std::vector<Row> batch;
    for (KvCache& cache : caches[m]) batch.push_back(Row{history[context - 1], &cache, context - 1, true});
    one_row.push_back({batch.front()});
    rows16.push_back(std::move(batch));
  }
  // every format's one-row step, then every format's 16-row step, then the read
  std::vector<std::function<void()>> steps;
  for (size_t m = 0; m < models.size(); ++m) steps.push_back([&, m] { models[m]->forward(one_row[m]); });
  for (size_t m = 0; m < models.size(); ++m) steps.push_back([&, m] { models[m]->forward(rows16[m]); });
  volatile float sink = 0;
  const FloatBuffer read_buffer = weights_sized_buffer(models[0]->config());
  std::vector<float> read_sums;
  const Probe read = read_probe(models[0]->pool(), read_buffer, read_sums, sink);
  steps.push_back(read.run);
  const std::vector<StepTiming> t = time_steps_interleaved(steps, policy);
  const double read_gb_per_s = read.work / (t.back().median_ms * 1e6);
  json result = json::object();
  for (size_t m = 0; m < models.size(); ++m) {
    const ModelConfig& c = models[m]->config();
    const StepTiming& one = t[m];
    const StepTiming& sixteen = t[models.size() + m];
    json entry = timing_json(one, decode_step_flops(c, context));
    entry["weight_bytes"] = weight_storage(models[m]->weights()).bytes;
    entry["bytes_read"] = one_row_step_bytes(*models[m], context);
    entry["gb_per_s"] = entry["bytes_read"].get<double>() / (one.median_ms * 1e6);
    entry["fraction_of_read_bandwidth"] = entry["gb_per_s"].get<double>() / read_gb_per_s;
    entry["rows16"] = timing_json(sixteen, kRows * decode_step_flops(c, context));
    entry["rows16_over_rows1"] = sixteen.median_ms / one.median_ms;  // what 16 rows cost in one-row steps
    entry["tokens_per_s"] = {{"rows1", 1000.0 / one.median_ms}, {"rows16", kRows * 1000.0 / sixteen.median_ms}};
    entry["rows1_tokens_per_s_over_f32"] = t[0].median_ms / one.median_ms;
    result[ways[m].name] = entry;
  }
  result["context"] = context;
  result["read_gb_per_s"] = read_gb_per_s;
  result["bf16_over_f32"] = t[1].median_ms / t[0].median_ms;
  return result;
}

// Decode steps of 1 and 16 rows at a middle and the longest context with the KV cache in f32, bf16 and
// f16, every cell timed interleaved with the others (a loaded machine slows all alike). One model serves
// every format: the format is the caches' (each cache's pool holds its own numbers), the weights the same.
json measure_kv_formats(Model& model, const TimingPolicy& policy) {
  const ModelConfig& config = model.config();
  const std::vector<NumberFormat>& formats = model_kv_formats();
  const int longest = config.max_seq;
  std::vector<int> contexts = {std::min(64, longest), longest};
  contexts.erase(std::unique(contexts.begin(), contexts.end()), contexts.end());
  const std::vector<int> row_counts = {1, 16};
  model.reserve_rows(row_counts.back());
  const std::vector<int> history = make_prompt(longest, config.vocab, 11);
  std::vector<std::vector<KvCache>> caches;  // [format][row]: each row's cache holds the history
  for (NumberFormat format : formats) {
    ModelConfig c = config;
    c.kv = format;
    KvCache first(c, longest);
    prefill(model, first, history.data(), longest - 1, 0);
    caches.emplace_back(static_cast<size_t>(row_counts.back()), first);
  }
  std::vector<std::vector<Row>> batches;  // [cell][row], cells in order context, rows, format
  for (int context : contexts)
    for (int rows : row_counts)
      for (size_t f = 0; f < formats.size(); ++f) {
        std::vector<Row> batch;
        for (int r = 0; r < rows; ++r) batch.push_back(Row{history[context - 1], &caches[f][r], context - 1, true});
        batches.push_back(batch);
      }
  std::vector<std::function<void()>> steps;
  for (size_t i = 0; i < batches.size(); ++i) steps.push_back([&, i] { model.forward(batches[i]); });
  const std::vector<StepTiming> t = time_steps_interleaved(steps, policy);

  json cells = json::array(), bytes_per_token = json::object();
  size_t cell = 0;
  for (int context : contexts)
    for (int rows : row_counts) {
      json entry = {{"context", context}, {"rows", rows}};
      for (NumberFormat format : formats)
        entry[number_format_name(format)] = timing_json(t[cell++], rows * decode_step_flops(config, context));
      for (const char* name : {"bf16", "f16"})
        entry[std::string(name) + "_over_f32"] =
            entry[name]["median_ms"].get<double>() / entry["f32"]["median_ms"].get<double>();
      cells.push_back(entry);
    }
  for (NumberFormat format : formats) {
    ModelConfig c = config;
    c.kv = format;
    bytes_per_token[number_format_name(format)] = model_size(c).kv_bytes_per_token;
  }
  return {{"contexts", contexts}, {"rows", row_counts}, {"kv_bytes_per_token", bytes_per_token}, {"cells", cells}};
}

// A step table shaped like a measured one, for timing the simulator alone.
sim::StepTable synthetic_steps() {
  sim::StepGrids grids;
  grids.decode_rows = {1, 2, 4, 8, 16};
  grids.decode_contexts = {8, 16, 32, 64, 128};
  for (double rows : grids.decode_rows)
    for (double context : grids.decode_contexts) grids.decode_ms.push_back(1.5 + 0.3 * rows + 0.002 * rows * context);
  grids.prefill_tokens = {1, 2, 4, 8, 16, 32, 64, 128};
  grids.prefill_ms = {1.5, 1.6, 1.8, 2.2, 3.0, 4.6, 7.8, 14.2};
  return sim::StepTable(std::move(grids));
}

// Thread counts the scaling section times: 1, 2, 4, ... below `most`, then `most` itself.
std::vector<int> thread_counts(int most) {
  std::vector<int> counts;
  for (int n = 1; n < most; n *= 2) counts.push_back(n);
  counts.push_back(most);
  return counts;
}

// The forward pass on 1, 2, 4, ... `most` threads: the one-row and the 16-row decode step at context 64
// and a prefill of 128 tokens (max_seq if fewer), and a read of a weights-sized buffer (the one-row
// step's limit), every cell timed interleaved with the others (a loaded machine slows all alike), each
// count on a model of its own over the same packed weights, the read on that model's pool; then
// an empty fork and join on a pool of each size (after the models are gone, so that the module's
// workers suffice in wasm).
json measure_thread_scaling(const Model& model, const TimingPolicy& policy, int most) {
  const ModelConfig& c = model.config();
  const std::vector<int> counts = thread_counts(most);
  const int context = std::min(64, c.max_seq), prefill_tokens = std::min(128, c.max_seq);
  constexpr int kManyRows = 16;
  json result = {{"counts", counts},
                 {"context", context},
                 {"rows", kManyRows},
                 {"prefill_tokens", prefill_tokens},
                 {"forks_per_step", Model::forks_per_step(c)}};
  {
    std::vector<std::unique_ptr<Model>> models;
    for (int n : counts) {
      models.push_back(std::make_unique<Model>(model.weights()));
      models.back()->set_threads(n);
      models.back()->reserve_rows(std::max(prefill_tokens, kManyRows));
    }
    RepeatableDecodeRows decode(*models.front(), c, kManyRows, context, 11);
    const std::vector<Row> one_row = decode.rows(1, context), many_rows = decode.rows(kManyRows, context);
    KvCache prefill_cache(c, prefill_tokens);
    const std::vector<int> prompt = make_prompt(prefill_tokens, c.vocab, 13);
    std::vector<Row> prefill_rows;
    for (int t = 0; t < prefill_tokens; ++t)
      prefill_rows.push_back(Row{prompt[t], &prefill_cache, t, t == prefill_tokens - 1});
    const std::vector<const std::vector<Row>*> cells = {&one_row, &many_rows, &prefill_rows};
    // Each count's cells, then a read of a weights-sized buffer on the same pool: [count][cell + read].
    const size_t per_count = cells.size() + 1;
    const FloatBuffer read_buffer = weights_sized_buffer(c);
    std::vector<std::vector<float>> read_sums(counts.size());
    volatile float sink = 0;
    std::vector<std::function<void()>> steps;
    std::vector<double> read_bytes;
    for (size_t k = 0; k < models.size(); ++k) {
      Model& m = *models[k];
      for (const std::vector<Row>* rows : cells) steps.push_back([&m, rows] { m.forward(*rows); });
      Probe read = read_probe(m.pool(), read_buffer, read_sums[k], sink);
      steps.push_back(std::move(read.run));
      read_bytes.push_back(read.work);
    }
    const std::vector<StepTiming> t = time_steps_interleaved(steps, policy);
    const char* names[] = {"rows1", "rows16", "prefill"};
    for (size_t cell = 0; cell < cells.size(); ++cell) {
      json ms = json::array(), speedup = json::array();
      for (size_t k = 0; k < counts.size(); ++k) {
        ms.push_back(t[k * per_count + cell].median_ms);
        speedup.push_back(t[cell].median_ms / t[k * per_count + cell].median_ms);
      }
      result[std::string(names[cell]) + "_ms"] = ms;
      result[std::string(names[cell]) + "_speedup"] = speedup;
    }
    // The memory's bandwidth on each count, and the share of it the one-row step reaches there.
    const double rows1_bytes = one_row_step_bytes(*models.front(), context);
    json read_gb_per_s = json::array(), rows1_gb_per_s = json::array();
    for (size_t k = 0; k < counts.size(); ++k) {
      read_gb_per_s.push_back(read_bytes[k] / (t[k * per_count + cells.size()].median_ms * 1e6));
      rows1_gb_per_s.push_back(rows1_bytes / (t[k * per_count].median_ms * 1e6));
    }
    result["rows1_bytes_read"] = rows1_bytes;
    result["read_gb_per_s"] = read_gb_per_s;
    result["rows1_gb_per_s"] = rows1_gb_per_s;
  }
  json fork_join_us = json::array();
  for (int n : counts) {
    ThreadPool pool(n);
    const StepTiming t = time_step([&] { pool.run(n, [](int, int) {}); }, policy);
    fork_join_us.push_back(1000 * t.median_ms);
  }
  result["fork_join_us"] = fork_join_us;
  return result;
}

json measure_simulator() {
  const sim::StepTable steps = synthetic_steps();
  const json lab_queue = {{"count", 1000}, {"prompt", {8, 32}}, {"answer", {16, 96}}, {"seed", 1}};
  const std::vector<policy::Request> lab_requests = sim::read_workload(lab_queue);
  const std::vector<sim::NamedPolicy> four = sim::parse_policies(policy::default_policies());
  auto time_once = [](const auto& body) {
    double start = now_ms();
    body();
    return now_ms() - start;
  };
  // Each run is timed with its JSON, what the CLI and the page get, as when simulate() returned JSON: the
  // figures stay comparable with the earlier runs'.
  const double cold_ms = time_once([&] { sim::simulate(steps, lab_requests, four).to_json(); });
  std::vector<double> warm;
  for (int i = 0; i < 5; ++i) warm.push_back(time_once([&] { sim::simulate(steps, lab_requests, four).to_json(); }));

  json big_queue = lab_queue;
  big_queue["count"] = 100000;
  const std::vector<policy::Request> big_requests = sim::read_workload(big_queue);
  const std::vector<sim::NamedPolicy> continuous = {four.back()};  // continuous:16
  sim::SimulateResult big_result;
  const double big_ms = time_once([&] {
    big_result = sim::simulate(steps, big_requests, continuous, {0});
    big_result.to_json();
  });
  const double steps_run = static_cast<double>(big_result.at(continuous.front().name).metrics.steps);
  return {{"lab_queue_4_policies_ms", {{"first_call", cold_ms}, {"median", summarise(warm).median_ms}}},
          {"requests_100000_continuous16_ms", big_ms},
          {"requests_per_s", 100000 / (big_ms / 1000)},
          {"simulated_steps_per_s", steps_run / (big_ms / 1000)}};
}

}  // namespace

BenchOptions read_bench_options(const json& object, const std::string& path, const FileModelRef& file) {
  fields::require_object(object, path);
  fields::reject_unknown(object, path,
                         {"measure", "answer_runs", "simulator", "weight_formats", "kv_formats", "thread_scaling"});
  json measure_object = object.value("measure", json::object());
  if (measure_object.is_object()) {
    if (!measure_object.contains("min_sample_ms")) measure_object["min_sample_ms"] = 20;
    if (!measure_object.contains("samples")) measure_object["samples"] = 7;
  }
  BenchOptions o;
  o.measure = read_measure_options(measure_object, fields::join(path, "measure"), file);
  o.answer_runs = static_cast<int>(fields::read_int(object, path, "answer_runs", o.answer_runs, 0, 100));
  o.simulator = fields::read_bool(object, path, "simulator", o.simulator);
  o.weight_formats = fields::read_bool(object, path, "weight_formats", o.weight_formats);
  o.kv_formats = fields::read_bool(object, path, "kv_formats", o.kv_formats);
  o.thread_scaling = fields::read_bool(object, path, "thread_scaling", o.thread_scaling);
  // Every step is timed at every context the benchmark uses, so the model must hold the longest.
  const int longest = kBenchContexts.back(), max_seq = o.measure.model.max_seq;
  if (max_seq < longest) {
    const std::string problem = "the benchmark times decode steps at context " + std::to_string(longest);
    const std::string measure_path = fields::join(path, "measure");
    if (o.measure.file.model)
      throw_range({measure_path, "", {}}, ": " + o.measure.file.name + " holds " + std::to_string(max_seq) +
                                              " positions; " + problem + ", so it needs a model of at least " +
                                              std::to_string(longest));
    throw_range(
        {fields::join(measure_path, "model.max_seq"), std::to_string(max_seq), integers_from(longest, 8192)},
        "must be at least " + std::to_string(longest) + ": " + problem + " (got " + std::to_string(max_seq) + ")");
  }
  return o;
}

double decode_step_flops(const ModelConfig& c, int context) {
  const double d = c.d_model, kv = c.kv_dim(), ff = c.d_ff;
  const double weights = c.n_layers * (2 * d * d + 2 * kv * d + 3 * d * ff) + c.vocab * d;
  const double attention = c.n_layers * 2.0 * 2.0 * c.n_heads * c.head_dim() * context;
  return 2 * weights + attention;
}

json run_kernel_bench(const BenchOptions& o, const ProgressFn& progress) {
  auto report = [&](double fraction, const char* phase) {
    if (progress) progress(fraction, phase);
  };
  TimingPolicy policy = o.measure.timing;
  // Every section but the thread scaling runs on one thread, so that each figure compares with the
  // limits of one core that the same rounds measure.
  MeasureOptions one_thread = o.measure;
  one_thread.threads = 1;
  MeasuredModel measured(one_thread);
  Model& model = measured.model();
  json result = {{"instruction_set", kernels::instruction_set()},
                 {"kvlab_arch", kernels::arch_setting()},
                 {"model", model_info(one_thread)}};

  const auto on_round = [&](double f) { report(0.45 * f, "limits and decode steps"); };
  result.update(measure_kernels_and_decode(model, policy, kBenchContexts, on_round));
  result["gemm_fraction_of_peak"] =
      result["matrix"]["matmul16"]["gflops"].get<double>() / result["peak_gflops"].get<double>();
  // How close the one-row step comes to its memory limit and the 16-row step to its arithmetic limit,
  // each against the limit this same build measured in the same rounds.
  const json& at_limits = result["decode"][1];
  const double read = result["read_gb_per_s"].get<double>();
  result["decode_fraction_of_bandwidth"] = at_limits["rows1"]["gb_per_s"].get<double>() / read;
  result["matrices_fraction_of_bandwidth"] = result["matrices_rows1"]["gb_per_s"].get<double>() / read;
  result["rows16_fraction_of_peak"] = at_limits["rows16"]["gflops"].get<double>() / result["peak_gflops"].get<double>();
  if (o.weight_formats) {
    report(0.45, "weight formats");
    result["weight_formats"] = measure_weight_formats(o.measure, policy, kLimitsContext);
  }
  if (o.kv_formats) {
    report(0.47, "KV formats");
    result["kv_formats"] = measure_kv_formats(model, policy);
  }
  if (o.thread_scaling) {
    report(0.48, "threads");
    result["thread_scaling"] = measure_thread_scaling(model, policy, o.measure.threads);
  }
  if (o.answer_runs > 0) {
    report(0.5, "one answer");
    MeasureOptions answer_only = one_thread;
    answer_only.runs = o.answer_runs;
    answer_only.decode_rows = {1};
    answer_only.decode_contexts = {8};
    answer_only.prefill_tokens = {1};
    answer_only.timing = {0.1, 1};
    result["answer"] = measure(answer_only).answer;
    result["answer"].erase("prompt");
  }
  if (o.simulator) {
    report(0.9, "simulator");
    result["simulator"] = measure_simulator();
  }
  report(1.0, "done");
  return result;
}

std::string format_kernel_bench(const json& r) {
  std::string text;
  text += format("kvlab bench: %s, model %s (%.1f MB of weights)\n", instruction_set_text(r["model"]).c_str(),
                 model_name_text(r["model"]).c_str(), r["model"]["weight_bytes"].get<double>() / 1e6);
  text += format("arithmetic peak (multiply-add chains)   %8.1f GFLOP/s\n", r["peak_gflops"].get<double>());
  text += format("read bandwidth over the weights' size   %8.1f GB/s\n", r["read_gb_per_s"].get<double>());
  const json& m = r["matrix"];
  text += format("matrix-vector %dx%d, 1 row            %8.1f GFLOP/s  (%.3f ms)\n", m["matrix"]["n_out"].get<int>(),
                 m["matrix"]["n_in"].get<int>(), m["matvec"]["gflops"].get<double>(),
                 m["matvec"]["median_ms"].get<double>());
  text += format("matrix-matrix, 16 rows                  %8.1f GFLOP/s  (%.3f ms), %.0f%% of peak\n",
                 m["matmul16"]["gflops"].get<double>(), m["matmul16"]["median_ms"].get<double>(),
                 100 * r["gemm_fraction_of_peak"].get<double>());
  text += format("decode step     1 row ms   16 rows ms   tokens/s gain   1 row GFLOP/s   1 row reads GB/s\n");
  for (const json& d : r["decode"])
    text += format("context %-5d %10.3f %12.3f %13.2fx %15.1f %20.1f\n", d["context"].get<int>(),
                   d["rows1"]["median_ms"].get<double>(), d["rows16"]["median_ms"].get<double>(),
                   d["tokens_per_s_ratio"].get<double>(), d["rows1"]["gflops"].get<double>(),
                   d["rows1"]["gb_per_s"].get<double>());
  const json& mr = r["matrices_rows1"];
  text += format("every weight matrix x 1 row (no attention, norms) %.3f ms, %.1f GB/s\n",
                 mr["median_ms"].get<double>(), mr["gb_per_s"].get<double>());
  text += format(
      "at context 64: 1 row streams what it reads at %.0f%% of the read bandwidth (its matrices alone at %.0f%%); "
      "16 rows compute at %.0f%% of the peak\n",
      100 * r["decode_fraction_of_bandwidth"].get<double>(), 100 * r["matrices_fraction_of_bandwidth"].get<double>(),
      100 * r["rows16_fraction_of_peak"].get<double>());
  if (r.contains("weight_formats")) {
    const json& w = r["weight_formats"];
    text += format(
        "one row at context %d, interleaved: f32 %.3f ms (%.1f GB/s), bf16 %.3f ms (%.1f GB/s); bf16 / f32 time %.2f\n",
        w["context"].get<int>(), w["f32"]["median_ms"].get<double>(), w["f32"]["gb_per_s"].get<double>(),
        w["bf16"]["median_ms"].get<double>(), w["bf16"]["gb_per_s"].get<double>(), w["bf16_over_f32"].get<double>());
    text += format("weights at context %d, interleaved (read bandwidth %.1f GB/s)\n", w["context"].get<int>(),
                   w["read_gb_per_s"].get<double>());
    text += "format   MB   1 row ms   GB/s   of read   tokens/s 1 row   x f32   16 rows\n";
    for (const StoredWeights& way : stored_weights()) {
      const json& f = w[way.name];
      text += format("%-6s %5.1f %9.3f %7.1f %8.0f%% %15.0f %7.2f %9.0f\n", way.name.c_str(),
                     f["weight_bytes"].get<double>() / 1e6, f["median_ms"].get<double>(), f["gb_per_s"].get<double>(),
                     100 * f["fraction_of_read_bandwidth"].get<double>(), f["tokens_per_s"]["rows1"].get<double>(),
                     f["rows1_tokens_per_s_over_f32"].get<double>(), f["tokens_per_s"]["rows16"].get<double>());
    }
  }
  if (r.contains("kv_formats")) {
    text += "KV cache format, interleaved   f32 ms   bf16 ms   f16 ms   bf16/f32   f16/f32\n";
    for (const json& c : r["kv_formats"]["cells"])
      text += format("context %-4d %3d row%s %12.3f %9.3f %8.3f %10.2f %9.2f\n", c["context"].get<int>(),
                     c["rows"].get<int>(), c["rows"].get<int>() == 1 ? " " : "s", c["f32"]["median_ms"].get<double>(),
                     c["bf16"]["median_ms"].get<double>(), c["f16"]["median_ms"].get<double>(),
                     c["bf16_over_f32"].get<double>(), c["f16_over_f32"].get<double>());
  }
  if (r.contains("thread_scaling")) {
    const json& s = r["thread_scaling"];
    text += format(
        "threads, interleaved (context %d; %d forks a step)   1 row ms   %d rows ms   prefill %d ms   "
        "speed-ups   fork+join us   read GB/s   1 row GB/s\n",
        s["context"].get<int>(), s["forks_per_step"].get<int>(), s["rows"].get<int>(), s["prefill_tokens"].get<int>());
    const size_t n_counts = s["counts"].size();
    for (size_t k = 0; k < n_counts; ++k)
      text += format("%2d thread%s %40.3f %11.3f %15.3f   %.2fx %.2fx %.2fx %8.2f %14.1f %12.1f\n",
                     s["counts"][k].get<int>(), s["counts"][k].get<int>() == 1 ? " " : "s",
                     s["rows1_ms"][k].get<double>(), s["rows16_ms"][k].get<double>(), s["prefill_ms"][k].get<double>(),
                     s["rows1_speedup"][k].get<double>(), s["rows16_speedup"][k].get<double>(),
                     s["prefill_speedup"][k].get<double>(), s["fork_join_us"][k].get<double>(),
                     s["read_gb_per_s"][k].get<double>(), s["rows1_gb_per_s"][k].get<double>());
    const double most_read = s["read_gb_per_s"][n_counts - 1].get<double>();
    text +=
        format("one thread reads %.0f%% of what %d read; the one-row step on %d reaches %.0f%% of their read\n",
               100 * s["read_gb_per_s"][0].get<double>() / most_read, s["counts"][n_counts - 1].get<int>(),
               s["counts"][n_counts - 1].get<int>(), 100 * s["rows1_gb_per_s"][n_counts - 1].get<double>() / most_read);
  }
  if (r.contains("answer")) {
    const json& a = r["answer"];
    text +=
        format("one answer (%d + %d tokens): no cache %.2f ms, KV cache %.2f ms, %.1fx\n",
               a["prompt_tokens"].get<int>(), a["answer_tokens"].get<int>(), a["nocache_ms"]["median"].get<double>(),
               a["cache_ms"]["median"].get<double>(), a["ratio"].get<double>());
  }
  if (r.contains("simulator")) {
    const json& s = r["simulator"];
    text += format("simulate 1,000 requests x 4 policies: %.1f ms (first call %.1f ms)\n",
                   s["lab_queue_4_policies_ms"]["median"].get<double>(),
                   s["lab_queue_4_policies_ms"]["first_call"].get<double>());
    text += format("simulate 100,000 requests, continuous:16: %.0f ms (%.0f requests/s, %.2g steps/s)\n",
                   s["requests_100000_continuous16_ms"].get<double>(), s["requests_per_s"].get<double>(),
                   s["simulated_steps_per_s"].get<double>());
  }
  return text;
}

}  // namespace kvlab::experiments
