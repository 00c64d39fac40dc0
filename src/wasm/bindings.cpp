// The Embind surface. Every call takes and returns JSON text: the reply is {"ok": result} or
// {"error": {"type", "message"}} (for bad input also "path", "given" and "allowed": the field as data),
// and the thin wrapper in api.js turns it into a plain JS object or a thrown RangeError/TypeError. No exception ever crosses Embind, because each JS throw through an
// Embind call leaks wasm stack (docs/toolchain.md) and enough of them corrupt the module.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/input_error.h"
#include "common/json_fields.h"
#include "common/json_input.h"
#include "experiments/kernel_bench.h"
#include "experiments/lab.h"
#include "experiments/replay.h"
#include "measure/measure.h"
#include "model/weights.h"
#include "model_files/gguf_llama.h"
#include "model_files/model_file.h"
#include "model_files/text_generation.h"
#include "roofline/published_figures.h"
#include "roofline/roofline_options.h"
#include "roofline/table.h"
#include "sim/simulate.h"
#include "wasm/catalog.h"
#include "wasm/page_device.h"

namespace kvlab::wasm {

using emscripten::val;
using nlohmann::json;

namespace {

// JSON text that never throws: text that is not UTF-8 is replaced, not refused (nlohmann type_error 316).
std::string reply_text(const json& reply) { return reply.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string error_reply(const char* type, const std::string& message) {
  return reply_text(json{{"error", {{"type", type}, {"message", message}}}});
}

// An InputError's reply carries its field as data: path, given, allowed (input_error.h).
std::string error_reply(const InputError& e) { return reply_text(json{{"error", e.to_json()}}); }

// The reply for the exception being handled, whatever it is: nothing a call throws reaches Embind.
std::string current_error_reply() {
  try {
    throw;
  } catch (const InputError& e) {
    return error_reply(e);
  } catch (const std::bad_alloc&) {
    return error_reply("RangeError", "out of memory: try a smaller model, grid or workload");
  } catch (const DeviceError& e) {
    return error_reply("Error", e.what());
  } catch (const std::exception& e) {
    return error_reply("Error", std::string("internal error: ") + e.what());
  } catch (...) {
    return error_reply("Error", "internal error: an exception of unknown type");
  }
}

// Runs `body`, which returns the result, and wraps it as a reply.
template <typename Body>
std::string reply(Body body) {
  try {
    return reply_text(json{{"ok", body()}});
  } catch (...) {
    return current_error_reply();
  }
}

// Progress goes to a JS function (the wrapper makes sure it never throws) or nowhere.
ProgressFn progress_to(val callback) {
  if (callback.isUndefined() || callback.isNull()) return nullptr;
  return [callback](double fraction, const std::string& phase) { callback(fraction, phase); };
}

// Parts of a result go to a JS function as JSON text, or nowhere.
PartFn parts_to(val callback) {
  if (callback.isUndefined() || callback.isNull()) return nullptr;
  return [callback](const std::string& name, const json& value) { callback(name, value.dump()); };
}

}  // namespace

namespace {

// The model read from files the page holds (fetched, or picked from the reader's disk): one at a time,
// replaced by each load.
struct FileModel {
  std::unique_ptr<Model> model;
  std::unique_ptr<Tokenizer> tokenizer;
  std::string name;  // loadModel's options.name
};
FileModel& file_model() {
  static FileModel loaded;
  return loaded;
}

// The model the options measure: with "source": "loaded" (taken out of `options`, at `path`), the
// model loadModel loaded; without it, a preset.
FileModelRef measured_source(json& options, const std::string& path) {
  if (!options.is_object() || !options.contains("source")) return {};
  const std::string field = fields::join(path, "source");
  const std::string source = fields::read_string(options, path, "source", "");
  if (source != "loaded")
    throw_range(
        {field, json(source).dump(), one_of({"loaded"})},
        "must be \"loaded\" (the model loadModel loaded), or absent for a preset (got " + json(source).dump() + ")");
  const FileModel& loaded = file_model();
  if (!loaded.model) throw_range({field, "\"loaded\"", {}}, "is \"loaded\", but no model is loaded (loadModel first)");
  options.erase("source");
  return {loaded.model.get(), loaded.tokenizer.get(), loaded.name};
}

// A model file's bytes, copied into the wasm heap from the reader the wrapper made of it (api.js,
// kvlabFileReader: {size, read(offset, length) -> Uint8Array}) a piece at a time, so that the page
// holds no second whole copy of a File it reads: the heap holds the file once. Refused by its size first.
ByteBuffer read_file_bytes(const val& reader, const std::string& field) {
  const double size = reader["size"].as<double>();
  if (!(size >= 0 && size <= static_cast<double>(kMaxModelFileBytes)))
    throw_range({field, json(size).dump(), {}}, "has " + std::to_string(static_cast<int64_t>(size) >> 20) +
                                                    " MiB; kvlab loads model files of at most " +
                                                    std::to_string(kMaxModelFileBytes >> 20) + " MiB");
  ByteBuffer bytes(static_cast<size_t>(size));
  constexpr size_t kPieceBytes = size_t{8} << 20;
  for (size_t at = 0; at < bytes.size(); at += kPieceBytes) {
    const size_t n = std::min(kPieceBytes, bytes.size() - at);
    const val piece = reader.call<val>("read", static_cast<double>(at), static_cast<double>(n));
    if (piece["length"].as<size_t>() != n)
      throw_range({field, "", {}}, "gave " + std::to_string(piece["length"].as<size_t>()) + " bytes at byte " +
                                       std::to_string(at) + " where " + std::to_string(n) + " were asked for");
    val(emscripten::typed_memory_view(n, bytes.data() + at)).call<void>("set", piece);
  }
  return bytes;
}

}  // namespace

std::string measure_json(const std::string& options, val progress) {
  return reply([&] {
    json object = json_input::parse(options, "options");
    const FileModelRef file = measured_source(object, "options");
    return measure(read_measure_options(object, "options", file), progress_to(progress)).to_json();
  });
}

std::string model_info_json(const std::string& options) {
  return reply([&] {
    json object = json_input::parse(options, "options");
    const FileModelRef file = measured_source(object, "options");
    return model_info(read_measure_options(object, "options", file));
  });
}

std::string simulate_json(const std::string& steps, const std::string& workload, const std::string& policies,
                          const std::string& options) {
  return reply([&] {
    json policy_list = json_input::parse(policies, "policies");
    json options_object = json_input::parse(options, "options");
    return sim::simulate_json(
        json_input::parse(steps, "steps"), json_input::parse(workload, "workload"),
        policy_list.is_null() ? policy::default_policies() : policy::read_policy_names(policy_list, "policies"),
        sim::read_simulate_options(options_object.is_null() ? json::object() : options_object));
  });
}

std::string workload_json(const std::string& workload) {
  return reply([&] { return sim::workload_columns(json_input::parse(workload, "workload")); });
}

std::string roofline_json(const std::string& options) {
  return reply([&] { return roofline::roofline(json_input::parse(options, "options")); });
}

std::string roofline_presets_json() {
  return reply([] { return roofline::roofline_presets_json(); });
}

std::string roofline_checks_json(const std::string& options) {
  return reply([&] {
    return roofline::published_checks_json(roofline::read_efficiencies(json_input::parse(options, "options")));
  });
}

std::string run_json(const std::string& options, val progress, val on_part) {
  return reply([&] {
    json object = json_input::parse(options, "options");
    const FileModelRef file = measured_source(object, "options");
    return experiments::run_lab(experiments::read_lab_options(object, "options", file), progress_to(progress),
                                parts_to(on_part));
  });
}

// device: undefined (the CPU), or the page's GPU (wasm/page_device.h).
std::string replay_json(const std::string& options, val progress, val device) {
  return reply([&] {
    json object = json_input::parse(options, "options");
    const FileModelRef file = measured_source(object, "options");
    const experiments::ReplayOptions replay_options = experiments::read_replay_options(object, "options", file);
    if (device.isUndefined()) return experiments::replay(replay_options, progress_to(progress)).to_json();
    PageDevice page_device(device, "device");
    return experiments::replay(replay_options, progress_to(progress), &page_device).to_json();
  });
}

// A copy of a float buffer as a JS Float32Array (a bare typed_memory_view would detach when memory grows).
val float_array(const FloatBuffer& buffer) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(buffer.size(), buffer.data()));
}

