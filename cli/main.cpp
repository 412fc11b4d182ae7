// The sonde command: parses arguments and calls one library function per verb.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "characterize/fit_run.hpp"
#include "check/check.hpp"
#include "core/error.hpp"
#include "core/program.hpp"
#include "core/units.hpp"
#include "core/version.hpp"
#include "counters/command.hpp"
#include "export/export.hpp"
#include "microbench/topology.hpp"
#include "predict/command.hpp"
#include "profile/profile.hpp"
#include "profile/report.hpp"
#include "publish/publish.hpp"
#include "replay/command.hpp"
#if SONDE_HAVE_TRACER
#include "tracer/launch.hpp"
#endif

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
    sonde::characterize::CharacterizeCommand run;
    sonde::characterize::CharacterizeOptions& options = run.options;
    sonde::microbench::add_memory_options(*characterize, run.selection.memory);
    characterize
        ->add_option("--suite", run.selection.suites,
                     "Run only these suites: memory, contention, overhead, compute, mpi")
        ->delimiter(',');
    characterize->add_flag("--mpi", run.selection.mpi, "Run the MPI suite too (sonde-bench-mpi)");
    characterize->add_option("--mpi-launcher", run.mpi_launcher,
                             "How to start the MPI suite, e.g. \"mpirun -np 64 --hostfile hosts\" "
                             "or \"srun\" (default: mpiexec -n <cores>); implies --mpi");
    characterize
        ->add_option("--collective-bytes", run.collective_bytes,
                     "Collective message sizes to measure besides the plan's, e.g. 32KiB,24KiB "
                     "(sizes your programs send: between measured sizes predictions are straight "
                     "lines in m)")
        ->delimiter(',');
    auto* platform_option = characterize->add_option(
        "--platform", run.platform,
        "Characterize a simulated cluster instead: the MPI suite under SimGrid's smpirun on this "
        "platform file (simulation/platforms/), one rank per core in blocks");
    characterize
        ->add_option("--ranks", run.simulated_ranks,
                     "Simulated ranks with --platform (default: every core, at most 64)")
        ->needs(platform_option);
    characterize
        ->add_option("--smpi-option", run.smpi_options,
                     "More SimGrid options with --platform, as smpirun takes them: "
                     "--smpi-option=--cfg=smpi/host-speed:1Gf")
        ->needs(platform_option);
    characterize->add_option("--results", run.results_root, "Folder of raw results")
        ->capture_default_str();
    characterize->add_option("--machine", options.machine, "Machine name (default: host name)");
    characterize->add_option(
        "--run-id", options.run_id,
        "Name of the run folder (default: UTC time); an unfinished run resumes");
    characterize->add_flag("--resume", options.resume, "Continue the newest unfinished run");
    characterize->add_flag("--json", run.json, "Print the summary as JSON");
    characterize->add_option("--budget", run.budget,
                             "Time for the whole run, e.g. 10m, 90s, 1h (default 10m; 1m with "
                             "--quick): sizes and repetitions are chosen to fit it");
    characterize
        ->add_option("--launcher-grace", options.launcher_grace_seconds,
                     "Seconds a part's program (or MPI launcher) may run on after its result is "
                     "whole before it is stopped and the result kept")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    characterize->add_flag("--plan", options.plan_only,
                           "Print the plan (parts, sizes, repetitions, estimated time) and stop");
    characterize
        ->add_option("--profiles", run.profiles_folder,
                     "Where the fitted profile (<machine>.yaml) and its plots (<machine>/) go")
        ->capture_default_str();

    auto* fit = app.add_subcommand(
        "fit", "Fit a run's raw results into a machine profile (YAML) and its plots");
    sonde::characterize::FitRunOptions fit_options;
    fit->add_option("results", fit_options.run_folder, "A run folder: results/<machine>/<run-id>")
        ->required()
        ->check(CLI::ExistingDirectory);
    fit->add_option("-o,--output", fit_options.output,
                    "The profile to write (default machines/<machine>.yaml)");
    fit->add_option("--machine", fit_options.machine,
                    "Machine name (default: the run folder's parent)");
    fit->add_option("--plots", fit_options.plots,
                    "Folder of the plots (default: beside the profile, <machine>/)");
    fit->add_flag("--unfinished", fit_options.unfinished,
                  "Fit an interrupted part's finished benchmarks too (its <part>.unfinished.json, "
                  "where no <part>.json stands); the profile's provenance lists them");

    auto* predict = app.add_subcommand("predict",
                                       "Predict a workload spreadsheet on a machine profile (Xu "
                                       "and Hwang's (1995) early prediction)");
    sonde::predict::PredictArguments predict_arguments;
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
    predict
        ->add_option("--network", predict_arguments.network,
                     "Profile of the cluster's network (messages, collectives, nodes and cores per "
                     "node) where it differs from --machine's, which then gives the node")
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

    auto* check = app.add_subcommand(
        "check",
        "Predict, run and compare: a program's measured times against its spreadsheet's "
        "prediction, per rank count and problem size");
    sonde::check::CheckOptions check_options;
    std::string check_launcher;
    check->add_option("spreadsheet", check_options.spreadsheet, "The workload spreadsheet (CSV)")
        ->required()
        ->check(CLI::ExistingFile);
    check->add_option("--machine", check_options.machine, "The target machine's profile")
        ->required()
        ->check(CLI::ExistingFile);
    check
        ->add_option("--network", check_options.network,
                     "Profile of the cluster's network (messages, collectives, nodes and cores per "
                     "node) where it differs from --machine's, which then gives the node")
        ->check(CLI::ExistingFile);
    check->add_flag(
        "--communication-only", check_options.communication_only,
        "Set the measurement against the predicted communication T_comm alone: for "
        "runs whose computation costs nothing (SMPI with smpi/simulate-computation:no)");
    // One value per --reference and --set: a vector option would take `--` as the end of its
    // values, and the program's own options as sonde's.
    check
        ->add_option("--reference", check_options.references,
                     "Profile of a machine the spreadsheet's times were measured on (default: "
                     "<name>.yaml beside --machine)")
        ->allow_extra_args(false);
    check->add_option("--ranks", check_options.ranks, "Rank counts n to run at: 1,2,4")->required();
    check
        ->add_option("--set", check_options.sets,
                     "One problem size: NAME=VALUE pairs of the spreadsheet's parameters, as "
                     "N=8192,K=10; repeatable (default: the spreadsheet's values)")
        ->allow_extra_args(false);
    check
        ->add_option("--repetitions", check_options.repetitions,
                     "The value of {repetitions} in the program's arguments")
        ->capture_default_str();
    check->add_option("--launcher", check_launcher,
                      "How to start the program, before -n <n>: \"mpirun --hostfile h\", \"srun\"; "
                      "\"\" runs it directly (default: $SONDE_MPIEXEC, else mpiexec)");
    std::string check_time_limit;
    check
        ->add_option("--time-limit", check_time_limit,
                     "Stop a run that takes longer, e.g. 90s, 10m (default: no limit): a run "
                     "that hangs (an MPI job that never ends) fails with what it printed, and "
                     "the points measured before are kept")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    bool check_no_probe = false;
    check->add_flag("--no-probe", check_no_probe,
                    "Do not time the machine (a one-thread DRAM triad and a dependent add chain) "
                    "before and after each point's runs; always off with --communication-only");
    check
        ->add_option("--machine-now-from", check_options.machine_now_from,
                     "Take each point's machine probes from a record file (JSON) sonde check "
                     "wrote, instead of probing: a revised model priced again in the memory "
                     "state each recorded measurement met (implies --no-probe)")
        ->check(CLI::ExistingFile);
    check->add_flag("--components", check_options.components,
                    "Also time the phases the program marks (sonde/phase.h, named after the "
                    "spreadsheet's rows, \"fft + reorder\" for several) and set each beside "
                    "its rows' prediction, in the table and the JSON records");
    check->add_option("--csv", check_options.csv, "Write the records as CSV, after every point");
    check->add_option("--json", check_options.json, "Write the records as JSON, after every point");
    check
        ->add_option("command", check_options.command,
                     "-- program and its arguments, with {NAME} (a parameter), {n} and "
                     "{repetitions} filled in")
        ->required();

    // A problem size: a number above zero (scientific notation welcome).
    const CLI::Validator positive_size(
        [](std::string& text) {
          const std::optional<double> value = sonde::parse_number(text);
          return value && *value > 0 ? std::string()
                                     : fmt::format("'{}': expected a size > 0, as 2e6", text);
        },
        "SIZE");

    auto* counters = app.add_subcommand(
        "counters", "Run a phase-marked program and write its counter file (times and counts)");
    sonde::counters::CountersArguments counters_arguments;
    counters->add_option("command", counters_arguments.command, "-- program and its arguments")
        ->required();
    counters->add_option("--size", counters_arguments.size, "The run's problem size, n")
        ->required()
        ->check(positive_size);
    counters->add_option("-o,--output", counters_arguments.output, "The counter file to write")
        ->required();
    counters
        ->add_option("--processes", counters_arguments.processes,
                     "State the run's process count in the file (its processes column), for "
                     "pilot runs at several counts")
        ->check(CLI::PositiveNumber);
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
    sonde::counters::ExtrapolateArguments extrapolate_arguments;
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
    extrapolate
        ->add_option("--processes", extrapolate_arguments.processes,
                     "Process counts to forecast at: 64,256 (pilot runs at three or more counts "
                     "are modelled in size and processes at once)")
        ->delimiter(',')
        ->check(CLI::PositiveNumber);
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

    auto* publish = app.add_subcommand(
        "publish",
        "Write a static HTML datasheet: a page per profile and an index comparing them all");
    sonde::publish::PublishOptions publish_options;
    publish
        ->add_option("profiles", publish_options.inputs,
                     "Profiles (.yaml) and folders of them, e.g. machines/")
        ->required();
    publish->add_option("-o,--output", publish_options.output, "The site's folder")->required();

    auto* export_verb = app.add_subcommand(
        "export", "Write a profile (or counter files) in another tool's format (docs/exports.md)");
    sonde::exports::ExportArguments export_arguments;
    export_verb
        ->add_option("format", export_arguments.format,
                     "roofline (ERT roofline.json), dimemas (.cfg), loggopsim (command line), "
                     "extrap-text or extrap-json (Extra-P input), simgrid (SMPI platform XML)")
        ->required()
        ->check(CLI::IsMember(sonde::exports::formats()));
    export_verb
        ->add_option("input", export_arguments.inputs,
                     "A profile; for extrap-*, a profile (its collectives) or counter files of "
                     "pilot runs")
        ->required();
    export_verb->add_option("-o,--output", export_arguments.output, "The file to write")
        ->required();
    export_verb->add_option("--reference", export_arguments.reference,
                            "dimemas: the profile of the machine the trace was recorded on (the "
                            "speed ratio is the two peak rates' ratio)");

    auto* trace = app.add_subcommand(
        "trace",
        "Run an MPI program with the tracer preloaded and write its OTF2 trace: every MPI call "
        "of every rank, the computation between them, the phases it marks");
    std::string trace_output, trace_machine;
    std::vector<std::string> trace_command;
    trace->add_option("-o,--output", trace_output, "The OTF2 anchor file to write (t.otf2)")
        ->required();
    trace->add_option("--machine", trace_machine,
                      "The profile name of the machine it runs on, kept in the trace (replay "
                      "finds <name>.yaml for the speed ratio)");
    trace
        ->add_option("command", trace_command,
                     "-- the launcher, the program and its arguments: -- mpirun -n 4 ./prog")
        ->required();

    auto* replay = app.add_subcommand(
        "replay",
        "Replay an MPI trace (OTF2) on a machine profile: predicted time, critical path, each "
        "rank's computation, communication and wait; what-ifs of another machine, process "
        "count, placement or network");
    sonde::replay::ReplayOptions replay_options;
    replay->add_option("trace", replay_options.trace, "The trace's OTF2 anchor file (t.otf2)")
        ->required()
        ->check(CLI::ExistingFile);
    replay->add_option("--machine", replay_options.machine, "The target machine's profile")
        ->required()
        ->check(CLI::ExistingFile);
    replay
        ->add_option("--source-machine", replay_options.source_machine,
                     "Profile of the machine the trace was taken on, for the speed ratio "
                     "(default: the trace's machine name, <name>.yaml beside --machine)")
        ->check(CLI::ExistingFile);
    replay
        ->add_option("--phase-ratio", replay_options.phase_ratios,
                     "A phase's own speed ratio: NAME=0.5, NAME=peak (the peaks' ratio) or "
                     "NAME=memory (the DRAM bandwidths' per core); repeatable")
        ->allow_extra_args(false);
    replay->add_option("--speed-ratio", replay_options.speed_ratio,
                       "Target computation time over traced computation time (ExtraP's "
                       "MipsRatio), instead of the profiles' peaks");
    replay
        ->add_option("--network", replay_options.network,
                     "Profile of the network between nodes; on one node, of every message "
                     "(NF's changed network)")
        ->check(CLI::ExistingFile);
    replay->add_option("--ranks-per-node", replay_options.ranks_per_node,
                       "Ranks on each node (default: all on one)");
    replay->add_option("--placement", replay_options.placement,
                       "block (default), round-robin, or a node per rank: 0,0,1,1");
    replay->add_option("--processors-per-node", replay_options.processors_per_node,
                       "Processors a node's ranks share (default: the profile's cores per node)");
    replay
        ->add_option("--messages", replay_options.messages,
                     "fit: the profile's Hockney segments; table: its measured half round "
                     "trips (LBF's lookup table)")
        ->capture_default_str();
    replay->add_option("--latency-scale", replay_options.latency_scale,
                       "Multiply every message's and collective's start-up time (what-if)");
    replay->add_option("--bandwidth-scale", replay_options.bandwidth_scale,
                       "Multiply every bandwidth (what-if)");
    replay->add_flag("--extrap-barrier", replay_options.extrap_barrier,
                     "Barriers by ExtraP's linear master-slave model (profile's barrier_* times)");
    replay->add_flag("--wall-time", replay_options.wall_time,
                     "Computation from wall time between calls even where the trace has process "
                     "time");
    replay->add_option("--json", replay_options.json, "Write the result as JSON");
    replay->add_option("--plots", replay_options.plots, "Folder for timeline.{png,svg}");

    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      const int code = app.exit(e);
      return code == 0 ? 0 : static_cast<int>(sonde::ExitCode::usage);
    }
    if (topology->parsed()) {
      std::cout << sonde::microbench::describe_topology(xml, synthetic, topology_json);
      return 0;
    }
    if (fit->parsed()) {
      sonde::characterize::fit_run(fit_options, std::cerr);
      return 0;
    }
    if (predict->parsed())
      return sonde::predict::predict_command(predict_arguments, std::cout, std::cerr);
    if (check->parsed()) {
      if (check->count("--launcher") > 0) check_options.launcher = check_launcher;
      if (!check_time_limit.empty()) {
        check_options.time_limit_seconds = sonde::parse_duration(check_time_limit, "--time-limit");
      }
      sonde::check::Probe probe;
      if (!check_no_probe && !check_options.communication_only &&
          check_options.machine_now_from.empty()) {
        probe = sonde::check::probe_machine;
      }
      return sonde::check::check_command(
          check_options, std::cout, std::cerr,
          sonde::check::process_runner(std::cerr, check_options.time_limit_seconds), probe);
    }
    if (counters->parsed()) return sonde::counters::counters_command(counters_arguments, std::cerr);
    if (extrapolate->parsed()) {
      return sonde::counters::extrapolate_command(extrapolate_arguments, std::cout);
    }
    if (trace->parsed()) {
#if SONDE_HAVE_TRACER
      return sonde::tracer::run_trace({trace_output, trace_machine, trace_command});
#else
      throw sonde::usage_error("trace", "this sonde was built without MPI (SONDE_MPI=OFF): no "
                                        "tracer to preload");
#endif
    }
    if (replay->parsed()) {
      const sonde::replay::ReplayReport report = sonde::replay::run_replay(replay_options);
      sonde::replay::print_report(replay_options, report, std::cout);
      return 0;
    }
    if (export_verb->parsed()) return sonde::exports::export_command(export_arguments, std::cout);
    if (show->parsed()) {
      std::cout << sonde::profile::format_profile(sonde::profile::read_profile(show_path));
      return 0;
    }
    if (validate->parsed()) {
      sonde::profile::validate_profiles(validate_paths, std::cout);
      return 0;
    }
    if (publish->parsed()) {
      return sonde::publish::publish_command(publish_options, std::cout, std::cerr);
    }
    if (compare->parsed()) {
      std::cout << sonde::profile::compare_profiles(sonde::profile::read_profile(compare_a),
                                                    sonde::profile::read_profile(compare_b));
      return 0;
    }
    options.budget_given = characterize->count("--budget") > 0;
    return sonde::characterize::characterize_command(run, std::cout, std::cerr);
  });
}
