// The sonde command: parses arguments and calls one library function per verb.
#include <fmt/format.h>

#include <cmath>
#include <sstream>

#include <fmt/ranges.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "characterize/characterize.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/program.hpp"
#include "core/results.hpp"
#include "core/units.hpp"
#include "core/version.hpp"
#include "counters/collect.hpp"
#include "counters/counter_file.hpp"
#include "counters/counter_model.hpp"
#include "counters/counter_report.hpp"
#include "counters/extrapolate.hpp"
#include "fit/memory_levels.hpp"
#include "fit/profile_builder.hpp"
#include "fit/suite_summaries.hpp"
#include "microbench/topology.hpp"
#include "plot/profile_plots.hpp"
#include "predict/predictor.hpp"
#include "predict/report.hpp"
#include "predict/workload.hpp"
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
  // results/<machine>/<run-id>, also when written with a trailing slash.
  std::filesystem::path folder = std::filesystem::absolute(run_folder).lexically_normal();
  if (!folder.has_filename()) folder = folder.parent_path();
  if (machine.empty()) machine = folder.parent_path().filename();
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

struct PredictArguments {
  std::string spreadsheet, machine, nodes, csv, plots, measured;
  std::vector<std::string> references, requirements, counters;
  double max_nodes = 0;
  bool json = false;
};

// `sonde predict`: the spreadsheet on a profile, over n, with requirement checks and, when given,
// the measured times beside the prediction (Amato et al.'s (1999) E = max(T, P) / min(T, P)).
int predict_verb(const PredictArguments& a) {
  namespace predict = sonde::predict;
  const std::filesystem::path machine_path = a.machine;
  if (a.spreadsheet.empty() == a.counters.empty()) {
    throw sonde::usage_error("predict",
                             "give a workload spreadsheet or --counters files, one of them");
  }
  if (!a.counters.empty()) {
    // Amato et al. 1999: F and the BSP-like functions from the counts of each phase.
    const auto table = sonde::counters::read_counter_files({a.counters.begin(), a.counters.end()});
    const auto predictions = sonde::counters::predict_table(
        table, sonde::profile::read_profile(machine_path), machine_path.string());
    if (a.json)
      std::cout << sonde::counters::counter_predictions_json(predictions).dump(2) << "\n";
    else
      std::cout << sonde::counters::format_counter_predictions(predictions);
    return 0;
  }
  predict::PredictOptions options;
  for (const std::string& path : a.references) {
    auto profile = sonde::profile::read_profile(path);
    options.reference_machines[profile.machine.name] = std::move(profile);
  }
  predict::Workload workload = predict::read_workload(a.spreadsheet);
  // A machine a component names is looked for beside the target's profile when not given.
  for (const auto& component : workload.components) {
    const auto beside = machine_path.parent_path() / (component.machine + ".yaml");
    if (!component.machine.empty() && !options.reference_machines.count(component.machine) &&
        std::filesystem::exists(beside)) {
      options.reference_machines[component.machine] = sonde::profile::read_profile(beside);
    }
  }
  const predict::Predictor predictor(std::move(workload),
                                     sonde::profile::read_profile(machine_path),
                                     machine_path.string(), options);
  const double n_max = std::min(predictor.summary().n_max, 1048576.0);
  const std::vector<double> nodes = a.nodes.empty() ? predict::powers_of_two(std::max(2.0, n_max))
                                                    : predict::parse_nodes(a.nodes);
  const double scan_to = a.max_nodes > 0 ? a.max_nodes : std::max(nodes.back(), 4 * n_max);
  std::vector<predict::RequirementResult> checks;
  for (const std::string& text : a.requirements) {
    checks.push_back(predict::check_requirement(predictor, predict::parse_requirement(text),
                                                predict::Scheme::full_overhead, scan_to));
  }
  if (!a.csv.empty()) {
    sonde::write_file_atomically(a.csv, predict::prediction_csv(predictor, nodes));
  }
  std::vector<std::pair<double, double>> measured;
  if (!a.measured.empty()) measured = predict::read_measurements(a.measured);
  if (a.json) {
    auto report = predict::prediction_json(predictor, nodes, checks);
    for (const auto& [n, t] : measured) {
      const double p = predictor.at(n, predict::Scheme::full_overhead).total;
      report["measured"].push_back({{"n", n},
                                    {"seconds", t},
                                    {"predicted_seconds", p},
                                    {"error_ratio", std::max(t, p) / std::min(t, p)},
                                    {"relative_error", std::abs(t - p) / t}});
    }
    std::cout << report.dump(2) << "\n";
  } else {
    std::cout << predict::format_prediction(predictor, nodes, checks);
    if (!measured.empty()) {
      std::cout << "\nMeasured against predicted (full-overhead)\n";
      std::cout << fmt::format("  {:>6} {:>12} {:>12} {:>8} {:>10}\n", "n", "measured", "predicted",
                               "E", "|T-P|/T");
      for (const auto& [n, t] : measured) {
        const double p = predictor.at(n, predict::Scheme::full_overhead).total;
        std::cout << fmt::format("  {:>6.0f} {:>12} {:>12} {:>8.3f} {:>9.1f}%\n", n,
                                 sonde::format_seconds(t), sonde::format_seconds(p),
                                 std::max(t, p) / std::min(t, p), 100 * std::abs(t - p) / t);
      }
    }
  }
  if (!a.plots.empty()) {
    std::vector<sonde::plot::PredictionSeries> series;
    std::vector<double> dense;
    for (double n = 1; n <= nodes.back() * 1.0001; n *= std::pow(2.0, 0.125)) {
      if (dense.empty() || std::round(n) > dense.back()) dense.push_back(std::round(n));
    }
    for (auto scheme : {predict::Scheme::theoretical, predict::Scheme::zero_overhead,
                        predict::Scheme::full_overhead}) {
      sonde::plot::PredictionSeries s{predict::to_string(scheme), {}};
      for (double n : dense) {
        const auto point = predictor.at(n, scheme);
        s.points.emplace_back(n, point.total, point.speedup, point.efficiency);
      }
      series.push_back(s);
    }
    const std::string title =
        fmt::format("{} on {}", std::filesystem::path(a.spreadsheet).filename().string(),
                    predictor.target().machine.name);
    for (const auto& path : sonde::plot::plot_prediction(title, series, measured, a.plots)) {
      std::cerr << fmt::format("plot: {}\n", path.string());
    }
  }
  return 0;
}

