// Paper 002, section 5.4: counts forecast at large problem sizes from pilot runs at small ones.
// Each count of each phase and processor is fitted in the problem size by relative least squares
// over the fit library's candidate forms (constant, log n, n, n log n, n^c and sums), the form
// chosen by cross-validation; a bootstrap over the pilot runs gives each forecast its interval.
// The forecasts are a counter table themselves (source "extrapolated"), ready for F.
#pragma once

#include <string>
#include <vector>

#include "fit/model_forms.hpp"
#include "predict/counter_file.hpp"

namespace sonde::predict {

struct CountFit {
  std::string phase, counter;
  int processor = 0;
  bool bank = false;
  std::string form;  // "n log n + 1"; "0" when every pilot count is zero
  double mean_relative_error = 0, max_relative_error = 0;
  int points = 0;
};

struct Extrapolation {
  CounterTable forecast;  // every count at every target size, with low and high
  std::vector<CountFit> fits;
};

// Throws an input Error naming the pilot files when they hold fewer than three sizes (one size
// only cannot show growth), or when a phase, processor or count is not present at every size.
// `resamples` bootstrap draws give each forecast's interval (95%); 0 gives none.
Extrapolation extrapolate(const CounterTable& pilots, const std::vector<double>& target_sizes,
                          const std::string& pilots_name, int resamples = 100);

}  // namespace sonde::predict
