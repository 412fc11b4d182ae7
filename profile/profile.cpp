#include "profile/profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

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

double PointToPoint::seconds(double bytes) const {
  if (segments.empty()) throw input_error("point_to_point", "has no segments");
  const HockneySegment* best = &segments.front();
  for (const HockneySegment& segment : segments) {
    if (bytes >= segment.from_bytes) best = &segment;
  }
  return best->t0.value + bytes / best->r_inf.value;
}

double Collective::seconds(double n, double bytes) const {
  double t = t0(n);
  if (seconds_per_byte) t += (*seconds_per_byte)(n)*bytes;
  return t;
}

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
  throw input_error(where, fmt::format("collectives.{}: absent; the profile has {}", operation,
                                       key_list(present)));
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
