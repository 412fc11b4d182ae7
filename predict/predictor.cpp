#include "predict/predictor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <string_view>

#include "core/error.hpp"
#include "core/units.hpp"
#include "model/overlap.hpp"
#include "profile/across_nodes.hpp"

namespace sonde::predict {

std::string to_string(Scheme scheme) {
  switch (scheme) {
    case Scheme::theoretical:
      return "theoretical";
    case Scheme::zero_overhead:
      return "zero-overhead";
    case Scheme::full_overhead:
      return "full-overhead";
  }
  return "full-overhead";
}

namespace {

// A node's sequential rate in a profile (Shanmugam et al.'s (1995) MipsRatio and U_n use it).
std::optional<double> node_rate(const profile::Profile& p) {
  const profile::Quantity* peak = profile::peak_flops(p);
  return peak ? std::optional<double>(peak->value) : std::nullopt;
}

// The processors component `c` runs on at n: min(DOP, n), at least one.
double processors(const Component& c, double n) {
  return std::max(1.0, std::min(std::floor(c.dop(n)), n));
}

// DOP at "unrestricted n" for T_inf and N_max.
constexpr double kUnrestricted = 1099511627776.0;  // 2^40

// The kernel whose chains go through memory: a value stored and loaded back by the next step.
constexpr std::string_view kStoreLoadKernel = "store_load";

// A chain through memory beside the loads and stores of its own loop (the rule's name says "sharing
// the L1 ports"): neither hides wholly behind the other, and where they are close the loop takes
// longer than the larger (the blocked multiply ran 1.1 to 1.5 times it where its chain was 0.9 to
// 1.3 times its L1 time). The shared-ports kernel puts the shortfall where chains begin and end:
// chains that never end overlapped fully (docs/methods.md, the kernel library).
// The p-norm (a^p + b^p)^(1/p) tends to the larger where one dominates and exceeds it by at most
// 2^(1/p) where they are equal. The profile's p is fitted to the shared-ports kernel on its
// machine (compute.shared_ports_exponent). A profile made before that kernel existed has none; it
// is priced with p = 2.5, the exponent that gave the least mean E and no bias over the 56
// block-side points with BS >= 24 timed on four profiles of the Zen 5 guest (2026-12-06,
// examples/corpus/records/matmul-block-side-1205/): mean E 1.107 against the max's 1.177. The
// bound says which.
constexpr double kPortsSharedExponentWithoutKernel = 2.5;

// Fahringer and Pozgaj (2000): a loop's iterations dealt over p processors. N = q p + r: BLOCK
// gives processor k (0-based) a contiguous block, q + 1 iterations to the first r and q to the
// others; CYCLIC gives it iterations k + 1, k + 1 + p, ... (q + 1 of them for the first r, q for
// the others). Iteration i of 1..N costs 1, i or N + 1 - i units.

// The units of `count` iterations first, first + stride, ...: with sum of the indices
// S = count first + stride count (count - 1) / 2, that is count, S, or count (N + 1) - S.
double iteration_units(IterationCost cost, double iterations, double first, double stride,
                       double count) {
  const double indices = count * first + stride * count * (count - 1) / 2;
  switch (cost) {
    case IterationCost::uniform:
      return count;
    case IterationCost::increasing:
      return indices;
    case IterationCost::decreasing:
      return count * (iterations + 1) - indices;
  }
  return count;
}

// Processor k's units of component c's loop dealt over p processors.
double share_units(const Component& c, double p, double k) {
  const double iterations = *c.loop;
  const double q = std::floor(iterations / p), r = iterations - q * p;
  const double count = q + (k < r ? 1 : 0);
  const bool block = c.distribution == Distribution::block;
  const double first = block ? k * q + std::min(k, r) + 1 : k + 1;
  return iteration_units(c.iteration_cost, iterations, first, block ? 1 : p, count);
}

// The loop's units: N, or N (N + 1) / 2 when iteration i costs i or N + 1 - i.
double loop_units(const Component& c) {
  const double iterations = *c.loop;
  return c.iteration_cost == IterationCost::uniform ? iterations
                                                    : iterations * (iterations + 1) / 2;
}

// The slowest processor's units. Costs are monotone in i, and so are the shares within each group
// of processors with as many iterations: the largest is at a group's end, processor 0, r - 1, r
// or p - 1.
double slowest_units(const Component& c, double p) {
  const double r = *c.loop - std::floor(*c.loop / p) * p;
  double most = 0;
  for (const double k : {0.0, r - 1, r, p - 1}) {
    if (k >= 0 && k < p) most = std::max(most, share_units(c, p, k));
  }
  return most;
}

const char* name_of(Distribution d) { return d == Distribution::block ? "BLOCK" : "CYCLIC"; }
const char* name_of(IterationCost cost) {
  return cost == IterationCost::increasing   ? "increasing"
         : cost == IterationCost::decreasing ? "decreasing"
                                             : "uniform";
}

// The slowest processor's share of component c's work at n: 1 / min(DOP, n), or its share of the
// loop's units (Fahringer and Pozgaj (2000)).
double slowest_share(const Component& c, double n) {
  const double used = processors(c, n);
  if (c.loop) return slowest_units(c, std::min(used, *c.loop)) / loop_units(c);
  return 1 / used;
}

// A profile value with the ends of its interval (the value itself where it has none).
struct Span {
  double value = 0, low = 0, high = 0;
};
Span span(const profile::Quantity& q) {
  if (!q.interval) return {q.value, q.value, q.value};
  return {q.value, std::min(q.interval->low, q.value), std::max(q.interval->high, q.value)};
}
// A rate shared `ways` ways.
Span divided(const Span& rate, double ways) {
  return {rate.value / ways, rate.low / ways, rate.high / ways};
}
// The time `amount` takes at `rate`: the fastest rate gives the shortest time.
Span time_at(double amount, const Span& rate) {
  return {amount / rate.value, amount / rate.high, amount / rate.low};
}

// A measured curve (x, seconds per load) at x: log-log between the two measured points around
// it, or the nearest end outside them (and `beyond` names that end's x). Sorts the curve by x.
Span curve_at(std::vector<std::pair<double, const profile::Quantity*>>& curve, double x,
              std::optional<double>& beyond) {
  std::sort(curve.begin(), curve.end());
  const double fewest = curve.front().first, most = curve.back().first;
  if (x <= fewest || x >= most) {
    const auto& end = x <= fewest ? curve.front() : curve.back();
    if (x != end.first) beyond = end.first;
    return span(*end.second);
  }
  std::size_t upper = 1;
  while (curve[upper].first < x) ++upper;
  const auto& [xa, a] = curve[upper - 1];
  const auto& [xb, b] = curve[upper];
  const double t = std::log(x / xa) / std::log(xb / xa);
  const auto between = [t](double ya, double yb) {
    return std::exp(std::log(ya) + t * (std::log(yb) - std::log(ya)));
  };
  const Span sa = span(*a), sb = span(*b);
  return {between(sa.value, sb.value), between(sa.low, sb.low), between(sa.high, sb.high)};
}

// The thread count of a curve measured for several: the most up to `wanted`, else the fewest.
template <class Point>
std::uint64_t threads_for(const std::vector<Point>& points, std::uint64_t wanted) {
  std::uint64_t threads = 0;
  for (const Point& p : points) {
    if (p.threads <= wanted) threads = std::max(threads, p.threads);
  }
  if (threads > 0) return threads;
  return std::min_element(points.begin(), points.end(),
                          [](const auto& a, const auto& b) { return a.threads < b.threads; })
      ->threads;
}

// The points of a measured curve (column walks, random chases) taken with `threads` threads, as
// (x_of(point), its seconds per load).
template <class Point, class X>
std::vector<std::pair<double, const profile::Quantity*>> curve_of(const std::vector<Point>& points,
                                                                  std::uint64_t threads, X x_of) {
  std::vector<std::pair<double, const profile::Quantity*>> curve;
  for (const Point& p : points) {
    if (p.threads == threads) curve.emplace_back(x_of(p), &p.seconds);
  }
  return curve;
}

// The seconds per load of the profile's column walk with `threads` threads down `rows` rows:
// log-log between the two measured row counts around it, or the fewest or most measured outside
// them (and `beyond` says so).
Span walk_per_load(const std::vector<profile::ColumnWalkPoint>& walks, std::uint64_t threads,
                   double rows, std::string& beyond) {
  auto curve = curve_of(walks, threads, [](const profile::ColumnWalkPoint& w) {
    return static_cast<double>(w.working_set_bytes) / static_cast<double>(w.row_bytes);
  });  // rows, seconds per load
  std::optional<double> end;
  const Span out = curve_at(curve, rows, end);
  if (end) {
    beyond = fmt::format(
        "its walk down {:.0f} rows lies beyond the column walks measured ({:.0f} to {:.0f} "
        "rows): the walk down {:.0f} taken as it is",
        rows, curve.front().first, curve.back().first, *end);
  }
  return out;
}

// The seconds per line of the profile's line gather with `threads` threads gathering, lines
// scattered within `span` bytes: log-log between the two measured spans around it, or the nearest
// end outside them (and `beyond` says so).
Span gather_per_line(const std::vector<profile::LineGatherPoint>& gathers, std::uint64_t threads,
                     double span, std::string& beyond) {
  auto curve = curve_of(gathers, threads, [](const profile::LineGatherPoint& g) {
    return static_cast<double>(g.span_bytes);
  });
  std::optional<double> end;
  const Span out = curve_at(curve, span, end);
  if (end) {
    beyond = fmt::format("its gather span {} lies beyond the spans measured ({} to {}): {} taken",
                         format_bytes(span), format_bytes(curve.front().first),
                         format_bytes(curve.back().first), format_bytes(*end));
  }
  return out;
}

// The seconds per load of the profile's random chase with `threads` threads chasing at once, each
// over `bytes`: log-log between the two measured working sets around it, or the nearest end outside
// them (and `beyond` says so).
Span chase_per_load(const std::vector<profile::RandomChasePoint>& chases, std::uint64_t threads,
                    double bytes, std::string& beyond) {
  auto curve = curve_of(chases, threads, [](const profile::RandomChasePoint& c) {
    return static_cast<double>(c.working_set_bytes);
  });  // working set, seconds per load
  std::optional<double> end;
  const Span out = curve_at(curve, bytes, end);
  if (end) {
    beyond = fmt::format(
        "its working set of {} lies beyond the random chases measured with {} thread(s) ({} to "
        "{}): the chase over {} taken as it is",
        format_bytes(bytes), threads, format_bytes(curve.front().first),
        format_bytes(curve.back().first), format_bytes(*end));
  }
  return out;
}

// Levels whose name starts with L1 or L2 are private to a core; the others (L3, DRAM) are shared by
// the processes of a node, so their working sets add up.
bool private_level(const profile::MemoryLevel& level) {
  return level.name.rfind("L1", 0) == 0 || level.name.rfind("L2", 0) == 0;
}

// The capacity the prediction trusts: where the latency curve left the level's plateau (measured)
// before what the system reports.
std::optional<double> capacity(const profile::MemoryLevel& level) {
  if (level.detected_capacity) return level.detected_capacity->value;
  if (level.capacity_bytes) return static_cast<double>(*level.capacity_bytes);
  return std::nullopt;
}

// The first level a process's working set fits in, the node's `sharers` processes each holding one
// in a shared level; the last level (memory) holds everything.
const profile::MemoryLevel& level_for(const profile::Profile& p, std::optional<double> working_set,
                                      double sharers) {
  if (working_set) {
    for (const profile::MemoryLevel& level : p.memory) {
      const std::optional<double> room = capacity(level);
      if (!room) continue;
      const double need = private_level(level) ? *working_set : *working_set * sharers;
      if (need <= *room) return level;
    }
  }
  for (const profile::MemoryLevel& level : p.memory) {
    if (!capacity(level)) return level;
  }
  return p.memory.back();
}

// The aggregate rate of `kernel` with `threads` threads over `total` bytes in all where that lies
// between two caches' plateaus: log-log over the sweep's points there, from the inner plateau at
// the top of its window to the outer plateau at the bottom of its own, and held between the two
// plateaus: the rate falls from one to the other, and a point outside them ran in another state
// of the machine (on a 2-core Zen 3 guest two threads' copy read 75 to 88 GB/s from 558 KiB to
// 1.4 MiB, every repetition alike, against plateaus of 156 in L2 and 130 in L3; a profile of the
// same guest an hour before read 131 to 163 there). Not always so: on a 16-core node sixteen
// threads' copy read 658 to 678 GB/s from 512 KiB to 1.4 MiB in all, below the L2's 1035, and the
// heat example's sweep at 16 ranks (1 MiB in all) ran that slowly too.
// No value where the profile measured no such edge for exactly this kernel and thread count.
struct EdgeRate {
  Span aggregate;
  std::string level, next;
  std::string held;  // what was held at a plateau, where something was; "" otherwise
};
std::optional<EdgeRate> edge_rate(const profile::Profile& p, const std::string& kernel,
                                  std::uint64_t threads, double total) {
  std::vector<std::pair<double, const profile::Quantity*>> curve;
  EdgeRate out;
  double from = 0, to = 0;
  for (const profile::CacheEdgePoint& e : p.cache_edges) {
    if (e.kernel != kernel || e.threads != threads) continue;
    if (!(static_cast<double>(e.from_bytes) < total && total < static_cast<double>(e.to_bytes)))
      continue;
    curve.emplace_back(static_cast<double>(e.working_set_bytes), &e.bytes_per_second);
    out.level = e.level;
    out.next = e.next;
    from = static_cast<double>(e.from_bytes);
    to = static_cast<double>(e.to_bytes);
  }
  if (curve.empty()) return std::nullopt;
  const std::string key = fmt::format("{}/{}", kernel, threads);
  const profile::Quantity *inner = nullptr, *outer = nullptr;
  for (const profile::MemoryLevel& level : p.memory) {
    const auto it = level.bandwidth.find(key);
    if (it == level.bandwidth.end()) continue;
    if (level.name == out.level) inner = &it->second;
    if (level.name == out.next) outer = &it->second;
  }
  if (inner) curve.emplace_back(from, inner);
  if (outer) curve.emplace_back(to, outer);
  std::optional<double> beyond;
  out.aggregate = curve_at(curve, total, beyond);
  if (inner && outer && outer->value <= inner->value) {
    const Span top = span(*inner), bottom = span(*outer);
    const Span measured = out.aggregate;
    // Each end of the range between the same ends of the two plateaus.
    const auto hold = [](double x, double a, double b) {
      return std::clamp(x, std::min(a, b), std::max(a, b));
    };
    out.aggregate = {hold(measured.value, bottom.value, top.value),
                     hold(measured.low, bottom.low, top.low),
                     hold(measured.high, bottom.high, top.high)};
    if (measured.value < bottom.value || measured.value > top.value) {
      out.held = fmt::format(
          "the sweep read {} there, outside the {} and {} plateaus ({} .. {}): "
          "taken at the nearer",
          format_bytes_per_second(measured.value), out.level, out.next,
          format_bytes_per_second(bottom.value), format_bytes_per_second(top.value));
    }
  }
  return out;
}

}  // namespace

void read_network(PredictOptions& options, const std::string& path) {
  if (path.empty()) return;
  options.network = profile::read_profile(path);
  options.network_path = path;
}

Predictor::Predictor(Workload workload, profile::Profile target, std::string target_path,
                     const PredictOptions& options)
    : workload_(std::move(workload)),
      target_(std::move(target)),
      target_path_(std::move(target_path)),
      network_path_(options.network ? options.network_path : target_path_) {
  if (options.network) {
    // The node from the target, the cluster from the network's profile: messages, collectives and
    // how many processes share a node are the cluster's.
    target_.point_to_point = options.network->point_to_point;
    target_.collectives = options.network->collectives;
    target_.machine.nodes = options.network->machine.nodes;
    target_.machine.cores_per_node = options.network->machine.cores_per_node;
  }
  const std::optional<double> target_rate = node_rate(target_);
  for (std::size_t i = 0; i < workload_.components.size(); ++i) {
    const Component& c = workload_.components[i];
    ComponentTime time;
    time.name = c.name;
    time.work_flop = c.work_flop;
    // Fahringer and Pozgaj 2000: operation counts costed with the target's kernel library, where it
    // has them all; a component without a given time or rate is costed from the profile alone.
    bool kernels_known = true;
    for (const auto& [op, count] : c.operations) {
      kernels_known = kernels_known && target_.compute.kernels.count(op + ".throughput");
    }
    const bool given = c.time_seconds || c.rate_flop_per_second;
    from_resources_.push_back(!given || (!c.operations.empty() && kernels_known));
    if (from_resources_.back()) {
      // T_1 is the sequential time (Xu and Hwang (1995)): one process of one thread, whatever
      // threads the spreadsheet gives its processes.
      const Cost cost = component_cost(i, 1, 1.0);  // throws, naming what the profile lacks
      time.seconds = cost.seconds;
      time.how = fmt::format("from {}'s profile: {}", target_.machine.name, cost.bound);
    } else {
      const double seconds =
          c.time_seconds ? *c.time_seconds : c.work_flop / *c.rate_flop_per_second;
      const std::string given = c.time_seconds ? "measured" : "from its rate";
      if (c.machine.empty() || c.machine == target_.machine.name) {
        time.seconds = seconds;
        time.how = c.machine.empty() ? given : fmt::format("{} on {}", given, c.machine);
      } else {
        // Shanmugam et al. 1995: the time on another machine scales by the ratio of the two
        // machines' sequential rates (MipsRatio), here the profiled peak rates of a node.
        const auto reference = options.reference_machines.find(c.machine);
        if (reference == options.reference_machines.end()) {
          throw input_error(c.row.where(),
                            fmt::format("component '{}' was measured on '{}': give that machine's "
                                        "profile (--reference machines/{}.yaml)",
                                        c.name, c.machine, c.machine));
        }
        const std::optional<double> reference_rate = node_rate(reference->second);
        if (!reference_rate || !target_rate) {
          throw input_error(reference_rate ? target_path_ : c.machine,
                            "compute.peak_flops_per_core: absent; the speed ratio needs both "
                            "machines' rates");
        }
        const double ratio = *reference_rate / *target_rate;
        time.seconds = seconds * ratio;
        time.how =
            fmt::format("{} on {}, scaled by the peak-rate ratio {:.3g} (Shanmugam et al. (1995))",
                        given, c.machine, ratio);
      }
    }
    t1_.push_back(time.seconds);
    summary_.components.push_back(time);
  }
  // Every operation must be costable on the target before any prediction is made.
  for (const Operation& o : workload_.operations) {
    const bool collective = o.kind == "communication" && o.operation != "point_to_point";
    collectives_.push_back(
        collective ? &profile::require_collective(target_, o.operation, network_path_) : nullptr);
  }
  for (std::size_t i = 0; i < workload_.operations.size(); ++i) operation_seconds(i, 2);

  Summary& s = summary_;
  for (std::size_t i = 0; i < t1_.size(); ++i) {
    const Component& c = workload_.components[i];
    s.work_flop += c.work_flop;
    s.t1 += t1_[i];
    const double dop = std::floor(c.dop(kUnrestricted));
    // T_inf from T_1 shared out (a resource-costed component's T_1 at n = 1): the critical
    // path's definition (Xu and Hwang (1995), Eq. 3). A component whose DOP grows with n has none
    // of it: its time tends to 0, not to its time on 2^40 processes.
    if (dop < kUnrestricted) s.t_inf += t1_[i] * slowest_share(c, dop);
    s.n_max = std::max(s.n_max, dop);
    s.unbounded_parallelism = s.unbounded_parallelism || dop >= kUnrestricted;
  }
  // Every rate and the theoretical scheme divide by these: a spreadsheet without work or time
  // is refused rather than predicted as infinities.
  if (!(s.t1 > 0)) {
    throw input_error(workload_.path.string(),
                      fmt::format("the components' sequential time ({} s) must be > 0", s.t1));
  }
  // A program without floating-point work (a random-access update) has no rates; its theoretical
  // scheme is its zero-overhead one.
  s.p1 = s.work_flop / s.t1;
  // With every component's DOP growing with n there is no critical path: both are unbounded.
  constexpr double kUnbounded = std::numeric_limits<double>::infinity();
  s.p_inf = s.t_inf > 0 ? s.work_flop / s.t_inf : (s.work_flop > 0 ? kUnbounded : 0);
  s.average_parallelism = s.t_inf > 0 ? s.t1 / s.t_inf : kUnbounded;
  s.peak = target_rate;
  s.sccr = profile::sccr(target_);
}

// Component i's time on n nodes: T_1(i) / min(DOP_i, n), or for a distributed loop T_1(i) times
// the slowest processor's share of the loop's work (Fahringer and Pozgaj (2000)): ceil(N/p) / N
// for uniform iterations, BLOCK or CYCLIC. `uniform`: every flop at the program's rate. A
// component costed from the profile's resources is costed again at n: its working set, and the
// processes sharing a node's bandwidth, change with n.
double Predictor::component_seconds(std::size_t i, double n, bool uniform) const {
  const Component& c = workload_.components[i];
  if (summary_.p1 <= 0) uniform = false;
  if (!uniform && from_resources_[i]) return component_cost(i, n).seconds;
  const double t1 = uniform ? c.work_flop / summary_.p1 : t1_[i];
  return t1 * slowest_share(c, n * threads_per_process(n));
}

double Predictor::processes_per_node(double n) const {
  double per_node = 1;  // Xu and Hwang (1995): one process per node
  if (workload_.processes_per_node) {
    per_node = std::floor((*workload_.processes_per_node)(n));
  } else if (target_.machine.cores_per_node) {
    // Fill the nodes: a core for each thread.
    per_node =
        std::floor(static_cast<double>(*target_.machine.cores_per_node) / threads_per_process(n));
  }
  return std::max(1.0, std::min(per_node, n));
}

double Predictor::threads_per_process(double n) const {
  if (!workload_.threads_per_process) return 1;
  return std::max(1.0, std::floor((*workload_.threads_per_process)(n)));
}

// The resource model: a process's share of the component's compute, memory traffic, dependent
// random accesses and column walks, each costed from the target's profile. Compute and traffic
// overlap (the roofline model of Williams, Waterman and Patterson (2009): the larger bounds the
// time); dependent random accesses wait for each other and for everything else, so they add, and
// so do column accesses, whose page and line misses the walk measured as a whole.
Predictor::Cost Predictor::component_cost(std::size_t i, double n,
                                          std::optional<double> threads_given) const {
  const Component& c = workload_.components[i];
  // A process's threads split its share: the slowest thread's share of the work of every
  // process's threads together. They count as sharers of the node's caches and memory as
  // processes do, each holding its part of the process's working set.
  const double threads = threads_given ? *threads_given : threads_per_process(n);
  const double workers = n * threads;
  const double share = slowest_share(c, workers);
  Cost cost;
  if (!from_resources_[i]) {
    cost.seconds = t1_[i] * share;
    cost.range = {cost.seconds, cost.seconds};
    cost.bound = c.time_seconds ? "its given time" : "its given rate";
    return cost;
  }
  const double per_node = processes_per_node(n);
  const double sharers = std::min(per_node * threads, processors(c, workers));
  if (threads > 1 && target_.machine.cores_per_node &&
      per_node * threads > static_cast<double>(*target_.machine.cores_per_node)) {
    cost.notes.push_back(fmt::format("{}: {:.0f} processes of {:.0f} threads on a node of {} cores",
                                     c.name, per_node, threads, *target_.machine.cores_per_node));
  }
  const std::string where = fmt::format("component '{}' ({})", c.name, c.row.where());
  const auto value_at = [&](const Expression& e, const char* what) {
    const double v = e(n);
    if (!std::isfinite(v) || v < 0) {
      throw input_error(
          e.cell().where(),
          fmt::format("{} '{}' is {} at n = {}; expected a value >= 0", what, e.text(), v, n));
    }
    return v;
  };

  // Compute: instructions at their throughput, dependent chains at their latency (the longer of
  // the two), or the work at the peak rate a process gets on its node.
  Span compute;
  std::string compute_bound;
  bool chain_through_memory = false;  // the compute time is a chain whose links store and load
  if (!c.operations.empty() || !c.chains.empty()) {
    Span throughput, latency;
    std::string slowest_op, slowest_chain;
    double most_op = -1, most_chain = -1;
    std::vector<std::string> missing;
    const auto add = [&](const std::map<std::string, Expression>& counts, const char* mode,
                         Span& sum, std::string& slowest, double& most) {
      for (const auto& [op, expression] : counts) {
        const double count = value_at(expression, "the operation count");
        const auto it = target_.compute.kernels.find(op + "." + mode);
        if (it == target_.compute.kernels.end()) {
          missing.push_back(op + "." + mode);
          continue;
        }
        const Span k = span(it->second);
        const double units = count * share;
        sum.value += units * k.value;
        sum.low += units * k.low;
        sum.high += units * k.high;
        if (units * k.value > most) {
          most = units * k.value;
          slowest = op;
        }
      }
    };
    add(c.operations, "throughput", throughput, slowest_op, most_op);
    add(c.chains, "latency", latency, slowest_chain, most_chain);
    if (!missing.empty()) {
      throw input_error(target_path_,
                        fmt::format("compute.kernels.{}: absent; {} needs {}", missing.front(),
                                    where, fmt::join(missing, ", ")));
    }
    const bool chain_bound = latency.value > throughput.value;
    compute = chain_bound ? latency : throughput;
    chain_through_memory = chain_bound && c.chains.count(std::string(kStoreLoadKernel)) > 0;
    compute_bound = chain_bound ? fmt::format("{} latency (a dependent chain)", slowest_chain)
                                : fmt::format("{} throughput", slowest_op);
  } else if (const double work = value_at(c.work, "the work"); work > 0) {
    const profile::Quantity* core =
        target_.compute.peak_flops_per_core ? &*target_.compute.peak_flops_per_core : nullptr;
    const profile::Quantity* node =
        target_.compute.peak_flops_per_node ? &*target_.compute.peak_flops_per_node : nullptr;
    if (!core && !node) {
      throw input_error(target_path_,
                        "compute.peak_flops_per_core: absent; " + where + " gives work [flop]");
    }
    // A process's peak: a core's, or its part of the node's when the node's processes share less.
    Span rate = core ? span(*core) : Span{};
    if (node) {
      const Span per = divided(span(*node), sharers);
      if (!core || per.value < rate.value) rate = per;
    }
    compute = time_at(work * share, rate);
    compute_bound = "peak rate";
  }

  // Memory: the traffic at the bandwidth the profile measured for the level the working set falls
  // in, with as many threads as processes share the node.
  Span memory;
  std::string memory_bound;
  const profile::MemoryLevel* level = nullptr;
  std::optional<double> working_set;  // a process's; its threads each hold their part of it
  if (c.working_set_bytes) working_set = value_at(*c.working_set_bytes, "the working set");
  std::optional<double> thread_set;
  if (working_set) thread_set = *working_set / threads;
  if (c.traffic_bytes || c.random_accesses) {
    if (target_.memory.empty()) {
      throw input_error(target_path_, "memory: absent; " + where + " moves data");
    }
    level = &level_for(target_, thread_set, sharers);
    cost.level = level->name;
  }
  double traffic = 0;  // this process's share of the traffic, bytes
  std::optional<EdgeRate> edge;
  // The same bytes at one thread's bandwidth, where processes share a level whose bandwidth they
  // split: what the process's transfers would take alone (for the saturation rule below).
  std::optional<Span> memory_alone;
  if (c.traffic_bytes) {
    const double bytes = value_at(*c.traffic_bytes, "the traffic") * share;
    traffic = bytes;
    const int wanted = static_cast<int>(sharers);
    // A working set between two caches' plateaus: at the rate the sweep measured at its size.
    if (thread_set) {
      edge = edge_rate(target_, c.access, static_cast<std::uint64_t>(wanted), *thread_set * wanted);
    }
    if (edge) {
      memory = time_at(bytes, divided(edge->aggregate, wanted));
      memory_bound = fmt::format("{} to {} edge bandwidth ({}, {} sharing, {} in all)", edge->level,
                                 edge->next, c.access, wanted, format_bytes(*thread_set * wanted));
      if (!edge->held.empty()) {
        cost.notes.push_back(fmt::format("{}: {} to {} edge bandwidth ({}, {} sharing): {}", c.name,
                                         edge->level, edge->next, c.access, wanted, edge->held));
      }
    } else {
      std::map<int, const profile::Quantity*> by_threads;
      for (const auto& [key, q] : level->bandwidth) {
        if (key.find('/') != std::string::npos && profile::bandwidth_kernel(key) == c.access) {
          by_threads[profile::bandwidth_threads(key)] = &q;
        }
      }
      if (by_threads.empty()) {
        throw input_error(
            target_path_,
            fmt::format("memory.{}.bandwidth.{}/{}: absent; {} moves {} traffic there", level->name,
                        c.access, wanted, where, c.access));
      }
      // The measurement with the most threads up to the sharers; with fewer threads measured than
      // share a shared level, the aggregate is taken as no larger.
      auto it = by_threads.upper_bound(wanted);
      if (it != by_threads.begin()) --it;
      const int threads = it->first;
      const double divide = private_level(*level) ? threads : std::max(threads, wanted);
      memory = time_at(bytes, divided(span(*it->second), divide));
      memory_bound = fmt::format("{} bandwidth ({}, {} sharing)", level->name, c.access, wanted);
      if (divide > 1 && !private_level(*level) && by_threads.count(1)) {
        memory_alone = time_at(bytes, span(*by_threads.at(1)));
      }
      if (threads != wanted) {
        cost.notes.push_back(fmt::format("{}: {} bandwidth measured with {} thread(s), not {}",
                                         c.name, level->name, threads, wanted));
      }
    }
    if (!working_set) {
      cost.notes.push_back(
          fmt::format("{}: no working set given: its traffic comes from {}", c.name, level->name));
    }
  }

  // Loads and stores at L1 (Treibig and Hager's (2010) ECM model): a core's load and store
  // instructions take the L1 read and write bandwidth one thread measured (misaligned vectors the
  // misaligned kernels'), and that time does not overlap with the transfers from beyond L1; with
  // the working set in L1 it is the whole transfer. Loads and stores add up: the longer of the two
  // (loads and stores on ports of their own) fitted the L1 kernels and the heat example better,
  // but put the blocked multiply, which stores and reloads its row of C every second k, at E 1.36
  // to 1.43 (docs/methods.md).
  Span in_core;
  const bool l1_given = c.load_bytes || c.store_bytes;
  if (l1_given) {
    if (target_.memory.empty() || !private_level(target_.memory.front())) {
      throw input_error(target_path_, "memory: no L1 level; " + where + " gives loads and stores");
    }
    const profile::MemoryLevel& l1 = target_.memory.front();
    const auto l1_time = [&](double moved, const std::string& kernel, const std::string& what) {
      if (moved == 0) return Span{};
      const auto it = l1.bandwidth.find(kernel + "/1");
      if (it == l1.bandwidth.end()) {
        throw input_error(target_path_, fmt::format("memory.{}.bandwidth.{}/1: absent; {} gives {}",
                                                    l1.name, kernel, where, what));
      }
      return time_at(moved, span(it->second));
    };
    const auto add = [](Span& sum, const Span& part, double sign = 1) {
      sum.value += sign * part.value;
      sum.low += sign * part.low;
      sum.high += sign * part.high;
    };
    // `bytes` moved by the core's loads (kernel "read") or stores ("write"), `misaligned` of them
    // by misaligned vectors, at the L1 kernels' rates: the aligned and the misaligned ones.
    const auto l1_split = [&](double bytes, double misaligned, const std::string& kernel,
                              const std::string& whose, const std::string& what) {
      Span time = l1_time(bytes - misaligned, kernel, whose + what);
      add(time, l1_time(misaligned, kernel + "-misaligned", whose + "misaligned " + what));
      return time;
    };
    // The component's own: `whole` bytes of which `part` misaligned.
    const auto port_time = [&](const std::optional<Expression>& whole,
                               const std::optional<Expression>& part, const char* kernel,
                               const char* what) {
      if (!whole) return Span{};
      const double all = value_at(*whole, what);
      double misaligned = 0;
      if (part) {
        misaligned = value_at(*part, "the misaligned part");
        if (misaligned > all * (1 + 1e-12)) {
          throw input_error(part->cell().where(),
                            fmt::format("misaligned {} of {} B at n = {} exceed the {} ({} B)",
                                        what, misaligned, n, what, all));
        }
        misaligned = std::min(misaligned, all);
      }
      return l1_split(all * share, misaligned * share, kernel, "", what);
    };
    add(in_core, port_time(c.load_bytes, c.misaligned_load_bytes, "read", "loads"));
    add(in_core, port_time(c.store_bytes, c.misaligned_store_bytes, "write", "stores"));
    const profile::StreamingKernel* kernel =
        traffic > 0 ? profile::streaming_kernel(c.access) : nullptr;
    if (!edge && (level == nullptr || level == &target_.memory.front()) &&
        !(kernel && kernel->priced_at_rate_in_l1)) {
      memory = in_core;
      memory_bound = fmt::format("{} loads and stores", l1.name);
    } else {
      // The bandwidth kernel measured at the working set's level spent part of its own time on its
      // L1 loads and stores (STREAM's counts: read loads all its bytes, write stores them, copy
      // half and half, triad and update two thirds and one third; the indexed kernel's own); that
      // part is taken out before the component's own L1 time is added, so that a loop just like
      // the kernel is costed as the kernel measured it.
      Span kernel_l1;
      if (kernel) {
        // Its misaligned part at the misaligned kernels' rates, as the component's own is.
        kernel_l1 = l1_split(traffic * kernel->l1_loaded_per_byte,
                             traffic * kernel->l1_misaligned_loaded_per_byte, "read",
                             "the kernel's own ", "loads");
        add(kernel_l1, l1_split(traffic * kernel->l1_stored_per_byte,
                                traffic * kernel->l1_misaligned_stored_per_byte, "write",
                                "the kernel's own ", "stores"));
      }
      // The process's own sum: its transfers (alone where it shares the level) less the kernel's
      // own L1 time, plus its own.
      const Span shared = memory;
      const Span& transfers = memory_alone ? *memory_alone : shared;
      memory = {std::max(0.0, transfers.value - kernel_l1.value),
                std::max(0.0, transfers.low - kernel_l1.high),
                std::max(0.0, transfers.high - kernel_l1.low)};
      add(memory, in_core);
      // Processes that share a level's bandwidth: the ECM model's saturation (Treibig and Hager
      // (2010)). A loop's speed grows with the cores until the shared bandwidth bounds it, and from
      // there its time is the transfers' alone, each core's L1 work hidden behind the others'
      // transfers: the larger of one process's own sum (its transfers at one thread's bandwidth)
      // and its transfers at its part of the shared bandwidth, as the kernel measured them with
      // that many threads. The 2-D stencil at two ranks on a 2-core guest swept at the copy's rate
      // measured beside it, its L1 work not added (examples/corpus/records/stencil-copy-1127/).
      if (!memory_alone) {
        memory_bound = fmt::format("{} loads and stores + {}", l1.name, memory_bound);
      } else if (shared.value > memory.value) {
        memory_bound =
            fmt::format("{}, saturated: the {} loads and stores hidden", memory_bound, l1.name);
      } else {
        memory_bound =
            fmt::format("{} loads and stores + {}, below saturation: at one thread's rate", l1.name,
                        memory_bound);
      }
      if (memory_alone) {
        memory = {std::max(memory.value, shared.value), std::max(memory.low, shared.low),
                  std::max(memory.high, shared.high)};
      }
    }
  }

  // Dependent random accesses: each waits for the previous. At what the profile's random chase
  // cost at this process's working set with as many threads chasing at once as processes share the
  // node (the chase's time grows within a level as page walks miss more, and with the other cores'
  // misses); without that curve or a working set, at the level's latency (its plateau median).
  Span random;
  std::string random_bound;
  if (c.random_accesses) {
    const double accesses = value_at(*c.random_accesses, "the random accesses") * share;
    Span latency;
    if (!target_.random_chase.empty() && working_set) {
      const std::uint64_t wanted = static_cast<std::uint64_t>(sharers);
      const std::uint64_t threads = threads_for(target_.random_chase, wanted);
      if (threads != wanted) {
        cost.notes.push_back(fmt::format("{}: random chase measured with {} thread(s), not {}",
                                         c.name, threads, wanted));
      }
      std::string beyond;
      latency = chase_per_load(target_.random_chase, threads, *working_set, beyond);
      if (!beyond.empty()) cost.notes.push_back(c.name + ": " + beyond);
      random_bound = fmt::format("random chase over {}, {} chasing (dependent random accesses)",
                                 format_bytes(*working_set), threads);
    } else {
      if (!level->latency) {
        throw input_error(target_path_, fmt::format("memory.{}.latency: absent; {} gives random "
                                                    "accesses",
                                                    level->name, where));
      }
      latency = span(*level->latency);
      random_bound = fmt::format("{} latency (dependent random accesses)", level->name);
    }
    random = {accesses * latency.value, accesses * latency.low, accesses * latency.high};
  }

  // Column accesses: each a new page and line, at the seconds per load of the walk the profile
  // measured down as many rows as the component's walk spans (the working set over its stride,
  // the profile walk's own row by default), log-log between the row counts it measured, with as
  // many threads as share the node, or the most it measured up to that many. The walk's time
  // holds its own transfers, so it adds, as random accesses do.
  Span column;
  double column_rows = 0, column_stride = 0;
  if (c.column_accesses) {
    const std::vector<profile::ColumnWalkPoint>& walks = target_.column_walk;
    if (walks.empty()) {
      throw input_error(target_path_, "column_walk: absent; " + where + " gives column accesses");
    }
    const auto wanted = static_cast<std::uint64_t>(sharers);
    const std::uint64_t threads = threads_for(walks, wanted);
    if (threads != wanted) {
      cost.notes.push_back(fmt::format("{}: column walk measured with {} thread(s), not {}", c.name,
                                       threads, wanted));
    }
    column_stride =
        static_cast<double>(std::find_if(walks.begin(), walks.end(), [&](const auto& w) {
                              return w.threads == threads;
                            })->row_bytes);
    if (c.column_stride_bytes) {
      column_stride = value_at(*c.column_stride_bytes, "the column stride");
      if (!(column_stride > 0)) {
        throw input_error(c.column_stride_bytes->cell().where(),
                          fmt::format("the column stride is {} B at n = {}; expected a row of 1 "
                                      "byte or more",
                                      column_stride, n));
      }
    }
    column_rows = working_set.value_or(0) / column_stride;
    std::string beyond;
    const Span walk = walk_per_load(walks, threads, column_rows, beyond);
    if (!beyond.empty()) cost.notes.push_back(c.name + ": " + beyond);
    const double accesses = value_at(*c.column_accesses, "the column accesses") * share;
    column = {accesses * walk.value, accesses * walk.low, accesses * walk.high};
  }

  // Gathered lines: each a line from memory that no prefetcher brought, at the seconds per line of
  // the profile's line gather with the lines scattered as far as the component's span (the widest
  // measured by default), with as many threads as share the node, in the loop shape the component
  // names (sum or copy). The gather's time holds its own transfers, so it adds, as column accesses
  // do.
  Span gather;
  double gather_span = 0;
  if (c.gathered_lines) {
    if (target_.line_gather.empty()) {
      throw input_error(target_path_, "line_gather: absent; " + where + " gives gathered lines");
    }
    std::vector<profile::LineGatherPoint> gathers;
    std::copy_if(target_.line_gather.begin(), target_.line_gather.end(),
                 std::back_inserter(gathers),
                 [&](const profile::LineGatherPoint& g) { return g.shape == c.gather_access; });
    if (gathers.empty()) {
      throw input_error(target_path_,
                        fmt::format("line_gather: no gather of shape '{}' (a profile made before "
                                    "the copy was measured has the sum alone); {} gives {} "
                                    "gathered lines",
                                    c.gather_access, where, c.gather_access));
    }
    const auto wanted = static_cast<std::uint64_t>(sharers);
    const std::uint64_t threads = threads_for(gathers, wanted);
    if (threads != wanted) {
      cost.notes.push_back(fmt::format("{}: line gather measured with {} thread(s), not {}", c.name,
                                       threads, wanted));
    }
    for (const profile::LineGatherPoint& g : gathers) {
      if (g.threads == threads)
        gather_span = std::max(gather_span, static_cast<double>(g.span_bytes));
    }
    if (c.gather_span_bytes) {
      gather_span = value_at(*c.gather_span_bytes, "the gather span");
      if (!(gather_span > 0)) {
        throw input_error(c.gather_span_bytes->cell().where(),
                          fmt::format("the gather span is {} B at n = {}; expected 1 byte or more",
                                      gather_span, n));
      }
    }
    std::string beyond;
    const Span line = gather_per_line(gathers, threads, gather_span, beyond);
    if (!beyond.empty()) cost.notes.push_back(c.name + ": " + beyond);
    const double lines = value_at(*c.gathered_lines, "the gathered lines") * share;
    gather = {lines * line.value, lines * line.low, lines * line.high};
    // The gather was measured from memory: lines that a cache keeps are not what it priced.
    if (thread_set && !target_.memory.empty()) {
      const profile::MemoryLevel& in =
          level != nullptr ? *level : level_for(target_, thread_set, sharers);
      if (&in != &target_.memory.back()) {
        cost.notes.push_back(fmt::format(
            "{}: its gathered lines are priced from memory, but its working set ({}) lies in {}: "
            "lines a cache keeps are traffic there",
            c.name, format_bytes(*working_set), in.name));
      }
    }
  }

  const bool memory_bound_wins = memory.value > compute.value;
  // A chain through memory and the component's loads and stores: neither hides the other wholly,
  // and where the two are close the loop takes longer than either (docs/methods.md, Compute).
  // Otherwise the larger bounds it.
  const bool shares_ports = chain_through_memory && memory.value > 0;
  const std::optional<profile::Quantity>& measured_p = target_.compute.shared_ports_exponent;
  const Span p = measured_p
                     ? span(*measured_p)
                     : Span{kPortsSharedExponentWithoutKernel, kPortsSharedExponentWithoutKernel,
                            kPortsSharedExponentWithoutKernel};
  // The larger exponent overlaps more: the low end of the range takes the high p.
  const auto combine = [&](double m, double c, double exponent) {
    return shares_ports ? model::overlap_p_norm(m, c, exponent) : std::max(m, c);
  };
  const Span overlap{combine(memory.value, compute.value, p.value),
                     combine(memory.low, compute.low, p.high),
                     combine(memory.high, compute.high, p.low)};
  cost.seconds = overlap.value + random.value + column.value + gather.value;
  cost.range = {overlap.low + random.low + column.low + gather.low,
                overlap.high + random.high + column.high + gather.high};
  if (gather.value > overlap.value && gather.value > random.value && gather.value > column.value) {
    cost.bound = fmt::format("line gather ({}) within {} (lines no prefetcher brings)",
                             c.gather_access, format_bytes(gather_span));
  } else if (column.value > overlap.value && column.value > random.value) {
    cost.bound = fmt::format("column walk down {:.0f} rows of {} (loads across rows)", column_rows,
                             format_bytes(column_stride));
  } else if (random.value > overlap.value) {
    cost.bound = random_bound;
  } else if (shares_ports) {
    cost.bound = fmt::format(
        "{} with {}, sharing the L1 ports (p = {:.3g}, {})", compute_bound, memory_bound, p.value,
        measured_p ? "the profile's shared-ports kernel"
                   : "no shared-ports kernel in the profile: fitted on the Zen 5 guest's multiply");
  } else {
    cost.bound = memory_bound_wins ? memory_bound : compute_bound;
  }
  // A row whose counts all come to 0 here (the transpose's self block from two processes on,
  // where the alltoall's own price holds it) is bound by nothing: say so, not "".
  if (!(cost.seconds > 0) && !(cost.range.high > 0)) cost.bound = "no work at this n";
  return cost;
}

Predictor::Cost Predictor::operation_cost(std::size_t index, double n) const {
  const Operation& o = workload_.operations[index];
  const double count = o.count(n);
  if (!std::isfinite(count) || count < 0) {
    throw input_error(o.count.cell().where(),
                      fmt::format("count '{}' is {} at n = {}", o.count.text(), count, n));
  }
  Cost cost;
  // One process sends no message; but the threads it starts (a parallelism row whose count is not
  // 0 at n = 1, as a hybrid program's team) cost at one process too.
  if (count == 0 || (n < 2 && o.kind != "parallelism")) return cost;
  if (o.kind == "parallelism") {
    const auto& overheads = target_.overheads;
    if (const auto it = overheads.forms.find(o.operation); it != overheads.forms.end()) {
      cost.seconds = count * it->second(n);
      cost.range = {cost.seconds, cost.seconds};
      cost.bound = "form in n";
      return cost;
    }
    if (const auto it = overheads.operations.find(o.operation); it != overheads.operations.end()) {
      const Span one = span(it->second);
      cost.seconds = count * one.value;
      cost.range = {count * one.low, count * one.high};
      cost.bound = "measured";
      return cost;
    }
    throw input_error(target_path_, fmt::format("overheads.operations.{}: absent; row {} needs it",
                                                o.operation, o.row.where()));
  }
  const double bytes = o.bytes(n);
  if (!std::isfinite(bytes) || bytes < 0) {
    throw input_error(o.bytes.cell().where(),
                      fmt::format("message length '{}' is {} at n = {}", o.bytes.text(), bytes, n));
  }
  // Processes on several nodes while the profile measured one node's messages: the inter-node
  // messages are costed as intra-node ones, and the prediction says so.
  const double per_node = processes_per_node(n);
  const double nodes = std::ceil(n / per_node);
  const bool one_node_measured = target_.machine.nodes && *target_.machine.nodes < 2;
  if (nodes > 1 && one_node_measured) {
    cost.notes.push_back(fmt::format(
        "{}: {:.0f} processes on {:.0f} nodes, but {} measured one node: messages between nodes "
        "are costed as within one",
        o.name, n, nodes, target_.machine.name));
  }
  if (o.operation == "point_to_point") {
    const profile::PointToPoint& p2p = profile::require_point_to_point(target_, network_path_);
    // The Hockney fit is the ping-pong of rank 0 with the characterization's last rank: on
    // another node where it spanned several (ranks fill nodes in blocks), on the same node
    // otherwise. Where this prediction's messages lie on the other side of that line, the pair
    // map's pairs placed as they are price them (Xu and Hwang (1995) measure each placement
    // apart), on the line through their two measured sizes: between nodes, where any process
    // sends across (the slowest does), else within one at the farthest placement the map has.
    const bool fit_across = target_.machine.nodes && *target_.machine.nodes >= 2;
    const bool across = nodes > 1;
    if (across != fit_across) {
      // Across nodes the last of kPairPlacements (nearest first); within one, the farthest before
      // it that the map has.
      const auto& placements = profile::kPairPlacements;
      const profile::PairClass* pair = nullptr;
      if (across) {
        pair = p2p.pair_class(placements.back());
      } else {
        for (auto it = std::next(placements.rbegin()); !pair && it != placements.rend(); ++it)
          pair = p2p.pair_class(*it);
      }
      const std::optional<double> rate =
          pair ? pair->transfer_rate(pair->latency.value, pair->bandwidth.value) : std::nullopt;
      if (rate) {
        // An interval's end whose latency leaves no time for the bytes takes the value's rate.
        const auto time = [&](double latency, double bandwidth) {
          return latency + bytes / pair->transfer_rate(latency, bandwidth).value_or(*rate);
        };
        const Span latency = span(pair->latency), bandwidth = span(pair->bandwidth);
        cost.seconds = count * time(latency.value, bandwidth.value);
        cost.range = {count * time(latency.low, bandwidth.high),
                      count * time(latency.high, bandwidth.low)};
        cost.bound = fmt::format("pair map, {} pairs", pair->placement);
        return cost;
      }
      if (!across) {
        cost.notes.push_back(fmt::format(
            "{}: {:.0f} processes on one node, but {}'s ping-pong crossed nodes and its pair map "
            "has no pair on one node (with a rate beyond its latency): messages within the node "
            "are costed as between nodes",
            o.name, n, network_path_));
      }
    }
    const profile::HockneySegment* segment = &p2p.segments.front();
    for (const profile::HockneySegment& s : p2p.segments) {
      if (bytes >= s.from_bytes) segment = &s;
    }
    const Span t0 = span(segment->t0), rate = span(segment->r_inf);
    cost.seconds = count * (t0.value + bytes / rate.value);
    cost.range = {count * (t0.low + bytes / rate.high), count * (t0.high + bytes / rate.low)};
    cost.bound = "Hockney fit";
    return cost;
  }
  profile::CollectiveEstimate estimate;
  const std::optional<std::uint64_t> cores = target_.machine.cores_per_node;
  bool across = false;  // the growth across nodes replaced the form's
  try {
    estimate = collectives_[index]->estimate(n, bytes);
    // Beyond the measured communicators of a cluster of multi-core nodes: the growth of the
    // communicators that span nodes, where there are enough of them, not the form's. Neither
    // sees a level of the network that no measured communicator crossed (a dragonfly's global
    // links), so the interval reaches the form's extrapolation too.
    if (estimate.extrapolated_from && cores) {
      if (auto spanning = profile::across_nodes(*collectives_[index], n, bytes, *cores, nodes)) {
        across = true;
        const double by_form = estimate.seconds;
        profile::Interval range =
            spanning->range.value_or(profile::Interval{spanning->seconds, spanning->seconds, 1});
        range.low = std::min(range.low, by_form);
        range.high = std::max(range.high, by_form);
        spanning->range = range;
        spanning->how +=
            fmt::format("; the form's growth over every n gives {}", format_seconds(by_form));
        estimate = std::move(*spanning);
      }
    }
  } catch (const Error& e) {
    throw input_error(network_path_, fmt::format("collectives.{}: {}; row {} needs it at n = {}",
                                                 o.operation, e.problem(), o.row.where(), n));
  }
  cost.seconds = count * estimate.seconds;
  cost.range = estimate.range ? Range{count * estimate.range->low, count * estimate.range->high}
                              : Range{cost.seconds, cost.seconds};
  cost.bound = estimate.how;
  if (!estimate.from_form) {
    cost.notes.push_back(fmt::format("{}: {}", o.name, estimate.how));
  }
  // Extrapolated on a cluster of multi-core nodes by the form's growth: from fewer than three
  // communicators that span nodes, that growth is mostly that of messages inside a node (on a
  // simulated cluster of 8-core nodes profiled at 32 ranks, the alltoall's was 2 to 4 times off
  // at 64 and 128); from more, the growth across nodes could not be fitted.
  if (estimate.extrapolated_from && !across && cores && *cores > 1) {
    std::set<std::uint64_t> spanning;
    for (const profile::CollectiveMeasurement& m : collectives_[index]->measurements) {
      if (m.ranks > *cores) spanning.insert(m.ranks);
    }
    if (spanning.size() < 3) {
      cost.notes.push_back(fmt::format(
          "{}: only {} measured communicator size(s) span nodes of {} cores ({}): the growth in n "
          "is mostly that of messages inside a node; characterize at more ranks",
          o.name, spanning.size(), *cores, fmt::join(spanning, ", ")));
    } else {
      cost.notes.push_back(fmt::format(
          "{}: no growth across nodes of {} cores could be fitted at {} (no communicator measured "
          "inside one node, one across nodes no slower than it, or no form fitted): the form's "
          "growth over every n",
          o.name, *cores, format_bytes(bytes)));
    }
  }
  return cost;
}

Point Predictor::at(double n, Scheme scheme) const {
  Point p;
  p.n = n;
  p.processes_per_node = processes_per_node(n);
  p.threads_per_process = threads_per_process(n);
  Range range;
  for (std::size_t i = 0; i < t1_.size(); ++i) {
    if (scheme == Scheme::theoretical && summary_.p1 > 0) {
      p.compute += component_seconds(i, n, true);
      continue;
    }
    Cost cost = component_cost(i, n);
    p.compute += cost.seconds;
    range.low += cost.range.low;
    range.high += cost.range.high;
    for (std::string& note : cost.notes) p.notes.push_back(std::move(note));
    p.costs.push_back(
        {workload_.components[i].name, cost.seconds, cost.range, cost.bound, cost.level});
  }
  if (scheme == Scheme::full_overhead) {
    p.overheads.reserve(workload_.operations.size());
    Range communication;
    for (std::size_t i = 0; i < workload_.operations.size(); ++i) {
      const Operation& o = workload_.operations[i];
      Cost cost = operation_cost(i, n);
      (o.kind == "parallelism" ? p.parallelism : p.communication) += cost.seconds;
      range.low += cost.range.low;
      range.high += cost.range.high;
      if (o.kind != "parallelism") {
        communication.low += cost.range.low;
        communication.high += cost.range.high;
        p.communication_notes.insert(p.communication_notes.end(), cost.notes.begin(),
                                     cost.notes.end());
      }
      for (std::string& note : cost.notes) p.notes.push_back(std::move(note));
      p.overheads.push_back({o.name, o.operation, cost.seconds});
    }
    p.communication_range = communication;
  }
  p.total = p.compute + p.parallelism + p.communication;
  if (scheme != Scheme::theoretical) p.total_range = range;
  const double t1 = scheme == Scheme::theoretical && summary_.p1 > 0
                        ? summary_.work_flop / summary_.p1
                        : summary_.t1;
  p.speedup = t1 / p.total;
  p.efficiency = p.speedup / (n * p.threads_per_process);  // over every processor: n t
  p.speed = summary_.work_flop / p.total;
  if (summary_.peak) p.utilization = p.speed / (n * *summary_.peak);
  return p;
}

std::vector<ProgramParameters> Predictor::program_parameters(double n) const {
  std::vector<ProgramParameters> out;
  const profile::PointToPoint* p2p =
      target_.point_to_point && !target_.point_to_point->segments.empty() ? &*target_.point_to_point
                                                                          : nullptr;
  for (std::size_t i = 0; i < t1_.size(); ++i) {
    const Component& c = workload_.components[i];
    ProgramParameters pp;
    pp.component = c.name;
    pp.n = n;
    // Shares of the work: the loop's iterations dealt out, or T_1 split over min(DOP, n).
    const double p = processors(c, n);
    std::vector<double> shares;
    if (c.loop) {
      // Each processor's units of the loop's work, as the distribution deals the iterations: with
      // iterations of equal cost BLOCK and CYCLIC give the same shares.
      for (double k = 0; k < p; ++k) shares.push_back(share_units(c, p, k));
    } else {
      for (double k = 0; k < n; ++k) shares.push_back(k < p ? 1.0 : 0.0);
    }
    double mean = 0, square = 0;
    for (double s : shares) mean += s;
    mean /= static_cast<double>(shares.size());
    for (double s : shares) square += (s - mean) * (s - mean);
    pp.goodness = mean > 0 ? std::sqrt(square / static_cast<double>(shares.size())) / mean : 0;
    pp.computation_seconds = component_seconds(i, n, false);
    for (const Operation& o : workload_.operations) {
      if (o.after != c.name || o.kind != "communication" || n < 2) continue;
      const double count = o.count(n);
      const double bytes = o.bytes(n);
      pp.transfers += count;
      pp.bytes += count * bytes;
      // Fahringer and Pozgaj 2000: transfer time alpha + bytes beta per message, alpha and beta
      // from Hockney.
      if (p2p) pp.transfer_seconds += count * p2p->seconds(bytes);
    }
    out.push_back(pp);
  }
  return out;
}

std::string Predictor::expression() const {
  // Computation: sum of T_1(i) over the components of each DOP.
  std::map<std::string, double> by_dop;
  std::vector<std::string> order;
  for (std::size_t i = 0; i < t1_.size(); ++i) {
    const Component& c = workload_.components[i];
    const bool sequential = !c.loop && !c.dop.depends_on_n() && c.dop(1) == 1;
    const std::string key =
        c.loop && c.iteration_cost != IterationCost::uniform
            ? fmt::format("share({} {} {}, min(n, {}))", *c.loop, name_of(c.iteration_cost),
                          name_of(c.distribution), c.dop.text())
        : c.loop               ? fmt::format("ceil({0}/min(n, {1}))/{0}", *c.loop, c.dop.text())
        : sequential           ? fmt::format("1")
        : c.dop.text() == "n"  ? std::string("n")  // min(n, n)
        : c.dop.depends_on_n() ? fmt::format("min(n, {})", c.dop.text())
                               : fmt::format("min(n, {:.0f})", std::floor(c.dop(1)));
    if (!by_dop.count(key)) order.push_back(key);
    by_dop[key] += t1_[i];
  }
  std::vector<std::string> terms;
  for (const std::string& key : order) {
    if (key == "1") {
      terms.push_back(fmt::format("{:.5g}", by_dop[key]));
    } else if (key.rfind("ceil", 0) == 0 || key.rfind("share", 0) == 0) {
      terms.push_back(fmt::format("{:.5g} {}", by_dop[key], key));
    } else {
      terms.push_back(fmt::format("{:.5g}/{}", by_dop[key], key));
    }
  }
  // Each operation: count x (t0(n) + seconds_per_byte(n) m), the forms in microseconds as the
  // tables print them; no message at n = 1.
  for (std::size_t i = 0; i < workload_.operations.size(); ++i) {
    const Operation& o = workload_.operations[i];
    std::string cost;
    if (o.kind == "parallelism") {
      const auto& overheads = target_.overheads;
      const auto form = overheads.forms.find(o.operation);
      cost = form != overheads.forms.end()
                 ? fmt::format("({}) us", form->second.text(1e6))
                 : fmt::format("{:.4g} s", overheads.operations.at(o.operation).value);
    } else if (o.operation == "point_to_point") {
      const auto& segments = target_.point_to_point->segments;
      cost = segments.size() == 1
                 ? fmt::format("({:.3g} + {:.3g} m) us", segments[0].t0.value * 1e6,
                               1e6 / segments[0].r_inf.value)
                 : "Hockney(m)";
    } else {
      const profile::Collective& c = *collectives_[i];
      cost = c.t0.terms.empty() ? "(measured points, interpolated in m)"
             : c.seconds_per_byte
                 ? fmt::format("({} + ({}) m) us", c.t0.text(1e6), c.seconds_per_byte->text(1e6))
                 : fmt::format("({}) us", c.t0.text(1e6));
    }
    std::string term = o.count.text() == "1" ? "" : "(" + o.count.text() + ") x ";
    term += o.operation + " " + cost;
    if (cost.find(" m") != std::string::npos || cost == "Hockney(m)") {
      term += ", m = " + o.bytes.text();
    }
    terms.push_back("[" + term + "]");
  }
  return fmt::format("{}", fmt::join(terms, " + "));
}

std::vector<std::string> Predictor::grain_advice(double n) const {
  std::vector<std::string> advice;
  const Summary& s = summary_;
  if (!(s.t_inf > 0)) {
    advice.push_back(
        "the degree of parallelism grows with n (DOP = n): the average parallelism sets no limit "
        "on the number of nodes; the overheads do");
  } else {
    advice.push_back(fmt::format(
        "average parallelism T1/T_inf = {:.0f}: use at most about {:.0f} nodes (twice the average "
        "parallelism gives at most 50% efficiency)",
        s.average_parallelism, 2 * s.average_parallelism));
  }
  if (!s.sccr) return advice;
  advice.push_back(
      fmt::format("SCCR = P_peak t0 = {:.0f} flops: one message costs as much as "
                  "that much computation",
                  *s.sccr));
  for (std::size_t i = 0; i < t1_.size(); ++i) {
    const Component& c = workload_.components[i];
    double messages = 0;
    for (const Operation& o : workload_.operations) {
      if (o.after == c.name && o.kind == "communication") messages += o.count(n);
    }
    if (messages <= 0) continue;
    const double grain = c.work_flop / processors(c, n) / messages;
    if (grain < 10 * *s.sccr) {
      advice.push_back(fmt::format(
          "{}: {:.3g} flops per node between messages at n = {:.0f}, under 10 SCCR: too fine a "
          "grain for this machine",
          c.name, grain, n));
    }
  }
  return advice;
}

Requirement parse_requirement(const std::string& text) {
  Requirement r;
  r.text = text;
  std::string metric, rest;
  for (const char* op : {">=", "<="}) {
    const auto at = text.find(op);
    if (at != std::string::npos) {
      metric = text.substr(0, at);
      rest = text.substr(at + 2);
      const bool at_most = std::string(op) == "<=";
      if ((metric == "time") != at_most) {
        throw usage_error("--require", "'" + text +
                                           "': write time<=<seconds>, speed>=<flop/s> or "
                                           "speedup>=<x>");
      }
      break;
    }
  }
  if (metric != "time" && metric != "speed" && metric != "speedup") {
    throw usage_error("--require",
                      "'" + text + "': expected time<=0.5s, speed>=10Gflop/s or speedup>=200");
  }
  r.metric = metric;
  std::size_t used = 0;
  try {
    r.bound = std::stod(rest, &used);
  } catch (const std::exception&) {
    throw usage_error("--require", "'" + text + "': no number after the comparison");
  }
  std::string unit = rest.substr(used);
  double scale = 1;
  if (metric == "time") {
    static const std::map<std::string, double> times = {
        {"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"min", 60}};
    if (!times.count(unit))
      throw usage_error("--require", "'" + text + "': unknown time unit '" + unit + "'");
    scale = times.at(unit);
  } else if (metric == "speed") {
    static const std::map<std::string, double> speeds = {
        {"", 1},          {"flop/s", 1}, {"k", 1e3},       {"kflop/s", 1e3}, {"M", 1e6},
        {"Mflop/s", 1e6}, {"G", 1e9},    {"Gflop/s", 1e9}, {"T", 1e12},      {"Tflop/s", 1e12}};
    if (!speeds.count(unit))
      throw usage_error("--require", "'" + text + "': unknown speed unit '" + unit + "'");
    scale = speeds.at(unit);
  } else if (!unit.empty()) {
    throw usage_error("--require", "'" + text + "': " + metric + " takes no unit");
  }
  r.bound *= scale;
  if (!(r.bound > 0)) throw usage_error("--require", "'" + text + "': the bound must be > 0");
  return r;
}

RequirementResult check_requirement(const Predictor& predictor, const Requirement& requirement,
                                    Scheme scheme, double max_n) {
  RequirementResult result;
  result.requirement = requirement;
  const auto value = [&](const Point& p) {
    if (requirement.metric == "time") return p.total;
    if (requirement.metric == "speed") return p.speed;
    return p.speedup;
  };
  const bool at_most = requirement.metric == "time";
  result.best = at_most ? INFINITY : -INFINITY;
  // Every n from 1: T_n need not be monotone once overheads grow with n.
  for (double n = 1; n <= max_n; ++n) {
    const double v = value(predictor.at(n, scheme));
    if (at_most ? v < result.best : v > result.best) {
      result.best = v;
      result.best_n = n;
    }
    if (!result.smallest_n && (at_most ? v <= requirement.bound : v >= requirement.bound)) {
      result.smallest_n = n;
      break;
    }
  }
  result.met = result.smallest_n.has_value();
  const Summary& s = predictor.summary();
  if (!result.met) {
    if (requirement.metric == "time" && s.t_inf > requirement.bound) {
      result.why = fmt::format("not at any n: the critical path T_inf is {:.3g} s", s.t_inf);
    } else if (requirement.metric == "speedup" && s.average_parallelism < requirement.bound) {
      result.why = fmt::format("not at any n: the average parallelism T1/T_inf is {:.3g}",
                               s.average_parallelism);
    } else if (requirement.metric == "speed" && s.p_inf < requirement.bound) {
      result.why =
          fmt::format("not at any n: the maximal performance P_inf is {:.3g} flop/s", s.p_inf);
    } else {
      result.why = fmt::format("not up to n = {:.0f}; the best is {:.3g} at n = {:.0f}", max_n,
                               result.best, result.best_n);
    }
  }
  return result;
}

}  // namespace sonde::predict
