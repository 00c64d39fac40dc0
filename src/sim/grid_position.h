#pragma once
// Piecewise-linear lookup on a strictly increasing grid, as the contract prices every step: inside the
// grid, linear between the two bracketing points; outside, linear extrapolation from the two nearest
// points; the result floored at 0; a one-point grid is constant.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace kvlab::sim {

// Bounds of a step table's grids: sizes (tokens) up to kMaxGridTokens; a part of the table (the prompt
// pass, the passes after a prompt) has at most kMaxPartPoints points a grid.
constexpr long long kMaxGridTokens = 10'000'000;
constexpr size_t kMaxPartPoints = 64;

class GridPosition {
 public:
  // Where x falls on `grid` (strictly increasing, at least one point; grid points in tokens or rows are ints).
  template <class Point>
  static GridPosition locate(const std::vector<Point>& grid, double x) {
    GridPosition position;
    if (grid.size() == 1) return position;
    // The segment starts at the last grid point <= x, clamped so that [lo, lo + 1] exists; outside the
    // grid that is the nearest segment, and x at a grid point gives fraction 0 (or 1 at the last one).
    auto after = std::upper_bound(grid.begin(), grid.end(), x);
    size_t lo = after == grid.begin() ? 0 : static_cast<size_t>(after - grid.begin()) - 1;
    position.lo_ = std::min(lo, grid.size() - 2);
    const double lo_point = grid[position.lo_], hi_point = grid[position.lo_ + 1];
    position.fraction_ = (x - lo_point) / (hi_point - lo_point);
    position.single_point_ = false;
    return position;
  }

  // Where x falls on `grid`, held at the ends: outside the grid, at its nearest end point (no extrapolation).
  template <class Point>
  static GridPosition locate_held(const std::vector<Point>& grid, double x) {
    return locate(grid, std::clamp(x, static_cast<double>(grid.front()), static_cast<double>(grid.back())));
  }

  // The interpolated value; value_at(i) gives the value at grid point i (only lo and lo + 1 are asked).
  template <class ValueAt>
  double interpolate(ValueAt value_at) const {
    if (single_point_) return value_at(0);
    double value_hi = value_at(lo_ + 1);
    if (fraction_ == 1.0) return value_hi;  // exact at the last grid point, not value_lo + (hi - lo)
    double value_lo = value_at(lo_);
    return std::max(0.0, value_lo + (value_hi - value_lo) * fraction_);
  }

 private:
  size_t lo_ = 0;
  double fraction_ = 0;  // (x - grid[lo]) / (grid[lo + 1] - grid[lo]); outside [0, 1] when extrapolating
  bool single_point_ = true;
};

}  // namespace kvlab::sim
