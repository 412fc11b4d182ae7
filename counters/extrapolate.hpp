// Amato et al. (1999), section 5.4: counts forecast at large problem sizes from pilot runs at small
// ones. Each count of each phase and processor is fitted in the problem size by relative least
// squares over the fit library's candidate forms (constant, log n, n, n log n, n^c and sums), the
// form chosen by cross-validation; a bootstrap over the pilot runs gives each forecast its
// interval. The forecasts are a counter table themselves (source "extrapolated"), ready for F.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "counters/counter_file.hpp"
#include "counters/counter_model.hpp"
#include "model/model_forms.hpp"
#include "profile/profile.hpp"

namespace sonde::counters {

struct CountFit {
  std::string phase, counter;
  int processor = 0;
  bool bank = false;
  std::string form;  // "n log n + 1"; "0" when every pilot count is zero
  double mean_relative_error = 0, max_relative_error = 0;
  int points = 0;
  // In size and processes: "largest" or "mean" over the processors (processor is then 0), or ""
  // for a bank and for a fit in size alone.
  std::string over;
};

struct Extrapolation {
  CounterTable forecast;  // every count at every target size, with low and high
  std::vector<CountFit> fits;
};

// Throws an input Error naming the pilot files when they hold fewer than three sizes (one size
// only cannot show growth), or when a phase, processor or count is not present at every size.
// `resamples` bootstrap draws give each forecast's interval (95%); 0 gives none.
// Pilot runs at several process counts (three or more; the counter file's `processes` column)
// are modelled in size and processes at once (Calotoiu et al. (2016)) and forecast at every
// target size and count of `target_processes`, which they then need; see
// extrapolate_in_size_and_processes in the source for how processors map across counts.
Extrapolation extrapolate(const CounterTable& pilots, const std::vector<double>& target_sizes,
                          const std::string& pilots_name, int resamples = 100,
                          const std::vector<int>& target_processes = {});

// A counter table at the low (or high) end of every count's interval.
CounterTable interval_end(const CounterTable& table, bool high);

// One forecast phase and size through F: with the extrapolated counts (F also at both ends of
// their intervals) and, where `measured` has that phase and size, with its counts and time.
struct ExtrapolatedPoint {
  // F with the counts measured at this phase and size, and the measured time; absent without
  // measured counts: then nothing here was measured.
  std::optional<PhasePrediction> measured_counts;
  PhasePrediction extrapolated;  // F with the counts extrapolated from the pilot runs
  double f_low = 0, f_high = 0;  // F at the ends of the counts' intervals
};

// Throws an input Error naming `measured_name` when `measured` lacks a forecast phase and size.
std::vector<ExtrapolatedPoint> predict_extrapolation(const Extrapolation& extrapolation,
                                                     const CounterTable* measured,
                                                     const std::string& measured_name,
                                                     const profile::Profile& profile,
                                                     const std::string& profile_name);

}  // namespace sonde::counters
