#include "cli/flags.h"

#include <unistd.h>
#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

#include <algorithm>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/input_error.h"
#include "common/json_fields.h"
#include "common/json_input.h"
#include "model/thread_pool.h"
#include "model_files/model_file.h"
#include "policy/policy_registry.h"

namespace kvlab::cli {

using nlohmann::json;

namespace {

std::string dashed(std::string name) {
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

}  // namespace

json flag_value(const std::string& text, bool is_string) {
  if (!is_string) {
    json parsed = json::parse(text, nullptr, false);
    if (!parsed.is_discarded() && parsed.is_primitive()) return parsed;
  }
  return text;
}

bool number_shown_otherwise(const std::string& text) {
  const json value = flag_value(text);
  return value.is_number() && echo_value(value) != text;
}

int slots_flag(const std::string& text) {
  const json value = flag_value(text);
  if (value.is_number_integer() && value.get<long long>() >= INT_MIN && value.get<long long>() <= INT_MAX)
    return value.get<int>();
  return static_cast<int>(fields::as_int(value, "options.policies", 1, policy::kMaxBatchRows));
}

void JsonFlags::add(CLI::App& command, const std::string& field, const std::string& object_path,
                    const std::string& help, bool is_list, bool is_string, const json& absent) {
  flags_.push_back(std::make_unique<Flag>(Flag{field, object_path, "", is_list, is_string, absent, nullptr}));
  Flag& flag = *flags_.back();
  flag.option = command.add_option("--" + dashed(field), flag.value, help);
}

json JsonFlags::to_json() const {
  json object = json::object();
  for (const auto& owned : flags_) {
    const Flag& flag = *owned;
    json value;
    if (flag.option->count() == 0) {
      if (flag.absent.is_null()) continue;
      value = flag.absent;
    } else if (flag.is_list) {
      value = json::array();
      std::stringstream items(flag.value);
      for (std::string item; std::getline(items, item, ',');) value.push_back(flag_value(item, false));
    } else {
      value = flag_value(flag.value, flag.is_string);
    }
    json& target = flag.object_path.empty() ? object : object[flag.object_path];
    target[flag.field] = value;
  }
  return object;
}

std::string JsonFlags::field_path(const Flag& flag) {
  return flag.object_path.empty() ? flag.field : flag.object_path + "." + flag.field;
}

const JsonFlags::Flag* JsonFlags::flag_at(const std::string& path) const {
  for (const auto& flag : flags_) {
    const std::string field = field_path(*flag);
    if (path == field || path.rfind(field + "[", 0) == 0) return flag.get();
  }
  return nullptr;
}

std::string JsonFlags::flag_for(const std::string& path) const {
  const Flag* flag = flag_at(path);
  return flag ? "--" + dashed(flag->field) : "";
}

bool JsonFlags::given(const std::string& path) const {
  const Flag* flag = flag_at(path);
  return flag && flag->option->count() > 0;
}

std::string JsonFlags::typed_for(const std::string& path) const {
  const Flag* flag = flag_at(path);
  return flag && !flag->is_list && flag->option->count() > 0 && field_path(*flag) == path ? flag->value : "";
}

std::string JsonFlags::given_under(const std::string& path) const {
  std::string given;
  for (const auto& flag : flags_)
    if (flag->object_path == path && flag->option->count() > 0)
      given += (given.empty() ? "" : " ") + std::string("--") + dashed(flag->field) + " " + flag->value;
  return given;
}

JsonFlags add_measure_flags(CLI::App& command) {
  JsonFlags flags;
  flags.add(command, "preset", "", "model preset: small (default), lab, medium, tiny", false, true);
  for (const char* field : {"vocab", "d_model", "n_layers", "n_heads", "n_kv_heads", "d_ff", "max_seq", "seed"})
    flags.add(command, field, "model", std::string("model ") + field + " (overrides the preset)");
  flags.add(command, "weights", "", "weight format: f32 (default) or bf16 (half the bytes, rounded to nearest even)",
            false, true);
  flags.add(command, "kv", "",
            "KV cache format: f32 (default), bf16 or f16 (half the bytes a token, rounded to nearest even)", false,
            true);
  flags.add(command, "prompt_tokens", "",
            "Part A prompt length (default 16; a model with a tokenizer takes --prompt-text)");
  flags.add(command, "prompt_text", "",
            "Part A prompt as text, on a model read from files (default: a story opening picked by --prompt-seed)",
            false, true);
  flags.add(command, "answer_tokens", "", "Part A answer length (default 48)");
  flags.add(command, "runs", "", "Part A runs per path (default 5)");
  flags.add(command, "prompt_seed", "", "seed of the Part A prompt (default 7)");
  flags.add(command, "decode_rows", "", "decode grid rows, e.g. 1,2,4,8,16", true);
  flags.add(command, "decode_contexts", "", "decode grid contexts, e.g. 8,16,32,64,128", true);
  flags.add(command, "prefill_tokens", "", "prefill grid token counts, e.g. 1,2,4,...,128", true);
  flags.add(command, "mixed_chunk_tokens", "", "mixed-step grid prompt-chunk sizes (default 8,32)", true);
  flags.add(command, "mixed_rows", "", "mixed-step grid decode rows (default 1,8)", true);
  flags.add(command, "mixed_contexts", "", "mixed-step grid decode contexts (default 64)", true);
  flags.add(command, "min_sample_ms", "", "shortest timed sample, ms (default 5)");
  flags.add(command, "samples", "", "samples per grid cell (default 5)");
  flags.add(command, "threads", "",
            "threads the model runs on, 1.." + std::to_string(max_threads()) + " (default " +
                std::to_string(device_threads()) + ": what this device offers)",
            false, false, device_threads());
  return flags;
}

namespace {

// The whole file, refused past max_bytes (limit_text says the limit: "more than 64 MiB"), in a string
// or a ByteBuffer; expected_bytes (the file's size, when it says it) is reserved up front, so that the
// bytes are read into their place once, without a copy as the buffer grows.
template <class Bytes>
Bytes read_at_most(const std::string& path, const std::string& flag, size_t max_bytes, const std::string& limit_text,
                   size_t expected_bytes = 0) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_range(flag + ": cannot read file \"" + path + "\"");
  // In pieces, up to one byte past the limit: a file that never ends (/dev/zero) is refused, not read.
  Bytes bytes;
  bytes.reserve(expected_bytes);
  std::vector<char> piece(1 << 20);
  while (in.read(piece.data(), static_cast<std::streamsize>(piece.size())) || in.gcount() > 0) {
    bytes.insert(bytes.end(), piece.data(), piece.data() + in.gcount());
    if (bytes.size() > max_bytes) throw_range(flag + ": file \"" + path + "\" has " + limit_text);
  }
  if (in.bad()) throw_range(flag + ": cannot read file \"" + path + "\"");
  return bytes;
}

}  // namespace

std::string read_file(const std::string& path, const std::string& flag) {
  return read_at_most<std::string>(path, flag, json_input::kLimits.max_bytes, json_input::size_limit_text());
}

ByteBuffer read_model_file(const std::string& path, const std::string& flag) {
  const std::string limit = std::to_string(kMaxModelFileBytes >> 20) + " MiB (the most kvlab loads)";
  // Refused by what the file system says before a byte is read: a model is a regular file of known size;
  // a device (/dev/zero), a pipe or a directory is not, and would be read until the limit.
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (error) throw_range(flag + ": cannot read file \"" + path + "\": " + error.message());
  if (!std::filesystem::is_regular_file(status))
    throw_range(flag + ": \"" + path +
                "\" is not a regular file (a device, a pipe or a directory): a model file is read whole, by its size");
  const uintmax_t size = std::filesystem::file_size(path, error);
  if (error) throw_range(flag + ": cannot read file \"" + path + "\": " + error.message());
  if (size > static_cast<uintmax_t>(kMaxModelFileBytes))
    throw_range(flag + ": file \"" + path + "\" has " + std::to_string(size >> 20) + " MiB, more than " + limit);
  // Read in pieces up to the limit all the same: a file that grows while it is read is still bounded.
  return read_at_most<ByteBuffer>(path, flag, static_cast<size_t>(kMaxModelFileBytes), "more than " + limit,
                                  static_cast<size_t>(size));
}

nlohmann::json read_json_file(const std::string& path, const std::string& flag) {
  return json_input::parse(read_file(path, flag), flag + " " + path);
}

namespace {

#ifdef __EMSCRIPTEN__
// Under Node, Emscripten's isatty() says yes for every standard stream; ask Node itself.
// The body is JavaScript, which clang-format would rewrite ("!==" into "!= =").
// clang-format off
EM_JS(int, node_stderr_is_tty, (), {
  return typeof process !== 'undefined' && process.stderr && process.stderr.isTTY ? 1 : 0;
});
// clang-format on
#endif

bool stderr_is_terminal() {
#ifdef __EMSCRIPTEN__
  return node_stderr_is_tty() != 0;
#else
  return isatty(STDERR_FILENO) != 0;
#endif
}

}  // namespace

ProgressFn terminal_progress() {
  if (!stderr_is_terminal()) return nullptr;
  return [](double fraction, const std::string& phase) {
    const int width = 30, filled = static_cast<int>(fraction * width);
    std::fprintf(stderr, "\r[%s%s] %3d%% %-24s", std::string(filled, '#').c_str(),
                 std::string(width - filled, '.').c_str(), static_cast<int>(fraction * 100), phase.c_str());
    if (fraction >= 1.0) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  };
}

}  // namespace kvlab::cli
