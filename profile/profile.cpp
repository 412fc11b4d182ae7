#include "profile/profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "core/error.hpp"

namespace sonde::profile {

std::string to_string(Origin origin) {
  switch (origin) {
    case Origin::measured:
      return "measured";
    case Origin::fitted:
      return "fitted";
    case Origin::derived:
      return "derived";
    case Origin::transcribed:
      return "transcribed";
  }
  return "measured";
}

const std::vector<std::string>& known_bases() {
  static const std::vector<std::string> bases = {"1", "log n", "n", "n log n", "n^c"};
  return bases;
}

// Base-2 logarithms, as Xu and Hwang's (1995) tables use (94 log n + 10 is 762 us at n = 256).
// Told apart by length first: predictions evaluate forms millions of times.
double basis_value(const std::string& basis, double n, double exponent) {
  switch (basis.size()) {
    case 1:
      if (basis[0] == '1') return 1.0;
      if (basis[0] == 'n') return n;
      break;
    case 3:
      if (basis == "n^c") return std::pow(n, exponent);
      break;
    case 5:
      if (basis == "log n") return std::log2(n);
      break;
    case 7:
      if (basis == "n log n") return n * std::log2(n);
      break;
  }
  throw input_error("formula", "unknown basis '" + basis + "'");
}

double Formula::operator()(double n) const {
  double sum = 0;
  for (const Term& term : terms)
    sum += term.coefficient * basis_value(term.basis, n, term.exponent);
  return sum;
}

namespace {

// Three significant digits, without trailing zeros: 94, 0.029, 1.29.
std::string significant(double value) { return fmt::format("{:.3g}", value); }

}  // namespace

std::string Formula::text(double scale) const {
  if (terms.empty()) return "0";
  std::string out;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const Term& term = terms[i];
    const double c = term.coefficient * scale;
    const double magnitude = i == 0 ? c : std::abs(c);
    if (i > 0) out += c < 0 ? " - " : " + ";
    std::string variable;
    if (term.basis == "n^c") {
      variable = "n^" + significant(term.exponent);
    } else if (term.basis != "1") {
      variable = term.basis;
    }
    out += variable.empty() ? significant(magnitude) : significant(magnitude) + " " + variable;
  }
  return out;
}

namespace {

double shape_value(double x, double exponent, int log_power) {
  double value = exponent == 0 ? 1.0 : std::pow(x, exponent);
  for (int j = 0; j < log_power; ++j) value *= std::log2(x);
  return value;
}

std::string shape_text(const std::string& variable, double exponent, int log_power) {
  std::string power = exponent == 0   ? ""
                      : exponent == 1 ? variable
                                      : variable + "^" + significant(exponent);
  std::string logarithm = log_power == 0   ? ""
                          : log_power == 1 ? "log " + variable
                                           : fmt::format("log^{} {}", log_power, variable);
  if (power.empty()) return logarithm;
  return logarithm.empty() ? power : power + " " + logarithm;
}

}  // namespace

double TwoParameterFormula::operator()(double n, double m) const {
  double sum = 0;
  for (const TwoParameterTerm& t : terms) {
    sum += t.coefficient * shape_value(n, t.ranks_exponent, t.ranks_log) *
           shape_value(m, t.bytes_exponent, t.bytes_log);
  }
  return sum;
}

std::string TwoParameterFormula::text(double scale) const {
  if (terms.empty()) return "0";
  std::string out;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const TwoParameterTerm& t = terms[i];
    const double c = t.coefficient * scale;
    if (i > 0) out += c < 0 ? " - " : " + ";
    const std::string ranks = shape_text("n", t.ranks_exponent, t.ranks_log);
    const std::string bytes = shape_text("m", t.bytes_exponent, t.bytes_log);
    // A logarithm goes after a power: "m log n", "n m".
    std::string variable = bytes.empty()           ? ranks
                           : ranks.empty()         ? bytes
                           : t.ranks_exponent == 0 ? bytes + " " + ranks
                                                   : ranks + " " + bytes;
    out += significant(i == 0 ? c : std::abs(c)) + (variable.empty() ? "" : " " + variable);
  }
  return out;
}

