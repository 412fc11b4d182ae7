#include "microbench/suite_program.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/program.hpp"
#include "microbench/hardware_counters.hpp"
#include "microbench/run_context.hpp"
#include "microbench/system_load.hpp"

namespace sonde::microbench {

int run_suite_program(const SuiteProgram& suite, int argc, char** argv) {
  const std::vector<std::string> command_line(argv, argv + argc);
  // Google Benchmark answers --help with its own flags alone: the suite's options are asked for.
  const bool help =
      std::find(command_line.begin() + 1, command_line.end(), "--help") != command_line.end();
  if (!help) benchmark::Initialize(&argc, argv);  // takes the --benchmark_* flags out of argv
  return run_program(suite.program.c_str(), [&]() -> int {
    ProgramFlags flags;
    if (const auto code = parse_program_command_line(suite.description, suite.program,
                                                     suite.add_options, argc, argv, flags))
      return *code;
    const std::string& out = flags.out;
    const bool progress = flags.progress, list_parts = flags.list_parts, resume = flags.resume;

    const Topology topology = Topology::from_system();
    // The sizes: the run's sizing when `sonde characterize` decided one, else hwloc's caches
    // clamped to the memory this process may use.
    const CommonOptions no_options;
    const CommonOptions& common = suite.common != nullptr ? *suite.common : no_options;
    const Sizing sizing = common.sizing_file.empty()
                              ? default_sizing(topology, usable_memory(topology))
                              : read_sizing(common.sizing_file);
    if (common.sizing_file.empty() && !suite.quiet && !list_parts) {
      for (const std::string& note : sizing.notes)
        fmt::print(stderr, "{}: note: {}\n", suite.program, note);
    }
    const Topology sized = sized_topology(topology, sizing);
    const SuiteParts parts = suite.plan(sized, sizing);
    for (const std::string& skipped : parts.skipped) {
      if (!suite.quiet) fmt::print(stderr, "{}: skipped {}\n", suite.program, skipped);
    }
    if (list_parts) {
      if (suite.quiet) return 0;
      for (const std::string& part : parts.parts) fmt::print("{}\n", part);
      return 0;
    }
    if (!out.empty() && !suite.quiet) {
      // Fail now, not after minutes of measuring, when the result cannot be written.
      const std::filesystem::path folder = std::filesystem::path(out).parent_path();
      ensure_writable_folder(folder.empty() ? "." : folder);
    }
    if (suite.bind_to_first_core) topology.bind_current_thread_to_core(0);
    const std::optional<CoreClock> clock = measure_core_clock();
    HardwareCounters::open(suite.common != nullptr ? suite.common->papi_events
                                                   : std::vector<std::string>{});
    if (!suite.quiet)
      fmt::print(stderr, "{}: {}\n", suite.program, HardwareCounters::get().status());

    ParamRegistry registry;
    nlohmann::json context = make_run_context(suite.suite, topology, clock, command_line);
    context["sizing"] = to_json(sizing);
    context[suite.suite + "_suite"] = suite.register_benchmarks(sized, sizing, clock, registry);
    context["counters"] = HardwareCounters::get().to_json();
    if (suite.add_context) suite.add_context(context);
    add_to_benchmark_context(context);
    if (progress && !suite.quiet) {
      fmt::print(stderr, "{}: {} benchmarks in {}\n", suite.program, registry.size(),
                 fmt::join(parts.parts, ", "));
    }
    OutputOptions output;
    if (!out.empty()) {
      output.out = out;
      if (!suite.quiet) output.unfinished = unfinished_path(out);
    }
    // The plan a resumed run must match. Not the memory free at the start: the MPI suite's ranks
    // size themselves from it (`sonde characterize` gives them no sizing file), it moves between
    // an interrupted run and its resumption, and what it decides shows in the suite's own plan.
    nlohmann::json sizing_identity = context["sizing"];
    if (sizing_identity.is_object()) {
      sizing_identity.erase("usable_memory");
      sizing_identity.erase("max_buffer_bytes");
    }
    output.plan = {{"suite", context[suite.suite + "_suite"]}, {"sizing", sizing_identity}};
    if (resume && !benchmark::GetBenchmarkFilter().empty()) {
      throw usage_error("--resume",
                        "not with --benchmark_filter: a resumed run measures what the "
                        "interrupted one left, whatever the filter");
    }
    if (resume && output.unfinished) {
      const Unfinished unfinished = read_unfinished(*output.unfinished, registry, output.plan);
      if (!unfinished.ignored.empty()) {
        fmt::print(stderr, "{}: not resuming: {}; measuring the whole part\n", suite.program,
                   unfinished.ignored);
      }
      if (unfinished.kept) {
        output.resumed = unfinished.kept;
        output.resumed_from = output.unfinished->string();
        fmt::print(stderr, "{}: resuming: {} benchmark entries kept from {}{}\n", suite.program,
                   (*output.resumed)["benchmarks"].size(), output.resumed_from,
                   unfinished.dropped > 0
                       ? fmt::format(" ({} benchmarks dropped: not in this plan, failed, or "
                                     "without their aggregates)",
                                     unfinished.dropped)
                       : std::string());
      }
    }
    output.progress = progress;
    output.quiet = suite.quiet;
    output.headline_counters = suite.headline_counters;
    if (suite.common != nullptr) {
      output.noise_cv = suite.common->noise_cv;
      output.remeasure = suite.common->remeasure;
    }
    output.agree = suite.agree;
    output.broadcast = suite.broadcast;
    // The load on the machine while it measured: steal time, other processes.
    std::optional<LoadSample> load_start;
    std::string load_error;
    if (!suite.quiet) {
      try {
        load_start = sample_load();
      } catch (const Error& e) {
        load_error = e.what();
      }
    }
    output.finish_context = [&](nlohmann::json& sonde) {
      // The clock again at the part's end: a guest's clock moves within a part of minutes (3.0 to
      // 3.9 GHz between parts on the Zen 5 guest of 2026-12-05), and the profile's clock takes
      // every reading.
      if (const std::optional<CoreClock> end = measure_core_clock()) {
        sonde["clock_end"] = clock_json(end);
      }
      if (!load_start) {
        sonde["load"] = {{"error", load_error}};
        return;
      }
      try {
        sonde["load"] = to_json(load_between(*load_start, sample_load()));
      } catch (const Error& e) {
        sonde["load"] = {{"error", e.what()}};
      }
    };
    output.run_context = context;
    const RunOutcome outcome = run_benchmarks(registry, context, output);
    benchmark::Shutdown();
    if (outcome.failed > 0 && !suite.quiet) {
      fmt::print(stderr, "{}: {} of {} benchmarks failed (see their error_message)\n",
                 suite.program, outcome.failed, outcome.benchmarks);
      return static_cast<int>(ExitCode::failure);
    }
    return 0;
  });
}

}  // namespace sonde::microbench
