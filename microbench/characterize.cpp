#include "microbench/characterize.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <csignal>
#include <map>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/program.hpp"
#include "core/results.hpp"
#include "core/version.hpp"
#include "microbench/compute_suite.hpp"
#include "microbench/contention_suite.hpp"
#include "microbench/mpi_parts.hpp"
#include "microbench/overhead_suite.hpp"
#include "microbench/run_context.hpp"

namespace sonde::microbench {
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

std::vector<SuiteRun> plan_suites(const SuiteSelection& selection, const Topology& topology) {
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
      {"memory", memory_part_names(plan_memory_suite(memory, topology))},
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
    run.program = "sonde-bench-" + suite;
    if (suite == "memory") {
      MemorySuiteOptions options = selection.memory;
      options.common = common;
      const MemorySuitePlan plan = plan_memory_suite(options, topology);
      options.common.parts.clear();
      run.arguments = memory_option_arguments(options);
      run.parts = plan.parts;
      run.skipped_parts = plan.skipped_parts;
    } else if (suite == "contention") {
      const ContentionSuitePlan plan = plan_contention_suite(common, topology);
      run.parts = plan.parts;
      run.skipped_parts = plan.skipped_parts;
    } else if (suite == "overhead") {
      const OverheadSuitePlan plan = plan_overhead_suite(common, topology);
      run.parts = plan.parts;
      run.skipped_parts = plan.skipped_parts;
    } else if (suite == "compute") {
      run.parts = plan_compute_suite(common, topology).parts;
    } else {
      // The launcher decides the ranks: a part that needs two says so in its own result.
      run.parts = select_parts(common.parts, mpi_part_names());
      run.launcher = selection.mpi_launcher;
      if (run.launcher.empty()) {
        run.launcher = {"mpiexec", "-n", std::to_string(std::max(2u, topology.cores()))};
      }
    }
    if (suite != "memory") {
      common.parts.clear();
      run.arguments = common_option_arguments(common);
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

CharacterizeOutcome characterize(const CharacterizeOptions& options,
                                 const std::vector<SuiteRun>& suites) {
  const std::string machine = folder_safe(options.machine.empty() ? host_name() : options.machine);
  const std::filesystem::path machine_folder = options.results_root / machine;
  nlohmann::json arguments = nlohmann::json::object();
  for (const SuiteRun& suite : suites) {
    arguments[suite.suite] = suite.arguments;
    if (!suite.launcher.empty()) arguments[suite.suite + ".launcher"] = suite.launcher;
  }

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
  ensure_writable_folder(outcome.run_folder);
  const std::filesystem::path manifest_path = outcome.run_folder / "run.json";
  nlohmann::json manifest;
  std::error_code ec;
  if (std::filesystem::exists(manifest_path, ec)) {
    manifest = read_manifest(manifest_path);
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
    manifest = {{"run_id", run_id},
                {"machine", machine},
                {"host", host_name()},
                {"started_utc", utc_timestamp()},
                {"sonde_version", sonde::version},
                {"suite_arguments", arguments},
                {"complete", false}};
    fmt::print(stderr, "sonde: new run {} in {}\n", run_id, outcome.run_folder.string());
  }
  std::vector<std::pair<const SuiteRun*, std::string>> parts;
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
  write_file_atomically(manifest_path, manifest.dump(2) + "\n");

  const std::filesystem::path folder =
      options.programs_folder.empty() ? own_folder() : options.programs_folder;
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

  SignalForwarding forwarding;
  std::vector<std::string> failed;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const SuiteRun& suite = *parts[i].first;
    const std::string& part = parts[i].second;
    const std::filesystem::path file =
        outcome.run_folder / fmt::format("{}-{}.json", suite.suite, part);
    outcome.result_files.push_back(file);
    if (is_whole_result(file)) {
      fmt::print(stderr, "sonde: [{}/{}] {}: kept from before\n", i + 1, parts.size(), part);
      ++outcome.parts_kept;
      continue;
    }
    fmt::print(stderr, "sonde: [{}/{}] {}\n", i + 1, parts.size(), part);
    std::vector<std::string> argv = suite.launcher;
    argv.push_back((folder / suite.program).string());
    argv.insert(argv.end(), suite.arguments.begin(), suite.arguments.end());
    argv.insert(argv.end(), {"--part=" + part, "--out=" + file.string(), "--progress"});
    const ChildExit exit = run_child(argv);
    if (interrupting_signal() != 0 ||
        (exit.signaled && (exit.code == SIGINT || exit.code == SIGTERM))) {
      throw Error(ExitCode::interrupted, "sonde characterize",
                  fmt::format("interrupted during part {}; the finished parts are kept in {}; "
                              "continue with: sonde characterize --resume (and the same options)",
                              part, outcome.run_folder.string()));
    }
    if (exit.signaled || exit.code != 0) {
      // A part that failed keeps its file for inspection under another name and runs again on
      // --resume.
      if (std::filesystem::exists(file, ec)) {
        std::filesystem::rename(
            file, outcome.run_folder / fmt::format("{}-{}.failed.json", suite.suite, part), ec);
      }
      failed.push_back(exit.signaled ? fmt::format("{} (killed by signal {})", part, exit.code)
                                     : fmt::format("{} (exit {})", part, exit.code));
      outcome.result_files.pop_back();
      continue;
    }
    ++outcome.parts_measured;
  }
  if (!failed.empty()) {
    throw io_error("sonde characterize",
                   fmt::format("parts failed: {}; the other parts are kept in {}; --resume runs "
                               "the failed ones again",
                               fmt::join(failed, ", "), outcome.run_folder.string()));
  }
  manifest["complete"] = true;
  manifest["finished_utc"] = utc_timestamp();
  write_file_atomically(manifest_path, manifest.dump(2) + "\n");
  return outcome;
}

}  // namespace sonde::microbench