const std::vector<StreamingKernel>& streaming_kernels() {
  static const std::vector<StreamingKernel> kernels = {
      {"read", 1.0, 0.0},
      {"write", 0.0, 1.0},
      {"copy", 0.5, 0.5},
      {"triad", 2.0 / 3, 1.0 / 3},
      {"update", 2.0 / 3, 1.0 / 3},
      {"indexed", 108.0 / 80, 8.0 / 80, true},
      {"stencil", 3.0 / 2, 1.0 / 2, true, 1.0, 1.0 / 2}};
  return kernels;
}

const StreamingKernel* streaming_kernel(std::string_view name) {
  for (const StreamingKernel& kernel : streaming_kernels())
    if (kernel.name == name) return &kernel;
  return nullptr;
}

std::string streaming_kernel_names() {
  std::string text;
  const auto& kernels = streaming_kernels();
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (i > 0) text += i + 1 == kernels.size() ? " or " : ", ";
    text += kernels[i].name;
  }
  return text;
}

std::string bandwidth_kernel(const std::string& key) { return key.substr(0, key.find('/')); }

int bandwidth_threads(const std::string& key) {
  const auto slash = key.find('/');
  return slash == std::string::npos ? 0 : std::atoi(key.c_str() + slash + 1);
}

std::pair<std::string, const Quantity*> best_bandwidth(const MemoryLevel& level, int threads) {
  if (threads < 0) {
    threads = 0;
    for (const auto& [key, q] : level.bandwidth)
      threads = std::max(threads, bandwidth_threads(key));
  }
  std::pair<std::string, const Quantity*> best{"", nullptr};
  for (const auto& [key, q] : level.bandwidth) {
    if (bandwidth_threads(key) != threads || !(q.value > 0)) continue;
    if (!best.second || q.value > best.second->value) best = {key, &q};
  }
  return best;
}

StateMove move_between_states(const std::string& kernel, int threads, double measured, double scale,
                              const Quantity* one_thread, const Quantity* triad) {
  StateMove move{measured * scale, ""};
  if (threads <= 1 || scale == 1) return move;
  if (kernel == "triad") return move;  // the probes' own kernel: the state is its figure
  if (scale > 1 && one_thread != nullptr && one_thread->value > 0 &&
      move.value > threads * one_thread->value) {
    move.value = std::max(measured, threads * one_thread->value);
    move.bound = fmt::format(", at most {} x its one-thread figure", threads);
  } else if (scale < 1 && triad != nullptr && triad->value > 0) {
    const double triad_there = triad->value * scale;
    if (move.value < triad_there) {
      move.value = std::min(measured, triad_there);
      move.bound = fmt::format(", not below the triad's {:.1f} GB/s there", triad_there / 1e9);
    }
  }
  return move;
}

double PointToPoint::seconds(double bytes) const {
  if (segments.empty()) throw input_error("point_to_point", "has no segments");
  const HockneySegment* best = &segments.front();
  for (const HockneySegment& segment : segments) {
    if (bytes >= segment.from_bytes) best = &segment;
  }
  return best->t0.value + bytes / best->r_inf.value;
}

std::optional<double> PairClass::transfer_rate(double latency_seconds,
                                               double bytes_per_second) const {
  if (!(bytes_per_second > 0)) return std::nullopt;
  const double transfer = bandwidth_bytes / bytes_per_second - latency_seconds;
  if (!(transfer > 0)) return std::nullopt;
  return bandwidth_bytes / transfer;
}

const PairClass* PointToPoint::pair_class(std::string_view placement) const {
  for (const PairClass& c : pair_classes) {
    if (c.placement == placement) return &c;
  }
  return nullptr;
}

namespace {

// A form's value with every term at the low end of its interval and at the high end (a term
// without an interval at its coefficient both times); false when no term has an interval.
bool form_ends(const Formula& f, double n, double scale, double& low, double& high, double& level) {
  bool any = false;
  for (const Term& term : f.terms) {
    const double basis = basis_value(term.basis, n, term.exponent) * scale;
    if (term.interval) {
      any = true;
      level = std::min(level, term.interval->level);
      low += term.interval->low * basis;
      high += term.interval->high * basis;
    } else {
      low += term.coefficient * basis;
      high += term.coefficient * basis;
    }
  }
  return any;
}

// The straight line through (x0, y0) and (x1, y1) at x.
double line_at(double x0, double y0, double x1, double y1, double x) {
  return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
}

// An interval from the two ends a line gives, never below 0 and always holding `value`.
Interval range_around(double value, double a, double b, double level) {
  return Interval{std::max(0.0, std::min({a, b, value})), std::max({a, b, value}), level};
}

}  // namespace

