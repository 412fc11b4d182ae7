#include "fit/profile_builder.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/result_format.hpp"
#include "core/run_records.hpp"
#include "core/statistics.hpp"
#include "core/units.hpp"
#include "core/version.hpp"
#include "fit/contention_fit.hpp"
#include "fit/hockney.hpp"
#include "fit/memory_levels.hpp"
#include "model/bootstrap.hpp"
#include "model/overlap.hpp"
#include "model/two_parameter.hpp"

namespace sonde::fit {

using namespace model;  // the fits are made of the shared forms and estimators

namespace {

using profile::FitQuality;
using profile::Interval;
using profile::Origin;
using profile::Quantity;

namespace suite = result_format::suite;
namespace counter = result_format::counter;

Quantity measured(const Measurement& row, const std::string& unit, const std::string& note = "") {
  Quantity q;
  q.value = row.median;
  q.unit = unit;
  q.origin = Origin::measured;
  if (row.max > row.min) q.interval = Interval{row.min, row.max, 1.0};
  q.sources = {row.name};
  q.note = note.empty() ? "median of the repetitions; interval: their range" : note;
  return q;
}

// The pair map by placement: per class the median over its pairs of the small message's one-way
// time and of the large message's rate, each with the range over the pairs.
}  // namespace

std::vector<profile::PairClass> pair_classes(const std::vector<Measurement>& rows) {
  struct Gathered {
    std::vector<double> latency, bandwidth;
    std::vector<std::string> latency_sources, bandwidth_sources;
    double latency_bytes = 0, bandwidth_bytes = 0;
  };
  std::map<std::string, Gathered> by_class;
  for (const Measurement& m : rows) {
    if (m.params.value("part", "") != "map") continue;
    const auto param = [&]<class T>(const char* key, T) {
      return required_param<T>(m.params, key, m.name, m.file);
    };
    const std::string measure = param("measure", std::string());
    Gathered& g = by_class[param("pair_class", std::string())];
    if (m.counter != "seconds_per_message" || !(m.median > 0)) continue;
    if (measure == "latency") {
      g.latency.push_back(m.median);
      g.latency_sources.push_back(m.name);
      g.latency_bytes = param("message_bytes", 0.0);
    } else if (measure == "bandwidth") {
      g.bandwidth_bytes = param("message_bytes", 0.0);
      g.bandwidth.push_back(g.bandwidth_bytes / m.median);
      g.bandwidth_sources.push_back(m.name);
    }
  }
  const auto over_pairs = [](std::vector<double> values, std::vector<std::string> sources,
                             const std::string& unit, const std::string& what) {
    Quantity q;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    q.value = sonde::median(values);
    q.unit = unit;
    q.origin = Origin::measured;
    if (values.back() > values.front()) q.interval = Interval{values.front(), values.back(), 1.0};
    q.sources = std::move(sources);
    q.note = fmt::format("{}: median over {} pairs; interval: their range", what, n);
    return q;
  };
  std::vector<profile::PairClass> classes;
  for (const char* placement : profile::kPairPlacements) {
    const auto it = by_class.find(placement);
    if (it == by_class.end() || it->second.latency.empty() || it->second.bandwidth.empty())
      continue;
    Gathered& g = it->second;
    classes.push_back({placement, g.latency.size(), g.latency_bytes, g.bandwidth_bytes,
                       over_pairs(g.latency, g.latency_sources, "s", "one way, half a round trip"),
                       over_pairs(g.bandwidth, g.bandwidth_sources, "B/s",
                                  "message bytes over the one-way time")});
  }
  return classes;
}

namespace {

Quantity from_plateau(const Plateau& p, const std::string& unit, const std::string& source,
                      const std::string& what) {
  Quantity q;
  q.value = p.median;
  q.unit = unit;
  q.origin = Origin::measured;
  if (p.max > p.min) q.interval = Interval{p.min, p.max, 1.0};
  q.sources = {source};
  q.note = fmt::format("{}: median over {} working sets on the plateau; interval: their range",
                       what, p.sizes);
  return q;
}

profile::Formula to_formula(const FormChoice& choice, const std::string& unit,
                            const std::vector<std::string>& sources, const std::string& note,
                            const std::vector<double>& x, const std::vector<double>& y) {
  profile::Formula f;
  f.unit = unit;
  f.origin = Origin::fitted;
  f.sources = sources;
  f.note = note;
  std::vector<Interval> intervals;
  if (!x.empty()) {
    f.quality = FitQuality{choice.fit.mean_relative_error, choice.fit.max_relative_error, x.size()};
    try {
      BootstrapOptions options;
      options.resamples = 100;
      BootstrapReport report;
      for (const auto& i : form_intervals(choice.form, x, y, options, &report)) {
        intervals.push_back(Interval{i.low, i.high, i.level});
      }
      f.note += report.note();
    } catch (const Error& e) {
      // The terms stand without intervals; the profile says so rather than looking complete.
      f.note += fmt::format("; no bootstrap interval: {}", e.what());
    }
  }
  for (std::size_t j = 0; j < choice.form.basis.size(); ++j) {
    profile::Term term;
    term.basis = choice.form.basis[j].name;
    term.coefficient = choice.fit.coefficients[j];
    if (choice.form.basis[j].power) term.exponent = choice.fit.exponent;
    if (j < intervals.size()) term.interval = intervals[j];
    f.terms.push_back(term);
  }
  return f;
}

// A collective's time as one model in ranks n and message size m (Calotoiu et al. (2016)), from
// every measured point with m > 0 (a logarithm of m is among the hypotheses), with bootstrap
// intervals. Absent, with the reason in `not_fitted`, where the points cannot choose one: fewer
// than three communicator sizes or message sizes.
std::optional<profile::TwoParameterFormula> ranks_and_bytes_model(
    const std::string& op, const std::vector<profile::CollectiveMeasurement>& measurements,
    const std::vector<std::string>& sources, std::vector<std::string>& not_fitted) {
  std::vector<double> n, m, t;
  for (const profile::CollectiveMeasurement& point : measurements) {
    if (point.bytes <= 0) continue;
    n.push_back(static_cast<double>(point.ranks)), m.push_back(point.bytes);
    t.push_back(point.time.value);
  }
  const std::size_t ranks = std::set<double>(n.begin(), n.end()).size();
  const std::size_t sizes = std::set<double>(m.begin(), m.end()).size();
  if (ranks < 3 || sizes < 3) {
    // Fewer than three communicator sizes is said once for all collectives, above.
    if (ranks >= 3) {
      not_fitted.push_back(fmt::format(
          "collectives.{}.ranks_and_bytes: {} communicator size(s) and {} message size(s) above "
          "0 B; a model in both needs three or more of each",
          op, ranks, sizes));
    }
    return std::nullopt;
  }
  const std::string what = fmt::format("collectives.{}.ranks_and_bytes", op);
  try {
    const model::TwoParameterModel chosen =
        model::select_two_parameter_model(n, m, t, what, {"n", "m"});
    profile::TwoParameterFormula f;
    f.unit = "s";
    f.origin = Origin::fitted;
    f.sources = sources;
    f.quality = FitQuality{chosen.mean_relative_error, chosen.max_relative_error, t.size()};
    f.note = fmt::format(
        "chosen among {} hypotheses in n and m by leave-one-out cross-validation (RMS relative "
        "error {:.3g}); Calotoiu et al. (2016)",
        chosen.hypotheses, std::sqrt(chosen.cv_error));
    std::vector<Interval> intervals;
    try {
      BootstrapOptions options;
      options.resamples = 100;
      BootstrapReport report;
      for (const auto& i : model::two_parameter_intervals(chosen, n, m, t, options, &report)) {
        intervals.push_back(Interval{i.low, i.high, i.level});
      }
      f.note += report.note();
    } catch (const Error& e) {
      f.note += fmt::format("; no bootstrap interval: {}", e.what());
    }
    for (std::size_t j = 0; j < chosen.form.terms.size(); ++j) {
      const model::Shape& a = model::shape_library()[chosen.form.terms[j].first];
      const model::Shape& b = model::shape_library()[chosen.form.terms[j].second];
      profile::TwoParameterTerm term{
          chosen.coefficients[j], a.exponent, a.log_power, b.exponent, b.log_power, std::nullopt};
      if (j < intervals.size()) term.interval = intervals[j];
      f.terms.push_back(term);
    }
    return f;
  } catch (const Error& e) {
    not_fitted.push_back(fmt::format("{}: {}", what, e.what()));
    return std::nullopt;
  }
}

// A key of the run context that a fit needs, strictly: an input Error naming the suite's
// context and the key, never a default.
const nlohmann::json& required(const nlohmann::json& object, const char* key,
                               const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    throw input_error(where, fmt::format("lacks '{}' (see docs/formats.md, Result files)", key));
  }
  return *it;
}

// The topology of a suite's run context.
const nlohmann::json& topology_of(const RunRecords& run, const std::string& suite) {
  return required(run.context(suite), "topology", suite + " results: context.sonde");
}

// --- compute ---

// The shared-ports kernel at each width: the p of (C^p + M^p)^(1/p) that the predictor combines
// a chain through memory and its loop's L1 loads and stores with (docs/methods.md, Compute), fitted
// to the chain's and the two together's times over the triad's alone (each the median over
// iterations of neighbours timed in the same state). Fitted, not measured: its interval is the
// range of the fits that leave one width out.
void add_shared_ports_exponent(const RunRecords& run, profile::Profile& p) {
  if (run.shared_ports.empty()) return;
  std::vector<model::OverlapPoint> points;
  std::vector<std::string> sources;
  for (const SharedPortsRecord& row : run.shared_ports) {
    // M = 1: C and the two together in units of the triad alone.
    points.push_back({row.chain_over_stream, 1.0, row.both_over_stream,
                      fmt::format("width {} doubles", row.width_doubles)});
    sources.push_back(row.name);
  }
  try {
    const model::OverlapFit fit = model::fit_overlap_exponent(
        points, run.shared_ports.front().file + " (compute.shared_ports)");
    // M over C at the widest and narrowest ratio (the fit has refused a C at or below zero).
    const auto [widest, narrowest] = std::minmax_element(
        points.begin(), points.end(), [](const auto& x, const auto& y) { return x.a < y.a; });
    const double least = 1 / narrowest->a, most = 1 / widest->a;
    Quantity q;
    q.value = fit.exponent;
    q.unit = "1";
    q.origin = Origin::fitted;
    q.interval = Interval{fit.low, fit.high, 1.0};
    q.quality = profile::FitQuality{fit.mean_relative_error, fit.max_relative_error, fit.points};
    q.sources = sources;
    q.note = fmt::format(
        "p of (C^p + M^p)^(1/p), C the chains through memory alone, M the same loop's L1 loads and "
        "stores alone ({} widths, "
        "M {:.3g} to {:.3g} times C), fitted to their times together (least squares in log "
        "time); interval: the range of the fits leaving one width out{}",
        points.size(), least, most,
        fit.at_upper_bound   ? fmt::format("; at the search's upper bound ({}): the two overlapped "
                                             "as fully as their max says",
                                           model::kOverlapExponentMax)
        : fit.at_lower_bound ? "; at the search's lower bound (1): the two did not overlap"
                             : "");
    p.compute.shared_ports_exponent = q;
  } catch (const Error& e) {
    p.not_fitted.push_back(fmt::format("compute.shared_ports_exponent: {}", e.what()));
  }
}

void add_compute(const RunRecords& run, profile::Profile& p) {
  const PeakRecord* best_core = nullptr;
  const PeakRecord* best_node = nullptr;
  unsigned most_threads = 0;
  for (const PeakRecord& row : run.peaks) most_threads = std::max(most_threads, row.threads);
  for (const PeakRecord& row : run.peaks) {
    if (row.threads == 1 && (!best_core || row.median > best_core->median)) best_core = &row;
    if (row.threads == most_threads && (!best_node || row.median > best_node->median))
      best_node = &row;
  }
  for (const KernelRecord& row : run.kernels) {
    p.compute.kernels[fmt::format("{}.{}", row.operation, row.mode)] = measured(row, "s");
  }
  add_shared_ports_exponent(run, p);
  if (best_core) {
    p.compute.peak_flops_per_core =
        measured(*best_core, "flop/s", "the fastest peak kernel on one core (fused multiply-add)");
  }
  if (best_node) {
    p.compute.peak_flops_per_node = measured(
        *best_node, "flop/s", fmt::format("the fastest peak kernel on all {} cores", most_threads));
  }
}

// --- memory ---

// The sweep's dependent random chase on base pages (the coarse probe ran first to size the run;
// the sweep is what the fit reads), with any number of threads chasing at once.
bool random_base_chase(const LatencyRecord& row) {
  return row.pattern == "random" && row.page_policy == "base" &&
         row.part != result_format::part::probe;
}

// One point of the bandwidth sweep as a measurement row: its median and its repetitions' range.
Measurement sweep_row(const SweepSample& s) {
  Measurement row;
  row.name = s.name;
  row.median = s.median;
  row.min = s.min;
  row.max = s.max;
  return row;
}

void add_memory(const RunRecords& run, profile::Profile& p) {
  const MemorySummary summary = summarize_memory(run.files);
  // The latency curve of one thread's chase, where the levels' capacities are detected.
  std::vector<std::pair<double, double>> curve;
  for (const LatencyRecord& row : run.latency) {
    if (random_base_chase(row) && row.threads == 1) {
      curve.emplace_back(static_cast<double>(row.working_set_bytes), row.median);
    }
  }
  std::sort(curve.begin(), curve.end());
  std::vector<double> sizes, latencies;
  for (const auto& [bytes, seconds] : curve) {
    sizes.push_back(bytes);
    latencies.push_back(seconds);
  }
  const nlohmann::json& context = run.context(suite::memory);
  const std::string where = "memory results: context.sonde.topology.caches";
  std::map<std::string, std::uint64_t> line_bytes;
  std::map<std::string, int> ways;               // hwloc: -1 fully associative, 0 unknown
  std::map<std::string, std::uint64_t> claimed;  // hwloc's capacity per instance
  for (const auto& cache : required(topology_of(run, suite::memory), "caches", where)) {
    const auto name = required(cache, "name", where).get<std::string>();
    line_bytes[name] = required(cache, "line_bytes", where).get<std::uint64_t>();
    ways[name] = required(cache, "associativity", where).get<int>();
    if (required(cache, "kind", where) != "instruction")
      claimed[name] = required(cache, "size_bytes", where).get<std::uint64_t>();
  }
  // The run sized some levels from its latency probe: the profile keeps hwloc's claim beside
  // what the data says, and names the levels the probe did not see at all.
  if (context.contains("sizing")) {
    const std::string at = "memory results: context.sonde.sizing";
    const nlohmann::json& sizing = context["sizing"];
    for (const auto& level : required(sizing, "levels", at)) {
      if (required(level, "seen", at).get<bool>()) continue;
      p.not_fitted.push_back(fmt::format(
          "memory.{}: hwloc claims {} per instance, but the run's latency probe (up to {}) shows "
          "no step for it; measured as if it were not there",
          required(level, "name", at).get<std::string>(),
          format_bytes(required(level, "hwloc_bytes", at).get<double>()),
          format_bytes(required(sizing, "probed_up_to_bytes", at).get<double>())));
    }
  }
  for (std::size_t i = 0; i < summary.levels.size(); ++i) {
    const LevelSummary& level = summary.levels[i];
    profile::MemoryLevel out;
    out.name = level.window.level;
    // hwloc's claim, per instance (the window holds what the run sized for, all instances that
    // one thread reaches).
    if (claimed.count(out.name) && claimed[out.name] > 0) {
      out.capacity_bytes = claimed[out.name];
    } else if (level.window.capacity_bytes > 0) {
      out.capacity_bytes = level.window.capacity_bytes;
    }
    if (line_bytes.count(out.name) && line_bytes[out.name] > 0)
      out.line_bytes = line_bytes[out.name];
    if (ways.count(out.name) && ways[out.name] > 0) out.ways = ways[out.name];
    if (ways.count(out.name) && ways[out.name] < 0 && out.capacity_bytes && out.line_bytes)
      out.ways = *out.capacity_bytes / *out.line_bytes;
    const auto latency = level.latency_seconds.find("random.base");
    if (latency != level.latency_seconds.end()) {
      out.latency = from_plateau(latency->second, "s", "memory.latency.random.base",
                                 "dependent random chase, base pages");
    }
    for (const auto& [key, plateau] : level.bytes_per_second) {
      out.bandwidth[key] =
          from_plateau(plateau, "B/s", "memory.bandwidth." + key.substr(0, key.find('/')),
                       key + " (kernel/threads)");
    }
    // Where the latency leaves this level's plateau for the next one's, against hwloc's capacity.
    if (i + 1 < summary.levels.size() && out.latency) {
      const auto next = summary.levels[i + 1].latency_seconds.find("random.base");
      if (next != summary.levels[i + 1].latency_seconds.end()) {
        const auto step =
            detect_capacity(sizes, latencies, out.latency->value, next->second.median);
        if (step) {
          Quantity q;
          q.value = step->bytes;
          q.unit = "B";
          q.origin = Origin::fitted;
          q.interval = Interval{step->low, step->high, 1.0};
          q.sources = {"memory.latency.random.base"};
          q.note =
              "where the chase latency crosses the geometric mean of this level's plateau "
              "and the next";
          if (out.capacity_bytes) {
            q.note +=
                fmt::format("; hwloc says {}, ratio {:.2f}", format_bytes(*out.capacity_bytes),
                            step->bytes / static_cast<double>(*out.capacity_bytes));
          }
          out.detected_capacity = q;
        } else {
          p.not_fitted.push_back(fmt::format(
              "memory.{}.detected_capacity: the latency curve does not cross from {} to {}",
              out.name, format_seconds(out.latency->value), format_seconds(next->second.median)));
        }
      }
    }
    p.memory.push_back(out);
  }
  // The column walks, a curve over the working set per thread count.
  for (const ColumnWalkRecord& row : run.column_walks) {
    p.column_walk.push_back(
        {row.threads, row.working_set_bytes, row.row_bytes,
         measured(row, "s",
                  fmt::format("a load of a walk down the columns of {} rows, {} thread(s) walking; "
                              "median of the repetitions; interval: their range",
                              row.working_set_bytes / std::max<std::uint64_t>(1, row.row_bytes),
                              row.threads))});
  }
  std::sort(p.column_walk.begin(), p.column_walk.end(), [](const auto& a, const auto& b) {
    return std::tie(a.threads, a.working_set_bytes) < std::tie(b.threads, b.working_set_bytes);
  });
  // The line gathers, a curve over the span per shape and thread count.
  for (const LineGatherRecord& row : run.line_gathers) {
    p.line_gather.push_back(
        {row.shape, row.threads, row.working_set_bytes, row.span_bytes,
         measured(row, "s",
                  fmt::format("a line of a gather ({}) in random order within spans of {} B over "
                              "{} B, {} thread(s) gathering; median of the repetitions; interval: "
                              "their range",
                              row.shape, row.span_bytes, row.working_set_bytes, row.threads))});
  }
  std::sort(p.line_gather.begin(), p.line_gather.end(), [](const auto& a, const auto& b) {
    return std::tie(a.shape, a.threads, a.span_bytes) < std::tie(b.shape, b.threads, b.span_bytes);
  });
  // The random chase on base pages as a curve over the working set, per thread count: a random
  // access costs what the chase cost at its working set, not its level's plateau median.
  for (const LatencyRecord& row : run.latency) {
    if (!random_base_chase(row)) continue;
    p.random_chase.push_back(
        {row.threads, row.working_set_bytes,
         measured(
             row, "s",
             fmt::format("a dependent load of a random chase over {}, {} thread(s) chasing "
                         "at once; median of the repetitions; interval: their range",
                         format_bytes(static_cast<double>(row.working_set_bytes)), row.threads))});
  }
  std::sort(p.random_chase.begin(), p.random_chase.end(), [](const auto& a, const auto& b) {
    return std::tie(a.threads, a.working_set_bytes) < std::tie(b.threads, b.working_set_bytes);
  });
  // The streaming sweep in memory as a curve over the working set, per kernel and thread count:
  // what the level's plateau (its slowest sizes) hides, kept as measured. A size measured twice
  // (re-measured for noise) keeps its last measurement.
  std::map<std::tuple<std::string, std::uint64_t, std::uint64_t>, profile::DramBandwidthPoint>
      rates;
  for (const DramBandwidthSample& s : summary.dram_bandwidth) {
    rates[{s.kernel, s.threads, s.bytes}] = {
        s.kernel, s.threads, s.bytes,
        measured(sweep_row(s), "B/s",
                 fmt::format("{} with {} thread(s) over {} in all; median of the repetitions; "
                             "interval: their range",
                             s.kernel, s.threads, format_bytes(static_cast<double>(s.bytes))))};
  }
  for (auto& [key, point] : rates) p.dram_bandwidth.push_back(std::move(point));
  // Where the working set outgrows a cache, the same: kept as measured, per level, kernel, thread
  // count and size (a size measured twice keeps its last measurement).
  std::map<std::tuple<std::string, std::string, std::uint64_t, std::uint64_t>,
           profile::CacheEdgePoint>
      edges;
  for (const CacheEdgeSample& s : summary.cache_edges) {
    edges[{s.level, s.kernel, s.threads, s.bytes}] = {
        s.level,
        s.next,
        s.kernel,
        s.threads,
        s.from_bytes,
        s.to_bytes,
        s.bytes,
        measured(sweep_row(s), "B/s",
                 fmt::format("{} with {} thread(s) over {} in all, between the {} and {} "
                             "plateaus; median of the repetitions; interval: their range",
                             s.kernel, s.threads, format_bytes(static_cast<double>(s.bytes)),
                             s.level, s.next))};
  }
  for (auto& [key, point] : edges) p.cache_edges.push_back(std::move(point));
}

// --- contention ---

void add_contention(const RunRecords& run, profile::Profile& p) {
  ContentionInput input;
  bool papi = false;
  for (const ContentionAccessRecord& row : run.contention_access) {
    for (const auto& [name, value] : row.counters) papi = papi || name.rfind("papi.", 0) == 0;
  }
  input.counts_source = papi ? "papi" : "derived";
  const std::string prefix = input.counts_source + ".";
  for (const ContentionAccessRecord& row : run.contention_access) {
    // The headline of an access experiment is its time per access; another is no experiment.
    if (row.counter != counter::seconds_per_access) continue;
    AccessPoint a;
    a.name = row.name;
    a.threads = row.threads;
    a.stride_words = row.stride_words;
    a.level = row.level_target;
    a.store = row.store;
    a.concurrent = row.concurrent;
    a.seconds = row.median;
    a.seconds_min = row.min;
    a.seconds_max = row.max;
    for (const auto& [name, value] : row.counters) {
      const std::string suffix = "_per_access";
      if (name.rfind(prefix, 0) == 0 && name.size() > prefix.size() + suffix.size() &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
        a.counts[name.substr(prefix.size(), name.size() - prefix.size() - suffix.size())] = value;
      }
    }
    input.access.push_back(a);
  }
  for (const OneWordRecord& row : run.one_word) {
    input.one_word.push_back({row.name, row.threads, row.operation, row.median, row.min, row.max});
  }
  if (input.access.empty() && input.one_word.empty()) return;
  const std::string where = "contention results: context.sonde.topology";
  const nlohmann::json& topology = topology_of(run, suite::contention);
  const auto cores = required(topology, "cores", where).get<unsigned>();
  const std::size_t nodes = required(topology, "numa_nodes", where).size();
  if (nodes > 1) input.threads_per_numa_node = static_cast<unsigned>(cores / nodes);
  for (const auto& cache : required(topology, "caches", where)) {
    const auto line = required(cache, "line_bytes", where).get<unsigned>();
    if (line > 0) input.line_words = line / 8;
  }
  ContentionFit fit = fit_contention(input);
  p.contention = fit.contention;
  // F3's banks are the NUMA nodes whose memory the experiments bound (one where hwloc sees none).
  if (p.contention && (p.contention->f3 || p.contention->dxbsp)) {
    p.contention->banks = std::max<std::size_t>(1, nodes);
  }
  p.not_fitted.insert(p.not_fitted.end(), fit.not_fitted.begin(), fit.not_fitted.end());
}

// --- overheads ---

void add_overheads(const RunRecords& run, profile::Profile& p) {
  // Each benchmark's headline (core/run_records): the context switch's per switch (its round trip
  // is two switches), the pipe latency's per round trip (Xu and Hwang's (1995) Table 2 column).
  std::map<std::string, std::vector<const OverheadRecord*>> by_threads;
  for (const OverheadRecord& row : run.overheads) {
    const std::string& n = row.name;
    // Xu and Hwang (1995), Tables 2 and 3, in the words of their columns.
    if (n == "overhead.process.fork_exit_wait") {
      p.overheads.operations["process_creation"] = measured(row, "s");
    } else if (n == "overhead.process.thread_create_join") {
      p.overheads.operations["thread_creation"] = measured(row, "s");
    } else if (n == "overhead.pipe.context_switch") {
      p.overheads.operations["context_switch"] = measured(row, "s");
    } else if (n == "overhead.pipe.latency") {
      p.overheads.operations["pipe_round_trip"] = measured(row, "s");
    } else if (n == "overhead.pipe.bandwidth") {
      p.overheads.operations["pipe_bandwidth"] = measured(row, "B/s");
    } else if (n == "overhead.sync.mutex_uncontended") {
      p.overheads.operations["thread_lock"] = measured(row, "s");
    } else if (row.part == result_format::part::sync && row.threads) {
      by_threads[row.operation].push_back(&row);
    }
  }
  // Xu and Hwang (1995), section 3.2 (3): t = c n + d or c log n + d over the number of threads.
  static const std::vector<Form> overhead_forms = {form_named("n + 1"), form_named("log n + 1")};
  for (const auto& [operation, list] : by_threads) {
    std::vector<double> x, y;
    std::vector<std::string> sources;
    for (const OverheadRecord* row : list) {
      x.push_back(*row->threads);
      y.push_back(row->median);
      sources.push_back(row->name);
    }
    const std::string key = "thread_" + operation;
    try {
      const FormChoice choice = select_form(x, y, "overheads.forms." + key, 0.0, overhead_forms);
      p.overheads.forms[key] =
          to_formula(choice, "s", sources, "seconds per operation of one thread, n threads", x, y);
    } catch (const Error& e) {
      for (const OverheadRecord* row : list) {
        p.overheads.operations[fmt::format("{}.threads_{}", key, *row->threads)] =
            measured(*row, "s");
      }
      // The selection's error names the form's key already; the reason follows it.
      std::string reason = e.what();
      if (reason.rfind(e.where() + ": ", 0) == 0) reason.erase(0, e.where().size() + 2);
      p.not_fitted.push_back(fmt::format(
          "overheads.forms.{}: measured at {} thread count(s), kept as measured; no form: {}", key,
          x.size(), reason));
    }
  }
}

// --- MPI ---

void add_mpi(const RunRecords& run, profile::Profile& p) {
  std::vector<double> bytes, seconds;
  std::vector<const PingPongRecord*> pingpong;
  for (const PingPongRecord& row : run.pingpong) {
    if (row.counter == counter::seconds_per_message) pingpong.push_back(&row);
  }
  std::sort(pingpong.begin(), pingpong.end(), [](const PingPongRecord* a, const PingPongRecord* b) {
    return a->message_bytes < b->message_bytes;
  });
  profile::PointToPoint pp;
  for (const PingPongRecord* row : pingpong) {
    bytes.push_back(static_cast<double>(row->message_bytes));
    seconds.push_back(row->median);
    profile::PointToPointMeasurement m;
    m.bytes = bytes.back();
    m.ranks = row->ranks[1] + 1;
    m.time = measured(*row, "s", "half a round trip: median of the repetitions");
    pp.measurements.push_back(m);
  }
  if (bytes.size() >= 3) {
    const HockneyFit fit = fit_hockney(bytes, seconds, "mpi.pingpong");
    std::vector<SegmentIntervals> intervals;
    std::string interval_note;
    try {
      BootstrapOptions options;
      options.resamples = 100;
      BootstrapReport report;
      intervals = hockney_intervals(fit, bytes, seconds, options, &report);
      interval_note = report.note();
    } catch (const Error& e) {
      // The segments stand without intervals; each says why.
      interval_note = fmt::format("; no bootstrap interval: {}", e.what());
    }
    for (std::size_t i = 0; i < fit.segments.size(); ++i) {
      const HockneySegment& s = fit.segments[i];
      profile::HockneySegment out;
      out.from_bytes = s.from_bytes;
      out.to_bytes = s.to_bytes;
      const FitQuality quality{s.mean_relative_error, s.max_relative_error, s.points};
      out.t0 = Quantity{s.t0_seconds,
                        "s",
                        Origin::fitted,
                        std::nullopt,
                        quality,
                        {"mpi.pingpong"},
                        "Hockney t0 of this segment"};
      out.r_inf = Quantity{s.r_inf(),
                           "B/s",
                           Origin::fitted,
                           std::nullopt,
                           quality,
                           {"mpi.pingpong"},
                           "1 / the fitted seconds per byte"};
      if (s.t0_held_at_zero) {
        out.t0.note +=
            "; the free fit's intercept was negative (a latency within the noise of 0): "
            "held at 0, the slope fitted through the origin";
      }
      out.t0.note += interval_note;
      out.r_inf.note += interval_note;
      if (i < intervals.size()) {
        // t0 is positive by construction; a resample's negative intercept says the interval
        // reaches zero.
        const auto& t0 = intervals[i].t0_seconds;
        out.t0.interval = Interval{std::max(0.0, t0.low), std::max(0.0, t0.high), 0.95};
        if (t0.low < 0) out.t0.note += "; the bootstrap interval reaches 0 (clipped there)";
        const auto& spb = intervals[i].seconds_per_byte;
        if (spb.low > 0) out.r_inf.interval = Interval{1 / spb.high, 1 / spb.low, 0.95};
      }
      if (!std::isfinite(out.r_inf.value)) {
        p.not_fitted.push_back(
            fmt::format("point_to_point segment {} .. {}: time does not grow with size; left out",
                        format_bytes(s.from_bytes), format_bytes(s.to_bytes)));
        continue;
      }
      pp.segments.push_back(out);
    }
    pp.quality = FitQuality{fit.mean_relative_error, fit.max_relative_error, bytes.size()};
    // The streaming benchmark's time per message, every size and direction, as measured: at a
    // small size it is LogGP's gap g (Alexandrov et al. (1995)), which a ping-pong cannot show.
    for (const Measurement& m : run.mpi_other) {
      if (m.params.value("part", "") != "stream" || m.counter != "seconds_per_message") continue;
      // Strictly: a stream record lacking its direction, size or window is an error naming it.
      const auto param = [&]<class T>(const char* key, T) {
        return required_param<T>(m.params, key, m.name, m.file);
      };
      pp.streaming.push_back(
          {param("kernel", std::string()), param("message_bytes", 0.0),
           measured(m, "s",
                    fmt::format("one message of a window of {} sent back to back: median of the "
                                "repetitions; interval: their range",
                                param("window", 0u)))});
    }
    std::stable_sort(pp.streaming.begin(), pp.streaming.end(), [](const auto& a, const auto& b) {
      return std::pair(a.direction, a.bytes) < std::pair(b.direction, b.bytes);
    });
    pp.pair_classes = pair_classes(run.mpi_other);
    if (!pp.segments.empty()) p.point_to_point = pp;
  } else if (!bytes.empty()) {
    p.not_fitted.push_back("point_to_point: fewer than three message sizes");
  }

  // Collectives: t = t0(n) + m / r_inf(n) (Xu and Hwang (1995), Eq. 6) where sizes vary; barrier t
  // = f(n). Every measured point is kept beside the forms, and alone where no form can be fitted
  // (a prediction at a measured n then interpolates between the measured sizes).
  std::map<std::string, std::vector<CollectivePoint>> points;
  std::map<std::string, std::vector<std::string>> sources;
  std::map<std::string, std::vector<profile::CollectiveMeasurement>> measurements;
  std::set<double> all_ranks;
  for (const CollectiveRecord& row : run.collectives) {
    std::string op = row.operation;
    if (op == "bcast") op = "broadcast";
    const double ranks = row.communicator_ranks;
    points[op].push_back({ranks, static_cast<double>(row.message_bytes), row.median});
    sources[op].push_back(row.name);
    measurements[op].push_back(
        {row.communicator_ranks, static_cast<double>(row.message_bytes),
         measured(row, "s",
                  "one operation, the slowest rank's time: median of the repetitions; interval: "
                  "their range")});
    all_ranks.insert(ranks);
  }
  if (points.empty()) return;
  for (auto& [op, list] : measurements) {
    std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
      return std::pair(a.ranks, a.bytes) < std::pair(b.ranks, b.bytes);
    });
  }
  if (all_ranks.size() < 4) {
    p.not_fitted.push_back(fmt::format(
        "collectives: measured on communicators of {} rank(s) only; no form in n was fitted (forms "
        "in n need four sizes: run the MPI suite on 8 or more ranks); the measured points are "
        "kept (collectives.<operation>.measurements) and predict at these sizes only",
        fmt::join(all_ranks, ", ")));
    for (const auto& [op, list] : measurements) {
      profile::Collective c;
      c.measurements = list;
      c.ranks_and_bytes = ranks_and_bytes_model(op, list, sources[op], p.not_fitted);
      p.collectives[op] = c;
    }
    return;
  }
  for (const auto& [op, list] : points) {
    profile::Collective c;
    c.measurements = measurements[op];
    c.ranks_and_bytes = ranks_and_bytes_model(op, c.measurements, sources[op], p.not_fitted);
    std::set<double> ranks;
    for (const CollectivePoint& point : list) ranks.insert(point.ranks);
    try {
      if (op == "barrier") {
        std::vector<double> x, y;
        for (const CollectivePoint& point : list) {
          x.push_back(point.ranks);
          y.push_back(point.seconds);
        }
        c.t0 = to_formula(select_form(x, y, "collectives.barrier"), "s", sources[op],
                          "Xu and Hwang (1995), Table 6 form", x, y);
      } else {
        const CollectiveFit fit = fit_collective(list, "collectives." + op);
        c.t0 =
            to_formula(fit.t0, "s", sources[op], "Hockney t0 at each n, then a form in n", {}, {});
        c.seconds_per_byte = to_formula(fit.seconds_per_byte, "s/B", sources[op],
                                        "Hockney 1/r_inf at each n, then a form in n", {}, {});
      }
      for (double r : ranks) c.ranks.push_back(static_cast<std::uint64_t>(r));
    } catch (const Error& e) {
      c.t0 = profile::Formula{};
      c.seconds_per_byte.reset();
      p.not_fitted.push_back(
          fmt::format("collectives.{}: no form in n was fitted; the measured points are kept: {}",
                      op, e.what()));
    }
    p.collectives[op] = c;
  }
}

