#include "predict/command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "counters/command.hpp"
#include "plot/profile_plots.hpp"
#include "predict/predictor.hpp"
#include "predict/report.hpp"
#include "predict/workload.hpp"
#include "profile/profile.hpp"

namespace sonde::predict {

namespace {

// prediction.{png,svg} in `folder`: the three schemes over n up to `largest`, and the measured
// times; returns the files.
std::vector<std::filesystem::path> plot(const Predictor& predictor, const std::string& spreadsheet,
                                        double largest,
                                        const std::vector<std::pair<double, double>>& measured,
                                        const std::filesystem::path& folder) {
  std::vector<plot::PredictionSeries> series;
  const std::vector<double> dense = plot_nodes(largest);
  for (auto scheme : {Scheme::theoretical, Scheme::zero_overhead, Scheme::full_overhead}) {
    plot::PredictionSeries s{to_string(scheme), {}};
    for (double n : dense) {
      const auto point = predictor.at(n, scheme);
      s.points.emplace_back(n, point.total, point.speedup, point.efficiency);
    }
    series.push_back(s);
  }
  const std::string title =
      fmt::format("{} on {}", std::filesystem::path(spreadsheet).filename().string(),
                  predictor.target().machine.name);
  return plot::plot_prediction(title, series, measured, folder);
}

}  // namespace

int predict_command(const PredictArguments& a, std::ostream& out, std::ostream& log) {
  const std::filesystem::path machine_path = a.machine;
  if (a.spreadsheet.empty() == a.counters.empty()) {
    throw usage_error("predict", "give a workload spreadsheet or --counters files, one of them");
  }
  if (!a.counters.empty()) {
    counters::predict_from_counters(a.counters, machine_path, a.json, out);
    return 0;
  }
  Workload workload = read_workload(a.spreadsheet);
  // A machine a component names is looked for beside the target's profile when not given.
  std::vector<std::string> named;
  for (const auto& component : workload.components) named.push_back(component.machine);
  PredictOptions options;
  options.reference_machines = profile::reference_profiles(a.references, named, machine_path);
  read_network(options, a.network);
  const Predictor predictor(std::move(workload), profile::read_profile(machine_path),
                            machine_path.string(), options);
  const double n_max = std::min(predictor.summary().n_max, 1048576.0);
  const std::vector<double> nodes =
      a.nodes.empty() ? powers_of_two(std::max(2.0, n_max)) : parse_nodes(a.nodes);
  const double scan_to = a.max_nodes > 0 ? a.max_nodes : std::max(nodes.back(), 4 * n_max);
  std::vector<RequirementResult> checks;
  for (const std::string& text : a.requirements) {
    checks.push_back(
        check_requirement(predictor, parse_requirement(text), Scheme::full_overhead, scan_to));
  }
  if (!a.csv.empty()) write_file_atomically(a.csv, prediction_csv(predictor, nodes));
  std::vector<std::pair<double, double>> measured;
  if (!a.measured.empty()) measured = read_measurements(a.measured);
  if (a.json) {
    auto report = prediction_json(predictor, nodes, checks);
    if (!measured.empty()) report["measured"] = measured_json(predictor, measured);
    out << report.dump(2) << "\n";
  } else {
    out << format_prediction(predictor, nodes, checks) << format_measured(predictor, measured);
  }
  if (!a.plots.empty()) {
    for (const auto& path : plot(predictor, a.spreadsheet, nodes.back(), measured, a.plots)) {
      log << fmt::format("plot: {}\n", path.string());
    }
  }
  return 0;
}

}  // namespace sonde::predict
