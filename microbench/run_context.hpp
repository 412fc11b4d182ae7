// The run context: everything a reader of a result needs to know about where and how it was
// measured (topology, clock, pages, compiler and flags, sonde version, date, command line).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/host.hpp"
#include "microbench/clock.hpp"
#include "microbench/topology.hpp"

namespace sonde::microbench {

using sonde::host_name;      // core/host.hpp
using sonde::utc_timestamp;  // "2026-11-21T14:05:09Z"
// A name safe for a folder: letters, digits, '.', '_' and '-'; anything else becomes '-'.
std::string folder_safe(const std::string& name);

// A clock reading as the results hold it ({hertz, source}), null where there is none.
nlohmann::json clock_json(const std::optional<CoreClock>& clock);

nlohmann::json make_run_context(const std::string& suite, const Topology& topology,
                                const std::optional<CoreClock>& clock,
                                const std::vector<std::string>& command_line);

// Adds the context's headline values to Google Benchmark's own context (string values), so that
// they appear in any JSON or console output Google Benchmark writes.
void add_to_benchmark_context(const nlohmann::json& context);

}  // namespace sonde::microbench
