#include "characterize/fit_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

#include "characterize/characterize.hpp"
#include "characterize/drift.hpp"
#include "characterize/suite_summaries.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/results.hpp"
#include "core/units.hpp"
#include "fit/memory_levels.hpp"
#include "fit/profile_builder.hpp"
#include "microbench/mpi/mpi_plan.hpp"
#include "microbench/run_context.hpp"
#include "microbench/sizing.hpp"
#include "microbench/topology.hpp"
#include "plot/profile_plots.hpp"
#include "profile/profile.hpp"
#include "simulation/simulation.hpp"

namespace sonde::characterize {

namespace {

// Each suite's summary of a run's files, as text; or as JSON beside the run folder.
void write_summaries(const RunRecords& run, std::ostream& out) {
  if (run.has("memory")) {
    out << fit::format_memory_summary(fit::summarize_memory(run.files));
  }
  if (run.has("contention")) out << format_contention_summary(run);
  if (run.has("overhead")) out << format_overhead_summary(run);
  if (run.has("compute")) out << format_compute_summary(run);
  if (run.has("mpi")) out << format_mpi_summary(run);
}

nlohmann::json summaries_json(const RunRecords& run, const std::filesystem::path& run_folder) {
  nlohmann::json report = {{"run_folder", run_folder.string()}};
  if (run.has("memory")) {
    report["memory"] = fit::to_json(fit::summarize_memory(run.files));
  }
  for (const char* suite : {"contention", "overhead", "compute", "mpi"}) {
    if (run.has(suite)) report[suite] = suite_summary_json(run, suite);
  }
  return report;
}

}  // namespace

std::filesystem::path fit_run(const FitRunOptions& options, std::ostream& log) {
  const std::filesystem::path run_folder = options.run_folder;
  // The run read once: the profile and its plots take the same records.
  const RunRecords run = read_run_records(read_result_folder(run_folder, options.unfinished));
  // results/<machine>/<run-id>, also when written with a trailing slash.
  std::filesystem::path folder = std::filesystem::absolute(run_folder).lexically_normal();
  if (!folder.has_filename()) folder = folder.parent_path();
  const std::string machine =
      options.machine.empty() ? folder.parent_path().filename().string() : options.machine;
  const std::filesystem::path output = options.output.empty()
                                           ? std::filesystem::path("machines") / (machine + ".yaml")
                                           : std::filesystem::path(options.output);
  profile::Profile profile = fit::build_profile(run, machine, run_folder);
  for (const ResultFile& file : run.files) {
    if (!file.unfinished) continue;
    const std::string part = fmt::format(
        "{}: the {} benchmarks an interrupted part finished whole{}", file.path.filename().string(),
        file.whole_benchmarks,
        file.context_from.empty()
            ? std::string()
            : fmt::format(" (written without the run's context: {}'s taken)", file.context_from));
    profile.provenance.unfinished_parts.push_back(part);
    log << fmt::format("unfinished: {}\n", part);
  }
  const std::vector<DriftProbe> probes = read_drift_log(drift_log_path(run_folder));
  for (const std::string& line : account_for_drift(profile, probes))
    log << fmt::format("drift: {}\n", line);
  profile.usual_state = usual_states(probes);
  if (!probes.empty()) {
    // The probes moved figures too: the digest covers the drift log beside the result files, so
    // that two profiles with one digest were fitted from the same inputs.
    std::vector<std::filesystem::path> inputs;
    for (const ResultFile& file : run.files) inputs.push_back(file.path);
    inputs.push_back(drift_log_path(run_folder));
    profile.provenance.results_digest = fit::results_digest(inputs);
  }
  profile::write_profile(profile, output);
  log << fmt::format("profile: {}\n", output.string());
  const std::filesystem::path plot_folder =
      options.plots.empty() ? output.parent_path() / machine : std::filesystem::path(options.plots);
  for (const auto& written : plot::plot_profile(profile, run, plot_folder)) {
    log << fmt::format("plot: {}\n", written.string());
  }
  return output;
}

namespace {

// --platform: the MPI suite alone, under smpirun, with one rank per core of the platform's hosts
// in blocks. The host file goes beside the machine's runs, named by its ranks, so that a resumed
// run finds the same launcher line.
void simulate_on_platform(CharacterizeCommand& command) {
  SuiteSelection& selection = command.selection;
  if (!selection.mpi_launcher.empty()) {
    throw usage_error("--platform", "give --platform or --mpi-launcher, not both");
  }
  for (const std::string& suite : selection.suites) {
    if (suite != "mpi") {
      throw usage_error("--suite", fmt::format("'{}' measures this machine, not the simulated one: "
                                               "--platform runs the MPI suite only",
                                               suite));
    }
  }
  const std::filesystem::path platform = std::filesystem::absolute(command.platform);
  CharacterizeOptions& options = command.options;
  if (options.machine.empty()) options.machine = platform.stem().string();
  const std::filesystem::path folder =
      options.programs_folder.empty() ? own_folder() : options.programs_folder;
  const std::filesystem::path machine_folder =
      std::filesystem::absolute(options.results_root) / microbench::folder_safe(options.machine);
  const simulation::PlatformInfo info =
      simulation::read_platform(platform, folder, machine_folder / "platform");
  const int ranks =
      command.simulated_ranks > 0 ? command.simulated_ranks : std::min(64, info.cores());
  const std::filesystem::path hostfile =
      machine_folder / "platform" / fmt::format("hosts-{}-ranks.txt", ranks);
  write_file_atomically(hostfile, simulation::block_hostfile(info, ranks));
  simulation::SmpiLaunch launch;
  launch.platform = platform;
  launch.hostfile = hostfile;
  launch.ranks = ranks;
  launch.options = command.smpi_options;
  selection.mpi_launcher = simulation::smpirun_launcher(launch);
  selection.mpi_program = "sonde-bench-mpi-smpi";
  selection.suites = {"mpi"};
  selection.mpi = true;
  fmt::print(stderr, "sonde: simulating {} ranks on {} ({} hosts, {} cores): {}\n", ranks,
             platform.string(), info.hosts.size(), info.cores(),
             fmt::join(selection.mpi_launcher, " "));
}

}  // namespace

int characterize_command(CharacterizeCommand command, std::ostream& out, std::ostream& log) {
  CharacterizeOptions& options = command.options;
  SuiteSelection& selection = command.selection;
  options.results_root = command.results_root;
  std::istringstream words(command.mpi_launcher);
  for (std::string word; words >> word;) selection.mpi_launcher.push_back(word);
  if (!selection.mpi_launcher.empty()) selection.mpi = true;
  if (options.budget_given) options.budget_seconds = parse_duration(command.budget, "--budget");
  for (const std::string& text : command.collective_bytes) {
    selection.collective_bytes.push_back(microbench::parse_collective_bytes(text));
  }
  if (!command.platform.empty()) simulate_on_platform(command);
  const bool mpi_suite =
      selection.mpi ||
      std::find(selection.suites.begin(), selection.suites.end(), "mpi") != selection.suites.end();
  if (!selection.collective_bytes.empty() && !mpi_suite) {
    throw usage_error(
        "--collective-bytes",
        "sizes for the MPI suite's collectives, which this run leaves out: add --mpi, "
        "--mpi-launcher or --platform");
  }

  const auto topology = microbench::Topology::from_system();
  const auto outcome = characterize(options, selection, topology);
  if (outcome.planned_only) return 0;
  std::vector<ResultFile> files;
  for (const auto& path : outcome.result_files) files.push_back(read_result_file(path));
  const RunRecords run = read_run_records(std::move(files));
  if (command.json) {
    out << summaries_json(run, outcome.run_folder).dump(2) << "\n";
    return 0;
  }
  write_summaries(run, out);
  const auto sizing = microbench::read_sizing((outcome.run_folder / "sizing.json").string());
  if (!sizing.notes.empty()) {
    out << "\nSizing\n";
    for (const std::string& note : sizing.notes) out << "  " << note << "\n";
  }
  const std::string drift = format_drift(read_drift_log(drift_log_path(outcome.run_folder)));
  if (!drift.empty()) out << "\n" << drift;
  out << fmt::format("\nRaw results: {} ({} parts measured now, {} kept from before)\n",
                     outcome.run_folder.string(), outcome.parts_measured, outcome.parts_kept);
  const std::string machine = outcome.run_folder.parent_path().filename();
  const std::filesystem::path profiles = command.profiles_folder;
  const auto profile =
      fit_run({outcome.run_folder.string(), machine, (profiles / (machine + ".yaml")).string(),
               (profiles / machine).string()},
              log);
  out << fmt::format("Profile: {} (sonde show {})\n", profile.string(), profile.string());
  return 0;
}

}  // namespace sonde::characterize