struct CountersArguments {
  std::vector<std::string> command, papi_events;
  std::string output, machine, source = "auto";
  double size = 0;
  int repetitions = 5;
};

// `sonde counters`: a phase-marked program's counter file at one problem size.
int counters_verb(const CountersArguments& a) {
  namespace fs = std::filesystem;
  sonde::counters::CollectOptions options;
  options.command = a.command;
  options.size = a.size;
  options.repetitions = a.repetitions;
  options.source = sonde::counters::source_named(a.source);
  options.papi_overrides = a.papi_events;
  std::optional<sonde::profile::Profile> machine;
  if (!a.machine.empty()) {
    machine = sonde::profile::read_profile(a.machine);
    options.machine = &*machine;
    options.machine_name = a.machine;
  }
  options.work_folder = fs::temp_directory_path() / fmt::format("sonde-counters-{}", ::getpid());
  options.progress = [](const std::string& text) { std::cerr << "counters: " << text << "\n"; };
  sonde::ensure_writable_folder(fs::absolute(a.output).parent_path());
  const auto collected = sonde::counters::collect(options);
  for (const auto& note : collected.notes) std::cerr << "counters: " << note << "\n";
  sonde::counters::write_counter_file(a.output, collected.table);
  fs::remove_all(options.work_folder);
  std::cerr << fmt::format("counters: {} phases, counts from {}; written to {}\n",
                           collected.table.phases.size(), collected.counts_source, a.output);
  return 0;
}

struct ExtrapolateArguments {
  std::vector<std::string> pilots, measured;
  std::vector<double> sizes;
  std::string machine, output;
  int resamples = 100;
  bool json = false;
};

