// Fuzzes the workload spreadsheet reader (predict/workload.cpp, parse_workload) and its muparser
// expressions: the input is a spreadsheet's text. A spreadsheet it accepts keeps the format's
// promises (docs/formats.md, "Workload spreadsheets") at the n the reader checks (1, 2, 1024,
// 2^20): finite parameters, work >= 0, times and rates > 0, degrees of parallelism >= 1, whole
// loops, operation counts finite and >= 0. It is then predicted on the IBM SP2's profile
// (machines/ibm-sp2.yaml), which runs every expression again: each prediction at those n is finite
// and not negative, or refused naming the spreadsheet's cell or the profile's key. The same text
// is also read as measured times (parse_measurements, `sonde predict --measured`): each n and time
// finite and > 0.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/atomic_file.hpp"
#include "fuzz/fuzz_support.hpp"
#include "predict/predictor.hpp"
#include "predict/workload.hpp"
#include "profile/profile.hpp"

namespace {

using namespace sonde::predict;
using sonde::fuzz::finite_at_least;
constexpr const char* kFile = "fuzz.csv";
constexpr double kChecked[] = {1, 2, 1024, 1048576};

const sonde::profile::Profile* target = nullptr;

void check_workload(const Workload& w) {
  for (const auto& [name, value] : w.parameters) {
    SONDE_FUZZ_CHECK(std::isfinite(value), "parameter {} = {} accepted", name, value);
  }
  SONDE_FUZZ_CHECK(!w.components.empty(), "a workload without components accepted");
  for (const Component& c : w.components) {
    SONDE_FUZZ_CHECK(finite_at_least(c.work_flop, 0), "{}: work {} accepted", c.name, c.work_flop);
    if (c.time_seconds) {
      SONDE_FUZZ_CHECK(finite_at_least(*c.time_seconds, 0) && *c.time_seconds > 0,
                       "{}: time {} accepted", c.name, *c.time_seconds);
    }
    if (c.rate_flop_per_second) {
      SONDE_FUZZ_CHECK(finite_at_least(*c.rate_flop_per_second, 0) && *c.rate_flop_per_second > 0,
                       "{}: rate {} accepted", c.name, *c.rate_flop_per_second);
    }
    SONDE_FUZZ_CHECK(c.time_seconds || c.rate_flop_per_second || !c.operations.empty() ||
                         !c.chains.empty() || c.traffic_bytes || c.random_accesses ||
                         c.column_accesses || c.load_bytes || c.store_bytes || c.work_flop > 0,
                     "{}: a component with nothing to cost accepted", c.name);
    if (c.loop) {
      SONDE_FUZZ_CHECK(finite_at_least(*c.loop, 1) && *c.loop == std::floor(*c.loop),
                       "{}: loop {} accepted", c.name, *c.loop);
    }
    for (const auto& [kernel, count] : c.operations) {
      SONDE_FUZZ_CHECK(finite_at_least(count(1), 0), "{}: ops.{} = {} accepted", c.name, kernel,
                       count(1));
    }
    for (double n : kChecked) {
      const double dop = c.dop(n);
      SONDE_FUZZ_CHECK(finite_at_least(dop, 1), "{}: dop '{}' is {} at n = {}", c.name,
                       c.dop.text(), dop, n);
    }
  }
  // Message lengths and counts are expressions in n that the predictor checks at each n it
  // predicts (check_prediction).
}

void check_prediction(const Predictor& predictor) {
  for (double n : kChecked) {
    for (Scheme scheme : {Scheme::theoretical, Scheme::zero_overhead, Scheme::full_overhead}) {
      const Point p = predictor.at(n, scheme);
      SONDE_FUZZ_CHECK(finite_at_least(p.total, 0) && finite_at_least(p.compute, 0) &&
                           finite_at_least(p.communication, 0) && finite_at_least(p.parallelism, 0),
                       "{} at n = {}: T = {} (compute {}, communication {}, parallelism {})",
                       to_string(scheme), n, p.total, p.compute, p.communication, p.parallelism);
    }
  }
  const Summary& s = predictor.summary();
  SONDE_FUZZ_CHECK(finite_at_least(s.t1, 0) && finite_at_least(s.work_flop, 0),
                   "summary: T_1 = {}, W = {}", s.t1, s.work_flop);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  static const sonde::profile::Profile sp2 =
      sonde::profile::read_profile(SONDE_SOURCE_DIR "/machines/ibm-sp2.yaml");
  target = &sp2;
  return 0;
}

void measurements(const std::string& text) {
  std::vector<std::pair<double, double>> times;
  try {
    times = parse_measurements(text, kFile);
  } catch (const sonde::Error& e) {
    sonde::fuzz::check_refusal(e, kFile, sonde::ExitCode::bad_input);
    return;
  }
  for (const auto& [n, seconds] : times) {
    SONDE_FUZZ_CHECK(finite_at_least(n, 0) && n > 0 && finite_at_least(seconds, 0) && seconds > 0,
                     "measured: n = {}, time = {} s accepted", n, seconds);
  }
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = sonde::fuzz::text_of(data, size);
  measurements(text);
  Workload workload;
  try {
    workload = parse_workload(text, kFile);
  } catch (const sonde::Error& e) {
    sonde::fuzz::check_refusal(e, kFile, sonde::ExitCode::bad_input);
    return 0;
  }
  check_workload(workload);
  try {
    const Predictor predictor(std::move(workload), *target, "ibm-sp2.yaml");
    check_prediction(predictor);
  } catch (const sonde::Error& e) {
    // A spreadsheet that needs what the profile lacks, or another machine's profile: refused
    // with the row or the profile key.
    const bool row = e.where().rfind(kFile, 0) == 0;
    sonde::fuzz::check_refusal(e, row ? kFile : "ibm-sp2.yaml", sonde::ExitCode::bad_input);
  }
  return 0;
}
