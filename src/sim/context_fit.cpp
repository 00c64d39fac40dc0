#include "sim/context_fit.h"

#include "common/input_error.h"
#include "common/json_fields.h"

namespace kvlab::sim {

namespace {

// The field that sets a request's `length` ("prompt" or "answer"): the request's own in an explicit
// workload, else the upper end of the generated lengths ([lo, hi], or a Pareto's "range").
std::string length_field(const nlohmann::json& workload, const std::string& workload_path, size_t request,
                         const char* length) {
  if (workload.contains("requests"))
    return fields::join(workload_path + ".requests[" + std::to_string(request) + "]", length);
  const std::string field = fields::join(workload_path, length);
  return workload.at(length).is_object() ? field + ".range[1]" : field + "[1]";
}

}  // namespace

void check_requests_fit(std::optional<int> max_seq, const std::vector<policy::Request>& requests,
                        const nlohmann::json& workload, const std::string& workload_path) {
  if (!max_seq) return;
  for (size_t i = 0; i < requests.size(); ++i) {
    const policy::Request& request = requests[i];
    const long long positions = static_cast<long long>(request.prompt_tokens) + request.answer_tokens - 1;
    if (positions <= *max_seq) continue;
    const bool prompt_alone = request.prompt_tokens > *max_seq;
    const std::string path = length_field(workload, workload_path, i, prompt_alone ? "prompt" : "answer");
    const long long most = prompt_alone ? *max_seq : *max_seq - request.prompt_tokens + 1;
    const int given = prompt_alone ? request.prompt_tokens : request.answer_tokens;
    throw_range(
        {path, std::to_string(given), integers_from(1, most)},
        "must be from 1 to " + std::to_string(most) + ": request " + std::to_string(i) + " has a prompt of " +
            std::to_string(request.prompt_tokens) + " tokens and an answer of " +
            std::to_string(request.answer_tokens) + ", " + std::to_string(positions) +
            " positions (prompt + answer - 1), more than the step table's model.max_seq = " + std::to_string(*max_seq));
  }
}

}  // namespace kvlab::sim