// `sonde extrapolate`: counts fitted in the problem size from pilot runs, forecast at the target
// sizes and predicted through F (Amato et al. (1999), section 5.4); against measured counts and
// times where given (Table 4).
int extrapolate_verb(const ExtrapolateArguments& a) {
  namespace predict = sonde::predict;
  const auto pilots = sonde::counters::read_counter_files({a.pilots.begin(), a.pilots.end()});
  const auto profile = sonde::profile::read_profile(a.machine);
  std::optional<sonde::counters::CounterTable> measured;
  if (!a.measured.empty())
    measured = sonde::counters::read_counter_files({a.measured.begin(), a.measured.end()});
  if (a.sizes.empty() && !measured)
    throw sonde::usage_error("--size", "give the sizes to forecast, or --measured counter files");
  const std::vector<double> sizes = a.sizes.empty() ? measured->sizes() : a.sizes;
  const std::string pilots_name = fmt::format("{}", fmt::join(a.pilots, ", "));
  const auto extrapolation = sonde::counters::extrapolate(pilots, sizes, pilots_name, a.resamples);
  if (!a.output.empty()) sonde::counters::write_counter_file(a.output, extrapolation.forecast);
  const auto points = sonde::counters::predict_extrapolation(
      extrapolation, measured ? &*measured : nullptr,
      fmt::format("{}", fmt::join(a.measured, ", ")), profile, a.machine);
  if (a.json) {
    std::cout << nlohmann::json{{"points", sonde::counters::table4_json(points)}}.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format(
      "Counts fitted on {} pilot sizes ({}), forms chosen by cross-validation\n",
      pilots.sizes().size(), fmt::join(pilots.sizes(), ", "));
  std::cout << sonde::counters::format_count_fits(extrapolation.fits) << "\n";
  std::cout << sonde::counters::format_table4(points);
  return 0;
}

int characterize_verb(const sonde::characterize::CharacterizeOptions& options,
                      const sonde::characterize::SuiteSelection& selection, bool json,
                      const std::filesystem::path& profiles_folder) {
  const Topology topology = Topology::from_system();
  const auto outcome = sonde::characterize::characterize(options, selection, topology);
  if (outcome.planned_only) return 0;
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
  const auto sizing = sonde::microbench::read_sizing((outcome.run_folder / "sizing.json").string());
  if (!sizing.notes.empty()) {
    std::cout << "\nSizing\n";
    for (const std::string& note : sizing.notes) std::cout << "  " << note << "\n";
  }
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
    sonde::characterize::CharacterizeOptions options;
    sonde::characterize::SuiteSelection selection;
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
    std::string budget;
    characterize->add_option("--budget", budget,
                             "Time for the whole run, e.g. 10m, 90s, 1h (default 10m; 1m with "
                             "--quick): sizes and repetitions are chosen to fit it");
    characterize->add_flag("--plan", options.plan_only,
                           "Print the plan (parts, sizes, repetitions, estimated time) and stop");
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

    auto* predict = app.add_subcommand("predict",
                                       "Predict a workload spreadsheet on a machine profile (Xu "
                                       "and Hwang's (1995) early prediction)");
    PredictArguments predict_arguments;
    predict
        ->add_option("spreadsheet", predict_arguments.spreadsheet,
                     "The workload spreadsheet (CSV); or --counters")
        ->check(CLI::ExistingFile);
    predict
        ->add_option(
            "--counters", predict_arguments.counters,
            "Counter files (sonde counters): Amato et al.'s (1999) F and BSP-like functions per "
            "phase, with E where times were measured")
        ->check(CLI::ExistingFile);
    predict->add_option("--machine", predict_arguments.machine, "The target machine's profile")
        ->required()
        ->check(CLI::ExistingFile);
    predict->add_option("--reference", predict_arguments.references,
                        "Profile of a machine the spreadsheet's times were measured on (default: "
                        "<name>.yaml beside --machine)");
    predict->add_option("--nodes", predict_arguments.nodes,
                        "n to predict: 1,2,4,256 or 1..1048576 (default 1..N_max)");
    predict->add_option(
        "--require", predict_arguments.requirements,
        "time<=0.5s, speed>=10Gflop/s or speedup>=200: met or not, and from which n");
    predict->add_option("--max-nodes", predict_arguments.max_nodes,
                        "How far the requirement checks look (default max(--nodes, 4 N_max))");
    predict->add_option("--csv", predict_arguments.csv,
                        "Also write the three schemes over n as CSV");
    predict->add_flag("--json", predict_arguments.json, "Print JSON instead of the table");
    predict->add_option("--plots", predict_arguments.plots,
                        "Folder for prediction.{png,svg}: time, speedup, efficiency against n");
    predict->add_option("--measured", predict_arguments.measured,
                        "Measured times (CSV: n, time [s]) to set beside the prediction");

    // A problem size: a number above zero (scientific notation welcome).
    const CLI::Validator positive_size(
        [](std::string& text) {
          std::size_t used = 0;
          double value = 0;
          try {
            value = std::stod(text, &used);
          } catch (const std::exception&) {
            used = 0;
          }
          return used > 0 && used == text.size() && value > 0
                     ? std::string()
                     : fmt::format("'{}': expected a size > 0, as 2e6", text);
        },
        "SIZE");

    auto* counters = app.add_subcommand(
        "counters", "Run a phase-marked program and write its counter file (times and counts)");
    CountersArguments counters_arguments;
    counters->add_option("command", counters_arguments.command, "-- program and its arguments")
        ->required();
    counters->add_option("--size", counters_arguments.size, "The run's problem size, n")
        ->required()
        ->check(positive_size);
    counters->add_option("-o,--output", counters_arguments.output, "The counter file to write")
        ->required();
    counters
        ->add_option("--machine", counters_arguments.machine,
                     "Target profile: the cache geometry valgrind simulates")
        ->check(CLI::ExistingFile);
    counters
        ->add_option("--source", counters_arguments.source,
                     "auto (PAPI where it counts everything, else valgrind), papi, valgrind, time")
        ->capture_default_str();
    counters
        ->add_option("--repetitions", counters_arguments.repetitions,
                     "Native runs timed (the median, and the range as spread)")
        ->capture_default_str();
    counters->add_option("--papi-event", counters_arguments.papi_events,
                         "KIND=EVENT: count KIND (loads, llc_writebacks, ...) with another event");

    auto* extrapolate = app.add_subcommand("extrapolate",
                                           "Forecast counts at large sizes from pilot runs and "
                                           "predict through F (Amato et al. (1999), 5.4)");
    ExtrapolateArguments extrapolate_arguments;
    extrapolate->add_option("pilots", extrapolate_arguments.pilots, "Counter files of pilot runs")
        ->required()
        ->check(CLI::ExistingFile);
    extrapolate->add_option("--machine", extrapolate_arguments.machine, "The target's profile")
        ->required()
        ->check(CLI::ExistingFile);
    extrapolate
        ->add_option("--size", extrapolate_arguments.sizes,
                     "Sizes to forecast: 2e6,4e6 (default: those of --measured)")
        ->delimiter(',')
        ->check(positive_size);
    extrapolate
        ->add_option("--measured", extrapolate_arguments.measured,
                     "Counter files measured at the target sizes: E with measured and with "
                     "extrapolated counts (Table 4)")
        ->check(CLI::ExistingFile);
    extrapolate->add_option("-o,--output", extrapolate_arguments.output,
                            "Write the forecast counts (with intervals) as a counter file");
    extrapolate
        ->add_option("--resamples", extrapolate_arguments.resamples,
                     "Bootstrap draws for the forecasts' 95% intervals")
        ->capture_default_str();
    extrapolate->add_flag("--json", extrapolate_arguments.json, "Print JSON");

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
    if (predict->parsed()) return predict_verb(predict_arguments);
    if (counters->parsed()) return counters_verb(counters_arguments);
    if (extrapolate->parsed()) return extrapolate_verb(extrapolate_arguments);
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
    if (characterize->count("--budget") > 0) {
      options.budget_seconds = sonde::parse_duration(budget, "--budget");
      options.budget_given = true;
    }
    return characterize_verb(options, selection, characterize_json, profiles_folder);
  });
}
