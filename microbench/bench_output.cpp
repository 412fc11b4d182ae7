#include "microbench/bench_output.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iostream>
#include <memory>
#include <sstream>
#include <string_view>

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
    if (name.rfind("seconds_", 0) == 0) {
      std::string per = name.substr(8);
      std::replace(per.begin(), per.end(), '_', ' ');
      return format_seconds(value) + " " + per;
    }
    if (name == "bytes_per_second") return format_bytes_per_second(value);
    if (name == "flops_per_second") return fmt::format("{:.1f} Gflop/s", value / 1e9);
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
    if (runs.empty()) return;
    const bool aggregates = runs.front().run_type == Run::RT_Aggregate;
    // The file keeps every repetition; the screen shows their aggregates where there are some.
    if (!options_.progress && (aggregates || runs.front().repetitions <= 1))
      console_.ReportRuns(runs);
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
      std::cerr << fmt::format("[{:>4}/{}] {}  {}\n", outcome_.benchmarks, registry_.size(),
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
// mean is zero is 0/0), which is not JSON: outside strings, such a value becomes null.
std::string strict_json(const std::string& text) {
  static constexpr std::array<std::string_view, 8> bare{"-Infinity", "Infinity", "-NaN", "NaN",
                                                        "-inf",      "inf",      "-nan", "nan"};
  std::string result;
  result.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      result.push_back(c);
      if (c == '\\' && i + 1 < text.size()) {
        result.push_back(text[++i]);
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (std::string_view token : bare) {
      if (std::string_view(text).substr(i, token.size()) == token) {
        result += "null";
        i += token.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) result.push_back(c);
  }
  return result;
}

// Reports nothing: the MPI ranks that only take part.
class QuietReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

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
  if (options.quiet) {
    QuietReporter quiet;
    benchmark::RunSpecifiedBenchmarks(&quiet);
    return {};
  }
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
