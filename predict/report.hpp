// What `sonde predict` prints: the summary (Xu and Hwang's (1995) Table 9 metrics), the table over
// n for the three schemes (Table 10's columns), the overhead broken down per operation, requirement
// checks, Fahringer and Pozgaj's (2000) program parameters; and the same as CSV or JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "predict/predictor.hpp"

namespace sonde::predict {

// 1, 2, 4, ... up to `largest`, and `largest` itself.
std::vector<double> powers_of_two(double largest);
// "1,2,4,256" or "1..1048576" (powers of two); a usage Error otherwise.
std::vector<double> parse_nodes(const std::string& text);
// The n a plot draws: every whole n from 1 to `largest` in steps of an eighth of an octave.
std::vector<double> plot_nodes(double largest);

std::string format_prediction(const Predictor& predictor, const std::vector<double>& nodes,
                              const std::vector<RequirementResult>& requirements);
std::string prediction_csv(const Predictor& predictor, const std::vector<double>& nodes);
nlohmann::json prediction_json(const Predictor& predictor, const std::vector<double>& nodes,
                               const std::vector<RequirementResult>& requirements);

// Measured times (n, T_n) beside the full-overhead prediction P_n, with Amato et al.'s (1999)
// E = max(T, P) / min(T, P) (counters::error_ratio) and |T - P| / T: a table under a heading
// (nothing when there are no measurements), or a JSON array.
std::string format_measured(const Predictor& predictor,
                            const std::vector<std::pair<double, double>>& measured);
nlohmann::json measured_json(const Predictor& predictor,
                             const std::vector<std::pair<double, double>>& measured);

}  // namespace sonde::predict
