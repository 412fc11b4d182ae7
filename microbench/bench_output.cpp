#include "microbench/bench_output.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <pthread.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <csignal>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <string_view>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
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

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Sends runs to Google Benchmark's JSON reporter (into a string) and to the screen, and keeps
// the name each run was registered under, so that its parameters can be attached afterwards, and
// the wall time of each benchmark. `total` is the count shown on progress lines; a pass that
// measures again does not show the machine's description a second time.
std::string strict_json(const std::string& text);  // below

class SondeReporter : public benchmark::BenchmarkReporter {
 public:
  SondeReporter(const OutputOptions& options, std::size_t total, bool first_pass,
                const ParamRegistry* registry = nullptr)
      : options_(options), total_(total), first_pass_(first_pass), registry_(registry) {
    json_.SetOutputStream(&json_text_);
    json_.SetErrorStream(&std::cerr);
    console_.SetOutputStream(&std::cout);
    console_.SetErrorStream(&std::cerr);
  }

  bool ReportContext(const Context& context) override {
    json_.ReportContext(context);
    if (!options_.progress) {
      std::ostringstream discard;
      if (!first_pass_) console_.SetErrorStream(&discard);
      console_.ReportContext(context);
      console_.SetErrorStream(&std::cerr);
    }
    start_ = last_ = Clock::now();
    return true;
  }

  // Google Benchmark reports a benchmark's repetitions in one call and their aggregates in a
  // second one; the progress line waits for the aggregates when there will be some.
  void ReportRuns(const std::vector<Run>& runs) override {
    json_.ReportRuns(runs);
    if (runs.empty()) return;
    // A benchmark's time runs from the previous report to the first report of its runs.
    const auto now = Clock::now();
    if (seconds_
            .emplace(runs.front().run_name.str(),
                     std::chrono::duration<double>(now - last_).count())
            .second) {
      last_ = now;
    }
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
      std::cerr << fmt::format("[{:>4}/{}] {}  {}\n", outcome_.benchmarks, total_,
                               runs.front().run_name.function_name, result);
    }
    if (!aggregates_follow) save_unfinished(false);
  }

  // The benchmarks reported so far, whole (repetitions and aggregates) and with their params, in
  // the unfinished file; at most every unfinished_interval seconds.
  void save_unfinished(bool now_or_never) {
    if (!options_.unfinished || !first_pass_ || unfinished_failed_) return;
    const auto now = Clock::now();
    if (!now_or_never && saved_ &&
        std::chrono::duration<double>(now - *saved_).count() < options_.unfinished_interval) {
      return;
    }
    saved_ = now;
    // Closed as Finalize would close it. (Appended, not concatenated: GCC 12's -Wrestrict
    // misfires on the operator+ of a string and a literal.)
    std::string text = json_text_.str();
    text.append("\n  ]\n}\n");
    nlohmann::json document = nlohmann::json::parse(strict_json(text));
    add_params(document);
    document["context"]["sonde_plan"] = options_.plan;  // what a resumed run must match
    if (!options_.run_context.is_null()) document["context"]["sonde"] = options_.run_context;
    // An interrupt during the write would leave its temporary file: held until the rename.
    sigset_t held, before;
    sigemptyset(&held);
    sigaddset(&held, SIGINT);
    sigaddset(&held, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &held, &before);
    try {
      write_file_atomically(*options_.unfinished, document.dump(1) + "\n");
    } catch (const std::exception& e) {
      // A cache for --resume, not the result: the measurement goes on without it.
      unfinished_failed_ = true;
      std::cerr << fmt::format(
          "warning: cannot keep the benchmarks finished so far ({}); an "
          "interrupted run will measure this part again\n",
          e.what());
    }
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
  }

  void Finalize() override {
    save_unfinished(true);  // the whole first pass, before any re-measuring pass
    json_.Finalize();
    if (!options_.progress) console_.Finalize();
    wall_seconds_ = seconds_since(start_);
  }

  std::string json_text() const { return json_text_.str(); }
  // Each entry of `document` this reporter reported (by its run_name) gets its params.
  void add_params(nlohmann::json& document) const {
    if (registry_ == nullptr) return;
    for (nlohmann::json& entry : document["benchmarks"]) {
      const auto name = registered_name_.find(entry.value("run_name", ""));
      if (name == registered_name_.end()) continue;
      if (const nlohmann::json* params = registry_->find(name->second)) entry["params"] = *params;
    }
  }
  RunOutcome outcome() const { return outcome_; }
  // The wall time of one benchmark (by run_name), 0 when it did not run; of the whole pass.
  double seconds(const std::string& run_name) const {
    const auto it = seconds_.find(run_name);
    return it == seconds_.end() ? 0.0 : it->second;
  }
  double wall_seconds() const { return wall_seconds_; }

 private:
  const OutputOptions& options_;
  std::size_t total_;
  bool first_pass_;
  const ParamRegistry* registry_;
  std::optional<Clock::time_point> saved_;
  bool unfinished_failed_ = false;
  benchmark::JSONReporter json_;
  benchmark::ConsoleReporter console_;
  std::ostringstream json_text_;
  std::map<std::string, std::string> registered_name_;
  RunOutcome outcome_;
  Clock::time_point start_ = Clock::now(), last_ = start_;
  std::map<std::string, double> seconds_;
  double wall_seconds_ = 0;
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

