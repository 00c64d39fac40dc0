#include "wasm/page_device.h"

#include <string>

#include "common/input_error.h"

namespace kvlab::wasm {

using emscripten::val;

namespace {

int device_slots(const val& device, const std::string& path) {
  const val slots = device["slots"];
  if (!slots.isNumber() || slots.as<double>() < 1 || slots.as<double>() != static_cast<int>(slots.as<double>()))
    throw_range({path + ".slots", "", integers_from(1, 1 << 20)}, "must be an integer from 1");
  if (device["step"].typeOf().as<std::string>() != "function")
    throw_type({path + ".step", "", {}}, "must be a function (rows, tokens) -> problem");
  return slots.as<int>();
}

}  // namespace

PageDevice::PageDevice(val device, const std::string& path)
    : device_(std::move(device)), slots_(device_slots(device_, path), path + ".slots") {}

void PageDevice::run(const std::vector<Row>& rows, std::vector<int>& tokens) {
  const std::vector<int>& slots = slots_.slots_of(rows);
  packed_.clear();
  for (size_t r = 0; r < rows.size(); ++r)
    packed_.insert(packed_.end(), {rows[r].token, slots[r], rows[r].position, rows[r].want_logits ? 1 : 0});
  // Views of wasm memory, valid for the call: nothing here allocates while the page's step runs.
  const std::string problem = device_
                                  .call<val>("step", val(emscripten::typed_memory_view(packed_.size(), packed_.data())),
                                             val(emscripten::typed_memory_view(tokens.size(), tokens.data())))
                                  .as<std::string>();
  if (!problem.empty()) throw DeviceError("the GPU stopped: " + problem);
}

}  // namespace kvlab::wasm