namespace {

// The measured points at exactly n, interpolated piecewise-linearly in m (below the smallest size
// its time, above the largest extrapolated from the last two); nullopt where none was measured.
std::optional<CollectiveEstimate> measured_at(const std::vector<CollectiveMeasurement>& measured,
                                              double n, double bytes) {
  std::vector<const CollectiveMeasurement*> points;
  for (const CollectiveMeasurement& m : measured) {
    if (static_cast<double>(m.ranks) == n) points.push_back(&m);
  }
  if (points.empty()) return std::nullopt;
  std::stable_sort(points.begin(), points.end(),
                   [](const auto* a, const auto* b) { return a->bytes < b->bytes; });
  points.erase(std::unique(points.begin(), points.end(),
                           [](const auto* a, const auto* b) { return a->bytes == b->bytes; }),
               points.end());
  const auto at_point = [&](const CollectiveMeasurement& m, std::string how) {
    return CollectiveEstimate{m.time.value, m.time.interval, std::move(how), std::nullopt, false};
  };
  const CollectiveMeasurement& first = *points.front();
  const CollectiveMeasurement& last = *points.back();
  for (const CollectiveMeasurement* m : points) {
    if (m->bytes == bytes) {
      return at_point(*m, fmt::format("measured at {} B at n = {}", m->bytes, n));
    }
  }
  if (bytes < first.bytes) {
    return at_point(first, fmt::format("below the smallest measured size {} B at n = {}: its time",
                                       first.bytes, n));
  }
  if (points.size() == 1) {
    return at_point(first, fmt::format("the only measured size {} B at n = {}: its time for every "
                                       "size",
                                       first.bytes, n));
  }
  // Piecewise-linear in m between the two nearest sizes, or on from the last two; the intervals
  // (the repetitions' ranges) go along the same lines where both points have one.
  const bool beyond = bytes > last.bytes;
  std::size_t upper = 1;
  while (!beyond && points[upper]->bytes < bytes) ++upper;
  if (beyond) upper = points.size() - 1;
  const CollectiveMeasurement& a = *points[upper - 1];
  const CollectiveMeasurement& b = *points[upper];
  CollectiveEstimate out;
  if (beyond && b.time.value < a.time.value) {
    return at_point(
        b, fmt::format("beyond the largest measured size {} B at n = {}: its time (the time fell "
                       "from {} to {} B, no slope to extrapolate)",
                       b.bytes, n, a.bytes, b.bytes));
  }
  out.seconds = line_at(a.bytes, a.time.value, b.bytes, b.time.value, bytes);
  if (a.time.interval && b.time.interval) {
    const Interval& ia = *a.time.interval;
    const Interval& ib = *b.time.interval;
    out.range = range_around(out.seconds, line_at(a.bytes, ia.low, b.bytes, ib.low, bytes),
                             line_at(a.bytes, ia.high, b.bytes, ib.high, bytes),
                             std::min(ia.level, ib.level));
  }
  out.how = beyond ? fmt::format(
                         "extrapolated beyond the largest measured size {} B at n = {} "
                         "from sizes {} and {} B",
                         b.bytes, n, a.bytes, b.bytes)
                   : fmt::format("interpolated between measured sizes {} and {} B at n = {}",
                                 a.bytes, b.bytes, n);
  return out;
}

}  // namespace

