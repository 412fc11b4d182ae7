#include "microbench/run_context.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <chrono>
#include <ctime>

#include "core/version.hpp"
#include "microbench/page_buffer.hpp"

namespace sonde::microbench {

std::string folder_safe(const std::string& name) {
  std::string safe;
  for (char c : name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    safe.push_back(ok ? c : '-');
  }
  return safe.empty() ? "unnamed" : safe;
}

nlohmann::json clock_json(const std::optional<CoreClock>& clock) {
  if (!clock) return nullptr;
  return {{"hertz", clock->hertz}, {"source", clock->source}};
}

nlohmann::json make_run_context(const std::string& suite, const Topology& topology,
                                const std::optional<CoreClock>& clock,
                                const std::vector<std::string>& command_line) {
  utsname system{};
  ::uname(&system);
#if defined(__clang__)
  const std::string compiler = fmt::format("Clang {}", __clang_version__);
#elif defined(__GNUC__)
  const std::string compiler = fmt::format("GCC {}", __VERSION__);
#else
  const std::string compiler = "unknown";
#endif
  return {
      {"sonde_version", sonde::version},
      {"suite", suite},
      {"date_utc", utc_timestamp()},
      {"host", host_name()},
      {"command_line", command_line},
      {"os", {{"name", system.sysname}, {"release", system.release}, {"machine", system.machine}}},
      {"compiler",
       {{"name", compiler}, {"flags", sonde::compile_flags}, {"build_type", sonde::build_type}}},
      {"topology", topology.to_json()},
      {"clock", clock_json(clock)},
      {"pages",
       {{"base_bytes", base_page_bytes()},
        {"huge_bytes", huge_page_bytes()},
        {"transparent_huge_pages", transparent_huge_page_mode()}}},
  };
}

void add_to_benchmark_context(const nlohmann::json& context) {
  benchmark::AddCustomContext("sonde_version", context.at("sonde_version").get<std::string>());
  benchmark::AddCustomContext("sonde_suite", context.at("suite").get<std::string>());
  benchmark::AddCustomContext("cpu_model",
                              context.at("topology").at("cpu_model").get<std::string>());
  benchmark::AddCustomContext("hwloc_topology",
                              context.at("topology").at("summary").get<std::string>());
  benchmark::AddCustomContext("compiler", context.at("compiler").at("name").get<std::string>());
  benchmark::AddCustomContext("compile_flags",
                              context.at("compiler").at("flags").get<std::string>());
  if (!context.at("clock").is_null()) {
    benchmark::AddCustomContext("core_clock_hz",
                                fmt::format("{:.0f} ({})", context["clock"]["hertz"].get<double>(),
                                            context["clock"]["source"].get<std::string>()));
  }
}

}  // namespace sonde::microbench
