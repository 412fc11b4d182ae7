// The sonde command: parses arguments and calls one library function per verb.
#include <fmt/format.h>

#include <sstream>

#include <CLI/CLI.hpp>
#include <iostream>

#include "core/error.hpp"
#include "core/program.hpp"
#include "core/results.hpp"
#include "core/version.hpp"
#include "fit/memory_levels.hpp"
#include "fit/profile_builder.hpp"
#include "fit/suite_summaries.hpp"
#include "microbench/characterize.hpp"
#include "microbench/topology.hpp"
#include "plot/profile_plots.hpp"
#include "profile/profile.hpp"
#include "profile/report.hpp"

namespace {

using sonde::microbench::Topology;

int topology_verb(const std::string& xml, const std::string& synthetic, bool json) {
  const Topology topology = !xml.empty()         ? Topology::from_xml_file(xml)
                            : !synthetic.empty() ? Topology::from_synthetic(synthetic)
                                                 : Topology::from_system();
  if (json) {
    std::cout << topology.to_json().dump(2) << "\n";
  } else {
    std::cout << topology.report();
  }
  return 0;
}

// Fits a run folder into machines/<name>.yaml and its plots into machines/<name>/; returns the
// profile's path.
std::filesystem::path fit_run(const std::filesystem::path& run_folder, std::string machine,
                              std::filesystem::path output, const std::filesystem::path& plots) {
  const std::vector<sonde::ResultFile> files = sonde::read_result_folder(run_folder);
  if (machine.empty()) machine = std::filesystem::absolute(run_folder).parent_path().filename();
  if (output.empty()) output = std::filesystem::path("machines") / (machine + ".yaml");
  const sonde::profile::Profile profile = sonde::fit::build_profile(files, machine, run_folder);
  sonde::profile::write_profile(profile, output);
  std::cerr << fmt::format("profile: {}\n", output.string());
  const std::filesystem::path plot_folder = plots.empty() ? output.parent_path() / machine : plots;
  for (const auto& written : sonde::plot::plot_profile(profile, files, plot_folder)) {
    std::cerr << fmt::format("plot: {}\n", written.string());
  }
  return output;
}

int characterize_verb(const sonde::microbench::CharacterizeOptions& options,
                      const sonde::microbench::SuiteSelection& selection, bool json,
                      const std::filesystem::path& profiles_folder) {
  const Topology topology = Topology::from_system();
  const auto outcome =
      sonde::microbench::characterize(options, sonde::microbench::plan_suites(selection, topology));
  std::vector<sonde::ResultFile> files;
  for (const auto& path : outcome.result_files) files.push_back(sonde::read_result_file(path));
  const bool memory = sonde::fit::has_suite(files, "memory");
  if (json) {
    nlohmann::json report = {{"run_folder", outcome.run_folder.string()}};
    if (memory) report["memory"] = sonde::fit::to_json(sonde::fit::summarize_memory(files));
    for (const char* suite : {"contention", "overhead", "compute", "mpi"}) {
      if (sonde::fit::has_suite(files, suite)) {
        report[suite] = sonde::fit::suite_summary_json(files, suite);
      }
    }
    std::cout << report.dump(2) << "\n";
    return 0;
  }
  if (memory) std::cout << sonde::fit::format_memory_summary(sonde::fit::summarize_memory(files));
  if (sonde::fit::has_suite(files, "contention")) {
    std::cout << sonde::fit::format_contention_summary(files);
  }
  if (sonde::fit::has_suite(files, "overhead")) {
    std::cout << sonde::fit::format_overhead_summary(files);
  }
  if (sonde::fit::has_suite(files, "compute"))
    std::cout << sonde::fit::format_compute_summary(files);
  if (sonde::fit::has_suite(files, "mpi")) std::cout << sonde::fit::format_mpi_summary(files);
  std::cout << fmt::format("\nRaw results: {} ({} parts measured now, {} kept from before)\n",
                           outcome.run_folder.string(), outcome.parts_measured, outcome.parts_kept);
  const std::string machine = outcome.run_folder.parent_path().filename();
  const auto profile = fit_run(outcome.run_folder, machine, profiles_folder / (machine + ".yaml"),
                               profiles_folder / machine);
  std::cout << fmt::format("Profile: {} (sonde show {})\n", profile.string(), profile.string());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return sonde::run_program("sonde", [&]() -> int {
    CLI::App app{
        "sonde: characterize a parallel machine with microbenchmarks, and predict how "
        "programs will perform on it",
        "sonde"};
    app.set_version_flag("--version", std::string("sonde ") + sonde::version);
    app.require_subcommand(1);

    auto* topology =
        app.add_subcommand("topology", "Print what hwloc sees: cores, caches, NUMA nodes");
    std::string xml, synthetic;
    bool topology_json = false;
    auto* xml_option =
        topology->add_option("--xml", xml, "Read a topology exported by `lstopo --of xml` instead")
            ->check(CLI::ExistingFile);
    topology->add_option("--synthetic", synthetic, "Use an hwloc synthetic description instead")
        ->excludes(xml_option);
    topology->add_flag("--json", topology_json, "Machine-readable output");

    auto* characterize = app.add_subcommand(
        "characterize", "Run the microbenchmarks on this machine into results/<machine>/<run-id>/");
    sonde::microbench::CharacterizeOptions options;
    sonde::microbench::SuiteSelection selection;
    sonde::microbench::add_memory_options(*characterize, selection.memory);
    characterize
        ->add_option("--suite", selection.suites,
                     "Run only these suites: memory, contention, overhead, compute, mpi")
        ->delimiter(',');
    characterize->add_flag("--mpi", selection.mpi, "Run the MPI suite too (sonde-bench-mpi)");
    std::string mpi_launcher;
    characterize->add_option("--mpi-launcher", mpi_launcher,
                             "How to start the MPI suite, e.g. \"mpirun -np 64 --hostfile hosts\" "
                             "or \"srun\" (default: mpiexec -n <cores>); implies --mpi");
    std::string results_root = "results";
    bool characterize_json = false;
    characterize->add_option("--results", results_root, "Folder of raw results")
        ->capture_default_str();
    characterize->add_option("--machine", options.machine, "Machine name (default: host name)");
    characterize->add_option(
        "--run-id", options.run_id,
        "Name of the run folder (default: UTC time); an unfinished run resumes");
    characterize->add_flag("--resume", options.resume, "Continue the newest unfinished run");
    characterize->add_flag("--json", characterize_json, "Print the summary as JSON");
    std::string profiles_folder = "machines";
    characterize
        ->add_option("--profiles", profiles_folder,
                     "Where the fitted profile (<machine>.yaml) and its plots (<machine>/) go")
        ->capture_default_str();

    auto* fit = app.add_subcommand(
        "fit", "Fit a run's raw results into a machine profile (YAML) and its plots");
    std::string fit_results, fit_output, fit_machine, fit_plots;
    fit->add_option("results", fit_results, "A run folder: results/<machine>/<run-id>")
        ->required()
        ->check(CLI::ExistingDirectory);
    fit->add_option("-o,--output", fit_output,
                    "The profile to write (default machines/<machine>.yaml)");
    fit->add_option("--machine", fit_machine, "Machine name (default: the run folder's parent)");
    fit->add_option("--plots", fit_plots,
                    "Folder of the plots (default: beside the profile, <machine>/)");

    auto* show = app.add_subcommand("show", "Print a profile in the papers' notation");
    std::string show_path;
    show->add_option("profile", show_path, "A profile, e.g. machines/ibm-sp2.yaml")->required();

    auto* validate = app.add_subcommand("validate", "Check profiles against the schema");
    std::vector<std::string> validate_paths;
    validate->add_option("profiles", validate_paths, "Profiles to check")->required();

    auto* compare = app.add_subcommand("compare", "Two profiles side by side, with ratios b / a");
    std::string compare_a, compare_b;
    compare->add_option("a", compare_a, "The first profile")->required();
    compare->add_option("b", compare_b, "The second profile")->required();

    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      const int code = app.exit(e);
      return code == 0 ? 0 : static_cast<int>(sonde::ExitCode::usage);
    }
    if (topology->parsed()) return topology_verb(xml, synthetic, topology_json);
    if (fit->parsed()) {
      fit_run(fit_results, fit_machine, fit_output, fit_plots);
      return 0;
    }
    if (show->parsed()) {
      std::cout << sonde::profile::format_profile(sonde::profile::read_profile(show_path));
      return 0;
    }
    if (validate->parsed()) {
      for (const std::string& path : validate_paths) {
        const auto profile = sonde::profile::read_profile(path);
        std::cout << fmt::format("{}: valid sonde profile version {} ({})\n", path, profile.version,
                                 profile.machine.name);
      }
      return 0;
    }
    if (compare->parsed()) {
      std::cout << sonde::profile::compare_profiles(sonde::profile::read_profile(compare_a),
                                                    sonde::profile::read_profile(compare_b));
      return 0;
    }
    options.results_root = results_root;
    std::istringstream words(mpi_launcher);
    for (std::string word; words >> word;) selection.mpi_launcher.push_back(word);
    if (!selection.mpi_launcher.empty()) selection.mpi = true;
    return characterize_verb(options, selection, characterize_json, profiles_folder);
  });
}
