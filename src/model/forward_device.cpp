#include "model/forward_device.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/input_error.h"
#include "model/model.h"

namespace kvlab {

void ForwardDevice::greedy_tokens(const std::vector<Row>& rows, std::vector<int>& tokens) {
  size_t wanted = 0;
  for (const Row& row : rows) wanted += row.want_logits;
  tokens.resize(wanted);
  run(rows, tokens);
  for (const Row& row : rows) row.cache->length = std::max(row.cache->length, row.position + 1);
}

DeviceSlots::DeviceSlots(int slots, std::string slots_path) : slots_(slots), slots_path_(std::move(slots_path)) {
  if (slots < 1) throw std::logic_error("a device needs at least one KV slot");
  for (int slot = slots - 1; slot >= 0; --slot) free_.push_back(slot);
}

int DeviceSlots::slot_of(const KvCache* cache) {
  auto found = held_.find(cache);
  if (found != held_.end()) {
    recent_.splice(recent_.begin(), recent_, found->second.second);
    return found->second.first;
  }
  int slot = 0;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    const KvCache* oldest = recent_.back();
    slot = held_.at(oldest).first;
    held_.erase(oldest);
    recent_.pop_back();
  }
  recent_.push_front(cache);
  held_[cache] = {slot, recent_.begin()};
  return slot;
}

const std::vector<int>& DeviceSlots::slots_of(const std::vector<Row>& rows) {
  row_slots_.clear();
  pass_caches_.clear();
  // The pass's caches are the most recently used: with no more of them than slots, the least recently
  // used cache a new one displaces is never one of this pass.
  for (const Row& row : rows) {
    if (!row.cache->contiguous())
      throw std::logic_error("a device's KV slot holds one contiguous sequence, not blocks of a pool");
    if (pass_caches_.empty() || pass_caches_.back() != row.cache) {
      if (std::find(pass_caches_.begin(), pass_caches_.end(), row.cache) == pass_caches_.end())
        pass_caches_.push_back(row.cache);
      if (static_cast<int>(pass_caches_.size()) > slots_)
        throw_range(
            {slots_path_, std::to_string(slots_), integers_from(static_cast<long long>(pass_caches_.size()), 1 << 20)},
            "is too few: a forward pass of " + std::to_string(rows.size()) + " rows names at least " +
                std::to_string(pass_caches_.size()) + " KV caches");
    }
    row_slots_.push_back(slot_of(row.cache));
  }
  return row_slots_;
}

}  // namespace kvlab
