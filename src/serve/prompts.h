#pragma once
// The token ids a workload's requests are served with. A request's prompt is drawn from the prompt seed,
// after the workload's system prompt; a turn of a chat begins with the previous turn's prompt and answer,
// which only the model can write: served_prompts() generates that answer (greedily, as the turn generated
// alone answers) before any run, so every prompt is known when the clock starts and each turn's blocks
// hold what the next turn's prompt begins with (prefix reuse shares them for real).
#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"
#include "policy/request.h"
#include "serve/served_request.h"

namespace kvlab::serve {

// Request `index`'s prompt outside a chat (and the first turn of a conversation): make_prompt(p, vocab,
// prompt_seed + index), except that a request with a system prompt begins with the workload's,
// make_prompt(s, vocab, prompt_seed - 1), the same tokens in every request, followed by
// make_prompt(p - s, vocab, prompt_seed + index).
std::vector<int> request_prompt(const policy::Request& request, size_t index, int vocab, uint64_t prompt_seed);

// Throws InputError naming `path`.requests[i].prompt unless every later turn of a conversation is at least as
// long as the turn before it (in workload order) plus its answer, which its prompt begins with.
void check_chat_turns(const std::vector<policy::Request>& workload, const std::string& path);

// Every request's prompt, workload order. A request that is a story (policy::Request::story) is that
// story's tokens from `stories` (the story openings encoded, model_files/story_prompts.h), which must hold its
// p tokens (else std::logic_error). A later turn of a conversation is the previous turn's prompt, that
// turn's greedy answer (generated alone, untimed, continuing one KV cache per conversation) and
// make_prompt(p - (previous p + previous n), vocab, prompt_seed + index). Checks check_chat_turns(workload,
// "workload").
std::vector<std::vector<int>> served_prompts(Model& model, const std::vector<policy::Request>& workload,
                                             uint64_t prompt_seed, const std::vector<std::vector<int>>& stories = {});

// Throws std::logic_error unless every answer of `run` that a later turn's prompt carries is the one the
// run gave: otherwise the blocks that turn shared would hold other keys and values than its prompt's.
void check_chat_answers(const std::vector<ServedRequest>& run);

}  // namespace kvlab::serve
