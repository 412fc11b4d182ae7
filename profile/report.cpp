#include "profile/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "core/units.hpp"

namespace sonde::profile {

std::string format_value(double value, const std::string& unit) {
  if (unit == "s") return format_seconds(value);
  if (unit == "B") return format_bytes(value);
  if (unit == "B/s") return format_bytes_per_second(value);
  if (unit == "Hz") return format_hertz(value);
  if (unit == "flop/s") return format_si(value, "flop/s");
  if (unit == "s/B") return fmt::format("{:.3g} us/B", value * 1e6);
  return fmt::format("{:.3g}", value);
}

namespace {

std::string origin_and_sources(const Quantity& q) {
  std::string out = to_string(q.origin);
  if (q.quality) {
    out += fmt::format(", fit error mean {:.1f}% max {:.1f}% over {}",
                       100 * q.quality->mean_relative_error, 100 * q.quality->max_relative_error,
                       q.quality->points);
  }
  if (!q.sources.empty()) {
    out += "; from " + q.sources.front();
    if (q.sources.size() > 1) out += fmt::format(" and {} more", q.sources.size() - 1);
  }
  return out;
}

void line(std::string& out, const std::string& label, const Quantity& q) {
  out += fmt::format("  {:<28} {:>14}", label, format_quantity(q));
  out += "   " + origin_and_sources(q) + "\n";
}

}  // namespace

// "(52 log n) + (0.029 log n) m", Xu and Hwang's (1995) Table 5 in microseconds.
std::string format_collective(const Collective& c) {
  if (!c.has_forms()) {
    // Measured points only: where they are, by communicator size.
    std::map<std::uint64_t, std::pair<double, double>> sizes;  // n: smallest and largest m
    std::map<std::uint64_t, std::size_t> counts;
    for (const CollectiveMeasurement& m : c.measurements) {
      auto [it, fresh] = sizes.try_emplace(m.ranks, m.bytes, m.bytes);
      it->second.first = std::min(it->second.first, m.bytes);
      it->second.second = std::max(it->second.second, m.bytes);
      ++counts[m.ranks];
    }
    std::vector<std::string> parts;
    for (const auto& [n, range] : sizes) {
      parts.push_back(range.first == range.second
                          ? fmt::format("n = {}: m = {}", n, format_bytes(range.first))
                          : fmt::format("n = {}: {} sizes, m = {} .. {}", n, counts[n],
                                        format_bytes(range.first), format_bytes(range.second)));
    }
    return fmt::format("no form in n; measured points only ({})", fmt::join(parts, "; "));
  }
  if (!c.seconds_per_byte) return c.t0.text(1e6);
  return fmt::format("({}) + ({}) m", c.t0.text(1e6), c.seconds_per_byte->text(1e6));
}

namespace {

Quantity plain(double value, const std::string& unit) {
  Quantity out;
  out.value = value;
  out.unit = unit;
  return out;
}

}  // namespace

std::string format_quantity(const Quantity& q) {
  std::string out = format_value(q.value, q.unit);
  if (q.interval && q.interval->high > q.interval->low) {
    out += fmt::format(" [{} .. {}]", format_value(q.interval->low, q.unit),
                       format_value(q.interval->high, q.unit));
  }
  return out;
}

std::string format_profile(const Profile& p) {
  std::string out;
  out += fmt::format("{}", p.machine.name);
  if (!p.machine.description.empty()) out += ": " + p.machine.description;
  out += "\n";
  if (p.provenance.origin == Origin::transcribed) {
    out += "  transcribed from " + p.provenance.citation + "\n";
  } else {
    out += fmt::format("  measured by sonde {} on {} ({}), {}\n", p.provenance.sonde_version,
                       p.provenance.host, p.provenance.cpu_model, p.provenance.date);
    if (!p.provenance.topology.empty()) out += "  topology: " + p.provenance.topology + "\n";
    if (!p.provenance.mpi_library.empty()) out += "  MPI: " + p.provenance.mpi_library + "\n";
    if (!p.provenance.results.empty()) {
      out += fmt::format("  raw results: {} (sha256 {})\n", p.provenance.results,
                         p.provenance.results_digest.substr(0, 16));
    }
    for (const std::string& part : p.provenance.unfinished_parts) {
      out += "  from an interrupted part: " + part + "\n";
    }
  }
  if (p.machine.nodes || p.machine.cores_per_node) {
    out += fmt::format("  nodes: {}, cores per node: {}\n",
                       p.machine.nodes ? std::to_string(*p.machine.nodes) : "?",
                       p.machine.cores_per_node ? std::to_string(*p.machine.cores_per_node) : "?");
  }
  if (p.machine.clock) line(out, "clock", *p.machine.clock);

  const Compute& c = p.compute;
  if (c.peak_flops_per_core || c.peak_flops_per_node || !c.kernels.empty() ||
      c.shared_ports_exponent) {
    out += "\nCompute\n";
    if (c.peak_flops_per_core) line(out, "peak per core", *c.peak_flops_per_core);
    if (c.peak_flops_per_node) line(out, "peak per node", *c.peak_flops_per_node);
    for (const auto& [name, q] : c.kernels) line(out, "kernel " + name, q);
    if (c.shared_ports_exponent) {
      line(out, "shared L1 ports exponent", *c.shared_ports_exponent);
    }
  }

  if (!p.memory.empty()) {
    out += "\nMemory levels\n";
    for (const MemoryLevel& level : p.memory) {
      out += fmt::format("  {}", level.name);
      if (level.capacity_bytes) {
        out += fmt::format(" {}", format_bytes(static_cast<double>(*level.capacity_bytes)));
      }
      if (level.line_bytes) out += fmt::format(", {} B lines", *level.line_bytes);
      out += "\n";
      if (level.detected_capacity) line(out, "  capacity seen", *level.detected_capacity);
      if (level.latency) line(out, "  latency", *level.latency);
      for (const auto& [name, q] : level.bandwidth) line(out, "  bandwidth " + name, q);
    }
  }
  if (!p.column_walk.empty()) {
    out += "\nColumn walk (a load down a column, rows of several pages; per thread's matrix)\n";
    for (const ColumnWalkPoint& point : p.column_walk) {
      line(out,
           fmt::format("{} thread(s), {}", point.threads,
                       format_bytes(static_cast<double>(point.working_set_bytes))),
           point.seconds);
    }
  }
  if (!p.line_gather.empty()) {
    out += "\nLine gather (a line read in random order within its span, from memory; per thread)\n";
    for (const LineGatherPoint& point : p.line_gather) {
      line(out,
           fmt::format("{}, {} thread(s), span {}", point.shape, point.threads,
                       format_bytes(static_cast<double>(point.span_bytes))),
           point.seconds);
    }
  }
  if (!p.random_chase.empty()) {
    out += "\nRandom chase (a dependent load, one line each, per thread's chain)\n";
    for (const RandomChasePoint& point : p.random_chase) {
      line(out,
           fmt::format("{} thread(s), {}", point.threads,
                       format_bytes(static_cast<double>(point.working_set_bytes))),
           point.seconds);
    }
  }

  if (!p.dram_bandwidth.empty()) {
    out += "\nDRAM bandwidth by working set (all threads together)\n";
    for (const DramBandwidthPoint& point : p.dram_bandwidth) {
      line(out,
           fmt::format("{}/{}, {}", point.kernel, point.threads,
                       format_bytes(static_cast<double>(point.working_set_bytes))),
           point.bytes_per_second);
    }
  }

  if (!p.cache_edges.empty()) {
    out += "\nBandwidth where a working set outgrows a cache (all threads together)\n";
    for (const CacheEdgePoint& point : p.cache_edges) {
      line(out,
           fmt::format("{} to {}: {}/{}, {}", point.level, point.next, point.kernel, point.threads,
                       format_bytes(static_cast<double>(point.working_set_bytes))),
           point.bytes_per_second);
    }
  }

  if (!p.usual_state.empty()) {
    out +=
        "\nThe run's usual memory state, as its probes read it (DRAM triad, all threads "
        "together)\n";
    for (const UsualState& state : p.usual_state) {
      line(out,
           fmt::format("{} {}, {}", state.threads, state.threads == 1 ? "core" : "cores at once",
                       format_bytes(static_cast<double>(state.triad_bytes))),
           state.dram_triad);
    }
  }

  if (p.contention) {
    const Contention& k = *p.contention;
    out += "\nContention (Amato et al. (1999), section 4; per access)\n";
    const auto bsp = [&](const char* name, const char* term2,
                         const std::optional<BspParameters>& b) {
      if (!b) return;
      out += fmt::format("  {}.MIN = max{{{} H, {} {}}}\n", name, format_seconds(b->g1_min.value),
                         format_seconds(b->g2_min.value), term2);
      out += fmt::format("  {}.MAX = max{{{} H, {} {}}}\n", name, format_seconds(b->g1_max.value),
                         format_seconds(b->g2_max.value), term2);
    };
    bsp("QSM", "K", k.qsm);
    bsp("EBSP", "M/p", k.ebsp);
    bsp("DXBSP", "M_b", k.dxbsp);
    for (const auto& [name, weights] : {std::pair{"F1", &k.f1}, {"F2", &k.f2}, {"F3", &k.f3}}) {
      if (!*weights) continue;
      std::vector<std::string>
          terms;  // in Amato et al.'s (1999) order: accesses, then down the hierarchy
      for (const std::string& count : known_count_terms()) {
        const auto it = (*weights)->find(count);
        if (it != (*weights)->end()) {
          terms.push_back(fmt::format("{} {}", format_seconds(it->second.value), count));
        }
      }
      out += fmt::format("  {} = {}\n", name, fmt::join(terms, " + "));
    }
    if (k.counts == "transcribed") {
      out += "  F weights as the paper fitted them on the machine's hardware counters\n";
    } else if (k.f1 || k.f2 || k.f3) {
      out += "  F weights fitted on " + k.counts +
             (k.counts == "papi" ? " (measured) counts\n" : " counts (no hardware counters)\n");
    }
  }

  if (!p.overheads.operations.empty() || !p.overheads.forms.empty()) {
    out += "\nOverheads\n";
    for (const auto& [name, q] : p.overheads.operations) line(out, name, q);
    for (const auto& [name, f] : p.overheads.forms) {
      out += fmt::format("  {:<28} {} us\n", name, f.text(1e6));
    }
  }

  if (p.point_to_point) {
    const PointToPoint& pp = *p.point_to_point;
    out += "\nPoint-to-point (Hockney, Xu and Hwang (1995) Eq. 5: t = t0 + m / r_inf)\n";
    out += fmt::format("  {:<22} {:>10} {:>14} {:>12}  {}\n", "messages", "t0", "r_inf", "m_1/2",
                       "t in us, m in bytes");
    for (const HockneySegment& s : pp.segments) {
      const std::string range =
          pp.segments.size() == 1 ? std::string("all sizes")
          : std::isfinite(s.to_bytes)
              ? fmt::format("{} .. {}", format_bytes(s.from_bytes), format_bytes(s.to_bytes))
              : fmt::format("{} and more", format_bytes(s.from_bytes));
      out += fmt::format("  {:<22} {:>10} {:>14} {:>12}  t = {:.3g} + {:.3g} m\n", range,
                         format_seconds(s.t0.value), format_bytes_per_second(s.r_inf.value),
                         format_bytes(s.t0.value * s.r_inf.value), s.t0.value * 1e6,
                         1e6 / s.r_inf.value);
    }
    out += "  (m_1/2 = t0 r_inf is derived)\n";
    if (const auto ratio = sccr(p)) {
      out +=
          fmt::format("  SCCR = P_peak t0 = {:.0f} flops per 0-byte message (derived)\n", *ratio);
    }
    if (pp.quality) {
      out += fmt::format("  fit error mean {:.1f}% max {:.1f}% over {} sizes\n",
                         100 * pp.quality->mean_relative_error,
                         100 * pp.quality->max_relative_error, pp.quality->points);
    }
  }

  if (!p.collectives.empty()) {
    out += "\nCollectives (Xu and Hwang (1995) Tables 5 and 6; t in us, m in bytes, n nodes)\n";
    for (const auto& [name, collective] : p.collectives) {
      out += fmt::format("  {:<16} {}", name, format_collective(collective));
      if (!collective.ranks.empty()) {
        out += fmt::format("   (n = {})", fmt::join(collective.ranks, ", "));
      }
      out += "\n";
      if (collective.ranks_and_bytes) {
        const TwoParameterFormula& f = *collective.ranks_and_bytes;
        out += fmt::format("  {:<16} in n and m at once: {}", "", f.text(1e6));
        if (f.quality) {
          out += fmt::format("   ({} points, mean error {:.1f}%)", f.quality->points,
                             100 * f.quality->mean_relative_error);
        }
        out += "\n";
      }
    }
  }
  if (!p.not_fitted.empty()) {
    out += "\nNot fitted\n";
    for (const std::string& why : p.not_fitted) out += "  " + why + "\n";
  }
  return out;
}

void validate_profiles(const std::vector<std::string>& paths, std::ostream& out) {
  for (const std::string& path : paths) {
    const Profile profile = read_profile(path);
    out << fmt::format("{}: valid sonde profile version {} ({})\n", path, profile.version,
                       profile.machine.name);
  }
}

std::string compare_profiles(const Profile& a, const Profile& b) {
  std::string out =
      fmt::format("{:<34} {:>16} {:>16} {:>8}\n", "", a.machine.name, b.machine.name, "b / a");
  std::vector<std::string> only_a, only_b;
  const auto row = [&](const std::string& label, const Quantity* x, const Quantity* y) {
    if (x && y) {
      const std::string ratio = x->value > 0 ? fmt::format("{:.3g}", y->value / x->value) : "-";
      out += fmt::format("{:<34} {:>16} {:>16} {:>8}\n", label, format_value(x->value, x->unit),
                         format_value(y->value, y->unit), ratio);
    } else if (x) {
      only_a.push_back(label);
    } else if (y) {
      only_b.push_back(label);
    }
  };
  const auto opt = [](const std::optional<Quantity>& q) { return q ? &*q : nullptr; };
  const auto in = [](const std::map<std::string, Quantity>& m, const std::string& key) {
    const auto it = m.find(key);
    return it == m.end() ? nullptr : &it->second;
  };
  const auto keys = [](const std::map<std::string, Quantity>& x,
                       const std::map<std::string, Quantity>& y) {
    std::vector<std::string> all;
    for (const auto& [k, v] : x) all.push_back(k);
    for (const auto& [k, v] : y)
      if (!x.count(k)) all.push_back(k);
    return all;
  };

  row("clock", opt(a.machine.clock), opt(b.machine.clock));
  row("peak per core", opt(a.compute.peak_flops_per_core), opt(b.compute.peak_flops_per_core));
  row("peak per node", opt(a.compute.peak_flops_per_node), opt(b.compute.peak_flops_per_node));
  for (const std::string& k : keys(a.compute.kernels, b.compute.kernels)) {
    row("kernel " + k, in(a.compute.kernels, k), in(b.compute.kernels, k));
  }
  row("shared L1 ports exponent", opt(a.compute.shared_ports_exponent),
      opt(b.compute.shared_ports_exponent));
  // Memory levels by position from the core outwards and DRAM by name: an L2 of one machine and
  // an L2 of another are the same kind of thing.
  const auto level = [](const Profile& p, const std::string& name) -> const MemoryLevel* {
    for (const MemoryLevel& l : p.memory)
      if (l.name == name) return &l;
    return nullptr;
  };
  std::vector<std::string> level_names;
  for (const auto* p : {&a, &b}) {
    for (const MemoryLevel& l : p->memory) {
      if (std::find(level_names.begin(), level_names.end(), l.name) == level_names.end()) {
        level_names.push_back(l.name);
      }
    }
  }
  for (const std::string& name : level_names) {
    const MemoryLevel* x = level(a, name);
    const MemoryLevel* y = level(b, name);
    Quantity cx, cy;
    if (x && x->capacity_bytes) cx = plain(static_cast<double>(*x->capacity_bytes), "B");
    if (y && y->capacity_bytes) cy = plain(static_cast<double>(*y->capacity_bytes), "B");
    row(name + " capacity", x && x->capacity_bytes ? &cx : nullptr,
        y && y->capacity_bytes ? &cy : nullptr);
    row(name + " latency", x ? opt(x->latency) : nullptr, y ? opt(y->latency) : nullptr);
  }
  if (a.contention || b.contention) {
    const Contention none;
    const Contention& x = a.contention ? *a.contention : none;
    const Contention& y = b.contention ? *b.contention : none;
    for (const auto& [name, bx, by] : {std::tuple{"QSM", &x.qsm, &y.qsm},
                                       {"EBSP", &x.ebsp, &y.ebsp},
                                       {"DXBSP", &x.dxbsp, &y.dxbsp}}) {
      const std::string n = name;
      row(n + " g1 min", *bx ? &(*bx)->g1_min : nullptr, *by ? &(*by)->g1_min : nullptr);
      row(n + " g1 max", *bx ? &(*bx)->g1_max : nullptr, *by ? &(*by)->g1_max : nullptr);
      row(n + " g2 min", *bx ? &(*bx)->g2_min : nullptr, *by ? &(*by)->g2_min : nullptr);
      row(n + " g2 max", *bx ? &(*bx)->g2_max : nullptr, *by ? &(*by)->g2_max : nullptr);
    }
    for (const auto& [name, fx, fy] :
         {std::tuple{"F1", &x.f1, &y.f1}, {"F2", &x.f2, &y.f2}, {"F3", &x.f3, &y.f3}}) {
      const CounterWeights empty;
      const CounterWeights& wx = *fx ? **fx : empty;
      const CounterWeights& wy = *fy ? **fy : empty;
      for (const std::string& k : keys(wx, wy)) {
        row(std::string(name) + " " + k, in(wx, k), in(wy, k));
      }
    }
  }
  for (const std::string& k : keys(a.overheads.operations, b.overheads.operations)) {
    row(k, in(a.overheads.operations, k), in(b.overheads.operations, k));
  }
  const auto sccr_of = [](const Profile& p) -> std::optional<Quantity> {
    const auto ratio = sccr(p);
    return ratio ? std::optional<Quantity>(plain(*ratio, "1")) : std::nullopt;
  };
  const auto sccr_a = sccr_of(a), sccr_b = sccr_of(b);
  row("SCCR = P_peak t0 (derived)", opt(sccr_a), opt(sccr_b));
  // Point-to-point and collectives at a few sizes, each from its own formula.
  Quantity px, py;
  for (double bytes : {0.0, 1024.0, 65536.0, 4194304.0}) {
    const bool hx = a.point_to_point && !a.point_to_point->segments.empty();
    const bool hy = b.point_to_point && !b.point_to_point->segments.empty();
    if (hx) px = plain(a.point_to_point->seconds(bytes), "s");
    if (hy) py = plain(b.point_to_point->seconds(bytes), "s");
    row("point-to-point " + format_bytes(bytes), hx ? &px : nullptr, hy ? &py : nullptr);
  }
  std::vector<std::string> operations;
  for (const auto& [name, c] : a.collectives) operations.push_back(name);
  for (const auto& [name, c] : b.collectives)
    if (!a.collectives.count(name)) operations.push_back(name);
  for (const std::string& op : operations) {
    const auto ix = a.collectives.find(op);
    const auto iy = b.collectives.find(op);
    for (double n : {2.0, 64.0}) {
      const double bytes = 1024;
      Quantity cx, cy;
      // A profile without a form in n has a value only where it measured this n.
      const auto estimate = [&](const Collective& c, Quantity& q) {
        try {
          q = plain(c.estimate(n, bytes).seconds, "s");
          return true;
        } catch (const Error&) {
          return false;
        }
      };
      const bool hx = ix != a.collectives.end() && estimate(ix->second, cx);
      const bool hy = iy != b.collectives.end() && estimate(iy->second, cy);
      const auto sized = [&](const auto& it, bool has) {
        return has &&
               (it->second.seconds_per_byte || (!it->second.has_forms() && it->first != "barrier"));
      };
      row(fmt::format("{} n={:.0f}{}", op, n, sized(ix, hx) || sized(iy, hy) ? " m=1 KiB" : ""),
          hx ? &cx : nullptr, hy ? &cy : nullptr);
    }
  }
  if (!only_a.empty())
    out += fmt::format("\nonly {}: {}\n", a.machine.name, fmt::join(only_a, ", "));
  if (!only_b.empty())
    out += fmt::format("\nonly {}: {}\n", b.machine.name, fmt::join(only_b, ", "));
  out +=
      "\nCollectives at n = 64 use each profile's fitted form in n; where a profile was fitted on\n"
      "fewer ranks (see its collectives' n), that value is extrapolated. A profile without a form\n"
      "in n has values only at the communicator sizes it measured.\n";
  return out;
}

}  // namespace sonde::profile
