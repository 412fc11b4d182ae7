// Summaries of the overhead and compute suites: each benchmark's median with its spread, and for
// the kernel library each operation in units of an add (Xu and Hwang's (1995) flop-counting rule,
// Table 1, checked against this machine).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "core/results.hpp"

namespace sonde::fit {

bool has_suite(const std::vector<ResultFile>& files, const std::string& suite);

// One benchmark's headline: its median over repetitions and their spread.
struct SummaryRow {
  std::string name;  // the registered name, e.g. "overhead.pipe.latency"
  nlohmann::json params;
  std::string counter;  // which counter: "seconds_per_message", "flops_per_second", ...
  double median = 0;
  double min = 0;
  double max = 0;
  double cv = 0;
  std::map<std::string, double> counters;  // every counter of the median entry (counts, cycles)
};

// The rows of a suite, one per benchmark, with the first of `counters` that it has.
std::vector<SummaryRow> summary_rows(const std::vector<ResultFile>& files, const std::string& suite,
                                     const std::vector<std::string>& counters);

std::string format_contention_summary(const std::vector<ResultFile>& files);
std::string format_overhead_summary(const std::vector<ResultFile>& files);
std::string format_compute_summary(const std::vector<ResultFile>& files);
std::string format_mpi_summary(const std::vector<ResultFile>& files);
nlohmann::json suite_summary_json(const std::vector<ResultFile>& files, const std::string& suite);

}  // namespace sonde::fit
