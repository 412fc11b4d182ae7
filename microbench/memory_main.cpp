// sonde-bench-memory: the memory-hierarchy suite as a program of its own. Google Benchmark's
// --benchmark_* flags work as usual; sonde's options select sizes, threads and parts.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/program.hpp"
#include "core/units.hpp"
#include "core/version.hpp"
#include "microbench/bench_output.hpp"
#include "microbench/memory_suite.hpp"
#include "microbench/run_context.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> command_line(argv, argv + argc);
  benchmark::Initialize(&argc, argv);  // takes the --benchmark_* flags out of argv
  return sonde::run_program("sonde-bench-memory", [&]() -> int {
    using namespace sonde::microbench;
    CLI::App app{
        "sonde memory-hierarchy suite: pointer-chase latency, streaming bandwidth and "
        "stride sweeps over working sets from the detected caches",
        "sonde-bench-memory"};
    app.set_version_flag("--version", sonde::version);
    MemorySuiteOptions options;
    add_memory_options(app, options);
    std::string out;
    bool progress = false, list_parts = false;
    app.add_option("--out", out,
                   "Write the results (Google Benchmark JSON) to this file, atomically");
    app.add_flag("--progress", progress, "One line per benchmark on stderr instead of the table");
    app.add_flag("--list-parts", list_parts, "Print the parts this machine would run and exit");
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      const int code = app.exit(e);
      return code == 0 ? 0 : static_cast<int>(sonde::ExitCode::usage);
    }

    const Topology topology = Topology::from_system();
    const MemorySuitePlan plan = plan_memory_suite(options, topology);
    if (list_parts) {
      for (const std::string& part : plan.parts) fmt::print("{}\n", part);
      for (const std::string& skipped : plan.skipped_parts)
        fmt::print(stderr, "skipped {}\n", skipped);
      return 0;
    }
    if (!out.empty()) {
      // Fail now, not after minutes of measuring, when the result cannot be written.
      const std::filesystem::path folder = std::filesystem::path(out).parent_path();
      sonde::ensure_writable_folder(folder.empty() ? "." : folder);
    }
    for (const std::string& skipped : plan.skipped_parts) {
      fmt::print(stderr, "sonde-bench-memory: skipped {}\n", skipped);
    }
    topology.bind_current_thread_to_core(0);
    const std::optional<CoreClock> clock = measure_core_clock();

    ParamRegistry registry;
    const std::size_t count = register_memory_suite(plan, topology, clock, registry);
    nlohmann::json context = make_run_context("memory", topology, clock, command_line);
    context["memory_suite"] = to_json(plan);
    context["counters"] = {{"source", "none"},
                           {"note", "hardware counters are not read by the memory suite yet"}};
    add_to_benchmark_context(context);
    if (progress) {
      fmt::print(stderr, "sonde-bench-memory: {} benchmarks in {}; working sets {} to {}\n", count,
                 fmt::join(plan.parts, ", "),
                 sonde::format_bytes(static_cast<double>(plan.working_sets.front())),
                 sonde::format_bytes(static_cast<double>(plan.working_sets.back())));
    }

    OutputOptions output;
    if (!out.empty()) output.out = out;
    output.progress = progress;
    output.headline_counters = {"seconds_per_load", "bytes_per_second", "seconds_per_access"};
    const RunOutcome outcome = run_benchmarks(registry, context, output);
    benchmark::Shutdown();
    if (outcome.failed > 0) {
      fmt::print(stderr,
                 "sonde-bench-memory: {} of {} benchmarks failed (see their error_message)\n",
                 outcome.failed, outcome.benchmarks);
      return static_cast<int>(sonde::ExitCode::failure);
    }
    return 0;
  });
}
