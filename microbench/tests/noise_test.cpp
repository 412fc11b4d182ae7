// Measuring noisy benchmarks again: the filter that selects them, the choice of the benchmarks
// and of the attempt to keep, and a whole run with benchmarks whose spread is known.
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>
#include <CLI/CLI.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "microbench/bench_output.hpp"
#include "microbench/suite_options.hpp"

namespace sonde::microbench {
namespace {

// Google Benchmark compiles its filter as a POSIX extended regular expression and searches each
// instance's full name for it.
bool selects(const std::string& filter, const std::string& name) {
  return std::regex_search(name, std::regex(filter, std::regex::extended));
}

TEST(NoiseFilter, MatchesExactlyTheGivenNames) {
  const std::string a = "chase.random/ws:4096/min_time:0.030/repeats:5/manual_time";
  const std::string b = "triad/threads:2/min_time:0.030/repeats:5/real_time";
  const std::string filter = exact_benchmark_filter({a, b});
  EXPECT_EQ(filter.front(), '^');
  EXPECT_EQ(filter.back(), '$');
  EXPECT_TRUE(selects(filter, a));
  EXPECT_TRUE(selects(filter, b));
  // Neither a longer working set nor a prefix, a suffix or a name inside another.
  EXPECT_FALSE(selects(filter, "chase.random/ws:40960/min_time:0.030/repeats:5/manual_time"));
  EXPECT_FALSE(selects(filter, "chase.random/ws:4096/min_time:0.030/repeats:5"));
  EXPECT_FALSE(selects(filter, a + "/threads:2"));
  EXPECT_FALSE(selects(filter, "x" + a));
  // '.' is a dot, not any character.
  EXPECT_FALSE(selects(filter, "chaseXrandom/ws:4096/min_time:0.030/repeats:5/manual_time"));
}

TEST(NoiseFilter, EscapesEverySpecialCharacter) {
  const std::string odd = R"(odd(1)[2]{3}+.*?|^$\x/y)";
  const std::string filter = exact_benchmark_filter({odd});
  EXPECT_TRUE(selects(filter, odd)) << filter;
  EXPECT_FALSE(selects(filter, "odd1")) << filter;
  EXPECT_EQ(filter, R"(^(odd\(1\)\[2]\{3}\+\.\*\?\|\^\$\\x/y)$)");
}

TEST(NoiseFilter, NoNamesNoFilter) { EXPECT_EQ(exact_benchmark_filter({}), ""); }

TEST(NoiseSelection, NoisiestFirstUntilTheTimeIsSpent) {
  const std::vector<NoisyBenchmark> noisy{
      {"a", 0.10, 1.0}, {"b", 0.30, 1.0}, {"c", 0.20, 1.0}, {"d", 0.40, 1.0}};
  EXPECT_EQ(select_for_remeasure(noisy, 10.0), (std::vector<std::string>{"d", "b", "c", "a"}));
  // The time of those taken stays within the budget.
  EXPECT_EQ(select_for_remeasure(noisy, 1.5), (std::vector<std::string>{"d"}));
  EXPECT_EQ(select_for_remeasure(noisy, 2.0), (std::vector<std::string>{"d", "b"}));
  EXPECT_TRUE(select_for_remeasure(noisy, 0.5).empty());
  // The noisiest one too long stops the selection: no quieter one is taken after it.
  EXPECT_TRUE(select_for_remeasure({{"long", 0.5, 5.0}, {"short", 0.4, 0.1}}, 1.0).empty());
  EXPECT_TRUE(select_for_remeasure({}, 1.0).empty());
}

TEST(NoiseSelection, TheFilterLengthIsBounded) {
  std::vector<NoisyBenchmark> noisy;
  for (int i = 0; i < 100; ++i) noisy.push_back({std::string(98, 'a' + i % 26), 0.5, 0.0});
  const std::vector<std::string> selected = select_for_remeasure(noisy, 1.0, 1000);
  EXPECT_EQ(selected.size(), 10u) << "4 + 10 * 98 + 9 separators <= 1000";
  EXPECT_LE(exact_benchmark_filter(selected).size(), 1000u);
}

TEST(NoiseChoice, FirstAttemptWithinTheThreshold) {
  const NoiseChoice choice = choose_attempt({0.2, 0.04, 0.01}, 0.05);
  EXPECT_EQ(choice.kept_attempt, 1u);
  EXPECT_FALSE(choice.noisy);
  EXPECT_EQ(choose_attempt({0.05}, 0.05).kept_attempt, 0u) << "at the threshold is within it";
  EXPECT_FALSE(choose_attempt({0.05}, 0.05).noisy);
}

TEST(NoiseChoice, ElseTheLeastSpreadAttempt) {
  NoiseChoice choice = choose_attempt({0.2, 0.09, 0.3}, 0.05);
  EXPECT_EQ(choice.kept_attempt, 1u);
  EXPECT_TRUE(choice.noisy);
  choice = choose_attempt({0.2, std::nullopt, 0.1}, 0.05);
  EXPECT_EQ(choice.kept_attempt, 2u) << "a failed attempt is never kept";
  EXPECT_TRUE(choice.noisy);
  choice = choose_attempt({0.2}, 0.05);
  EXPECT_EQ(choice.kept_attempt, 0u) << "never measured again";
  EXPECT_TRUE(choice.noisy);
  EXPECT_EQ(choose_attempt({0.2, 0.2}, 0.05).kept_attempt, 0u) << "a tie keeps the first";
}

// Benchmarks with a known spread: manual times of 1 ms and 3 ms in turn (cv 0.58), or 1 ms
// always (cv 0). Their calls are counted, to tell what was measured again.
std::atomic<int> noisy_then_steady_calls{0}, steady_calls{0}, always_noisy_calls{0},
    failing_calls{0};

void set_time(benchmark::State& state, bool long_one) {
  for (auto _ : state) state.SetIterationTime(long_one ? 3e-3 : 1e-3);
}

struct Names {
  std::string noisy_then_steady, steady, always_noisy, failing, slow;
};

// Registered once: Google Benchmark's registry is global.
const Names& register_noise_benchmarks(ParamRegistry*& registry_out) {
  static ParamRegistry registry;
  static const Names names = [&] {
    Names result;
    const auto add = [&](const std::string& name, std::function<void(benchmark::State&)> run) {
      // One iteration a repetition (Google Benchmark allows no minimum time with it).
      registry.add(name, {{"name", name}});
      benchmark::RegisterBenchmark(name.c_str(), std::move(run))
          ->Repetitions(4)
          ->Iterations(1)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
      // Google Benchmark's full name of the instance, as the entries' run_name holds it.
      return name + "/iterations:1/repeats:4/manual_time";
    };
    // The steady one is registered first: the noisy one's family is then number 1, which a pass
    // running it alone would number 0.
    result.steady = add("noise_test/ws:40960", [](benchmark::State& state) {
      ++steady_calls;
      set_time(state, false);
    });
    result.noisy_then_steady = add("noise_test/ws:4096", [](benchmark::State& state) {
      // Noisy in the first pass (its first four repetitions), steady afterwards.
      const int call = noisy_then_steady_calls++;
      set_time(state, call < 4 && call % 2 == 1);
    });
    result.always_noisy = add(R"(noise_test/odd(1)[2]{3}+.*?|^$\)", [](benchmark::State& state) {
      set_time(state, always_noisy_calls++ % 2 == 1);
    });
    result.failing = add("noise_test/failing", [](benchmark::State& state) {
      ++failing_calls;
      state.SkipWithError("deliberately");
      for (auto _ : state) {
      }
    });
    // Wall time, so that measuring the others again fits in a quarter of the first pass.
    result.slow = add("noise_test/slow", [](benchmark::State& state) {
      std::this_thread::sleep_for(std::chrono::milliseconds(40));
      set_time(state, false);
    });
    return result;
  }();
  registry_out = &registry;
  return names;
}

void reset_calls() {
  noisy_then_steady_calls = steady_calls = always_noisy_calls = failing_calls = 0;
}

std::vector<nlohmann::json> entries_of(const nlohmann::json& document, const std::string& name) {
  std::vector<nlohmann::json> entries;
  for (const nlohmann::json& entry : document.at("benchmarks")) {
    if (entry.at("run_name") == name) entries.push_back(entry);
  }
  return entries;
}

TEST(NoiseRun, MeasuresTheNoisyAgainAndKeepsTheChosenAttempt) {
  ParamRegistry* registry = nullptr;
  const Names& names = register_noise_benchmarks(registry);
  reset_calls();
  const auto path = std::filesystem::temp_directory_path() / "sonde-noise-test.json";
  std::filesystem::remove(path);
  OutputOptions options;
  options.out = path;
  options.progress = true;
  options.noise_cv = 0.05;
  options.remeasure = 2;
  int finished = 0;
  options.finish_context = [&](nlohmann::json& sonde) {
    ++finished;
    sonde["load"] = {{"seconds", 1.0}};
  };
  const RunOutcome outcome = run_benchmarks(*registry, {{"suite", "noise"}}, options);
  EXPECT_EQ(outcome.benchmarks, 5u) << "benchmarks, not attempts";
  EXPECT_EQ(outcome.failed, 1u);
  EXPECT_EQ(finished, 1);
  EXPECT_EQ(steady_calls, 4) << "ws:40960 is not measured again with ws:4096";
  EXPECT_EQ(noisy_then_steady_calls, 8) << "once again: the second attempt is within";
  EXPECT_EQ(always_noisy_calls, 12) << "twice again";
  EXPECT_EQ(failing_calls, 4) << "its repetitions in the first pass: never measured again";

  std::ifstream in(path);
  const nlohmann::json document = nlohmann::json::parse(in);
  const nlohmann::json& sonde = document.at("context").at("sonde");
  EXPECT_EQ(sonde.at("suite"), "noise");
  EXPECT_EQ(sonde.at("load").at("seconds"), 1.0);
  const nlohmann::json& noise = sonde.at("noise");
  EXPECT_EQ(noise.at("cv_threshold"), 0.05);
  EXPECT_EQ(noise.at("remeasure"), 2);
  EXPECT_EQ(noise.at("remeasured"),
            nlohmann::json::array({names.noisy_then_steady, names.always_noisy}));
  EXPECT_EQ(noise.at("noisy"), nlohmann::json::array({names.always_noisy}));
  EXPECT_GE(noise.at("remeasure_seconds").get<double>(), 0.0);

  // The steady attempt replaced the noisy one: repetitions and aggregates, in its place.
  const std::vector<nlohmann::json> kept = entries_of(document, names.noisy_then_steady);
  ASSERT_EQ(kept.size(), 4u + 4u) << "four repetitions; mean median stddev cv";
  for (const nlohmann::json& entry : kept) {
    const nlohmann::json& object = entry.at("noise");
    EXPECT_EQ(object.at("kept_attempt"), 1);
    EXPECT_EQ(object.at("noisy"), false);
    EXPECT_EQ(object.at("cv_threshold"), 0.05);
    ASSERT_EQ(object.at("attempts_cv").size(), 2u);
    EXPECT_NEAR(object.at("attempts_cv")[0].get<double>(), 0.577, 0.01);
    EXPECT_EQ(object.at("attempts_cv")[1].get<double>(), 0.0);
    EXPECT_EQ(entry.at("family_index"), 1) << "the first pass's number";
    EXPECT_EQ(entry.at("params").at("name"), "noise_test/ws:4096");
    if (entry.at("run_type") == "iteration") {
      EXPECT_NEAR(entry.at("real_time").get<double>(), 1000.0, 1e-6) << "1 ms in microseconds";
    }
  }
  EXPECT_EQ(document.at("benchmarks")[8].at("run_name"), names.noisy_then_steady)
      << "in its place: after the eight entries of ws:40960";

  const std::vector<nlohmann::json> stays = entries_of(document, names.always_noisy);
  ASSERT_EQ(stays.size(), 8u);
  for (const nlohmann::json& entry : stays) {
    const nlohmann::json& object = entry.at("noise");
    EXPECT_EQ(object.at("noisy"), true);
    ASSERT_EQ(object.at("attempts_cv").size(), 3u);
    for (const nlohmann::json& cv : object.at("attempts_cv")) EXPECT_TRUE(cv.is_number());
  }
  for (const std::string& quiet : {names.steady, names.failing, names.slow}) {
    const std::vector<nlohmann::json> entries = entries_of(document, quiet);
    ASSERT_FALSE(entries.empty()) << quiet;
    for (const nlohmann::json& entry : entries) EXPECT_FALSE(entry.contains("noise")) << quiet;
  }
  std::filesystem::remove(path);
}

TEST(NoiseRun, AQuietProcessRunsThePassesItIsGiven) {
  ParamRegistry* registry = nullptr;
  const Names& names = register_noise_benchmarks(registry);
  reset_calls();
  OutputOptions options;
  options.quiet = true;
  options.remeasure = 2;
  std::vector<std::string> asked;
  options.agree = [&](const std::string& filter) {
    asked.push_back(filter);
    return exact_benchmark_filter({names.steady});  // never "": the passes are bounded
  };
  run_benchmarks(*registry, {}, options);
  EXPECT_EQ(asked, (std::vector<std::string>{"", ""}));
  EXPECT_EQ(steady_calls, 4 + 2 * 4);
  EXPECT_EQ(noisy_then_steady_calls, 4);

  reset_calls();
  asked.clear();
  options.agree = [&](const std::string& filter) {
    asked.push_back(filter);
    return std::string();
  };
  run_benchmarks(*registry, {}, options);
  EXPECT_EQ(asked.size(), 1u) << "an empty filter ends the passes";
  EXPECT_EQ(steady_calls, 4);
}

TEST(NoiseOptions, PassedOnOnlyWhereNotTheDefaults) {
  CommonOptions options;
  EXPECT_EQ(options.noise_cv, 0.05);
  EXPECT_EQ(options.remeasure, 2);
  EXPECT_TRUE(common_option_arguments(options).empty());
  options.noise_cv = 0.1;
  options.remeasure = 0;
  EXPECT_EQ(common_option_arguments(options),
            (std::vector<std::string>{"--noise-cv=0.1", "--remeasure=0"}));

  CommonOptions parsed;
  CLI::App app;
  add_common_options(app, parsed);
  app.parse("--noise-cv 0.02 --remeasure 3", false);
  EXPECT_EQ(parsed.noise_cv, 0.02);
  EXPECT_EQ(parsed.remeasure, 3);
}

}  // namespace
}  // namespace sonde::microbench
