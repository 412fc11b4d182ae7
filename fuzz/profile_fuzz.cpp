// Fuzzes the profile reader (profile/profile_yaml.cpp, parse_profile): the input is a profile
// file's text. A profile it accepts keeps the schema's promises (docs/formats.md, "Machine
// profiles"): every quantity finite and not negative, intervals in order, every form finite and
// not negative where predictions use it (n = 2 to 2^20), segments in order; and it re-validates:
// written by to_yaml and read again, it is the same profile.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "profile/profile.hpp"

namespace {

using namespace sonde::profile;
constexpr const char* kFile = "fuzz.yaml";

void check_interval(const std::optional<Interval>& interval, const std::string& path) {
  if (!interval) return;
  SONDE_FUZZ_CHECK(std::isfinite(interval->low) && std::isfinite(interval->high) &&
                       interval->low <= interval->high,
                   "{}: interval [{}, {}] accepted", path, interval->low, interval->high);
  SONDE_FUZZ_CHECK(interval->level > 0 && interval->level <= 1, "{}: level {} accepted", path,
                   interval->level);
}

void check_quantity(const Quantity& q, const std::string& path) {
  SONDE_FUZZ_CHECK(sonde::fuzz::finite_at_least(q.value, 0), "{}: value {} accepted", path,
                   q.value);
  check_interval(q.interval, path + ".interval");
  if (q.quality) {
    SONDE_FUZZ_CHECK(sonde::fuzz::finite_at_least(q.quality->mean_relative_error, 0) &&
                         sonde::fuzz::finite_at_least(q.quality->max_relative_error, 0),
                     "{}: quality {} {} accepted", path, q.quality->mean_relative_error,
                     q.quality->max_relative_error);
  }
}

void check_quantity(const std::optional<Quantity>& q, const std::string& path) {
  if (q) check_quantity(*q, path);
}

void check_formula(const Formula& f, const std::string& path) {
  SONDE_FUZZ_CHECK(!f.terms.empty(), "{}: a form without terms accepted", path);
  for (const Term& term : f.terms) check_interval(term.interval, path + ".terms[].interval");
  for (double n = 2; n <= 1048576; n *= 2) {
    const double value = f(n);
    SONDE_FUZZ_CHECK(sonde::fuzz::finite_at_least(value, 0), "{}: the form {} is {} at n = {}",
                     path, f.text(), value, n);
  }
}

void check_profile(const Profile& p) {
  check_quantity(p.machine.clock, "machine.clock");
  check_quantity(p.compute.peak_flops_per_core, "compute.peak_flops_per_core");
  check_quantity(p.compute.peak_flops_per_node, "compute.peak_flops_per_node");
  for (const auto& [name, q] : p.compute.kernels) check_quantity(q, "compute.kernels." + name);
  for (const MemoryLevel& level : p.memory) {
    check_quantity(level.detected_capacity, "memory." + level.name + ".detected_capacity");
    check_quantity(level.latency, "memory." + level.name + ".latency");
    for (const auto& [name, q] : level.bandwidth) check_quantity(q, "memory.bandwidth." + name);
  }
  for (const ColumnWalkPoint& point : p.column_walk) {
    check_quantity(point.seconds, "column_walk[].seconds");
    SONDE_FUZZ_CHECK(point.threads >= 1 && point.working_set_bytes > 0 && point.seconds.value > 0,
                     "column_walk: {} thread(s), {} B, {} s accepted", point.threads,
                     point.working_set_bytes, point.seconds.value);
  }
  for (const LineGatherPoint& point : p.line_gather) {
    check_quantity(point.seconds, "line_gather[].seconds");
    SONDE_FUZZ_CHECK(point.threads >= 1 && point.span_bytes > 0 && point.seconds.value > 0,
                     "line_gather: {} thread(s), span {} B, {} s accepted", point.threads,
                     point.span_bytes, point.seconds.value);
  }
  for (const RandomChasePoint& point : p.random_chase) {
    check_quantity(point.seconds, "random_chase[].seconds");
    SONDE_FUZZ_CHECK(point.threads >= 1 && point.working_set_bytes > 0 && point.seconds.value > 0,
                     "random_chase: {} thread(s), {} B, {} s accepted", point.threads,
                     point.working_set_bytes, point.seconds.value);
  }
  for (const DramBandwidthPoint& point : p.dram_bandwidth) {
    check_quantity(point.bytes_per_second, "dram_bandwidth[].bytes_per_second");
    SONDE_FUZZ_CHECK(
        point.threads >= 1 && point.working_set_bytes > 0 && point.bytes_per_second.value > 0,
        "dram_bandwidth: {} thread(s), {} B, {} B/s accepted", point.threads,
        point.working_set_bytes, point.bytes_per_second.value);
  }
  if (p.contention) {
    for (const auto* bsp : {&p.contention->qsm, &p.contention->ebsp, &p.contention->dxbsp}) {
      if (!*bsp) continue;
      for (const Quantity* q : {&(*bsp)->g1_min, &(*bsp)->g1_max, &(*bsp)->g2_min, &(*bsp)->g2_max})
        check_quantity(*q, "contention.bsp");
    }
    for (const auto* weights : {&p.contention->f1, &p.contention->f2, &p.contention->f3}) {
      if (!*weights) continue;
      for (const auto& [name, q] : **weights) check_quantity(q, "contention.f." + name);
    }
    if (p.contention->banks) SONDE_FUZZ_CHECK(*p.contention->banks >= 1, "no banks accepted");
  }
  for (const auto& [name, q] : p.overheads.operations) check_quantity(q, "overheads." + name);
  for (const auto& [name, f] : p.overheads.forms) check_formula(f, "overheads.forms." + name);
  if (p.point_to_point) {
    double previous_end = 0;
    for (const HockneySegment& s : p.point_to_point->segments) {
      SONDE_FUZZ_CHECK(s.from_bytes >= previous_end && s.to_bytes >= s.from_bytes,
                       "segments out of order: [{}, {}] after {}", s.from_bytes, s.to_bytes,
                       previous_end);
      previous_end = s.to_bytes;
      check_quantity(s.t0, "point_to_point.t0");
      check_quantity(s.r_inf, "point_to_point.r_inf");
      SONDE_FUZZ_CHECK(s.r_inf.value > 0, "r_inf {} accepted", s.r_inf.value);
    }
    for (const PointToPointMeasurement& m : p.point_to_point->measurements) {
      SONDE_FUZZ_CHECK(sonde::fuzz::finite_at_least(m.bytes, 0), "{} bytes accepted", m.bytes);
      check_quantity(m.time, "point_to_point.measurements.time");
    }
    for (double bytes : {0.0, 1.0, 1024.0, 1048576.0}) {
      const double t = p.point_to_point->seconds(bytes);
      SONDE_FUZZ_CHECK(sonde::fuzz::finite_at_least(t, 0), "point to point: {} s for {} B", t,
                       bytes);
    }
  }
  for (const auto& [name, c] : p.collectives) {
    check_formula(c.t0, "collectives." + name + ".t0");
    if (c.seconds_per_byte) check_formula(*c.seconds_per_byte, "collectives." + name + ".s/B");
    if (c.message_bytes) {
      SONDE_FUZZ_CHECK(sonde::fuzz::finite_at_least(*c.message_bytes, 0), "message_bytes {}",
                       *c.message_bytes);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = sonde::fuzz::text_of(data, size);
  Profile profile;
  try {
    profile = parse_profile(text, kFile);
  } catch (const sonde::Error& e) {
    sonde::fuzz::check_refusal(e, kFile, sonde::ExitCode::bad_input);
    return 0;
  }
  check_profile(profile);
  // Written and read back: the same profile (what write_profile relies on).
  std::string written;
  try {
    written = to_yaml(profile);
  } catch (const sonde::Error& e) {
    sonde::fuzz::broken(fmt::format("an accepted profile cannot be written: {}", e.what()));
  }
  Profile again;
  try {
    again = parse_profile(written, "written.yaml");
  } catch (const sonde::Error& e) {
    sonde::fuzz::broken(
        fmt::format("an accepted profile, written, is refused: {}\n{}", e.what(), written));
  }
  SONDE_FUZZ_CHECK(again == profile, "an accepted profile, written and read, differs:\n{}",
                   written);
  return 0;
}