// A name as an extended regular expression (POSIX, as Google Benchmark compiles its filter)
// matching only itself: its special characters escaped. ']' and '}' are ordinary there, and
// escaping them is an error for a strict compiler.
std::string escape_regex(const std::string& text) {
  static constexpr std::string_view special = ".[\\()*+?{|^$";
  std::string result;
  result.reserve(text.size());
  for (const char c : text) {
    if (special.find(c) != std::string_view::npos) result.push_back('\\');
    result.push_back(c);
  }
  return result;
}

// What one pass says of one benchmark (one run_name): its entries in order, the coefficient of
// variation of its repetitions' real time (none where it failed or has no repetitions).
struct PassResult {
  std::vector<nlohmann::json> entries;
  std::optional<double> cv;
  bool failed = false;
};

struct Pass {
  std::vector<std::string> order;  // the run_names as they come in the file
  std::map<std::string, PassResult> benchmarks;
};

Pass read_pass(const nlohmann::json& document) {
  Pass pass;
  const auto benchmarks = document.find("benchmarks");
  if (benchmarks == document.end() || !benchmarks->is_array()) return pass;
  for (const nlohmann::json& entry : *benchmarks) {
    const std::string run_name = entry.value("run_name", "");
    if (run_name.empty()) continue;
    const auto [it, added] = pass.benchmarks.try_emplace(run_name);
    if (added) pass.order.push_back(run_name);
    PassResult& result = it->second;
    result.entries.push_back(entry);
    if (entry.value("error_occurred", false)) result.failed = true;
    if (entry.value("run_type", "") == "aggregate" && entry.value("aggregate_name", "") == "cv") {
      const auto cv = entry.find("real_time");
      if (cv != entry.end() && cv->is_number() && std::isfinite(cv->get<double>()))
        result.cv = cv->get<double>();
    }
  }
  for (auto& [name, result] : pass.benchmarks) {
    if (result.failed) result.cv.reset();
  }
  return pass;
}

std::string percent(double fraction) { return fmt::format("{:g}%", fraction * 100); }

std::string benchmarks_word(std::size_t count) {
  return fmt::format("{} benchmark{}", count, count == 1 ? "" : "s");
}