CollectiveEstimate Collective::estimate(double n, double bytes) const {
  if (!(n >= 1) || !std::isfinite(n)) {
    throw input_error("collective", fmt::format("n = {}: a communicator has one rank or more", n));
  }
  if (!(bytes >= 0) || !std::isfinite(bytes)) {
    throw input_error("collective", fmt::format("m = {} B: a message has 0 bytes or more", bytes));
  }
  // A communicator of one rank moves nothing: whatever the form says at n = 1 is no time.
  if (n == 1) return {0.0, std::nullopt, "one process: no communication", std::nullopt, false};
  // A point measured at this n beats a form fitted through all n: the form smooths over the steps
  // a hierarchical network puts in n (a ring of more ranks than a leaf switch holds crosses it).
  if (std::optional<CollectiveEstimate> at_n = measured_at(measurements, n, bytes)) return *at_n;
  std::set<std::uint64_t> measured_ranks;
  for (const CollectiveMeasurement& m : measurements) measured_ranks.insert(m.ranks);
  if (has_forms()) {
    const auto form = [&](double at) {
      double value = t0(at);
      if (seconds_per_byte) value += (*seconds_per_byte)(at)*bytes;
      return value;
    };
    CollectiveEstimate out;
    out.seconds = form(n);
    out.how = "form in n";
    out.from_form = true;
    double low = 0, high = 0, level = 1;
    bool any = form_ends(t0, n, 1.0, low, high, level);
    if (seconds_per_byte) any = form_ends(*seconds_per_byte, n, bytes, low, high, level) || any;
    if (any) out.range = range_around(out.seconds, low, high, level);
    // Beyond the largest measured communicator the form gives the growth and the measurement
    // there the level: T(n) = T_measured(N) form(n) / form(N). A form that misses the level at N
    // (a step the network put below N) would carry its miss on to every larger n.
    const double largest =
        measured_ranks.empty() ? 0 : static_cast<double>(*measured_ranks.rbegin());
    if (largest >= 2 && n > largest && form(largest) > 0 && out.seconds > 0) {
      const std::optional<CollectiveEstimate> at_largest =
          measured_at(measurements, largest, bytes);
      if (at_largest && at_largest->seconds > 0) {
        const double growth = out.seconds / form(largest);
        CollectiveEstimate anchored;
        anchored.seconds = at_largest->seconds * growth;
        if (at_largest->range) {
          anchored.range = Interval{at_largest->range->low * growth,
                                    at_largest->range->high * growth, at_largest->range->level};
        }
        anchored.extrapolated_from = static_cast<std::uint64_t>(largest);
        anchored.how = fmt::format(
            "extrapolated from the measured n = {:.0f} by the form's growth x{:.3g} (at n = "
            "{:.0f}, "
            "{})",
            largest, growth, largest, at_largest->how);
        return anchored;
      }
    }
    return out;
  }
  throw input_error(
      "collective",
      measured_ranks.empty()
          ? std::string("no form in n was fitted and no point was measured")
          : fmt::format("no form in n was fitted (that needs four communicator sizes) and it was "
                        "measured on communicators of {} rank(s) only; no estimate at n = {}",
                        fmt::join(measured_ranks, ", "), n));
}

double Collective::seconds(double n, double bytes) const { return estimate(n, bytes).seconds; }

const std::vector<std::string>& known_count_terms() {
  static const std::vector<std::string> terms = {"accesses",   "l1_misses",     "l2_misses",
                                                 "llc_misses", "l1_writebacks", "llc_writebacks"};
  return terms;
}

namespace {

std::string key_list(const std::vector<std::string>& keys) {
  return keys.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(keys, ", "));
}

}  // namespace

const Collective& require_collective(const Profile& profile, const std::string& operation,
                                     const std::string& where) {
  const auto it = profile.collectives.find(operation);
  if (it != profile.collectives.end()) return it->second;
  std::vector<std::string> present;
  for (const auto& [name, collective] : profile.collectives) present.push_back(name);
  // The halo step joined the suite after the others: an older profile lacks it alone.
  const std::string hint = operation == "halo"
                               ? " (profiles made before the halo step was measured lack it: "
                                 "characterize again, or write the step as two shifts)"
                               : "";
  throw input_error(where, fmt::format("collectives.{}: absent; the profile has {}{}", operation,
                                       key_list(present), hint));
}

const PointToPoint& require_point_to_point(const Profile& profile, const std::string& where) {
  if (!profile.point_to_point || profile.point_to_point->segments.empty()) {
    throw input_error(where,
                      "point_to_point.segments: absent; the profile has no Hockney fit "
                      "(characterize with --mpi)");
  }
  return *profile.point_to_point;
}

const Quantity* peak_flops(const Profile& profile) {
  if (profile.compute.peak_flops_per_core) return &*profile.compute.peak_flops_per_core;
  if (profile.compute.peak_flops_per_node) return &*profile.compute.peak_flops_per_node;
  return nullptr;
}

std::optional<double> sccr(const Profile& profile) {
  const Quantity* peak = peak_flops(profile);
  if (!peak || !profile.point_to_point || profile.point_to_point->segments.empty()) {
    return std::nullopt;
  }
  return peak->value * profile.point_to_point->seconds(0);
}

const Quantity& require_peak_flops(const Profile& profile, const std::string& where) {
  if (const Quantity* peak = peak_flops(profile)) return *peak;
  throw input_error(where, "compute.peak_flops_per_core: absent, and so is peak_flops_per_node");
}

}  // namespace sonde::profile
