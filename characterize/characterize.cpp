#include "characterize/characterize.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <map>
#include <optional>

#include <unistd.h>

#include "characterize/drift.hpp"
#include "characterize/run_plan.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/program.hpp"
#include "core/results.hpp"
#include "core/units.hpp"
#include "core/version.hpp"
#include "microbench/compute/compute_suite.hpp"
#include "microbench/contention/contention_suite.hpp"
#include "microbench/mpi/mpi_plan.hpp"
#include "microbench/overhead/overhead_suite.hpp"
#include "microbench/run_context.hpp"
#include "microbench/system_load.hpp"

namespace sonde::characterize {

using namespace microbench;  // the orchestrator drives the harness and its suites
namespace {

nlohmann::json read_manifest(const std::filesystem::path& path) {
  try {
    return nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw input_error(path.string(), fmt::format("is not a valid run manifest: {}", e.what()));
  }
}

// The newest run of this machine whose manifest says it is not complete.
std::string newest_unfinished_run(const std::filesystem::path& machine_folder) {
  std::string newest;
  std::error_code ec;
  if (!std::filesystem::is_directory(machine_folder, ec)) return newest;
  for (const auto& entry : std::filesystem::directory_iterator(machine_folder)) {
    const auto manifest = entry.path() / "run.json";
    if (!std::filesystem::is_regular_file(manifest, ec)) continue;
    if (read_manifest(manifest).value("complete", false)) continue;
    const std::string id = entry.path().filename().string();
    if (id > newest) newest = id;
  }
  return newest;
}

bool is_whole_result(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  try {
    read_result_file(path);
    return true;
  } catch (const Error&) {
    return false;
  }
}

// "20261121T140509Z": sorts in time order and is safe in any file system.
std::string new_run_id() {
  std::string stamp = utc_timestamp();
  std::erase(stamp, '-');
  std::erase(stamp, ':');
  return stamp;
}

}  // namespace

std::filesystem::path own_folder() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw io_error("/proc/self/exe", "cannot find this program's folder: " + ec.message());
  return exe.parent_path();
}

std::vector<std::string> suite_names() {
  return {"memory", "contention", "overhead", "compute", "mpi"};
}

