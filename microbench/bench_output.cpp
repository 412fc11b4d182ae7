#include "microbench/bench_output.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <regex>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/units.hpp"

namespace sonde::microbench {
namespace {

std::string headline(const benchmark::BenchmarkReporter::Run& run,
                     const std::vector<std::string>& counters) {
  for (const std::string& name : counters) {
    const auto it = run.counters.find(name);
    if (it == run.counters.end()) continue;
    const double value = it->second.value;
    if (name.rfind("seconds", 0) == 0) return format_seconds(value) + name.substr(7);
    if (name == "bytes_per_second") return format_bytes_per_second(value);
    return fmt::format("{} {:.4g}", name, value);
  }
  return format_seconds(run.GetAdjustedRealTime() /
                        benchmark::GetTimeUnitMultiplier(run.time_unit));
}

// Sends runs to Google Benchmark's JSON reporter (into a string) and to the screen, and keeps
// the name each run was registered under, so that its parameters can be attached afterwards.
class SondeReporter : public benchmark::BenchmarkReporter {
 public:
  SondeReporter(const ParamRegistry& registry, const OutputOptions& options)
      : registry_(registry), options_(options) {
    json_.SetOutputStream(&json_text_);
    json_.SetErrorStream(&std::cerr);
    console_.SetOutputStream(&std::cout);
    console_.SetErrorStream(&std::cerr);
  }

  bool ReportContext(const Context& context) override {
    json_.ReportContext(context);
    if (!options_.progress) console_.ReportContext(context);
    return true;
  }

  // Google Benchmark reports a benchmark's repetitions in one call and their aggregates in a
  // second one; the progress line waits for the aggregates when there will be some.
  void ReportRuns(const std::vector<Run>& runs) override {
    json_.ReportRuns(runs);
    if (!options_.progress) console_.ReportRuns(runs);
    if (runs.empty()) return;
    const bool aggregates = runs.front().run_type == Run::RT_Aggregate;
    const Run* shown = &runs.back();
    bool failed = false;
    for (const Run& run : runs) {
      registered_name_[run.run_name.str()] = run.run_name.function_name;
      if (run.error_occurred) failed = true;
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name == "median") shown = &run;
    }
    if (!aggregates) {
      ++outcome_.benchmarks;
      if (failed) ++outcome_.failed;
    }
    const bool aggregates_follow = !aggregates && !failed && runs.front().repetitions > 1;
    if (options_.progress && !aggregates_follow) {
      const std::string result = failed ? "FAILED: " + runs.front().error_message
                                        : headline(*shown, options_.headline_counters);
      std::cerr << fmt::format("{}[{:>4}/{}] {}  {}\n", options_.progress_prefix,
                               outcome_.benchmarks, registry_.size(),
                               runs.front().run_name.function_name, result);
    }
  }

  void Finalize() override {
    json_.Finalize();
    if (!options_.progress) console_.Finalize();
  }

  std::string json_text() const { return json_text_.str(); }
  const std::map<std::string, std::string>& registered_names() const { return registered_name_; }
  RunOutcome outcome() const { return outcome_; }

 private:
  const ParamRegistry& registry_;
  const OutputOptions& options_;
  benchmark::JSONReporter json_;
  benchmark::ConsoleReporter console_;
  std::ostringstream json_text_;
  std::map<std::string, std::string> registered_name_;
  RunOutcome outcome_;
};

// Google Benchmark writes NaN and Infinity bare (the coefficient of variation of a counter whose
// mean is zero is 0/0), which is not JSON: an undefined statistic becomes null.
std::string strict_json(const std::string& text) {
  static const std::regex bare(R"((:\s*)-?(NaN|Infinity|nan|inf)(\s*[,}\n]))");
  return std::regex_replace(text, bare, "$1null$3");
}

}  // namespace

void ParamRegistry::add(const std::string& name, nlohmann::json params) {
  params_[name] = std::move(params);
}

const nlohmann::json* ParamRegistry::find(const std::string& name) const {
  const auto it = params_.find(name);
  return it == params_.end() ? nullptr : &it->second;
}

RunOutcome run_benchmarks(const ParamRegistry& registry, const nlohmann::json& context,
                          const OutputOptions& options) {
  SondeReporter reporter(registry, options);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  if (options.out) {
    nlohmann::json document = nlohmann::json::parse(strict_json(reporter.json_text()));
    document["context"]["sonde"] = context;
    for (nlohmann::json& entry : document["benchmarks"]) {
      const auto name = reporter.registered_names().find(entry.value("run_name", ""));
      if (name == reporter.registered_names().end()) continue;
      if (const nlohmann::json* params = registry.find(name->second)) entry["params"] = *params;
    }
    write_file_atomically(*options.out, document.dump(1) + "\n");
  }
  return reporter.outcome();
}

}  // namespace sonde::microbench
