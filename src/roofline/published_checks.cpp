#include "roofline/published_checks.h"

#include <cmath>

#include "roofline/step_cost.h"

namespace kvlab::roofline {

Deployment deployment_of(const PublishedFigure& figure, const Efficiencies& efficiencies) {
  Deployment d;
  d.gpu = find_gpu(figure.gpu, "figure.gpu");
  d.model = find_model(figure.model, "figure.model");
  d.weights = figure.weights;
  d.kv = figure.kv;
  d.tp = figure.tp;
  d.bw_efficiency = efficiencies.bandwidth;
  d.compute_efficiency = efficiencies.compute;
  return d;
}

double modeled_figure(const PublishedFigure& f, const Efficiencies& efficiencies) {
  const Deployment d = deployment_of(f, efficiencies);
  switch (f.metric) {
    case Metric::decode_tokens_per_s: {
      double total_ms = 0;
      for (int k = 1; k <= f.output_tokens; ++k) total_ms += decode_step_ms(d, f.batch, f.input_tokens + k);
      return double(f.batch) * f.output_tokens / total_ms * 1e3;
    }
    case Metric::ttft_ms: return prefill_ms(d, f.input_tokens);
    case Metric::prefill_tokens_per_s: return f.input_tokens / prefill_ms(d, f.input_tokens) * 1e3;
    case Metric::batch_tokens_per_s_per_gpu: {
      // The whole batch's prompts in one step (the first output token), then one step per further token.
      double total_ms = step_cost(d, {f.batch, f.input_tokens, f.input_tokens}).ms;
      for (int k = 1; k < f.output_tokens; ++k) total_ms += decode_step_ms(d, f.batch, f.input_tokens + k);
      return double(f.batch) * f.output_tokens / total_ms * 1e3 / f.tp;
    }
  }
  return 0;
}

double relative_error(const PublishedFigure& figure, const Efficiencies& efficiencies) {
  return modeled_figure(figure, efficiencies) / figure.published - 1;
}

Efficiencies fit_efficiencies() {
  Efficiencies best{1, 1};
  double best_loss = INFINITY;
  for (int b = 30; b <= 100; ++b) {
    for (int c = 10; c <= 100; ++c) {
      const Efficiencies candidate{b / 100.0, c / 100.0};
      double loss = 0;
      for (const PublishedFigure& figure : published_figures()) {
        if (!figure.fit) continue;
        const double log_error = std::log(modeled_figure(figure, candidate) / figure.published);
        loss += log_error * log_error;
      }
      if (loss < best_loss) {
        best_loss = loss;
        best = candidate;
      }
    }
  }
  return best;
}

}  // namespace kvlab::roofline
