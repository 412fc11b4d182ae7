// Tables of counter-based predictions, in the layout of Amato et al.'s (1999) Tables 2 and 4.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "counters/counter_model.hpp"
#include "counters/extrapolate.hpp"

namespace sonde::counters {

// Per size and phase: the measured time, F and its parts, the BSP-like functions, and E of each
// where a time was measured; then average and largest E per phase and function (Table 2).
std::string format_counter_predictions(const std::vector<PhasePrediction>& predictions);
nlohmann::json counter_predictions_json(const std::vector<PhasePrediction>& predictions);

// The forms chosen for each count, one line per phase and counter over the processors.
std::string format_count_fits(const std::vector<CountFit>& fits);

// Amato et al.'s (1999) Table 4: per phase, F's average and largest E with measured counts and with
// counts extrapolated from the pilot runs, and per size the predictions with F's interval. Without
// measured counts (no point has them), a forecast only: per size F from the extrapolated counts
// and its interval, with no column or field named for measured counts or times (the JSON rows then
// hold size, phase, f_extrapolated and f_interval; f_measured_counts, measured_seconds and the
// error ratios only where measured counts and times were given).
std::string format_table4(const std::vector<ExtrapolatedPoint>& points);
nlohmann::json table4_json(const std::vector<ExtrapolatedPoint>& points);

}  // namespace sonde::counters
