#include "roofline/published_report.h"

#include "common/text_format.h"

namespace kvlab::roofline {

using nlohmann::json;

json published_checks_json(const Efficiencies& efficiencies) {
  json figures = json::array(), fitted_on = json::array();
  for (const PublishedFigure& f : published_figures()) {
    const double modeled = modeled_figure(f, efficiencies);
    figures.push_back({{"id", f.id},
                       {"source", f.source},
                       {"conditions", f.conditions},
                       {"gpu", f.gpu},
                       {"model", f.model},
                       {"weights", format_name(f.weights)},
                       {"kv", format_name(f.kv)},
                       {"tp", f.tp},
                       {"unit", metric_unit(f.metric)},
                       {"published", f.published},
                       {"modeled", modeled},
                       {"error_pct", (modeled / f.published - 1) * 100},
                       {"fit", f.fit}});
    if (f.fit) fitted_on.push_back(f.id);
  }
  return {{"efficiencies", {{"bandwidth", efficiencies.bandwidth}, {"compute", efficiencies.compute}, {"fitted_on", fitted_on}}},
          {"figures", figures}};
}

std::string format_published_checks(const json& checks) {
  std::vector<std::vector<std::string>> rows = {{"figure", "gpu", "model", "tp", "published", "modeled", "error", "unit", ""}};
  for (const json& f : checks["figures"]) {
    rows.push_back({f["id"].get<std::string>(), f["gpu"].get<std::string>(),
                    f["model"].get<std::string>() + " " + f["weights"].get<std::string>(), std::to_string(f["tp"].get<int>()),
                    format("%.4g", f["published"].get<double>()), format("%.4g", f["modeled"].get<double>()),
                    format("%+.0f%%", f["error_pct"].get<double>()), f["unit"].get<std::string>(),
                    f["fit"].get<bool>() ? "(fit)" : ""});
  }
  const json& e = checks["efficiencies"];
  return format("bandwidth efficiency %.2f, compute efficiency %.2f (fitted on the figures marked fit)\n",
                e["bandwidth"].get<double>(), e["compute"].get<double>()) +
         aligned_table(rows);
}

}  // namespace kvlab::roofline