// Measures again the benchmarks of the first pass whose repetitions spread more than the
// threshold, keeps the chosen attempt of each in `document` with a "noise" object in its entries;
// returns context.sonde.noise.
nlohmann::json remeasure_noisy(nlohmann::json& document, const SondeReporter& first,
                               const OutputOptions& options) {
  const double threshold = options.noise_cv;
  const int passes = std::max(options.remeasure, 0);
  nlohmann::json summary = {{"cv_threshold", threshold},
                            {"remeasure", passes},
                            {"remeasured", nlohmann::json::array()},
                            {"noisy", nlohmann::json::array()},
                            {"remeasure_seconds", 0.0}};
  const Pass first_pass = read_pass(document);
  std::vector<NoisyBenchmark> noisy;
  if (threshold > 0) {
    for (const std::string& name : first_pass.order) {
      const PassResult& result = first_pass.benchmarks.at(name);
      if (result.cv && *result.cv > threshold)
        noisy.push_back({name, *result.cv, first.seconds(name)});
    }
  }
  const std::vector<std::string> selected =
      passes > 0 ? select_for_remeasure(noisy, 0.25 * first.wall_seconds())
                 : std::vector<std::string>{};
  if (selected.size() < noisy.size()) {
    std::cerr << fmt::format(
        "{} whose repetitions spread more than {} will not be measured again: measuring them "
        "again would take more than a quarter of the run's time\n",
        benchmarks_word(noisy.size() - selected.size()), percent(threshold));
  }

  // Every attempt's cv, the first pass's first; the entries of the attempts after it.
  std::map<std::string, std::vector<std::optional<double>>> attempts_cv;
  std::map<std::string, std::vector<std::vector<nlohmann::json>>> attempts_entries;
  for (const NoisyBenchmark& benchmark : noisy) attempts_cv[benchmark.run_name] = {benchmark.cv};
  const auto start = Clock::now();
  for (int pass = 1; pass <= passes; ++pass) {
    std::vector<std::string> pending;
    for (const std::string& name : selected) {
      const auto& cvs = attempts_cv[name];
      if (std::none_of(cvs.begin(), cvs.end(),
                       [&](const std::optional<double>& cv) { return cv && *cv <= threshold; }))
        pending.push_back(name);
    }
    std::string filter = exact_benchmark_filter(pending);
    if (options.agree) filter = options.agree(filter);
    if (filter.empty()) break;
    std::cerr << fmt::format("re-measuring {} whose repetitions spread more than {} ({} of {})\n",
                             benchmarks_word(pending.size()), percent(threshold), pass, passes);
    SondeReporter again(options, pending.size(), false);
    benchmark::RunSpecifiedBenchmarks(&again, filter);
    Pass result = read_pass(nlohmann::json::parse(strict_json(again.json_text())));
    for (const std::string& name : pending) {
      auto& cvs = attempts_cv[name];
      auto& entries = attempts_entries[name];
      const auto it = result.benchmarks.find(name);
      cvs.push_back(it == result.benchmarks.end() ? std::nullopt : it->second.cv);
      entries.resize(cvs.size());
      if (it != result.benchmarks.end()) entries.back() = std::move(it->second.entries);
    }
  }
  summary["remeasure_seconds"] = seconds_since(start);

  std::map<std::string, nlohmann::json> noise_of;
  std::map<std::string, const std::vector<nlohmann::json>*> kept_entries;
  std::size_t still_noisy = 0;  // of those measured again
  for (const NoisyBenchmark& benchmark : noisy) {
    const std::string& name = benchmark.run_name;
    const auto& cvs = attempts_cv[name];
    const NoiseChoice choice = choose_attempt(cvs, threshold);
    nlohmann::json cv_list = nlohmann::json::array();
    for (const std::optional<double>& cv : cvs)
      cv_list.push_back(cv ? nlohmann::json(*cv) : nullptr);
    noise_of[name] = {{"cv_threshold", threshold},
                      {"attempts_cv", cv_list},
                      {"kept_attempt", choice.kept_attempt},
                      {"noisy", choice.noisy}};
    if (cvs.size() > 1) {
      summary["remeasured"].push_back(name);
      if (choice.noisy) ++still_noisy;
    }
    if (choice.noisy) summary["noisy"].push_back(name);
    if (choice.kept_attempt > 0) kept_entries[name] = &attempts_entries[name][choice.kept_attempt];
  }
  if (!summary["remeasured"].empty()) {
    std::cerr << fmt::format("{} measured again, {} still spread more than {}\n",
                             benchmarks_word(summary["remeasured"].size()), still_noisy,
                             percent(threshold));
  }

  // The kept attempt's entries replace the first pass's, where they stood; Google Benchmark
  // numbers the families of a pass afresh, so the first pass's numbers are kept.
  nlohmann::json benchmarks = nlohmann::json::array();
  std::set<std::string> replaced;
  for (const nlohmann::json& entry : document.value("benchmarks", nlohmann::json::array())) {
    const std::string name = entry.value("run_name", "");
    const auto noise = noise_of.find(name);
    if (noise == noise_of.end()) {
      benchmarks.push_back(entry);
      continue;
    }
    const auto kept = kept_entries.find(name);
    if (kept == kept_entries.end()) {
      benchmarks.push_back(entry);
      benchmarks.back()["noise"] = noise->second;
      continue;
    }
    if (!replaced.insert(name).second) continue;
    for (nlohmann::json again : *kept->second) {
      for (const char* key : {"family_index", "per_family_instance_index"}) {
        if (entry.contains(key)) again[key] = entry[key];
      }
      again["noise"] = noise->second;
      benchmarks.push_back(std::move(again));
    }
  }
  document["benchmarks"] = std::move(benchmarks);
  return summary;
}

}  // namespace

void ParamRegistry::add(const std::string& name, nlohmann::json params) {
  params_[name] = std::move(params);
}

const nlohmann::json* ParamRegistry::find(const std::string& name) const {
  const auto it = params_.find(name);
  return it == params_.end() ? nullptr : &it->second;
}

std::string exact_benchmark_filter(const std::vector<std::string>& run_names) {
  if (run_names.empty()) return "";
  std::string filter = "^(";
  for (std::size_t i = 0; i < run_names.size(); ++i) {
    if (i > 0) filter += '|';
    filter += escape_regex(run_names[i]);
  }
  return filter + ")$";
}

