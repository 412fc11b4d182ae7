#include "predict/predictor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.hpp"

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

}  // namespace

Predictor::Predictor(Workload workload, profile::Profile target, std::string target_path,
                     const PredictOptions& options)
    : workload_(std::move(workload)),
      target_(std::move(target)),
      target_path_(std::move(target_path)) {
  const std::optional<double> target_rate = node_rate(target_);
  for (const Component& c : workload_.components) {
    ComponentTime time;
    time.name = c.name;
    time.work_flop = c.work_flop;
    // Fahringer and Pozgaj 2000: operation counts costed with the target's kernel library, where it
    // has them all.
    bool from_kernels = !c.operations.empty();
    for (const auto& [op, count] : c.operations) {
      from_kernels = from_kernels && target_.compute.kernels.count(op + ".throughput");
    }
    if (from_kernels) {
      double seconds = 0;
      for (const auto& [op, count] : c.operations) {
        seconds += count * target_.compute.kernels.at(op + ".throughput").value;
      }
      time.seconds = seconds;
      time.how = fmt::format("operation counts x {}'s kernel library", target_.machine.name);
    } else if (!c.time_seconds && !c.rate_flop_per_second) {
      std::vector<std::string> missing;
      for (const auto& [op, count] : c.operations) {
        if (!target_.compute.kernels.count(op + ".throughput"))
          missing.push_back(op + ".throughput");
      }
      throw input_error(target_path_, fmt::format("compute.kernels.{}: absent; component '{}' ({}) "
                                                  "gives only operation counts",
                                                  fmt::join(missing, ", "), c.name, c.row.where()));
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
        collective ? &profile::require_collective(target_, o.operation, target_path_) : nullptr);
  }
  for (std::size_t i = 0; i < workload_.operations.size(); ++i) operation_seconds(i, 2);

  Summary& s = summary_;
  for (std::size_t i = 0; i < t1_.size(); ++i) {
    const Component& c = workload_.components[i];
    s.work_flop += c.work_flop;
    s.t1 += t1_[i];
    const double dop = std::floor(c.dop(kUnrestricted));
    s.t_inf += component_seconds(i, std::min(dop, kUnrestricted), false);
    s.n_max = std::max(s.n_max, dop);
  }
  // Every rate and the theoretical scheme divide by these: a spreadsheet without work or time
  // is refused rather than predicted as infinities.
  if (!(s.work_flop > 0) || !(s.t1 > 0)) {
    throw input_error(workload_.path.string(),
                      fmt::format("the components' total work ({} flop) and sequential time ({} s) "
                                  "must both be > 0",
                                  s.work_flop, s.t1));
  }
  s.p1 = s.work_flop / s.t1;
  s.p_inf = s.work_flop / s.t_inf;
  s.average_parallelism = s.t1 / s.t_inf;
  s.peak = target_rate;
  s.sccr = profile::sccr(target_);
}

// Component i's time on n nodes: T_1(i) / min(DOP_i, n), or for a distributed loop T_1(i) times
// the slowest processor's share of the loop's work (Fahringer and Pozgaj (2000)): ceil(N/p) / N
// for uniform iterations, BLOCK or CYCLIC. `uniform`: every flop at the program's rate.
double Predictor::component_seconds(std::size_t i, double n, bool uniform) const {
  const Component& c = workload_.components[i];
  const double t1 = uniform ? c.work_flop / summary_.p1 : t1_[i];
  const double used = processors(c, n);
  if (c.loop) return t1 * slowest_units(c, std::min(used, *c.loop)) / loop_units(c);
  return t1 / used;
}

double Predictor::operation_seconds(std::size_t index, double n) const {
  const Operation& o = workload_.operations[index];
  const double count = o.count(n);
  if (!std::isfinite(count) || count < 0) {
    throw input_error(o.count.cell().where(),
                      fmt::format("count '{}' is {} at n = {}", o.count.text(), count, n));
  }
  if (n < 2) return 0;  // one node: no parallel processes to manage, no message to send
  if (o.kind == "parallelism") {
    const auto& overheads = target_.overheads;
    if (const auto it = overheads.forms.find(o.operation); it != overheads.forms.end()) {
      return count * it->second(n);
    }
    if (const auto it = overheads.operations.find(o.operation); it != overheads.operations.end()) {
      return count * it->second.value;
    }
    throw input_error(target_path_, fmt::format("overheads.operations.{}: absent; row {} needs it",
                                                o.operation, o.row.where()));
  }
  const double bytes = o.bytes(n);
  if (!std::isfinite(bytes) || bytes < 0) {
    throw input_error(o.bytes.cell().where(),
                      fmt::format("message length '{}' is {} at n = {}", o.bytes.text(), bytes, n));
  }
  if (o.operation == "point_to_point") {
    return count * profile::require_point_to_point(target_, target_path_).seconds(bytes);
  }
  return count * collectives_[index]->seconds(n, bytes);
}

Point Predictor::at(double n, Scheme scheme) const {
  Point p;
  p.n = n;
  for (std::size_t i = 0; i < t1_.size(); ++i) {
    p.compute += component_seconds(i, n, scheme == Scheme::theoretical);
  }
  if (scheme == Scheme::full_overhead) {
    p.overheads.reserve(workload_.operations.size());
    for (std::size_t i = 0; i < workload_.operations.size(); ++i) {
      const Operation& o = workload_.operations[i];
      const double seconds = operation_seconds(i, n);
      (o.kind == "parallelism" ? p.parallelism : p.communication) += seconds;
      p.overheads.push_back({o.name, o.operation, seconds});
    }
  }
  p.total = p.compute + p.parallelism + p.communication;
  const double t1 = scheme == Scheme::theoretical ? summary_.work_flop / summary_.p1 : summary_.t1;
  p.speedup = t1 / p.total;
  p.efficiency = p.speedup / n;
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
  // tables print them; nothing at n = 1.
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
      cost = c.seconds_per_byte
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
  advice.push_back(fmt::format(
      "average parallelism T1/T_inf = {:.0f}: use at most about {:.0f} nodes (twice the average "
      "parallelism gives at most 50% efficiency)",
      s.average_parallelism, 2 * s.average_parallelism));
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
