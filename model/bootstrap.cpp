#include "model/bootstrap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/error.hpp"

namespace sonde::model {

std::vector<Interval> bootstrap_intervals(
    const std::vector<double>& x, const std::vector<double>& y,
    const std::function<std::vector<double>(const std::vector<double>&,
                                            const std::vector<double>&)>& estimate,
    const BootstrapOptions& options, BootstrapReport* report) {
  if (x.size() != y.size() || x.empty()) {
    throw input_error("bootstrap", "needs as many values as points, and some");
  }
  if (options.resamples < 20 || !(options.level > 0 && options.level < 1)) {
    throw usage_error("bootstrap", "needs at least 20 resamples and a level between 0 and 1");
  }
  std::mt19937_64 random(options.seed);
  std::uniform_int_distribution<std::size_t> pick(0, x.size() - 1);
  std::vector<std::vector<double>> estimates;  // [parameter][resample]
  std::vector<double> xs(x.size()), ys(y.size());
  int failures = 0;
  std::string first_failure;
  while (static_cast<int>(estimates.empty() ? 0 : estimates.front().size()) < options.resamples) {
    for (std::size_t i = 0; i < x.size(); ++i) {
      const std::size_t j = pick(random);
      xs[i] = x[j], ys[i] = y[j];
    }
    std::vector<double> parameters;
    try {
      parameters = estimate(xs, ys);
    } catch (const Error& e) {
      if (first_failure.empty()) first_failure = e.what();
      if (++failures > 10 * options.resamples) {
        throw input_error("bootstrap",
                          fmt::format("the fit fails on most resamples ({} of {}; "
                                      "first: {}): too few distinct points",
                                      failures, failures + options.resamples, first_failure));
      }
      continue;
    }
    if (estimates.empty()) estimates.resize(parameters.size());
    for (std::size_t p = 0; p < parameters.size() && p < estimates.size(); ++p) {
      estimates[p].push_back(parameters[p]);
    }
  }
  if (report) *report = BootstrapReport{options.resamples, failures, first_failure};
  std::vector<Interval> intervals;
  const double tail = (1 - options.level) / 2;
  for (std::vector<double>& values : estimates) {
    std::sort(values.begin(), values.end());
    const auto at = [&](double q) {
      const double position = q * static_cast<double>(values.size() - 1);
      const auto below = static_cast<std::size_t>(std::floor(position));
      const std::size_t above = std::min(below + 1, values.size() - 1);
      const double weight = position - static_cast<double>(below);
      return values[below] * (1 - weight) + values[above] * weight;
    };
    intervals.push_back({at(tail), at(1 - tail), options.level});
  }
  return intervals;
}

std::vector<Interval> form_intervals(const Form& form, const std::vector<double>& x,
                                     const std::vector<double>& y, const BootstrapOptions& options,
                                     BootstrapReport* report) {
  const bool power =
      std::any_of(form.basis.begin(), form.basis.end(), [](const Basis& b) { return b.power; });
  return bootstrap_intervals(
      x, y,
      [&](const std::vector<double>& xs, const std::vector<double>& ys) {
        const ModelFit fit = fit_model(form.basis, xs, ys, "bootstrap of " + form.name);
        std::vector<double> parameters = fit.coefficients;
        if (power) parameters.push_back(fit.exponent);
        return parameters;
      },
      options, report);
}

std::string BootstrapReport::note() const {
  if (failed == 0) return "";
  return fmt::format(
      "; {} of {} resamples failed ({}) and were drawn again: the interval is of "
      "the resamples the fit could take",
      failed, failed + resamples, first_failure);
}

}  // namespace sonde::model