std::vector<std::string> select_for_remeasure(std::vector<NoisyBenchmark> noisy,
                                              double budget_seconds, std::size_t max_filter_chars) {
  std::stable_sort(noisy.begin(), noisy.end(),
                   [](const NoisyBenchmark& a, const NoisyBenchmark& b) { return a.cv > b.cv; });
  std::vector<std::string> selected;
  double seconds = 0;
  std::size_t chars = std::string_view("^()$").size();
  for (const NoisyBenchmark& benchmark : noisy) {
    if (seconds + benchmark.seconds > budget_seconds) break;
    const std::size_t more = escape_regex(benchmark.run_name).size() + (selected.empty() ? 0 : 1);
    if (chars + more > max_filter_chars) break;
    selected.push_back(benchmark.run_name);
    seconds += benchmark.seconds;
    chars += more;
  }
  return selected;
}

NoiseChoice choose_attempt(const std::vector<std::optional<double>>& attempts_cv,
                           double threshold) {
  for (std::size_t i = 0; i < attempts_cv.size(); ++i) {
    if (attempts_cv[i] && *attempts_cv[i] <= threshold) return {i, false};
  }
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < attempts_cv.size(); ++i) {
    if (attempts_cv[i] && (!best || *attempts_cv[i] < *attempts_cv[*best])) best = i;
  }
  return {best.value_or(0), true};
}

std::filesystem::path unfinished_path(const std::filesystem::path& out) {
  std::filesystem::path path = out;
  path.replace_filename(out.stem().string() + ".unfinished" + out.extension().string());
  return path;
}

namespace {

// The registered name a benchmark instance's full name starts with ("memory.chase/ws:4096" for
// "memory.chase/ws:4096/min_time:0.030/repeats:5/manual_time"): the longest that does.
const std::string* registered_name_of(const std::string& run_name, const ParamRegistry& registry) {
  const std::string* best = nullptr;
  for (const auto& [name, params] : registry.all()) {
    const bool starts = run_name.size() >= name.size() &&
                        run_name.compare(0, name.size(), name) == 0 &&
                        (run_name.size() == name.size() || run_name[name.size()] == '/');
    if (starts && (best == nullptr || name.size() > best->size())) best = &name;
  }
  return best;
}

// The full names of the benchmark instances an unfinished file holds, each once.
std::vector<std::string> resumed_run_names(const nlohmann::json& resumed) {
  std::set<std::string> names;
  for (const nlohmann::json& entry : resumed["benchmarks"])
    names.insert(entry.value("run_name", ""));
  return {names.begin(), names.end()};
}

// A filter that leaves out these benchmarks ("" for none): Google Benchmark's negative filter.
std::string skip_filter(const std::vector<std::string>& run_names) {
  if (run_names.empty()) return "";
  std::string filter = "-";  // appended, not concatenated: see save_unfinished
  filter.append(exact_benchmark_filter(run_names));
  return filter;
}

std::size_t run_with(benchmark::BenchmarkReporter* reporter, const std::string& skip) {
  return skip.empty() ? benchmark::RunSpecifiedBenchmarks(reporter)
                      : benchmark::RunSpecifiedBenchmarks(reporter, skip);
}

}  // namespace

Unfinished read_unfinished(const std::filesystem::path& path, const ParamRegistry& registry,
                           const nlohmann::json& plan) {
  Unfinished out;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return out;
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(read_file(path));
  } catch (const std::exception& e) {
    out.ignored = fmt::format("{} is no unfinished result ({})", path.string(), e.what());
    return out;
  }
  if (!document.is_object() || !document.contains("benchmarks") ||
      !document["benchmarks"].is_array()) {
    out.ignored = fmt::format("{} is no unfinished result: no 'benchmarks' array", path.string());
    return out;
  }
  const nlohmann::json context = document.value("context", nlohmann::json::object());
  if (!context.is_object() || context.value("sonde_plan", nlohmann::json()) != plan) {
    out.ignored = fmt::format("{} was made under another plan", path.string());
    return out;
  }
  // A benchmark is kept whole or not at all: registered now, no failed repetition, and its
  // aggregates where it has several repetitions.
  std::map<std::string, bool> keep;
  for (const nlohmann::json& entry : document["benchmarks"]) {
    const std::string run_name = entry.is_object() ? entry.value("run_name", "") : "";
    auto [it, added] = keep.try_emplace(run_name, true);
    if (run_name.empty() || registered_name_of(run_name, registry) == nullptr ||
        entry.value("error_occurred", false)) {
      it->second = false;
    }
  }
  for (auto& [run_name, kept] : keep) {
    if (!kept) continue;
    bool aggregated = false;
    long repetitions = 1;
    for (const nlohmann::json& entry : document["benchmarks"]) {
      if (!entry.is_object() || entry.value("run_name", "") != run_name) continue;
      if (entry.value("run_type", "") == "aggregate") aggregated = true;
      if (entry.contains("repetitions") && entry["repetitions"].is_number_integer())
        repetitions = entry["repetitions"].get<long>();
    }
    if (repetitions > 1 && !aggregated) kept = false;
  }
  nlohmann::json entries = nlohmann::json::array();
  for (nlohmann::json& entry : document["benchmarks"]) {
    const std::string run_name = entry.is_object() ? entry.value("run_name", "") : "";
    if (keep[run_name]) entries.push_back(std::move(entry));
  }
  for (const auto& [run_name, kept] : keep)
    if (!kept) ++out.dropped;
  document["benchmarks"] = std::move(entries);
  if (!document["benchmarks"].empty()) out.kept = std::move(document);
  return out;
}