std::string text_of(const nlohmann::json& object, const char* key) {
  if (!object.contains(key)) return "";
  const auto& v = object[key];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

std::optional<CapacityStep> detect_capacity(const std::vector<double>& bytes,
                                            const std::vector<double>& seconds,
                                            double inner_plateau, double outer_plateau) {
  if (bytes.size() != seconds.size() || bytes.size() < 2 || !(outer_plateau > inner_plateau)) {
    return std::nullopt;
  }
  const double threshold = std::sqrt(inner_plateau * outer_plateau);
  // The first size at or above the threshold after a size below it, in the range where the
  // curve is between the plateaus: the step from this level to the next.
  for (std::size_t i = 1; i < bytes.size(); ++i) {
    if (seconds[i - 1] < threshold && seconds[i] >= threshold) {
      const double x0 = std::log(bytes[i - 1]), x1 = std::log(bytes[i]);
      const double y0 = std::log(seconds[i - 1]), y1 = std::log(seconds[i]);
      const double t = (std::log(threshold) - y0) / (y1 - y0);
      return CapacityStep{std::exp(x0 + t * (x1 - x0)), bytes[i - 1], bytes[i]};
    }
  }
  return std::nullopt;
}

std::string results_digest(const std::vector<std::filesystem::path>& files) {
  std::vector<std::filesystem::path> sorted = files;
  std::sort(sorted.begin(), sorted.end());
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  if (!context || EVP_DigestInit_ex(context, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(context);
    throw Error(ExitCode::failure, "results digest", "OpenSSL could not start SHA-256");
  }
  for (const auto& path : sorted) {
    const std::string name = path.filename().string();
    const std::string content = read_file(path);
    EVP_DigestUpdate(context, name.data(), name.size() + 1);  // with its terminating zero
    EVP_DigestUpdate(context, content.data(), content.size());
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(context, digest, &length);
  EVP_MD_CTX_free(context);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

namespace {

// Benchmarks whose repetitions still spread beyond the noise threshold after re-measuring (each
// result's context.sonde.noise): the values taken from them say so in their note, so that a profile
// of a shared machine does not pass noisy figures off as steady ones.
void flag_noisy(const std::vector<ResultFile>& files, profile::Profile& p) {
  // context.sonde.noise is optional: results written before the noise check have none.
  std::vector<std::string> noisy;
  double threshold = 0;
  for (const ResultFile& file : files) {
    const nlohmann::json& noise = file.sonde_context().value("noise", nlohmann::json::object());
    threshold = std::max(threshold, noise.value("cv_threshold", 0.0));
    for (const auto& name : noise.value("noisy", nlohmann::json::array())) {
      if (name.is_string()) noisy.push_back(name.get<std::string>());
    }
  }
  if (noisy.empty()) return;
  const auto mark = [&](Quantity& q) {
    std::size_t count = 0;
    for (const std::string& source : q.sources) {
      for (const std::string& name : noisy) {
        // The source itself or one of its instances ("<source>/..."), not a longer name.
        if (name.rfind(source, 0) == 0 &&
            (name.size() == source.size() || name[source.size()] == '/'))
          ++count;
      }
    }
    if (count == 0) return;
    if (!q.note.empty()) q.note += "; ";
    q.note += fmt::format(
        "noisy: {} benchmark{} of its source spread more than {:.0f}% (cv) after re-measuring "
        "(context.sonde.noise of the results)",
        count, count == 1 ? "" : "s", 100 * threshold);
  };
  if (p.compute.peak_flops_per_core) mark(*p.compute.peak_flops_per_core);
  if (p.compute.peak_flops_per_node) mark(*p.compute.peak_flops_per_node);
  for (auto& [name, q] : p.compute.kernels) mark(q);
  for (profile::MemoryLevel& level : p.memory) {
    if (level.latency) mark(*level.latency);
    if (level.detected_capacity) mark(*level.detected_capacity);
    for (auto& [key, q] : level.bandwidth) mark(q);
  }
  for (profile::ColumnWalkPoint& point : p.column_walk) mark(point.seconds);
  for (profile::LineGatherPoint& point : p.line_gather) mark(point.seconds);
  for (profile::RandomChasePoint& point : p.random_chase) mark(point.seconds);
  for (profile::DramBandwidthPoint& point : p.dram_bandwidth) mark(point.bytes_per_second);
  for (profile::CacheEdgePoint& point : p.cache_edges) mark(point.bytes_per_second);
  for (auto& [name, q] : p.overheads.operations) mark(q);
  if (p.point_to_point) {
    for (profile::PointToPointMeasurement& m : p.point_to_point->measurements) mark(m.time);
  }
  for (auto& [name, collective] : p.collectives) {
    for (profile::CollectiveMeasurement& m : collective.measurements) mark(m.time);
  }
}

// The core clock: each part measures it at its start and its end (a dependent integer-add chain;
// results from before 2026-12-05 hold the start alone). A guest's clock wanders from part to part
// (3.0 to 3.9 GHz within one run on the 2-core Zen 5 guest of 2026-12-05), so the profile gives
// the readings' median and their range, not the first part's.
std::optional<Quantity> core_clock(const std::vector<ResultFile>& files) {
  std::vector<double> hertz;
  std::size_t ends = 0;
  std::string source;
  for (const ResultFile& file : files) {
    const nlohmann::json& context = file.sonde_context();
    for (const char* key : {"clock", "clock_end"}) {
      if (!context.contains(key) || !context[key].is_object()) continue;
      const double value = context[key].value("hertz", 0.0);
      if (!(value > 0)) continue;
      hertz.push_back(value);
      if (key == std::string_view("clock_end")) ++ends;
      if (source.empty()) source = context[key].value("source", "");
    }
  }
  if (hertz.empty()) return std::nullopt;
  Quantity clock;
  clock.value = median(hertz);
  clock.unit = "Hz";
  clock.origin = Origin::measured;
  const auto [low, high] = std::minmax_element(hertz.begin(), hertz.end());
  clock.interval = Interval{*low, *high, 1};
  // Results from before 2026-12-05 hold no end readings: the note says which readings there are.
  clock.note = hertz.size() == 1
                   ? source
                   : fmt::format(
                         "{}; median of {} readings, at the parts' starts{}; interval: "
                         "their range",
                         source, hertz.size(), ends > 0 ? " and ends" : "");
  return clock;
}

}  // namespace

profile::Profile build_profile(const RunRecords& run, const std::string& machine_name,
                               const std::filesystem::path& run_folder) {
  const std::vector<ResultFile>& files = run.files;
  if (files.empty()) throw input_error(run_folder.string(), "no result files to fit");
  profile::Profile p;
  const nlohmann::json& context = files.front().sonde_context();
  const nlohmann::json topology = context.value("topology", nlohmann::json::object());
  p.machine.name = machine_name;
  p.machine.description = fmt::format("{}: {}", topology.value("cpu_model", "unknown CPU"),
                                      topology.value("summary", ""));
  if (topology.contains("cores")) p.machine.cores_per_node = topology.value("cores", 0u);
  p.machine.nodes = 1;
  p.machine.clock = core_clock(files);
  profile::Provenance& v = p.provenance;
  v.origin = Origin::measured;
  v.host = text_of(context, "host");
  v.cpu_model = topology.value("cpu_model", "");
  v.topology = topology.value("summary", "");
  v.compiler = text_of(context, "compiler");
  v.date = text_of(context, "date_utc");
  v.sonde_version = sonde::version;
  v.results = run_folder.string();
  std::vector<std::filesystem::path> paths;
  for (const ResultFile& file : files) paths.push_back(file.path);
  v.results_digest = results_digest(paths);
  for (const ResultFile& file : files) {
    const auto& sonde = file.sonde_context();
    if (sonde.contains("mpi")) {
      v.mpi_library = sonde["mpi"].value("library", "");
      v.mpi_version = sonde["mpi"].value("standard", "");
      const auto hosts = sonde["mpi"].value("hosts", nlohmann::json::array());
      if (!hosts.empty()) p.machine.nodes = hosts.size();
      if (sonde["mpi"].value("simulated", false)) {
        // A simulated cluster (SimGrid's SMPI): the nodes are the platform's hosts the ranks ran
        // on, and nothing of the simulating machine (its CPU, caches, clock) describes it.
        const auto most = sonde["mpi"].value("ranks_per_node", nlohmann::json::object());
        p.machine.cores_per_node = most.value("most", 1u);
        p.machine.clock.reset();
        p.machine.description =
            fmt::format("simulated by {} on {}: {} nodes, {} ranks on the fullest", v.mpi_library,
                        v.host, *p.machine.nodes, *p.machine.cores_per_node);
        v.cpu_model = "simulated";
        v.topology = fmt::format("{} simulated nodes (SimGrid platform)", *p.machine.nodes);
      }
    }
  }
  if (run.has(suite::compute)) add_compute(run, p);
  if (run.has(suite::memory)) add_memory(run, p);
  if (run.has(suite::contention)) add_contention(run, p);
  if (run.has(suite::overhead)) add_overheads(run, p);
  if (run.has(suite::mpi)) add_mpi(run, p);
  flag_noisy(files, p);
  for (const char* name :
       {suite::memory, suite::contention, suite::overhead, suite::compute, suite::mpi}) {
    if (!run.has(name)) p.not_fitted.push_back(fmt::format("{}: suite not run", name));
  }
  return p;
}

}  // namespace sonde::fit
