#pragma once
// The model priced on each published figure's conditions, its error, and the choice of the two efficiency
// factors on the `fit` subset (so that the other figures check the model instead of tuning it).
#include <vector>

#include "roofline/deployment.h"
#include "roofline/published_figures.h"

namespace kvlab::roofline {

struct Efficiencies {
  double bandwidth;
  double compute;
};

// The deployment a figure was measured on, with these factors.
Deployment deployment_of(const PublishedFigure& figure, const Efficiencies& efficiencies);

// The model's figure under the same conditions, in the figure's unit.
double modeled_figure(const PublishedFigure& figure, const Efficiencies& efficiencies);

// modeled / published - 1.
double relative_error(const PublishedFigure& figure, const Efficiencies& efficiencies);

// The factors, on a 0.01 grid (bandwidth 0.30..1, compute 0.10..1), that minimise the sum of squared log
// errors over the `fit` figures.
Efficiencies fit_efficiencies();

}  // namespace kvlab::roofline