// The model's weights as row-major Float32Arrays, for implementations outside wasm (the plain-JS
// reference). Returns {error} instead of throwing, like every call here.
val weights_value(const std::string& options) {
  val result = val::object();
  try {
    const MeasureOptions o = read_measure_options(json_input::parse(options, "options"));
    const Weights w = make_weights(o.model);
    result.set("config", val::global("JSON").call<val>("parse", model_info(o).dump()));
    result.set("token_embedding", float_array(w.token_embedding));
    val layers = val::array();
    for (const LayerWeights& layer : w.layers) {
      val l = val::object();
      l.set("attn_norm", float_array(layer.attn_norm));
      l.set("ffn_norm", float_array(layer.ffn_norm));
      const std::pair<const char*, const PackedMatrix*> matrices[] = {
          {"wq", &layer.wq},         {"wk", &layer.wk},     {"wv", &layer.wv},        {"wo", &layer.wo},
          {"w_gate", &layer.w_gate}, {"w_up", &layer.w_up}, {"w_down", &layer.w_down}};
      for (const auto& [name, matrix] : matrices) l.set(name, float_array(unpack(*matrix)));
      layers.call<void>("push", l);
    }
    result.set("layers", layers);
    result.set("final_norm", float_array(w.final_norm));
    result.set("w_out", float_array(unpack(w.w_out)));
    result.set("rope_cos", float_array(w.rope_cos));
    result.set("rope_sin", float_array(w.rope_sin));
  } catch (const std::bad_alloc&) {
    return val::global("JSON").call<val>("parse", error_reply("RangeError", "out of memory: try a smaller model"));
  } catch (...) {
    return val::global("JSON").call<val>("parse", current_error_reply());
  }
  return result;
}