RunOutcome run_benchmarks(const ParamRegistry& registry, const nlohmann::json& context,
                          const OutputOptions& options) {
  // What to leave out: the reporting process read the unfinished file; under MPI every process
  // takes its filter, so that all run the same benchmarks.
  const std::vector<std::string> kept_names =
      options.resumed ? resumed_run_names(*options.resumed) : std::vector<std::string>{};
  std::string skip = skip_filter(kept_names);
  if (options.broadcast) skip = options.broadcast(skip);
  if (options.quiet) {
    QuietReporter quiet;
    run_with(&quiet, skip);
    // The passes the reporting process decides on: every process must run them, in order.
    for (int pass = 0; options.agree && pass < options.remeasure; ++pass) {
      const std::string filter = options.agree("");
      if (filter.empty()) break;
      benchmark::RunSpecifiedBenchmarks(&quiet, filter);
    }
    return {};
  }
  const std::size_t kept = kept_names.size();
  SondeReporter reporter(options, registry.size() - std::min(kept, registry.size()), true,
                         &registry);
  nlohmann::json document;
  if (run_with(&reporter, skip) > 0) {
    document = nlohmann::json::parse(strict_json(reporter.json_text()));
  } else if (kept > 0) {
    // The interrupted run had measured them all: its context, and no entry of this run's.
    document = *options.resumed;
    document["benchmarks"] = nlohmann::json::array();
  } else {
    throw usage_error("--benchmark_filter",
                      "no benchmark of the selected parts matches it; nothing was measured");
  }
  // Also with nothing measured now: it tells the other processes that no pass follows.
  nlohmann::json noise = remeasure_noisy(document, reporter, options);
  if (options.out) {
    nlohmann::json& sonde = document["context"]["sonde"];
    sonde = context;
    sonde["noise"] = noise;
    reporter.add_params(document);
    if (options.resumed && kept > 0) {
      // The interrupted run's entries first, as it measured them. They are not measured again:
      // the noisy among them are marked so and listed, as a first pass's would be.
      nlohmann::json all = (*options.resumed)["benchmarks"];
      const Pass before = read_pass(*options.resumed);
      const auto noisy = [&](const std::string& name) {
        const auto it = before.benchmarks.find(name);
        return options.noise_cv > 0 && it != before.benchmarks.end() && it->second.cv &&
               *it->second.cv > options.noise_cv;
      };
      for (nlohmann::json& entry : all) {
        const std::string name = entry.value("run_name", "");
        if (!noisy(name)) continue;
        entry["noise"] = {{"cv_threshold", options.noise_cv},
                          {"attempts_cv", {*before.benchmarks.at(name).cv}},
                          {"kept_attempt", 0},
                          {"noisy", true},
                          {"kept_from_an_interrupted_run", true}};
      }
      for (const std::string& name : before.order)
        if (noisy(name)) sonde["noise"]["noisy"].push_back(name);
      for (nlohmann::json& entry : document["benchmarks"]) all.push_back(std::move(entry));
      document["benchmarks"] = std::move(all);
      sonde["resumed"] = {{"from", options.resumed_from}, {"benchmarks_kept", kept}};
    }
    if (options.finish_context) options.finish_context(sonde);
    write_file_atomically(*options.out, document.dump(1) + "\n");
    if (options.unfinished) {
      std::error_code ignored;
      std::filesystem::remove(*options.unfinished, ignored);
    }
  }
  return reporter.outcome();
}

}  // namespace sonde::microbench
