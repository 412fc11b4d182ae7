#include "counters/command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <optional>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "counters/collect.hpp"
#include "counters/counter_file.hpp"
#include "counters/counter_model.hpp"
#include "counters/counter_report.hpp"
#include "counters/extrapolate.hpp"
#include "profile/profile.hpp"

namespace sonde::counters {

int counters_command(const CountersArguments& a, std::ostream& log) {
  namespace fs = std::filesystem;
  CollectOptions options;
  options.command = a.command;
  options.size = a.size;
  options.repetitions = a.repetitions;
  options.source = source_named(a.source);
  options.papi_overrides = a.papi_events;
  std::optional<profile::Profile> machine;
  if (!a.machine.empty()) {
    machine = profile::read_profile(a.machine);
    options.machine = &*machine;
    options.machine_name = a.machine;
  }
  options.work_folder = fs::temp_directory_path() / fmt::format("sonde-counters-{}", ::getpid());
  options.progress = [&log](const std::string& text) { log << "counters: " << text << "\n"; };
  ensure_writable_folder(fs::absolute(a.output).parent_path());
  auto collected = collect(options);
  for (const auto& note : collected.notes) log << "counters: " << note << "\n";
  if (a.processes > 0) {
    for (PhaseCounts& phase : collected.table.phases) {
      if (!phase.processors.empty() && phase.processors.rbegin()->first >= a.processes) {
        throw usage_error("--processes",
                          fmt::format("{}: phase '{}' counted processor {} (numbered from 0)",
                                      a.processes, phase.phase, phase.processors.rbegin()->first));
      }
      phase.processes = a.processes;
    }
  }
  write_counter_file(a.output, collected.table);
  fs::remove_all(options.work_folder);
  log << fmt::format("counters: {} phases, counts from {}; written to {}\n",
                     collected.table.phases.size(), collected.counts_source, a.output);
  return 0;
}

int extrapolate_command(const ExtrapolateArguments& a, std::ostream& out) {
  const auto pilots = read_counter_files({a.pilots.begin(), a.pilots.end()});
  const auto profile = profile::read_profile(a.machine);
  std::optional<CounterTable> measured;
  if (!a.measured.empty()) measured = read_counter_files({a.measured.begin(), a.measured.end()});
  if (a.sizes.empty() && !measured)
    throw usage_error("--size", "give the sizes to forecast, or --measured counter files");
  const std::vector<double> sizes = a.sizes.empty() ? measured->sizes() : a.sizes;
  const std::string pilots_name = fmt::format("{}", fmt::join(a.pilots, ", "));
  std::vector<int> processes = a.processes;
  if (processes.empty() && measured && pilots.process_counts().size() > 1)
    processes = measured->process_counts();
  const auto extrapolation = extrapolate(pilots, sizes, pilots_name, a.resamples, processes);
  if (!a.output.empty()) write_counter_file(a.output, extrapolation.forecast);
  const auto points =
      predict_extrapolation(extrapolation, measured ? &*measured : nullptr,
                            fmt::format("{}", fmt::join(a.measured, ", ")), profile, a.machine);
  if (a.json) {
    out << nlohmann::json{{"points", table4_json(points)}}.dump(2) << "\n";
    return 0;
  }
  if (pilots.process_counts().size() > 1) {
    out << fmt::format(
        "Counts fitted on {} pilot sizes ({}) and {} process counts ({}) at once, forms in n and p "
        "chosen by cross-validation (Calotoiu et al. (2016)); per processor, the largest and the "
        "mean\n",
        pilots.sizes().size(), fmt::join(pilots.sizes(), ", "), pilots.process_counts().size(),
        fmt::join(pilots.process_counts(), ", "));
  } else {
    out << fmt::format("Counts fitted on {} pilot sizes ({}), forms chosen by cross-validation\n",
                       pilots.sizes().size(), fmt::join(pilots.sizes(), ", "));
  }
  out << format_count_fits(extrapolation.fits) << "\n";
  out << format_table4(points);
  return 0;
}

void predict_from_counters(const std::vector<std::string>& files,
                           const std::filesystem::path& machine, bool json, std::ostream& out) {
  const auto table = read_counter_files({files.begin(), files.end()});
  const auto predictions = predict_table(table, profile::read_profile(machine), machine.string());
  if (json)
    out << counter_predictions_json(predictions).dump(2) << "\n";
  else
    out << format_counter_predictions(predictions);
}

}  // namespace sonde::counters