std::string bench_json(const std::string& options, val progress) {
  return reply([&] {
    json object = json_input::parse(options, "options");
    const FileModelRef file = measured_source(object, "options");
    return experiments::run_kernel_bench(experiments::read_bench_options(object, "options", file),
                                         progress_to(progress));
  });
}

// The model presets with their sizes, so that the page lists what this build knows.
std::string presets_json() {
  return reply([] {
    json list = json::array();
    for (const ModelPreset& preset : model_presets()) {
      MeasureOptions o;
      o.preset = preset.name;
      o.model = preset.config;
      json entry = model_info(o);
      entry["description"] = preset.description;
      list.push_back(entry);
    }
    return list;
  });
}

// The wasm heap: its size and the bytes malloc holds, so that tests can check that repeated calls
// leave both flat.
std::string memory_json() {
  return reply([] {
    const struct mallinfo info = mallinfo();
    return json{{"heap_bytes", emscripten_get_heap_size()}, {"in_use_bytes", info.uordblks}};
  });
}

// The structural limits of every JSON input, so that the wrapper refuses an oversized text before
// copying it into the wasm heap.
std::string input_limits_json() {
  return reply([] {
    const json_input::Limits& l = json_input::kLimits;
    return json{{"max_bytes", l.max_bytes},
                {"max_values", l.max_values},
                {"max_depth", l.max_depth},
                {"max_members", l.max_members},
                {"max_string_bytes", l.max_string_bytes},
                {"size_limit_text", json_input::size_limit_text()}};
  });
}

std::string catalog_json() {
  return reply([] { return page_catalog(); });
}

std::string version() { return KVLAB_VERSION; }

