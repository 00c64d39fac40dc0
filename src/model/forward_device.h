#pragma once
// A device the model's greedy passes can run on instead of this CPU: the reader's GPU, reached through
// the page (src/wasm/page_device.cpp). The device is given each pass's rows and gives back only each
// wanted row's greedy token, as a GPU step reads back token ids and not logits. It keeps its own copy
// of every KV cache a pass names, in a slot of its own memory: DeviceSlots says which.
#include <cstddef>
#include <list>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/kv_cache.h"

namespace kvlab {

struct Row;

// A pass the device could not run (a lost GPU, a read-back refused): the device's words.
class DeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ForwardDevice {
 public:
  virtual ~ForwardDevice() = default;
  // Runs `rows` as Model::forward() would, on the device; `tokens` gets the greedy token of each row
  // with want_logits, in row order. Extends each cache's length as forward() does.
  void greedy_tokens(const std::vector<Row>& rows, std::vector<int>& tokens);

 protected:
  // The pass itself: `tokens` holds one entry per wanted row, for the device to fill.
  virtual void run(const std::vector<Row>& rows, std::vector<int>& tokens) = 0;
};

// Which of a device's `slots` KV slots holds each cache a pass names. A cache keeps its slot while it is
// used; a slot goes to a new cache once every other slot was used since its cache last was (least
// recently used), which, for a device with at least as many slots as the caches in use at once (the
// engine's slots; a measurement's rows, its prefill cache), is only ever a cache no longer in use.
class DeviceSlots {
 public:
  // slots_path: where the slots came from, for the error of a pass that names more caches than that.
  DeviceSlots(int slots, std::string slots_path);

  // The slot of each row's cache, in row order. Throws std::logic_error for a cache in blocks of a pool
  // (a device slot is one contiguous sequence) and InputError naming slots_path when one pass names
  // more caches than there are slots.
  const std::vector<int>& slots_of(const std::vector<Row>& rows);
  int slots() const { return slots_; }

 private:
  int slot_of(const KvCache* cache);

  int slots_;
  std::string slots_path_;
  std::list<const KvCache*> recent_;  // most recently used first
  std::unordered_map<const KvCache*, std::pair<int, std::list<const KvCache*>::iterator>> held_;
  std::vector<int> free_;                    // slots never given out
  std::vector<int> row_slots_;               // slots_of()'s answer
  std::vector<const KvCache*> pass_caches_;  // the distinct caches of the pass slots_of() was given
};

}  // namespace kvlab
