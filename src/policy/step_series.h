#pragma once
// A series sampled once per step for plotting, bounded in length: it keeps every stride-th step, and when
// kMaxPoints are kept it drops every other point and doubles the stride. A run of any length so keeps
// between kMaxPoints / 2 and kMaxPoints points, evenly spread over its steps, with no allocation after
// construction.
#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvlab::policy {

class StepSeries {
 public:
  static constexpr size_t kMaxPoints = 512;

  StepSeries() {
    t_ms_.reserve(kMaxPoints);
    values_.reserve(kMaxPoints);
  }

  void add(double t_ms, double value) {
    long long step = steps_++;
    if (step % stride_ != 0) return;
    if (t_ms_.size() == kMaxPoints) {
      // Kept points are the steps 0, stride, 2 stride, ...: keep the even ones, which are the multiples
      // of the new stride.
      for (size_t i = 0; 2 * i < kMaxPoints; ++i) {
        t_ms_[i] = t_ms_[2 * i];
        values_[i] = values_[2 * i];
      }
      t_ms_.resize(kMaxPoints / 2);
      values_.resize(kMaxPoints / 2);
      stride_ *= 2;
      if (step % stride_ != 0) return;
    }
    t_ms_.push_back(t_ms);
    values_.push_back(value);
  }

  // {"t_ms": [...], value_name: [...]}
  nlohmann::json to_json(const char* value_name) const { return {{"t_ms", t_ms_}, {value_name, values_}}; }

 private:
  std::vector<double> t_ms_, values_;
  long long steps_ = 0;
  long long stride_ = 1;
};

}  // namespace kvlab::policy
