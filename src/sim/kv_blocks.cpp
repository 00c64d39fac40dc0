#include "sim/kv_blocks.h"

#include <algorithm>
#include <string>

#include "common/input_error.h"

namespace kvlab::sim {

namespace {

// "No limit" as a count of free blocks that no workload within the limits can use up.
constexpr long long kUnlimitedBlocks = 1ll << 60;
// Prefix reuse touches every full block of every prefill: past this much work (about a second natively)
// a simulation stops with an error, and past this many keyed blocks (about 0.4 GB of bookkeeping, reached
// only without a memory limit, when nothing is ever evicted) too.
constexpr long long kMaxBlockWork = 100'000'000;
constexpr size_t kMaxKeyedBlocks = 10'000'000;
// Content streams: 0 is the system prompt; a conversation c is 1 + c (c < 2^31 - 1); a request i that is
// in no conversation has a stream of its own, 2^31 + i.
constexpr uint64_t kOwnStreams = 1ull << 31;

}  // namespace

KvBlockManager::KvBlockManager(const KvSettings& settings, const std::vector<RequestState>& requests,
                               bool reuse_prefixes)
    : settings_(settings),
      reuse_prefixes_(reuse_prefixes),
      first_request_(requests.data()),
      holdings_(requests.size()),
      free_blocks_(settings.budget_blocks.value_or(kUnlimitedBlocks)) {}

uint64_t KvBlockManager::content_key(const RequestState& request, int block) const {
  // A block's content is fixed by where it sits: in the system prompt if it lies wholly inside it, else
  // in its conversation's (or its own) token stream, at the same block index.
  const Request& r = request.request;
  uint64_t stream = 0;
  if (static_cast<long long>(block + 1) * settings_.block_tokens > r.system_prompt_tokens)
    stream = r.conversation >= 0 ? 1 + static_cast<uint64_t>(r.conversation)
                                 : kOwnStreams + static_cast<uint64_t>(&request - first_request_);
  return stream << 32 | static_cast<uint64_t>(block);
}

int KvBlockManager::cached_prefix_tokens(const RequestState& request, int prefill_tokens) const {
  if (!reuse_prefixes_) return 0;
  int blocks = 0;
  const int most_blocks = (prefill_tokens - 1) / settings_.block_tokens;
  while (blocks < most_blocks && entry_of_key_.count(content_key(request, blocks))) ++blocks;
  count_block_work(blocks + 1);
  return blocks * settings_.block_tokens;
}

bool KvBlockManager::admit(const RequestState& request, int cached_tokens, int hold_positions, int prefill_tokens) {
  Holding& h = holding(request);
  const int hit_blocks = cached_tokens / settings_.block_tokens;
  const long long new_blocks = settings_.blocks_for(hold_positions) - hit_blocks;
  // Hits that sit in the cache are claimed, not evicted: they are not available for the new blocks.
  long long hits_in_cache = 0;
  for (int block = 0; block < hit_blocks; ++block)
    hits_in_cache += entry_refs_[static_cast<size_t>(entry_of_key_.at(content_key(request, block)))] == 0;
  if (new_blocks > free_blocks_ + cached_blocks_ - hits_in_cache) return false;

  for (int block = 0; block < hit_blocks; ++block) {
    int entry = entry_of_key_.at(content_key(request, block));
    if (entry_refs_[static_cast<size_t>(entry)]++ == 0) {
      lru_remove(entry);
      --cached_blocks_;
      ++held_blocks_;
      used_slots_ += settings_.block_tokens;
    }
    h.keyed.push_back(entry);
  }
  count_block_work(hit_blocks);
  take_free_blocks(new_blocks);
  h.plain_blocks = new_blocks;
  h.positions = cached_tokens;
  h.next_block_to_key = hit_blocks;
  looked_up_tokens_ += prefill_tokens;
  hit_tokens_ += cached_tokens;
  return true;
}

bool KvBlockManager::grow(const RequestState& request, int positions) {
  Holding& h = holding(request);
  long long new_blocks = settings_.blocks_for(positions) - static_cast<long long>(h.keyed.size()) - h.plain_blocks;
  if (new_blocks <= 0) return true;
  if (new_blocks > free_blocks_ + cached_blocks_) return false;
  take_free_blocks(new_blocks);
  h.plain_blocks += new_blocks;
  return true;
}

void KvBlockManager::note_computed(const RequestState& request) {
  Holding& h = holding(request);
  const int positions = request.kv_positions();
  used_slots_ += positions - h.positions;
  h.positions = positions;
  if (!reuse_prefixes_) return;
  for (; static_cast<long long>(h.next_block_to_key + 1) * settings_.block_tokens <= positions; ++h.next_block_to_key) {
    count_block_work(1);
    uint64_t key = content_key(request, h.next_block_to_key);
    // An equal block already cached (computed by another request at the same time) stays the one found;
    // this copy stays plain and is freed with the request.
    if (entry_of_key_.count(key)) continue;
    h.keyed.push_back(new_entry(key));
    --h.plain_blocks;
  }
}

void KvBlockManager::release(const RequestState& request) {
  Holding& h = holding(request);
  // Every keyed block is full, so the plain blocks hold the rest of its positions.
  used_slots_ -= h.positions - static_cast<long long>(h.keyed.size()) * settings_.block_tokens;
  free_blocks_ += h.plain_blocks;
  held_blocks_ -= h.plain_blocks;
  // Last block first, so that it is evicted before the blocks a later request is likelier to share.
  for (auto it = h.keyed.rbegin(); it != h.keyed.rend(); ++it) {
    if (--entry_refs_[static_cast<size_t>(*it)] > 0) continue;
    lru_append(*it);
    ++cached_blocks_;
    --held_blocks_;
    used_slots_ -= settings_.block_tokens;
  }
  count_block_work(static_cast<long long>(h.keyed.size()));
  h.keyed.clear();  // keeps its capacity for the request's next admission
  h.plain_blocks = 0;
  h.positions = 0;
  h.next_block_to_key = 0;
}

void KvBlockManager::record_step(double step_ms, double end_ms) {
  peak_held_blocks_ = std::max(peak_held_blocks_, held_blocks_);
  double allocated_slots = static_cast<double>(held_blocks_) * settings_.block_tokens;
  allocated_slot_ms_ += step_ms * allocated_slots;
  unused_slot_ms_ += step_ms * (allocated_slots - static_cast<double>(used_slots_));
  blocks_in_use_.add(end_ms, static_cast<double>(held_blocks_));
}

void KvBlockManager::report(nlohmann::json& metrics) const {
  using nlohmann::json;
  const auto& budget = settings_.budget_blocks;
  metrics["kv_block_tokens"] = settings_.block_tokens;
  metrics["kv_blocks_budget"] = budget ? json(*budget) : json();
  metrics["peak_kv_blocks"] = peak_held_blocks_;
  metrics["peak_kv_utilisation_pct"] =
      budget ? json(100.0 * static_cast<double>(peak_held_blocks_) / static_cast<double>(*budget)) : json();
  metrics["waste_pct"] = allocated_slot_ms_ > 0 ? json(100.0 * unused_slot_ms_ / allocated_slot_ms_) : json();
  metrics["prefix_hit_rate"] =
      reuse_prefixes_ ? json(static_cast<double>(hit_tokens_) / static_cast<double>(looked_up_tokens_)) : json();
  metrics["kv_blocks_in_use"] = blocks_in_use_.to_json("blocks");
}

void KvBlockManager::take_free_blocks(long long count) {
  while (free_blocks_ < count) evict_least_recently_used();
  free_blocks_ -= count;
  held_blocks_ += count;
}

void KvBlockManager::evict_least_recently_used() {
  int entry = lru_head_;
  lru_remove(entry);
  entry_of_key_.erase(entry_key_[static_cast<size_t>(entry)]);
  spare_entries_.push_back(entry);
  --cached_blocks_;
  ++free_blocks_;
}

int KvBlockManager::new_entry(uint64_t key) {
  int entry = 0;
  if (!spare_entries_.empty()) {
    entry = spare_entries_.back();
    spare_entries_.pop_back();
  } else {
    if (entry_key_.size() == kMaxKeyedBlocks)
      throw_range("prefix reuse would keep more than " + std::to_string(kMaxKeyedBlocks) +
                  " KV blocks cached; give a memory limit (kv_tokens or kv_bytes) or larger blocks");
    entry = static_cast<int>(entry_key_.size());
    entry_key_.push_back(0);
    entry_refs_.push_back(0);
    lru_prev_.push_back(-1);
    lru_next_.push_back(-1);
  }
  entry_key_[static_cast<size_t>(entry)] = key;
  entry_refs_[static_cast<size_t>(entry)] = 1;
  entry_of_key_.emplace(key, entry);
  return entry;
}

void KvBlockManager::lru_append(int entry) {
  lru_prev_[static_cast<size_t>(entry)] = lru_tail_;
  lru_next_[static_cast<size_t>(entry)] = -1;
  (lru_tail_ >= 0 ? lru_next_[static_cast<size_t>(lru_tail_)] : lru_head_) = entry;
  lru_tail_ = entry;
}

void KvBlockManager::lru_remove(int entry) {
  int prev = lru_prev_[static_cast<size_t>(entry)], next = lru_next_[static_cast<size_t>(entry)];
  (prev >= 0 ? lru_next_[static_cast<size_t>(prev)] : lru_head_) = next;
  (next >= 0 ? lru_prev_[static_cast<size_t>(next)] : lru_tail_) = prev;
}

void KvBlockManager::count_block_work(long long blocks) const {
  block_work_ += blocks;
  if (block_work_ > kMaxBlockWork)
    throw_range({"workload", "", {}}, ": prefix reuse would look up or key more than " + std::to_string(kMaxBlockWork) +
                " KV blocks; simulate fewer or shorter requests or use larger blocks");
}

}  // namespace kvlab::sim
