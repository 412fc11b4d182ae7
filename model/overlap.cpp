#include "model/overlap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace sonde::model {
namespace {

double squared_log_residuals(const std::vector<OverlapPoint>& points, std::size_t left_out,
                             double p) {
  double sum = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (i == left_out) continue;
    const double r = std::log(points[i].both / overlap_p_norm(points[i].a, points[i].b, p));
    sum += r * r;
  }
  return sum;
}

// The exponent of least residual, leaving out point `left_out` (none where it is past the end):
// a grid in log p, then a golden-section search in the grid's best interval. The residual need
// not be unimodal over the whole range; on the grid's scale it is.
double best_exponent(const std::vector<OverlapPoint>& points, std::size_t left_out) {
  constexpr int kGrid = 400;
  const double lo = std::log(kOverlapExponentMin), hi = std::log(kOverlapExponentMax);
  const auto at = [&](int k) { return lo + (hi - lo) * k / kGrid; };
  const auto cost = [&](double log_p) {
    return squared_log_residuals(points, left_out, std::exp(log_p));
  };
  int best = 0;
  double best_cost = cost(at(0));
  for (int k = 1; k <= kGrid; ++k) {
    const double c = cost(at(k));
    if (c < best_cost) best_cost = c, best = k;
  }
  double a = at(std::max(best - 1, 0)), b = at(std::min(best + 1, kGrid));
  const double ratio = (std::sqrt(5.0) - 1) / 2;
  for (int i = 0; i < 60; ++i) {
    const double x1 = b - ratio * (b - a), x2 = a + ratio * (b - a);
    if (cost(x1) < cost(x2)) {
      b = x2;
    } else {
      a = x1;
    }
  }
  return std::exp((a + b) / 2);
}

}  // namespace

double overlap_p_norm(double a, double b, double p) {
  if (!(a > 0)) return b;
  if (!(b > 0)) return a;
  const double larger = std::max(a, b), smaller = std::min(a, b);
  return larger * std::pow(1 + std::pow(smaller / larger, p), 1 / p);
}

OverlapFit fit_overlap_exponent(const std::vector<OverlapPoint>& points, const std::string& where) {
  if (points.size() < 3) {
    throw input_error(where, fmt::format("{} point{} to fit an overlap exponent to; expected at "
                                         "least three",
                                         points.size(), points.size() == 1 ? "" : "s"));
  }
  for (const OverlapPoint& point : points) {
    if (!(point.a > 0) || !(point.b > 0) || !(point.both > 0) || !std::isfinite(point.a) ||
        !std::isfinite(point.b) || !std::isfinite(point.both)) {
      throw input_error(where, fmt::format("point {}: times {}, {} and {} together; expected "
                                           "finite times above zero",
                                           point.label, point.a, point.b, point.both));
    }
  }
  OverlapFit fit;
  fit.points = points.size();
  fit.exponent = best_exponent(points, points.size());
  fit.low = fit.high = fit.exponent;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double p = best_exponent(points, i);
    fit.low = std::min(fit.low, p);
    fit.high = std::max(fit.high, p);
  }
  double sum = 0;
  for (const OverlapPoint& point : points) {
    const double e = std::abs(overlap_p_norm(point.a, point.b, fit.exponent) / point.both - 1);
    sum += e;
    fit.max_relative_error = std::max(fit.max_relative_error, e);
  }
  fit.mean_relative_error = sum / static_cast<double>(points.size());
  // Within 1% of a bound (in log p) is at it.
  fit.at_upper_bound = fit.exponent > kOverlapExponentMax / 1.01;
  fit.at_lower_bound = fit.exponent < kOverlapExponentMin * 1.01;
  return fit;
}

}  // namespace sonde::model
