// What `sonde predict` prints: the summary (Xu and Hwang's (1995) Table 9 metrics), the table over
// n for the three schemes (Table 10's columns), the overhead broken down per operation, requirement
// checks, Fahringer and Pozgaj's (2000) program parameters; and the same as CSV or JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "predict/predictor.hpp"

namespace sonde::predict {

// 1, 2, 4, ... up to `largest`, and `largest` itself.
std::vector<double> powers_of_two(double largest);
// "1,2,4,256" or "1..1048576" (powers of two); a usage Error otherwise.
std::vector<double> parse_nodes(const std::string& text);

std::string format_prediction(const Predictor& predictor, const std::vector<double>& nodes,
                              const std::vector<RequirementResult>& requirements);
std::string prediction_csv(const Predictor& predictor, const std::vector<double>& nodes);
nlohmann::json prediction_json(const Predictor& predictor, const std::vector<double>& nodes,
                               const std::vector<RequirementResult>& requirements);

}  // namespace sonde::predict
