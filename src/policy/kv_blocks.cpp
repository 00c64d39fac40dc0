#include "policy/kv_blocks.h"

#include <algorithm>
#include <string>

#include "common/input_error.h"

namespace kvlab::policy {

int cache_positions(const std::vector<Request>& workload) {
  int longest_prompt = 1;
  for (const Request& request : workload) longest_prompt = std::max(longest_prompt, request.prompt_tokens);
  return longest_prompt + longest_answer_tokens(workload) - 1;
}

long long kv_pool_blocks(const std::vector<Request>& workload, int slots, const KvSettings& kv) {
  long long blocks = slots * kv.blocks_for(cache_positions(workload));
  for (const Request& request : workload)
    if (request.shares_prefix())
      blocks += kv.blocks_for(static_cast<long long>(request.prompt_tokens) + request.answer_tokens - 1);
  return kv.budget_blocks ? std::min(*kv.budget_blocks, blocks) : blocks;
}

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
// The key of a block that has none (no stream reaches 2^32 - 1).
constexpr uint64_t kPlain = ~0ull;

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
  while (blocks < most_blocks && block_of_key_.count(content_key(request, blocks))) ++blocks;
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
    hits_in_cache += block_refs_[static_cast<size_t>(block_of_key_.at(content_key(request, block)))] == 0;
  if (new_blocks > free_blocks_ + cached_blocks_ - hits_in_cache) return false;

  for (int block = 0; block < hit_blocks; ++block) {
    int id = block_of_key_.at(content_key(request, block));
    if (block_refs_[static_cast<size_t>(id)]++ == 0) {
      lru_remove(id);
      --cached_blocks_;
      ++held_blocks_;
      used_slots_ += settings_.block_tokens;
    }
    h.blocks.push_back(id);
  }
  count_block_work(hit_blocks);
  take_free_blocks(h, new_blocks);
  h.positions = cached_tokens;
  h.next_block_to_key = hit_blocks;
  looked_up_tokens_ += prefill_tokens;
  hit_tokens_ += cached_tokens;
  return true;
}

bool KvBlockManager::grow(const RequestState& request, int positions) {
  Holding& h = holding(request);
  long long new_blocks = settings_.blocks_for(positions) - static_cast<long long>(h.blocks.size());
  if (new_blocks <= 0) return true;
  if (new_blocks > free_blocks_ + cached_blocks_) return false;
  take_free_blocks(h, new_blocks);
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
    if (block_of_key_.count(key)) continue;
    give_key(h.blocks[static_cast<size_t>(h.next_block_to_key)], key);
  }
}

void KvBlockManager::release(const RequestState& request) {
  Holding& h = holding(request);
  // Last block first, so that it is evicted before the blocks a later request is likelier to share.
  long long keyed_blocks = 0;
  for (auto it = h.blocks.rbegin(); it != h.blocks.rend(); ++it) {
    const size_t id = static_cast<size_t>(*it);
    --block_refs_[id];
    if (block_key_[id] == kPlain) {  // held by this request alone
      free_ids_.push_back(*it);
      ++free_blocks_;
      --held_blocks_;
      continue;
    }
    ++keyed_blocks;
    if (block_refs_[id] > 0) continue;
    lru_append(*it);
    ++cached_blocks_;
    --held_blocks_;
    used_slots_ -= settings_.block_tokens;
  }
  // Every keyed block is full, so the plain blocks hold the rest of its positions.
  used_slots_ -= h.positions - keyed_blocks * settings_.block_tokens;
  count_block_work(keyed_blocks);
  h.blocks.clear();  // keeps its capacity for the request's next admission
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

KvBlockReport KvBlockManager::report() const {
  KvBlockReport report;
  const auto& budget = settings_.budget_blocks;
  report.block_tokens = settings_.block_tokens;
  report.budget_blocks = budget;
  report.peak_blocks = peak_held_blocks_;
  if (budget)
    report.peak_utilisation_pct = 100.0 * static_cast<double>(peak_held_blocks_) / static_cast<double>(*budget);
  if (allocated_slot_ms_ > 0) report.waste_pct = 100.0 * unused_slot_ms_ / allocated_slot_ms_;
  if (reuse_prefixes_)
    report.prefix_hit_rate = static_cast<double>(hit_tokens_) / static_cast<double>(looked_up_tokens_);
  report.blocks_in_use = blocks_in_use_;
  return report;
}

void KvBlockManager::take_free_blocks(Holding& h, long long count) {
  while (free_blocks_ < count) evict_least_recently_used();
  free_blocks_ -= count;
  held_blocks_ += count;
  for (long long i = 0; i < count; ++i) {
    int id = 0;
    if (!free_ids_.empty()) {
      id = free_ids_.back();
      free_ids_.pop_back();
    } else {
      id = static_cast<int>(block_refs_.size());
      block_refs_.push_back(0);
      block_key_.push_back(kPlain);
      lru_prev_.push_back(-1);
      lru_next_.push_back(-1);
    }
    block_refs_[static_cast<size_t>(id)] = 1;
    h.blocks.push_back(id);
  }
}

void KvBlockManager::evict_least_recently_used() {
  int block = lru_head_;
  lru_remove(block);
  block_of_key_.erase(block_key_[static_cast<size_t>(block)]);
  block_key_[static_cast<size_t>(block)] = kPlain;
  free_ids_.push_back(block);
  --cached_blocks_;
  ++free_blocks_;
}

void KvBlockManager::give_key(int block, uint64_t key) {
  if (block_of_key_.size() == kMaxKeyedBlocks)
    throw_range("prefix reuse would keep more than " + std::to_string(kMaxKeyedBlocks) +
                " KV blocks cached; give a memory limit (kv_tokens or kv_bytes) or larger blocks");
  block_key_[static_cast<size_t>(block)] = key;
  block_of_key_.emplace(key, block);
}

void KvBlockManager::lru_append(int block) {
  lru_prev_[static_cast<size_t>(block)] = lru_tail_;
  lru_next_[static_cast<size_t>(block)] = -1;
  (lru_tail_ >= 0 ? lru_next_[static_cast<size_t>(lru_tail_)] : lru_head_) = block;
  lru_tail_ = block;
}

void KvBlockManager::lru_remove(int block) {
  int prev = lru_prev_[static_cast<size_t>(block)], next = lru_next_[static_cast<size_t>(block)];
  (prev >= 0 ? lru_next_[static_cast<size_t>(prev)] : lru_head_) = next;
  (next >= 0 ? lru_prev_[static_cast<size_t>(next)] : lru_tail_) = prev;
}

void KvBlockManager::count_block_work(long long blocks) const {
  block_work_ += blocks;
  if (block_work_ > kMaxBlockWork)
    throw_range({"workload", "", {}}, ": prefix reuse would look up or key more than " + std::to_string(kMaxBlockWork) +
                                          " KV blocks; simulate fewer or shorter requests or use larger blocks");
}

}  // namespace kvlab::policy
