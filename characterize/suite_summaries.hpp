// Summaries of the overhead and compute suites: each benchmark's median with its spread, and for
// the kernel library each operation in units of an add (Xu and Hwang's (1995) flop-counting rule,
// Table 1, checked against this machine).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "core/run_records.hpp"

namespace sonde::characterize {

std::string format_contention_summary(const RunRecords& run);
std::string format_overhead_summary(const RunRecords& run);
std::string format_compute_summary(const RunRecords& run);
std::string format_mpi_summary(const RunRecords& run);
// Every headline of a suite: name, params, counter, median, min, max, cv.
nlohmann::json suite_summary_json(const RunRecords& run, const std::string& suite);

}  // namespace sonde::characterize
