#include "replay/command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "plot/profile_plots.hpp"
#include "trace/otf2_io.hpp"

namespace sonde::replay {

namespace {

Placement placement_of(const ReplayOptions& options, std::uint32_t ranks) {
  const std::string& scheme = options.placement;
  if (scheme.empty() || scheme == "block" || scheme == "round-robin") {
    const std::uint32_t per_node = options.ranks_per_node.value_or(std::max(1u, ranks));
    if (per_node == 0) throw usage_error("--ranks-per-node", "expected at least 1");
    if (scheme == "round-robin") {
      return round_robin_placement(ranks, (ranks + per_node - 1) / per_node);
    }
    return block_placement(ranks, per_node);
  }
  // A node per rank: "0,0,1,1".
  Placement placement;
  std::stringstream words(scheme);
  std::string word;
  while (std::getline(words, word, ',')) {
    const std::optional<double> node = parse_number(word);
    if (!node || *node < 0 || *node != static_cast<std::uint32_t>(*node)) {
      throw usage_error("--placement", fmt::format("'{}': expected block, round-robin or a node "
                                                   "number per rank (0,0,1,1)",
                                                   word));
    }
    placement.node_of_rank.push_back(static_cast<std::uint32_t>(*node));
  }
  if (placement.node_of_rank.size() != ranks) {
    throw usage_error("--placement", fmt::format("names {} nodes; the trace has {} ranks",
                                                 placement.node_of_rank.size(), ranks));
  }
  return placement;
}

// The timeline's bars: every interval where there are few; where there are many (a plot of
// tens of thousands of bars takes gnuplot minutes and says nothing more), each rank's time in
// kBins spans, each drawn in the activity that took most of it.
std::pair<std::vector<plot::TimelineBar>, bool> timeline_bars(const Result& result) {
  constexpr std::size_t kMostBars = 4000, kBins = 800;
  std::vector<plot::TimelineBar> bars;
  if (result.timeline.size() <= kMostBars || result.predicted_seconds <= 0) {
    for (const Interval& interval : result.timeline) {
      bars.push_back(
          {interval.rank, interval.begin, interval.end, static_cast<int>(interval.activity)});
    }
    return {bars, false};
  }
  const double width = result.predicted_seconds / kBins;
  std::vector<std::vector<std::array<double, 3>>> share(
      result.ranks.size(), std::vector<std::array<double, 3>>(kBins, {0, 0, 0}));
  for (const Interval& interval : result.timeline) {
    auto bin = static_cast<std::size_t>(interval.begin / width);
    for (; bin < kBins && bin * width < interval.end; ++bin) {
      const double overlap =
          std::min(interval.end, (bin + 1) * width) - std::max(interval.begin, bin * width);
      if (overlap > 0) share[interval.rank][bin][static_cast<int>(interval.activity)] += overlap;
    }
  }
  for (std::uint32_t rank = 0; rank < share.size(); ++rank) {
    for (std::size_t bin = 0; bin < kBins; ++bin) {
      const auto& parts = share[rank][bin];
      if (parts[0] + parts[1] + parts[2] <= 0) continue;
      const int kind =
          static_cast<int>(std::max_element(parts.begin(), parts.end()) - parts.begin());
      if (!bars.empty() && bars.back().rank == rank && bars.back().kind == kind &&
          bars.back().end >= bin * width - width / 2) {
        bars.back().end = (bin + 1) * width;
      } else {
        bars.push_back({rank, bin * width, (bin + 1) * width, kind});
      }
    }
  }
  return {bars, true};
}

}  // namespace

ReplayReport run_replay(const ReplayOptions& options) {
  const trace::Trace trace = trace::read_otf2(options.trace);
  const profile::Profile machine = profile::read_profile(options.machine);
  std::optional<profile::Profile> network;
  if (!options.network.empty()) network = profile::read_profile(options.network);

  ReplayReport report;
  report.target = machine.machine.name;
  const auto ranks = static_cast<std::uint32_t>(trace.ranks.size());
  Options replay_options;
  replay_options.use_process_time = !options.wall_time;
  replay_options.placement = placement_of(options, ranks);
  report.nodes = replay_options.placement.nodes();
  // Processors per node: given, else the profile's cores per node; the profile may not say
  // (then every rank has a processor of its own, and the report says so).
  if (options.processors_per_node) {
    replay_options.placement.processors_per_node = *options.processors_per_node;
  } else if (machine.machine.cores_per_node) {
    replay_options.placement.processors_per_node =
        static_cast<std::uint32_t>(*machine.machine.cores_per_node);
  } else {
    report.notes.push_back(fmt::format(
        "{} does not say how many cores a node has: every rank has a processor of its own "
        "(--processors-per-node to say)",
        options.machine));
  }
  report.processors_per_node = replay_options.placement.processors_per_node;

  // ExtraP's processor model: computation scaled by the ratio of the two machines' speeds. The
  // traced machine's profile: given, or the trace's machine name beside --machine; the same
  // machine needs none.
  const auto traced_on = trace.properties.find("machine");
  const bool same_machine =
      traced_on == trace.properties.end() || traced_on->second == machine.machine.name;
  std::optional<profile::Profile> source;
  std::string source_file = options.source_machine;
  if (source_file.empty() && !same_machine) {
    const std::filesystem::path beside =
        std::filesystem::path(options.machine).parent_path() / (traced_on->second + ".yaml");
    if (std::filesystem::exists(beside)) source_file = beside.string();
  }
  if (!source_file.empty()) source = profile::read_profile(source_file);
  if (options.speed_ratio) {
    report.speed_ratio = *options.speed_ratio;
    report.speed_ratio_how = "given (--speed-ratio)";
  } else if (source) {
    report.speed_ratio = mips_ratio(*source, source_file, machine, options.machine);
    report.speed_ratio_how = fmt::format("peak per core of {} over {} (ExtraP's MipsRatio)",
                                         source->machine.name, machine.machine.name);
  } else if (same_machine) {
    report.speed_ratio = 1;
    report.speed_ratio_how =
        traced_on == trace.properties.end()
            ? "1: the trace does not name its machine, so it is taken as the target"
            : "1: the trace was taken on the target";
  } else {
    throw usage_error("--source-machine",
                      fmt::format("the trace was taken on '{}' and {} is another machine; give "
                                  "that machine's profile (--source-machine, or {}.yaml beside "
                                  "--machine) or --speed-ratio",
                                  traced_on->second, options.machine, traced_on->second));
  }
  replay_options.speed_ratio = report.speed_ratio;
  for (const std::string& given : options.phase_ratios) {
    const auto equals = given.find('=');
    const std::string phase = given.substr(0, equals);
    const std::string value = equals == std::string::npos ? "" : given.substr(equals + 1);
    if (phase.empty() || value.empty()) {
      throw usage_error("--phase-ratio",
                        fmt::format("'{}': expected NAME=RATIO, NAME=peak or NAME=memory", given));
    }
    double ratio = 0;
    std::string how;
    if (value == "peak" || value == "memory") {
      if (!source && !same_machine) {
        throw usage_error("--phase-ratio", fmt::format("{}: needs the traced machine's profile "
                                                       "(--source-machine)",
                                                       given));
      }
      const profile::Profile& from = source ? *source : machine;
      const std::string& from_file = source ? source_file : options.machine;
      ratio = value == "peak" ? mips_ratio(from, from_file, machine, options.machine)
                              : memory_ratio(from, from_file, machine, options.machine);
      how = value == "peak" ? "the peaks' ratio" : "the DRAM bandwidths' ratio, per core";
    } else {
      const std::optional<double> number = parse_number(value);
      if (!number || !(*number > 0)) {
        throw usage_error("--phase-ratio", fmt::format("'{}': expected a ratio above 0, peak or "
                                                       "memory",
                                                       given));
      }
      ratio = *number;
      how = "given";
    }
    replay_options.phase_speed_ratio[phase] = ratio;
    report.notes.push_back(
        fmt::format("phase {}: computation scaled by {:.4g} ({})", phase, ratio, how));
  }

  CostSources sources;
  sources.within_node = &machine;
  sources.within_node_file = options.machine;
  if (network) {
    if (report.nodes == 1) {
      // On one node there are no messages between nodes: the network given replaces the
      // machine's own communication (Eom and Hollingsworth's NF, a changed network).
      sources.within_node = &*network;
      sources.within_node_file = options.network;
      report.notes.push_back(
          fmt::format("one node: every message and collective is costed "
                      "with {} (NF), computation with {}",
                      options.network, options.machine));
    } else {
      sources.between_nodes = &*network;
      sources.between_nodes_file = options.network;
    }
  }
  if (options.messages == "table") {
    sources.messages = MessageModel::table;
  } else if (options.messages != "fit") {
    throw usage_error("--messages", fmt::format("'{}': expected fit or table", options.messages));
  }
  sources.latency_scale = options.latency_scale;
  sources.bandwidth_scale = options.bandwidth_scale;
  sources.extrap_barrier = options.extrap_barrier;
  const Costs costs = costs_from_profiles(sources);
  report.notes.insert(report.notes.end(), costs.notes.begin(), costs.notes.end());

  report.result = replay(trace, costs, replay_options);
  report.notes.insert(report.notes.end(), report.result.notes.begin(), report.result.notes.end());
  if (trace.properties.count("tracer_overhead_ns")) {
    report.notes.push_back(
        fmt::format("the traced run carried the tracer's cost, about {} ns per "
                    "MPI call (measured by the tracer)",
                    trace.properties.at("tracer_overhead_ns")));
  }
  if (!options.json.empty()) {
    write_file_atomically(options.json, to_json(options, report).dump(2) + "\n");
  }
  if (!options.plots.empty()) {
    ensure_writable_folder(options.plots);
    const auto [bars, coarsened] = timeline_bars(report.result);
    plot::plot_timeline(fmt::format("replay of {} on {}{}", trace.source, report.target,
                                    coarsened ? " (each bar the main activity of its span)" : ""),
                        bars, {"computation", "communication", "wait"}, options.plots, "timeline");
  }
  return report;
}

void print_report(const ReplayOptions& options, const ReplayReport& report, std::ostream& out) {
  const Result& result = report.result;
  out << fmt::format("replay of {} ({} ranks) on {} ({})\n", options.trace, result.ranks.size(),
                     report.target, options.machine);
  out << fmt::format("placement: {} node{}, {}\n", report.nodes, report.nodes == 1 ? "" : "s",
                     report.processors_per_node == 0
                         ? std::string("a processor per rank")
                         : fmt::format("{} processors per node", report.processors_per_node));
  out << fmt::format("speed ratio {:.4g}: {}\n", report.speed_ratio, report.speed_ratio_how);
  const double predicted = result.predicted_seconds, measured = result.measured_seconds;
  out << fmt::format("predicted {}   traced run {}", format_seconds(predicted),
                     format_seconds(measured));
  if (predicted > 0 && measured > 0) {
    out << fmt::format("   E = max/min = {:.3f}",
                       std::max(predicted, measured) / std::min(predicted, measured));
  }
  out << "\n\n";
  out << fmt::format("{:>5} {:>12} {:>14} {:>12} {:>12} {:>8}\n", "rank", "compute",
                     "communication", "wait", "end", "calls");
  for (std::size_t r = 0; r < result.ranks.size(); ++r) {
    const RankTimes& t = result.ranks[r];
    out << fmt::format("{:>5} {:>12} {:>14} {:>12} {:>12} {:>8}\n", r, format_seconds(t.compute),
                       format_seconds(t.communication), format_seconds(t.wait),
                       format_seconds(t.end), t.calls);
  }
  const double path = result.critical_compute + result.critical_communication;
  out << fmt::format(
      "\ncritical path {}: computation {} ({:.0f}%), communication {} ({:.0f}%), "
      "{} steps\n",
      format_seconds(path), format_seconds(result.critical_compute),
      path > 0 ? 100 * result.critical_compute / path : 0.0,
      format_seconds(result.critical_communication),
      path > 0 ? 100 * result.critical_communication / path : 0.0, result.critical_path.size());
  // The longest steps of the path, where the time goes.
  std::vector<PathStep> longest = result.critical_path;
  std::sort(longest.begin(), longest.end(),
            [](const PathStep& a, const PathStep& b) { return a.end - a.begin > b.end - b.begin; });
  for (std::size_t i = 0; i < std::min<std::size_t>(5, longest.size()); ++i) {
    out << fmt::format("  rank {:>3} {:>12}  {}\n", longest[i].rank,
                       format_seconds(longest[i].end - longest[i].begin), longest[i].what);
  }
  if (!report.notes.empty()) {
    out << "\nnotes:\n";
    for (const std::string& note : report.notes) out << "  " << note << "\n";
  }
}

nlohmann::json to_json(const ReplayOptions& options, const ReplayReport& report) {
  const Result& result = report.result;
  nlohmann::json out;
  out["trace"] = options.trace;
  out["machine"] = {{"file", options.machine}, {"name", report.target}};
  if (!options.network.empty()) out["network"] = options.network;
  out["nodes"] = report.nodes;
  out["processors_per_node"] = report.processors_per_node;
  out["speed_ratio"] = {{"value", report.speed_ratio}, {"how", report.speed_ratio_how}};
  out["messages"] = options.messages;
  out["predicted_seconds"] = result.predicted_seconds;
  out["measured_seconds"] = result.measured_seconds;
  if (result.predicted_seconds > 0 && result.measured_seconds > 0) {
    out["error_ratio"] = std::max(result.predicted_seconds, result.measured_seconds) /
                         std::min(result.predicted_seconds, result.measured_seconds);
  }
  out["ranks"] = nlohmann::json::array();
  for (const RankTimes& t : result.ranks) {
    out["ranks"].push_back({{"compute_seconds", t.compute},
                            {"communication_seconds", t.communication},
                            {"wait_seconds", t.wait},
                            {"end_seconds", t.end},
                            {"calls", t.calls}});
  }
  // The path of a long run has a step per call: the JSON keeps its totals, each rank's share
  // and its longest steps.
  out["critical_path"] = {{"compute_seconds", result.critical_compute},
                          {"communication_seconds", result.critical_communication},
                          {"step_count", result.critical_path.size()}};
  std::map<std::uint32_t, std::pair<double, double>> per_rank;
  for (const PathStep& step : result.critical_path) {
    auto& [compute, communication] = per_rank[step.rank];
    (step.activity == Activity::compute ? compute : communication) += step.end - step.begin;
  }
  out["critical_path"]["ranks"] = nlohmann::json::array();
  for (const auto& [rank, seconds] : per_rank) {
    out["critical_path"]["ranks"].push_back({{"rank", rank},
                                             {"compute_seconds", seconds.first},
                                             {"communication_seconds", seconds.second}});
  }
  std::vector<PathStep> longest = result.critical_path;
  std::sort(longest.begin(), longest.end(),
            [](const PathStep& a, const PathStep& b) { return a.end - a.begin > b.end - b.begin; });
  longest.resize(std::min<std::size_t>(longest.size(), 50));
  out["critical_path"]["longest_steps"] = nlohmann::json::array();
  for (const PathStep& step : longest) {
    out["critical_path"]["longest_steps"].push_back(
        {{"rank", step.rank}, {"begin", step.begin}, {"end", step.end}, {"what", step.what}});
  }
  out["notes"] = report.notes;
  return out;
}

}  // namespace sonde::replay