// files: {checkpoint, tokenizer} (a llama2.c checkpoint and its tokenizer file) or {gguf}, as readers
// (read_file_bytes); options: {"weights": "f32"|"bf16", "kv": "f32"|"bf16"|"f16", "name": what results call it
// (steps.model.name; default "model file")}. Replies with the model's sizes and name, as modelInfo does.
std::string load_model_json(val files, const std::string& options) {
  return reply([&] {
    const json parsed = json_input::parse(options, "options");
    const json& o = fields::require_object(parsed, "options");
    fields::reject_unknown(o, "options", {"weights", "kv", "name"});
    const std::string name = fields::read_string(o, "options", "name", "model file");
    if (name.empty()) throw_range({"options.name", "\"\"", {}}, "must not be empty: it names the model in results");
    const NumberFormat weights = parse_number_format(fields::read_string(o, "options", "weights", "f32"),
                                                     model_weight_formats(), "options.weights");
    const NumberFormat kv =
        parse_number_format(fields::read_string(o, "options", "kv", "f32"), model_kv_formats(), "options.kv");
    ModelFile file;
    if (!files["gguf"].isUndefined()) {
      file = read_gguf_llama(read_file_bytes(files["gguf"], "files.gguf"));
    } else {
      if (files["checkpoint"].isUndefined() || files["tokenizer"].isUndefined())
        throw_type({"files", "", {}}, "must hold {checkpoint, tokenizer} or {gguf}, as Uint8Arrays or Blobs");
      const ByteBuffer checkpoint = read_file_bytes(files["checkpoint"], "files.checkpoint"),
                       tokenizer = read_file_bytes(files["tokenizer"], "files.tokenizer");
      file = read_llama2c_files(checkpoint.data(), checkpoint.size(), tokenizer.data(), tokenizer.size());
    }
    file.tensors.config.weights = weights;
    file.tensors.config.kv = kv;
    FileModel& loaded = file_model();
    loaded = FileModel{};  // the old model's memory is free before the new one is packed
    loaded.tokenizer = std::make_unique<Tokenizer>(std::move(file.vocabulary));
    loaded.model = std::make_unique<Model>(pack_weights(std::move(file.tensors)));
    loaded.name = name;
    MeasureOptions described;  // what modelInfo({source: "loaded"}) replies
    described.model = loaded.model->config();
    described.file = {loaded.model.get(), loaded.tokenizer.get(), name};
    return model_info(described);
  });
}

// options: {"prompt": text, "tokens": n} on the loaded model -> {prompt_tokens, tokens, text}.
std::string generate_json(const std::string& options) {
  return reply([&] {
    FileModel& loaded = file_model();
    if (!loaded.model) throw_range("generate: no model is loaded (loadModel first)");
    const json parsed = json_input::parse(options, "options");
    const json& o = fields::require_object(parsed, "options");
    fields::reject_unknown(o, "options", {"prompt", "tokens"});
    const int n_tokens = static_cast<int>(fields::read_int(o, "options", "tokens", 64, 1, 8192));
    const std::string prompt = fields::read_string(o, "options", "prompt", "");
    TextGeneration out;
    try {
      out = generate_text(*loaded.model, *loaded.tokenizer, prompt, n_tokens);
    } catch (const InputError& e) {  // about "prompt" or "tokens": the fields of these options
      FieldError field = e.field();
      field.path = fields::join("options", field.path);
      throw InputError(e.kind(), field, e.problem());
    }
    // Byte tokens may leave a character unfinished where generation stopped: U+FFFD stands for it.
    const json text = json::parse(json(out.text).dump(-1, ' ', false, json::error_handler_t::replace));
    return json{{"prompt_tokens", out.prompt_tokens}, {"tokens", out.tokens}, {"text", text}};
  });
}

EMSCRIPTEN_BINDINGS(kvlab) {
  emscripten::function("measure_json", &measure_json);
  emscripten::function("model_info_json", &model_info_json);
  emscripten::function("simulate_json", &simulate_json);
  emscripten::function("workload_json", &workload_json);
  emscripten::function("roofline_json", &roofline_json);
  emscripten::function("roofline_checks_json", &roofline_checks_json);
  emscripten::function("roofline_presets_json", &roofline_presets_json);
  emscripten::function("run_json", &run_json);
  emscripten::function("replay_json", &replay_json);
  emscripten::function("weights_value", &weights_value);
  emscripten::function("presets_json", &presets_json);
  emscripten::function("bench_json", &bench_json);
  emscripten::function("memory_json", &memory_json);
  emscripten::function("input_limits_json", &input_limits_json);
  emscripten::function("catalog_json", &catalog_json);
  emscripten::function("version", &version);
  emscripten::function("load_model_json", &load_model_json);
  emscripten::function("generate_json", &generate_json);
}

}  // namespace kvlab::wasm