std::vector<SuiteRun> plan_suites(const SuiteSelection& selection, const Topology& topology,
                                  const Sizing& sizing) {
  const std::vector<std::string> all = suite_names();
  for (const std::string& suite : selection.suites) {
    if (std::find(all.begin(), all.end(), suite) == all.end()) {
      throw usage_error("--suite", fmt::format("unknown suite '{}'; the suites are {}", suite,
                                               fmt::join(all, ", ")));
    }
  }
  const auto named = [&](const std::string& suite) {
    return std::find(selection.suites.begin(), selection.suites.end(), suite) !=
           selection.suites.end();
  };
  const bool mpi = selection.mpi || named("mpi");
  // No single-node suite named: all of them, unless only `mpi` was named.
  const bool only_mpi = !selection.suites.empty() &&
                        std::all_of(selection.suites.begin(), selection.suites.end(),
                                    [](const std::string& suite) { return suite == "mpi"; });
  const auto wanted = [&](const std::string& suite) {
    if (suite == "mpi") return mpi;
    return named(suite) || (selection.suites.empty() && !only_mpi);
  };
  // --part names parts of any suite; each suite gets its own.
  MemorySuiteOptions memory = selection.memory;
  memory.common.parts.clear();
  const std::map<std::string, std::vector<std::string>> available{
      {"memory", memory_part_names(plan_memory_suite(memory, topology, sizing))},
      {"contention", contention_part_names()},
      {"overhead", overhead_part_names()},
      {"compute", compute_part_names()},
      {"mpi", mpi_part_names()}};
  const std::vector<std::string>& asked = selection.memory.common.parts;
  std::vector<std::string> every_part;
  for (const std::string& suite : all) {
    if (wanted(suite))
      every_part.insert(every_part.end(), available.at(suite).begin(), available.at(suite).end());
  }
  select_parts(asked, every_part);  // an unknown part is a usage error naming them all

  std::vector<SuiteRun> runs;
  for (const std::string& suite : all) {
    if (!wanted(suite)) continue;
    CommonOptions common = selection.memory.common;
    common.parts.clear();
    for (const std::string& part : asked) {
      const auto& mine = available.at(suite);
      if (std::find(mine.begin(), mine.end(), part) != mine.end()) common.parts.push_back(part);
    }
    if (!asked.empty() && common.parts.empty()) continue;
    SuiteRun run;
    run.suite = suite;
    run.program = suite == "mpi" ? selection.mpi_program : "sonde-bench-" + suite;
    if (suite == "memory") {
      MemorySuiteOptions options = selection.memory;
      options.common = common;
      const MemorySuitePlan plan = plan_memory_suite(options, topology, sizing);
      options.common.parts.clear();
      run.arguments = memory_option_arguments(options);
      run.parts = plan.parts;
      run.skipped_parts = plan.skipped_parts;
    } else if (suite == "contention") {
      const ContentionSuitePlan plan = plan_contention_suite(common, topology, sizing);
      run.parts = plan.parts;
      run.skipped_parts = plan.skipped_parts;
    } else if (suite == "overhead") {
      const OverheadSuitePlan plan = plan_overhead_suite(common, topology, sizing);
      run.parts = plan.parts;
      run.skipped_parts = plan.skipped_parts;
    } else if (suite == "compute") {
      run.parts = plan_compute_suite(common, topology, sizing).parts;
    } else {
      // The launcher decides the ranks: a part that needs two says so in its own result.
      run.parts = select_parts(common.parts, mpi_part_names());
      run.launcher = selection.mpi_launcher;
      if (run.launcher.empty()) {
        run.launcher = {"mpiexec", "-n", std::to_string(std::max(2u, topology.cores()))};
      }
    }
    if (suite == "mpi") {
      // The ranks may run on nodes that cannot read this run's folder: each plans its buffers from
      // its own memory, and the effort travels as options.
      common.sizing_file.clear();
      if (!common.quick && common.repetitions == 0 &&
          sizing.effort.repetitions != Effort{}.repetitions) {
        common.repetitions = sizing.effort.repetitions;
      }
      if (!common.quick && common.min_time_seconds == 0 && sizing.effort.min_time_scale != 1.0) {
        common.min_time_seconds = 0.02 * sizing.effort.min_time_scale;
      }
    }
    if (suite != "memory") {
      common.parts.clear();
      run.arguments = common_option_arguments(common);
    }
    if (suite == "mpi" && !selection.collective_bytes.empty()) {
      run.arguments.push_back(
          fmt::format("--collective-bytes={}", fmt::join(selection.collective_bytes, ",")));
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

namespace {

// The coarse latency probe's points: each working set's fastest repetition.
std::vector<LatencyPoint> probe_points(const std::filesystem::path& file) {
  std::map<std::uint64_t, double> fastest;
  for (const BenchmarkRecord& record : read_result_file(file).benchmarks) {
    if (record.run_type == "aggregate" || !record.error_message.empty()) continue;
    const auto seconds = record.counter("seconds_per_load");
    const auto bytes = record.params.find("working_set_bytes");
    if (!seconds || !std::isfinite(*seconds) || *seconds <= 0 || bytes == record.params.end() ||
        !bytes->is_number_unsigned()) {
      throw input_error(file.string(), fmt::format("benchmark '{}' lacks a positive "
                                                   "seconds_per_load or params.working_set_bytes",
                                                   record.name));
    }
    const auto b = bytes->get<std::uint64_t>();
    fastest[b] = fastest.count(b) ? std::min(fastest[b], *seconds) : *seconds;
  }
  std::vector<LatencyPoint> points;
  for (const auto& [bytes, seconds] : fastest) points.push_back({bytes, seconds});
  if (points.size() < 3) {
    throw input_error(file.string(), "the latency probe measured fewer than three working sets");
  }
  return points;
}

bool probe_wanted(const std::vector<SuiteRun>& suites) {
  return std::any_of(suites.begin(), suites.end(), [](const SuiteRun& run) {
    return run.suite == "memory" || run.suite == "contention";
  });
}

// The suite's program under its launcher (if any), with the suite's own options.
std::vector<std::string> suite_command(const std::filesystem::path& folder, const SuiteRun& suite) {
  std::vector<std::string> argv = suite.launcher;
  argv.push_back((folder / suite.program).string());
  argv.insert(argv.end(), suite.arguments.begin(), suite.arguments.end());
  return argv;
}

// Whether a part's result is kept from before: a whole file under its name, and not a part that
// failed last time (whose file could not be set aside): a failed part is never kept, so never
// fitted.
bool part_kept(const std::filesystem::path& run_folder, const nlohmann::json& manifest,
               const std::string& key) {
  const bool failed_before = manifest.value("timing", nlohmann::json::object())
                                 .value(key, nlohmann::json::object())
                                 .value("failed", false);
  return !failed_before && is_whole_result(run_folder / (key + ".json"));
}

// Runs one part of a suite program into `file`; throws on an interrupt.
// With `resume`, the part's program keeps what an interrupted run of it measured (its unfinished
// file beside `file`) and measures only the rest.
ChildExit run_part(const std::filesystem::path& folder, const SuiteRun& suite,
                   const std::string& part, const std::filesystem::path& file,
                   const std::filesystem::path& run_folder, double launcher_grace_seconds,
                   bool resume = false) {
  const auto interrupted = [&] {
    return Error(ExitCode::interrupted, "sonde characterize",
                 fmt::format("interrupted before part {}; the finished parts are kept in {}; "
                             "continue with: sonde characterize --resume (and the same options)",
                             part, run_folder.string()));
  };
  // A signal while sonde itself was planning had no child to stop: stop here.
  if (interrupting_signal() != 0) throw interrupted();
  std::vector<std::string> argv = suite_command(folder, suite);
  argv.insert(argv.end(), {"--part=" + part, "--out=" + file.string(), "--progress"});
  if (resume) argv.push_back("--resume");
  // A part's result is written atomically when its last benchmark is done: a launcher still
  // running a grace period after that (MPI teardown that hangs; seen once with MPICH over a
  // delayed link) is stopped, and the part keeps its result.
  StopWhenDone stop;
  stop.done = [&file] { return is_whole_result(file); };
  stop.grace_seconds = launcher_grace_seconds;
  const ChildExit exit = run_child(argv, {}, false, stop);
  if (interrupting_signal() != 0 ||
      (exit.signaled && !exit.stopped_when_done && (exit.code == SIGINT || exit.code == SIGTERM))) {
    throw Error(ExitCode::interrupted, "sonde characterize",
                fmt::format("interrupted during part {}; the finished parts are kept in {}, and "
                            "the benchmarks this part finished in its unfinished file; continue "
                            "with: sonde characterize --resume (and the same options)",
                            part, run_folder.string()));
  }
  return exit;
}

// Whether a part's program did its work: it exited 0, or it was stopped by run_part after its
// result was whole (StopWhenDone's done() held before any signal, and the result is written
// atomically, so it stays whole).
bool part_succeeded(const ChildExit& exit) { return exit.ok() || exit.stopped_when_done; }

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Between parts the machine is probed (drift.hpp) at most this far apart, and around every memory
// bandwidth part, whose DRAM figures the probes bracket.
constexpr double kDriftProbeEvery = 60;

bool bandwidth_part(const std::string& key) { return key.starts_with("memory-bandwidth-t"); }

}  // namespace

CharacterizeOutcome characterize(const CharacterizeOptions& options, SuiteSelection selection,
                                 const Topology& topology) {
  const auto started = std::chrono::steady_clock::now();
  const bool quick = selection.memory.common.quick;
  const double budget = options.budget_seconds > 0 ? options.budget_seconds : (quick ? 60 : 600);
  const std::string machine = folder_safe(options.machine.empty() ? host_name() : options.machine);
  const std::filesystem::path machine_folder = options.results_root / machine;

  std::string run_id = options.run_id;
  if (options.resume && run_id.empty()) {
    run_id = newest_unfinished_run(machine_folder);
    if (run_id.empty()) {
      throw usage_error("--resume", fmt::format("no unfinished run of '{}' under {}", machine,
                                                machine_folder.string()));
    }
  }
  if (run_id.empty()) run_id = new_run_id();
  if (folder_safe(run_id) != run_id) {
    throw usage_error("--run-id", fmt::format("'{}' is not a folder name; use letters, digits, "
                                              "'.', '_' and '-'",
                                              run_id));
  }
  CharacterizeOutcome outcome;
  outcome.run_folder = machine_folder / run_id;
  const std::filesystem::path sizing_path = outcome.run_folder / "sizing.json";
  std::error_code ec;
  const bool resuming = std::filesystem::exists(sizing_path, ec);

  // The plan. A run that started keeps the sizes and effort it started with.
  RunPlan plan;
  std::optional<double> probe_seconds;
  if (resuming) {
    selection.memory.common.sizing_file = sizing_path.string();
    plan =
        plan_run_at_effort(selection, topology, read_sizing(sizing_path.string()), budget, false);
    fmt::print(stderr, "sonde: the plan this run started with (from {})\n{}", sizing_path.string(),
               format_plan(plan, topology));
    if (options.budget_given) {
      fmt::print(stderr,
                 "sonde: note: a resumed run keeps the sizes and effort it started with; "
                 "--budget applies to new runs\n");
    }
  } else {
    const UsableMemory usable = usable_memory(topology);
    const Sizing from_hwloc = default_sizing(topology, usable);
    SuiteSelection unsized = selection;
    unsized.memory.common.sizing_file.clear();
    const bool probe = probe_wanted(plan_suites(unsized, topology, from_hwloc));
    plan = plan_run(unsized, topology, from_hwloc, budget, probe);
    fmt::print(stderr, "sonde: {}\n{}",
               probe ? "the plan from hwloc's claims; the probe comes first and may move the "
                       "sizes, and the plan is made again after it"
                     : "the plan",
               format_plan(plan, topology));
    if (!plan.fits() && options.budget_given) {
      throw usage_error(
          "--budget", fmt::format("{} is less than the shortest plan for this machine ({}); "
                                  "give at least that, or fewer suites (--suite) or parts "
                                  "(--part)",
                                  format_duration(budget), format_duration(plan.total_seconds())));
    }
    if (!plan.fits()) {
      fmt::print(stderr,
                 "sonde: warning: even the least effort is estimated at {}, more than "
                 "the default budget of {}; it runs all the same (--budget sets another)\n",
                 format_duration(plan.total_seconds()), format_duration(budget));
    }
  }
  const double first_estimate = plan.total_seconds();
  if (options.plan_only) {
    outcome.planned_only = true;
    return outcome;
  }

  ensure_writable_folder(outcome.run_folder);
  const std::filesystem::path manifest_path = outcome.run_folder / "run.json";
  const std::filesystem::path folder =
      options.programs_folder.empty() ? own_folder() : options.programs_folder;
  SignalForwarding forwarding;

  if (!std::filesystem::exists(manifest_path, ec)) {
    // A manifest from the start, so that a run stopped during the probe is found by --resume.
    write_file_atomically(manifest_path, nlohmann::json{{"run_id", run_id},
                                                        {"machine", machine},
                                                        {"host", host_name()},
                                                        {"started_utc", utc_timestamp()},
                                                        {"sonde_version", sonde::version},
                                                        {"complete", false}}
                                                 .dump(2) +
                                             "\n");
  }
  if (!resuming) {
    Sizing sizing = plan.sizing;
    if (plan.probe) {
      // The probe: where the latency really steps, before any size is fixed.
      const std::filesystem::path before = outcome.run_folder / "sizing-before-probe.json";
      write_file_atomically(before, to_json(sizing).dump(2) + "\n");
      SuiteRun memory{"memory", "sonde-bench-memory", {}, {}, {"probe"}, {}};
      CommonOptions common = selection.memory.common;
      common.parts.clear();
      common.sizing_file = before.string();
      common.noise_cv = 0;  // the probe keeps each size's fastest repetition: no re-measuring
      memory.arguments = common_option_arguments(common);
      const std::filesystem::path file = outcome.run_folder / "memory-probe.json";
      fmt::print(stderr, "sonde: probe: {} working sets up to {}, ~{}\n",
                 plan.probe_estimate.benchmarks,
                 format_bytes(static_cast<double>(probe_working_sets(sizing, quick).back())),
                 format_duration(plan.probe_estimate.seconds));
      const auto probe_start = std::chrono::steady_clock::now();
      const ChildExit exit = run_part(folder, memory, "probe", file, outcome.run_folder,
                                      options.launcher_grace_seconds);
      if (!part_succeeded(exit)) {
        throw io_error(
            "sonde characterize",
            fmt::format("the latency probe failed (exit {}); nothing else was run", exit.code));
      }
      sizing = refine_with_probe(sizing, probe_points(file));
      note_clamped_sweep(sizing, sized_topology(topology, sizing));
      probe_seconds = seconds_since(probe_start);
      fmt::print(
          stderr, "sonde: probe took {} (estimated {}); latency steps at {}\n",
          format_duration(*probe_seconds), format_duration(plan.probe_estimate.seconds), [&] {
            std::vector<std::string> steps;
            for (const LevelCapacity& l : sizing.levels)
              if (l.probe_bytes)
                steps.push_back(fmt::format(
                    "{} ({})", format_bytes(static_cast<double>(*l.probe_bytes)), l.name));
            for (std::uint64_t b : sizing.extra_steps)
              steps.push_back(
                  fmt::format("{} (no cache of hwloc's)", format_bytes(static_cast<double>(b))));
            for (std::uint64_t b : sizing.memory_steps)
              steps.push_back(fmt::format("{} (in memory: TLB reach or page walks)",
                                          format_bytes(static_cast<double>(b))));
            return steps.empty() ? std::string("none") : fmt::format("{}", fmt::join(steps, ", "));
          }());
      for (const std::string& note : sizing.notes) fmt::print(stderr, "sonde: {}\n", note);
      plan = plan_run(selection, topology, sizing, std::max(1.0, budget - *probe_seconds), false);
      plan.budget_seconds = budget;
      plan.probe = true;
      plan.probe_estimate = {"memory", "probe", probe_working_sets(sizing, quick).size(),
                             *probe_seconds};
      sizing = plan.sizing;
      fmt::print(stderr, "sonde: the plan after the probe\n{}", format_plan(plan, topology));
    }
    write_file_atomically(sizing_path, to_json(sizing).dump(2) + "\n");
    selection.memory.common.sizing_file = sizing_path.string();
    plan = plan_run_at_effort(selection, topology, sizing, budget, false);
  }
  const std::vector<SuiteRun>& suites = plan.suites;

  nlohmann::json arguments = nlohmann::json::object();
  for (const SuiteRun& suite : suites) {
    arguments[suite.suite] = suite.arguments;
    if (!suite.launcher.empty()) arguments[suite.suite + ".launcher"] = suite.launcher;
  }
  nlohmann::json manifest;
  if (std::filesystem::exists(manifest_path, ec)) manifest = read_manifest(manifest_path);
  if (manifest.contains("suite_arguments")) {
    if (manifest.value("suite_arguments", nlohmann::json()) != arguments) {
      throw usage_error(
          "--resume",
          fmt::format("run {} was started with the suites and options {}, not {}; "
                      "give the same options or start a new run",
                      run_id, manifest.value("suite_arguments", nlohmann::json()).dump(),
                      arguments.dump()));
    }
    fmt::print(stderr, "sonde: continuing run {} in {}\n", run_id, outcome.run_folder.string());
  } else {
    if (!manifest.contains("started_utc")) manifest["started_utc"] = utc_timestamp();
    manifest["run_id"] = run_id;
    manifest["machine"] = machine;
    manifest["host"] = host_name();
    manifest["sonde_version"] = sonde::version;
    manifest["suite_arguments"] = arguments;
    manifest["budget_seconds"] = budget;
    manifest["effort"] = plan.sizing.effort.name;
    manifest["complete"] = false;
    if (probe_seconds) manifest["probe_seconds"] = *probe_seconds;
    fmt::print(stderr, "sonde: new run {} in {}\n", run_id, outcome.run_folder.string());
  }
  std::vector<std::pair<const SuiteRun*, std::string>> parts;
  std::map<std::string, double> estimates;
  for (const PartEstimate& part : plan.parts)
    estimates[part.suite + "-" + part.part] = part.seconds;
  nlohmann::json skipped = nlohmann::json::array();
  for (const SuiteRun& suite : suites) {
    for (const std::string& part : suite.parts) parts.emplace_back(&suite, part);
    for (const std::string& reason : suite.skipped_parts) {
      skipped.push_back(reason);
      fmt::print(stderr, "sonde: skipped {}\n", reason);
    }
  }
  nlohmann::json part_names = nlohmann::json::array();
  for (const auto& [suite, part] : parts) part_names.push_back(part);
  manifest["parts"] = part_names;
  manifest["skipped_parts"] = skipped;
  // The whole run's estimate: the probe as it took, the parts as planned after it.
  const double estimate = plan.total_seconds() + probe_seconds.value_or(0);
  if (!manifest.contains("estimated_seconds")) {
    manifest["estimated_seconds"] = estimate;
    manifest["estimated_before_probe_seconds"] = first_estimate;
  }
  if (!manifest.contains("timing")) manifest["timing"] = nlohmann::json::object();
  write_file_atomically(manifest_path, manifest.dump(2) + "\n");

  for (const SuiteRun& suite : suites) {
    if (::access((folder / suite.program).c_str(), X_OK) != 0) {
      throw io_error((folder / suite.program).string(),
                     suite.suite == "mpi"
                         ? "the MPI benchmark program is missing: build with an MPI library "
                           "(scripts/install-deps.sh installs Open MPI; -DSONDE_MPI=ON)"
                         : "the benchmark program is missing or not executable");
    }
    if (!suite.launcher.empty() && !on_path(suite.launcher.front())) {
      throw io_error("--mpi-launcher",
                     fmt::format("'{}' is not an executable program here (the "
                                 "launcher line was '{}')",
                                 suite.launcher.front(), fmt::join(suite.launcher, " ")));
    }
  }
  // A launcher that cannot start the MPI suite (Open MPI's mpiexec as root, a wrong host file, a
  // batch step outside an allocation) fails now, not after the single-node suites' minutes: the
  // suite's program lists its parts under the launcher, which starts, initializes and
  // communicates as a part would. Skipped where every MPI part is kept from before.
  for (const SuiteRun& suite : suites) {
    if (suite.launcher.empty()) continue;
    const bool measures =
        std::any_of(suite.parts.begin(), suite.parts.end(), [&](const std::string& part) {
          return !part_kept(outcome.run_folder, manifest, suite.suite + "-" + part);
        });
    if (!measures) continue;
    std::vector<std::string> argv = suite_command(folder, suite);
    argv.push_back("--list-parts");
    const ChildExit exit = run_child(argv, {}, true);
    if (interrupting_signal() != 0) {
      throw Error(ExitCode::interrupted, "sonde characterize",
                  "interrupted before any part; continue with: sonde characterize --resume (and "
                  "the same options)");
    }
    if (!exit.ok()) {
      const bool as_root = ::geteuid() == 0;
      throw io_error(
          "--mpi-launcher",
          fmt::format("the MPI suite did not start: '{}' {} {} before any part was measured (its "
                      "messages are above){}",
                      fmt::join(argv, " "), exit.signaled ? "was killed by signal" : "exited",
                      exit.code,
                      as_root ? "; as root Open MPI's mpiexec starts only when told to "
                                "(--allow-run-as-root in the launcher line, or "
                                "OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                                "in the environment: `source scripts/mpi-env.sh` sets them)"
                              : ""));
    }
  }

  // The machine's drift while it is measured: probed where the memory suite runs (the DRAM
  // figures it widens come from it), not for a simulated cluster's MPI suite alone. A quick run
  // probes at its start and end only.
  const bool probe_drift = std::any_of(suites.begin(), suites.end(),
                                       [](const SuiteRun& run) { return run.suite == "memory"; });
  const std::filesystem::path drift_path = drift_log_path(outcome.run_folder);
  // Two cores alone (the first and the last), up to 8 at once, no chase; the in-core read over
  // half the first data cache hwloc reports.
  ProbeSizes drift_sizes;
  drift_sizes.triad_bytes =
      dram_probe_bytes(static_cast<double>(plan.sizing.dram_side_last_level_bytes(topology)),
                       plan.sizing.usable.bytes);
  drift_sizes.cores_alone = 2;
  if (!topology.data_caches().empty()) {
    drift_sizes.l1_bytes =
        l1_probe_bytes(static_cast<double>(topology.data_caches().front().size_bytes));
  }
  std::optional<std::chrono::steady_clock::time_point> last_drift_probe;
  bool drift_probe_failed = false;  // one failure ends the probing: no warning before each part
  std::string last_part;
  const auto probe_machine_drift = [&](const std::string& before) {
    DriftProbe probe;
    probe.seconds =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    probe.utc = utc_timestamp();
    probe.after = last_part;
    probe.before = before;
    try {
      probe.samples = probe_machine(drift_sizes);
    } catch (const std::exception& e) {
      // A probe that cannot bind or allocate costs the profile its drift, not the run.
      fmt::print(stderr,
                 "sonde: warning: the drift probe failed ({}); the run goes on without it\n",
                 e.what());
      drift_probe_failed = true;
      return;
    }
    append_drift_log(drift_path, probe);
    last_drift_probe = std::chrono::steady_clock::now();
  };

  // Progress for the whole run: what is left, scaled by how the estimate has held so far.
  double left = 0;
  for (const auto& [suite, part] : parts) left += estimates[suite->suite + "-" + part];
  double estimated_done = 0, spent_done = 0;
  std::vector<std::string> failed;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const SuiteRun& suite = *parts[i].first;
    const std::string& part = parts[i].second;
    const std::string key = suite.suite + "-" + part;
    const std::filesystem::path file = outcome.run_folder / (key + ".json");
    outcome.result_files.push_back(file);
    const double estimate = estimates[key];
    if (part_kept(outcome.run_folder, manifest, key)) {
      fmt::print(stderr, "sonde: [{}/{}] {}: kept from before\n", i + 1, parts.size(), part);
      ++outcome.parts_kept;
      left -= estimate;
      continue;
    }
    const double pace = estimated_done > 0 ? std::clamp(spent_done / estimated_done, 0.5, 3.0) : 1;
    fmt::print(stderr, "sonde: [{}/{}] {} {} (~{}); {} elapsed, about {} left\n", i + 1,
               parts.size(), suite.suite, part, format_duration(estimate),
               format_duration(seconds_since(started)), format_duration(left * pace));
    if (probe_drift && !drift_probe_failed &&
        (!last_drift_probe || (!quick && (bandwidth_part(key) || bandwidth_part(last_part) ||
                                          seconds_since(*last_drift_probe) >= kDriftProbeEvery)))) {
      probe_machine_drift(key);
    }
    const auto part_start = std::chrono::steady_clock::now();
    // A run continued (--resume, or the same --run-id) keeps what an interrupted part finished.
    const ChildExit exit = run_part(folder, suite, part, file, outcome.run_folder,
                                    options.launcher_grace_seconds, resuming);
    const double spent = seconds_since(part_start);
    left -= estimate;
    estimated_done += estimate;
    spent_done += spent;
    nlohmann::json timing = {{"estimated_seconds", estimate}, {"seconds", spent}};
    if (exit.stopped_when_done) {
      fmt::print(stderr,
                 "sonde: warning: {}'s program (or its launcher) had not exited {:.0f} s after "
                 "its result was whole; it was stopped ({} {}) and the result is kept\n",
                 part, options.launcher_grace_seconds, exit.signaled ? "signal" : "exit",
                 exit.code);
      timing["stopped_after_result"] = true;
    }
    if (!part_succeeded(exit)) {
      // A part that failed keeps its file for inspection under another name and runs again on
      // --resume. A file that cannot be set aside is removed: under its own name `sonde fit` would
      // read it.
      std::string left_behind;
      if (std::filesystem::exists(file, ec)) {
        std::filesystem::rename(file, outcome.run_folder / (key + ".failed.json"), ec);
        if (ec) std::filesystem::remove(file, ec);
        if (std::filesystem::exists(file, ec)) {
          left_behind = fmt::format(
              "; its file {} could not be set aside: remove it before fitting", file.string());
        }
      }
      failed.push_back(exit.signaled
                           ? fmt::format("{} (killed by signal {}{})", part, exit.code, left_behind)
                           : fmt::format("{} (exit {}{})", part, exit.code, left_behind));
      outcome.result_files.pop_back();
      timing["failed"] = true;
    } else if (!is_whole_result(file)) {
      // A launcher that exits 0 without the result: under smpirun a deadlocked simulation ends
      // this way. It is a failure, never a part measured.
      std::filesystem::remove(file, ec);
      failed.push_back(
          fmt::format("{} (exit 0, but no whole result in {}: a simulated run that "
                      "deadlocked ends this way)",
                      part, file.string()));
      outcome.result_files.pop_back();
      timing["failed"] = true;
    } else {
      ++outcome.parts_measured;
      try {
        const ResultFile result = read_result_file(file);
        const nlohmann::json& context = result.sonde_context();
        if (context.contains("load")) timing["load"] = context["load"];
        if (context.contains("noise")) timing["noise"] = context["noise"];
        // A part that ran beside other work says so: its figures may be slower than the
        // machine's.
        const nlohmann::json load = context.value("load", nlohmann::json::object());
        const double steal = load.value("steal_fraction", 0.0);
        double others = load.value("other_busy_cpus", 0.0);
        // The load is sampled on rank 0: the other ranks on its node are this run's, not others'.
        if (context.contains("mpi")) {
          const std::string host = context.value("host", "");
          for (const auto& entry : context["mpi"].value("hosts", nlohmann::json::array())) {
            const auto ranks = entry.value("ranks", nlohmann::json::array());
            const bool has_rank_0 =
                std::find(ranks.begin(), ranks.end(), nlohmann::json(0)) != ranks.end();
            if (has_rank_0 && !ranks.empty()) others -= static_cast<double>(ranks.size() - 1);
          }
          others = std::max(0.0, others);
        }
        const std::size_t noisy = context.value("noise", nlohmann::json::object())
                                      .value("noisy", nlohmann::json::array())
                                      .size();
        // Simulated time does not see the simulating machine's load.
        const bool simulated =
            context.value("mpi", nlohmann::json::object()).value("simulated", false);
        if (const std::string busy = busy_note(steal, others); !simulated && !busy.empty()) {
          timing["busy"] = true;
          fmt::print(stderr, "sonde: {} {}\n", part, busy);
        }
        if (noisy > 0) {
          fmt::print(stderr,
                     "sonde: {}: {} benchmark{} still noisy after re-measuring (flagged "
                     "in the results and the profile)\n",
                     part, noisy, noisy == 1 ? "" : "s");
        }
      } catch (const Error&) {
      }
    }
    manifest["timing"][key] = timing;
    write_file_atomically(manifest_path, manifest.dump(2) + "\n");
    last_part = key;
  }
  if (probe_drift && !drift_probe_failed && last_drift_probe) probe_machine_drift("");
  if (!failed.empty()) {
    throw io_error("sonde characterize",
                   fmt::format("parts failed: {}; the other parts are kept in {}; --resume runs "
                               "the failed ones again",
                               fmt::join(failed, ", "), outcome.run_folder.string()));
  }
  const double elapsed = seconds_since(started);
  manifest["complete"] = true;
  manifest["finished_utc"] = utc_timestamp();
  manifest["elapsed_seconds"] = elapsed;
  write_file_atomically(manifest_path, manifest.dump(2) + "\n");
  fmt::print(stderr, "sonde: the run took {} against an estimate of {} (budget {})\n",
             format_duration(elapsed),
             format_duration(manifest.value("estimated_seconds", estimate)),
             format_duration(budget));
  return outcome;
}

}  // namespace sonde::characterize
