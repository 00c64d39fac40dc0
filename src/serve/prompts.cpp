#include "serve/prompts.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "common/input_error.h"
#include "model/generate.h"
#include "serve/engine.h"
#include "sim/workload.h"

namespace kvlab::serve {

namespace {

// The turns of each conversation of `requests` (Requests or ServedRequests), workload order within
// one; conversations in the order of their first turns.
const policy::Request& request_of(const policy::Request& request) { return request; }
const policy::Request& request_of(const ServedRequest& served) { return served.state.request; }
template <class Requests>
std::vector<std::vector<size_t>> conversation_turns(const Requests& requests) {
  std::unordered_map<int, size_t> conversation_index;
  std::vector<std::vector<size_t>> turns;
  for (size_t i = 0; i < requests.size(); ++i) {
    const int conversation = request_of(requests[i]).conversation;
    if (conversation < 0) continue;
    const auto [it, added] = conversation_index.emplace(conversation, turns.size());
    if (added) turns.emplace_back();
    turns[it->second].push_back(i);
  }
  return turns;
}

// The greedy answer of `prompt` (n tokens), continuing `cache`, which holds the KV of the prompt's first
// cache.length positions.
std::vector<int> continue_answer(Model& model, KvCache& cache, const std::vector<int>& prompt, int n) {
  const int start = cache.length;
  std::vector<int> answer{prefill(model, cache, prompt.data() + start, static_cast<int>(prompt.size()) - start, start)};
  std::vector<DecodeSlot> slot{{&cache, answer.back()}};
  while (static_cast<int>(answer.size()) < n) {
    decode_batch(model, slot);
    answer.push_back(slot[0].next_input);
  }
  return answer;
}

}  // namespace

std::vector<int> request_prompt(const policy::Request& request, size_t index, int vocab, uint64_t prompt_seed) {
  std::vector<int> prompt = make_prompt(request.system_prompt_tokens, vocab, prompt_seed - 1);
  const std::vector<int> own =
      make_prompt(request.prompt_tokens - request.system_prompt_tokens, vocab, prompt_seed + index);
  prompt.insert(prompt.end(), own.begin(), own.end());
  return prompt;
}

void check_chat_turns(const std::vector<policy::Request>& workload, const std::string& path) {
  for (const std::vector<size_t>& turns : conversation_turns(workload))
    for (size_t t = 1; t < turns.size(); ++t) {
      const policy::Request& before = workload[turns[t - 1]];
      const policy::Request& turn = workload[turns[t]];
      const long long history = static_cast<long long>(before.prompt_tokens) + before.answer_tokens;
      if (turn.prompt_tokens < history)
        throw_range({path + ".requests[" + std::to_string(turns[t]) + "].prompt", std::to_string(turn.prompt_tokens),
                     integers_from(history, sim::kMaxTokens)},
                    "must be at least " + std::to_string(history) + " tokens: a turn of conversation " +
                        std::to_string(turn.conversation) + " begins with request " + std::to_string(turns[t - 1]) +
                        "'s prompt and answer (got " + std::to_string(turn.prompt_tokens) + ")");
    }
}

std::vector<std::vector<int>> served_prompts(Model& model, const std::vector<policy::Request>& workload,
                                             uint64_t prompt_seed, const std::vector<std::vector<int>>& stories) {
  check_chat_turns(workload, "workload");
  const int vocab = model.config().vocab;
  std::vector<std::vector<int>> prompts(workload.size());
  for (size_t i = 0; i < workload.size(); ++i) {
    const policy::Request& request = workload[i];
    if (request.story >= 0) {
      const auto story = static_cast<size_t>(request.story);
      if (story >= stories.size() || stories[story].size() != static_cast<size_t>(request.prompt_tokens))
        throw std::logic_error("request " + std::to_string(i) + " is a story that the given stories do not hold");
      prompts[i] = stories[story];
    } else if (request.conversation < 0) {
      prompts[i] = request_prompt(request, i, vocab, prompt_seed);
    }
  }
  const std::vector<std::vector<size_t>> conversations = conversation_turns(workload);
  if (conversations.empty()) return prompts;
  KvCache cache(model.config(),
                policy::cache_positions(workload));  // a turn with a successor holds p + n - 1 positions
  for (const std::vector<size_t>& turns : conversations) {
    cache.length = 0;
    std::vector<int> history;  // the previous turn's prompt and answer
    for (size_t t = 0; t < turns.size(); ++t) {
      const size_t i = turns[t];
      std::vector<int>& prompt = prompts[i];
      if (t == 0) {
        prompt = request_prompt(workload[i], i, vocab, prompt_seed);
      } else {
        prompt = history;
        const std::vector<int> own =
            make_prompt(workload[i].prompt_tokens - static_cast<int>(history.size()), vocab, prompt_seed + i);
        prompt.insert(prompt.end(), own.begin(), own.end());
      }
      if (t + 1 == turns.size()) break;  // no later turn carries its answer
      const std::vector<int> answer = continue_answer(model, cache, prompt, workload[i].answer_tokens);
      history = prompt;
      history.insert(history.end(), answer.begin(), answer.end());
    }
  }
  return prompts;
}

void check_chat_answers(const std::vector<ServedRequest>& run) {
  for (const std::vector<size_t>& turns : conversation_turns(run))
    for (size_t t = 1; t < turns.size(); ++t) {
      const ServedRequest& before = run[turns[t - 1]];
      const std::vector<int>& carried = run[turns[t]].prompt;
      const auto begin = carried.begin() + static_cast<std::ptrdiff_t>(before.prompt.size());
      if (!std::equal(before.answer.begin(), before.answer.end(), begin,
                      begin + static_cast<std::ptrdiff_t>(before.answer.size())))
        throw std::logic_error("request " + std::to_string(turns[t - 1]) +
                               " answered otherwise than the turn after it, request " + std::to_string(turns[t]) +
                               ", was written with");
    }
}

}  // namespace kvlab::serve
