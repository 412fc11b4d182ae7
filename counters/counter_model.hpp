// Amato et al.'s (1999) cost functions of a superstep, from per-processor counts and a profile's
// contention parameters: F = max(F1, F2, F3) (section 4.2) and the BSP-like QSM, EBSP and DXBSP,
// optimistic and pessimistic (section 4.1); and the error E = max(T, P) / min(T, P) of section 5.1.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "counters/counter_file.hpp"
#include "profile/profile.hpp"

namespace sonde::counters {

// One function's value in seconds, with what it is made of ("F1 on processor 1").
struct FunctionValue {
  std::string name;  // "F", "F1", "QSM.MIN", ...
  double seconds = 0;
  std::string detail;
};

struct PhasePrediction {
  std::string phase;
  double size = 0;
  int processors = 0;
  // Amato et al.'s (1999) quantities: H the most accesses of one processor, M all accesses, M_b the
  // most accesses to one bank, K the most accesses to one word (when given).
  double h = 0, m = 0, m_b = 0;
  std::optional<double> k;
  std::vector<FunctionValue> functions;  // F, F1, F2, F3, then the BSP-like ones present
  std::optional<double> measured;        // s, the slowest processor's time
  std::vector<std::string> notes;        // assumptions made (even spread over banks, no K)

  const FunctionValue* function(const std::string& name) const;
};

// Evaluates every function the profile has parameters for. Throws an input Error naming the
// profile when it has no F1 weights, and naming the counts' place when a count a weight needs is
// missing.
PhasePrediction predict_phase(const PhaseCounts& counts, const profile::Profile& profile,
                              const std::string& profile_name);

std::vector<PhasePrediction> predict_table(const CounterTable& table,
                                           const profile::Profile& profile,
                                           const std::string& profile_name);

// Amato et al. (1999), section 5.1: E = max(T, P) / min(T, P) >= 1.
double error_ratio(double measured, double predicted);

// Average and largest E of one function over the sizes of one phase (Tables 2 and 4).
struct ErrorSummary {
  std::string phase, function;
  double average = 0, maximum = 0;
  int points = 0;
};
std::vector<ErrorSummary> summarize_errors(const std::vector<PhasePrediction>& predictions);

}  // namespace sonde::counters
