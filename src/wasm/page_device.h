#pragma once
// The reader's GPU as a ForwardDevice (model/forward_device.h): a JavaScript object the page hands to
// replay(), {slots, step(rows, tokens) -> problem}. step gets Int32Array rows of four numbers each
// (token, device KV slot, position, whether the row gives a token) and writes the wanted rows' greedy
// tokens into `tokens`; it returns '' or what went wrong. It blocks until the GPU has answered: the
// page runs the GPU in another worker (web/src/webgpu/device-worker.js) and waits on shared memory.
#include <vector>

#include <emscripten/val.h>

#include "model/forward_device.h"
#include "model/model.h"

namespace kvlab::wasm {

class PageDevice : public ForwardDevice {
 public:
  // Throws InputError naming `path` unless device.slots is an integer from 1 and device.step a function.
  PageDevice(emscripten::val device, const std::string& path);

 protected:
  void run(const std::vector<Row>& rows, std::vector<int>& tokens) override;

 private:
  emscripten::val device_;
  DeviceSlots slots_;
  std::vector<int> packed_;  // [rows, 4]: token, slot, position, want_logits
};

}  // namespace kvlab::wasm
