// Confidence intervals by the bootstrap: the points are resampled with replacement, the fit is
// repeated on each resample, and the interval is the central `level` of the estimates
// (percentile bootstrap). A fixed seed makes an interval reproducible from the same data.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/model_forms.hpp"

namespace sonde::model {

struct Interval {
  double low = 0;
  double high = 0;
  double level = 0.95;
  bool contains(double value) const { return low <= value && value <= high; }
};

struct BootstrapOptions {
  int resamples = 200;
  double level = 0.95;
  std::uint64_t seed = 20261121;
};

// How the resampling went: a resample whose fit throws (too few distinct points) is drawn again,
// and the intervals then describe only the resamples the fit could take, which the profile says.
struct BootstrapReport {
  int resamples = 0;  // resamples the intervals are made of
  int failed = 0;     // resamples drawn again because the fit failed on them
  std::string first_failure;
  // "; 12 of 212 resamples failed (fit: ...) and were drawn again", or "" when none failed.
  std::string note() const;
};

// Intervals of every parameter that `estimate` returns from (x, y). A resample whose fit throws
// is drawn again and counted in `report` where given.
std::vector<Interval> bootstrap_intervals(
    const std::vector<double>& x, const std::vector<double>& y,
    const std::function<std::vector<double>(const std::vector<double>&,
                                            const std::vector<double>&)>& estimate,
    const BootstrapOptions& options = {}, BootstrapReport* report = nullptr);

// The coefficients of a chosen form (and its exponent last, when it has a power term).
std::vector<Interval> form_intervals(const Form& form, const std::vector<double>& x,
                                     const std::vector<double>& y,
                                     const BootstrapOptions& options = {},
                                     BootstrapReport* report = nullptr);

}  // namespace sonde::model
